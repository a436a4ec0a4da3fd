"""Errors the engine raises to its callers.

The engine does no I/O and speaks no language but the contract's English (`reason`, read by the acceptance
tests). A refusal may also carry a `code` and its `params` — card codes, numbers, command words, never prose —
which the bot translates from its catalogs (`illegal.<code>`), so a player reads the refusal in their language.
The code is optional: an engine that gives none still works, and its English reason is shown as it is.
"""

from __future__ import annotations

from typing import Any


class IllegalMove(ValueError):
    """A move that cannot be played here; `reason` is short English text a player can read.

    A ValueError subclass so callers that only guard against bad input still catch it.
    """

    def __init__(self, reason: str, code: str | None = None, **params: Any) -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code
        self.params = params


class BadOption(ValueError):
    """A table option (or player count) a game cannot start with; `code`/`params` as for IllegalMove."""

    def __init__(self, reason: str, code: str | None = None, **params: Any) -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code
        self.params = params
