"""A typed move or two per game, for the /help texts (the terminal's and the chats'): each example is in the notation
of the game at the table (bot/rules/*.md, ../NOTATION.md), so that Konkan's help never shows a Kenza move.

Codes are the same in both languages, so the examples are not in the catalogs."""

from __future__ import annotations

MOVE_EXAMPLES: dict[str, tuple[str, ...]] = {
    "kenza": ("play 6O take 4C 5E",),
    "canasta": ("draw", "meld 7H 7S X", "discard 9C"),
    "konkan_cards": ("draw", "meld 7H 8H 9H", "discard KD"),
    "konkan_tiles": ("draw", "meld R9 K9 Y9", "discard B5"),
    "tunj": ("move R F1", "move H3:2 H7", "turn"),
}
DEFAULT_GAME = "kenza"


def move_examples(game: str | None) -> tuple[str, ...]:
    """The examples for `game` (Kenza's when no game is at the table, or for a game without its own)."""
    return MOVE_EXAMPLES.get(game or DEFAULT_GAME, MOVE_EXAMPLES[DEFAULT_GAME])
