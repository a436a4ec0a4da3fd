"""Card arithmetic of Tunj (rules/tunj.md, "Building"): which card may go on which pile.

Kept free of any game state so the engine, the bots and the tests judge a placement with the same code.
Piles are lists of card codes with the top (outer) card last.
"""

from __future__ import annotations

from collections.abc import Sequence

RANKS = "A23456789TJQK"
RED = frozenset("HD")
# Who starts: A beats K, K beats Q ... down to 2; on equal rank spades > hearts > diamonds > clubs.
_START_RANK = "23456789TJQKA"
_START_SUIT = "CDHS"


def rank(card: str) -> int:
    """1 for the ace up to 13 for the king."""
    return RANKS.index(card[0]) + 1


def suit(card: str) -> str:
    return card[1]


def is_red(card: str) -> bool:
    return card[1] in RED


def fits_foundation(card: str, pile: Sequence[str]) -> bool:
    """An empty foundation takes only an ace, then the same suit one rank up."""
    if not pile:
        return card[0] == "A"
    top = pile[-1]
    return top[1] == card[1] and rank(card) == rank(top) + 1


def fits_house(card: str, pile: Sequence[str]) -> bool:
    """An empty house takes any card; otherwise one rank down in the other colour."""
    if not pile:
        return True
    top = pile[-1]
    return is_red(top) != is_red(card) and rank(card) == rank(top) - 1


def fits_load(card: str, pile: Sequence[str]) -> bool:
    """Loading the opponent: same suit, exactly one rank up or down; an empty pile cannot be loaded."""
    if not pile:
        return False
    top = pile[-1]
    return top[1] == card[1] and abs(rank(card) - rank(top)) == 1


def run_length(pile: Sequence[str]) -> int:
    """How many outer cards of a house form a correct descending, alternating sequence."""
    if not pile:
        return 0
    length = 1
    for index in range(len(pile) - 1, 0, -1):
        if not fits_house(pile[index], pile[index - 1 : index]):
            break
        length += 1
    return length


def is_run(cards: Sequence[str]) -> bool:
    """Cards bottom first, each one going correctly on the one below it."""
    return all(fits_house(cards[i], cards[i - 1 : i]) for i in range(1, len(cards)))


def run_capacity(empty_houses: int) -> int:
    """[decision] Longest run movable at once with `empty_houses` spare houses (not counting the target):
    one card at a time through empty houses doubles the reach with each spare house."""
    return 1 << empty_houses


def start_strength(card: str) -> tuple[int, int]:
    """Sort key for who starts: higher is stronger."""
    return _START_RANK.index(card[0]), _START_SUIT.index(card[1])
