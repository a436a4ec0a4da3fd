"""Errors the engine raises to its callers."""


class IllegalMove(ValueError):
    """A move that cannot be played here; `reason` is short text a player can read.

    A ValueError subclass so callers that only guard against bad input still catch it.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
