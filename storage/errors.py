"""Exceptions the service can catch by kind, without knowing anything about SQLite."""

from __future__ import annotations


class StoreError(Exception):
    """Base class for every error the storage layer raises on purpose."""


class NotFound(StoreError, LookupError):
    """The player, chat, match or seat asked for does not exist."""


class WrongStatus(StoreError):
    """The match is not in a status that allows this change (e.g. adding a seat to an active match)."""


class StaleVersion(StoreError):
    """The caller acted on an out-of-date view of the match: another move got in first, or it is no longer active.

    This is the normal outcome of a double button press or a timer racing a human move, so the service should
    drop the action quietly (perhaps re-rendering the table) rather than report a failure.
    """

    def __init__(self, match_id: int, expected: int, current: int, status: str) -> None:
        super().__init__(
            f"match {match_id}: expected version {expected}, it is at {current} and {status}"
        )
        self.match_id = match_id
        self.expected = expected
        self.current = current
        self.status = status


class TableBusy(StoreError):
    """The chat already has a table in the lobby or in play; a chat hosts one open table at a time."""

    def __init__(self, platform: str, chat_id: str, match_id: int) -> None:
        super().__init__(f"{platform} chat {chat_id} already has open match {match_id}")
        self.match_id = match_id


class TableFull(StoreError):
    """Every seat of the lobby is taken."""


class AlreadySeated(StoreError):
    """That player already holds a seat at this table."""


class SchemaTooNew(StoreError):
    """The database was written by a newer build; refusing to run rather than guess at its schema."""


class NotEnoughCoins(StoreError):
    """A coin table cannot hold every seat's stake: these players' balances are short."""

    def __init__(self, player_ids: list[int]) -> None:
        super().__init__(f"players {player_ids} cannot cover the stake")
        self.player_ids = player_ids


class DatabaseUnusable(StoreError, ValueError):
    """DATABASE_URL names a database that cannot be used: a URL that cannot be read, a server that does not answer
    or refuses, a SQLite file that is missing, read-only or damaged. Raised by `Store.open` before anything runs
    on it, so the start stops with one line instead of a traceback now or "Something went wrong" at every move
    later. `reason` is a catalog key (said in either language by whoever prints it) and `detail` fills its
    `{detail}`; `where` is the database as printed (a PostgreSQL URL without its password)."""

    def __init__(self, where: str, reason: str, message: str, detail: str = "") -> None:
        super().__init__(f"DATABASE_URL {where!r}: {message}")
        self.where, self.reason, self.detail = where, reason, detail


class AlreadyQueued(StoreError):
    """The player already waits in a matchmaking queue (one entry per player)."""

    def __init__(self, entry: object) -> None:
        super().__init__(f"already queued: {entry}")
        self.entry = entry
