"""What a bench refuses: figures from a run that did not do the work they describe (moves not applied, pictures
that do not decode, matches cut off by a move cap) are worse than none, so a bench stops with one line and exit
code 1 instead of printing them."""

from __future__ import annotations

from bot.i18n import LANGUAGES, t


class BrokenRun(Exception):
    """The run did not do what its figures would claim; the message says what went wrong, in one line."""


def played(answer: str | None) -> bool:
    """Whether a user's answer is the service's "✓ You <move>" line (in any catalog language)."""
    return bool(answer) and any(answer.startswith(t(lang, "move.done", move="")) for lang in LANGUAGES)


def refuse(error: BrokenRun) -> SystemExit:
    """The exit for a refused run: SystemExit with a message prints it to stderr and exits with code 1."""
    return SystemExit(f"bench refused the run: {error}")
