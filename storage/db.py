"""The one connection and the transaction discipline every store method goes through.

A single aiosqlite connection is shared by the whole bot. SQLite's own locking only separates *connections*, so
two coroutines interleaving statements on one connection would share a transaction and silently lose updates;
the asyncio.Lock held across each whole transaction is what keeps them apart. WAL lets another process (a
backup, a second bot process) read while we write; busy_timeout makes such a process wait instead of failing.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from typing import Any, Self

import aiosqlite

from storage.migrations import apply_migrations
from storage.url import database_path, ensure_parent

BUSY_TIMEOUT_MS = 5000


class Database:
    """Connection, lock and transaction; the record-level methods live in the mixins that make up `Store`."""

    def __init__(self, conn: aiosqlite.Connection, path: str, clock: Callable[[], float]) -> None:
        self._conn = conn
        self.path = path
        self._clock = clock
        self._lock = asyncio.Lock()
        self._owner: asyncio.Task[Any] | None = None
        self._depth = 0
        self.migrations_applied: list[int] = []
        self._closed = False

    @classmethod
    async def open(cls, url: str | None = None, *, clock: Callable[[], float] = time.time) -> Self:
        """Open (creating if needed) the database named by `url` / `$DATABASE_URL` and bring its schema up to date.

        `clock` supplies every timestamp the store writes; tests pass a fake one.
        """
        path = database_path(url)
        ensure_parent(path)
        conn = await aiosqlite.connect(path, isolation_level=None)
        try:
            conn.row_factory = aiosqlite.Row
            # synchronous=FULL: a move acknowledged in chat must survive a power cut, and moves are rare enough
            # that the extra fsync per commit costs nothing noticeable.
            for pragma in ("journal_mode = WAL", f"busy_timeout = {BUSY_TIMEOUT_MS}", "foreign_keys = ON",
                           "synchronous = FULL"):
                await conn.execute(f"PRAGMA {pragma}")
            store = cls(conn, path, clock)
            store.migrations_applied = await apply_migrations(conn)
        except BaseException:
            await conn.close()
            raise
        return store

    async def close(self) -> None:
        """Close the connection once any transaction in progress has finished; closing twice is harmless."""
        async with self._lock:
            if not self._closed:
                self._closed = True
                await self._conn.close()

    async def pragma(self, name: str) -> Any:
        """Read one PRAGMA value (journal_mode, foreign_keys, busy_timeout...); for checks and diagnostics."""
        if not name.isidentifier():
            raise ValueError(f"not a pragma name: {name!r}")
        async with self.transaction(write=False) as db:
            async with db.execute(f"PRAGMA {name}") as cursor:
                row = await cursor.fetchone()
        return None if row is None else row[0]

    @asynccontextmanager
    async def transaction(self, write: bool = True) -> AsyncIterator[aiosqlite.Connection]:
        """Hold the store's lock for one whole transaction; commit on success, roll back on any exception.

        Writers BEGIN IMMEDIATE so the write lock is taken up front: a transaction that read first and wrote
        later could otherwise fail with SQLITE_BUSY half-way when another process writes. Nested use by the
        same task (e.g. `apply_move` and `set_seat_flags` inside one `async with store.transaction()`) becomes a
        SAVEPOINT, so the caller can compose store methods into one atomic unit. Do not await a *different*
        task that uses the store while holding a transaction: it will wait for the lock you hold.
        """
        task = asyncio.current_task()
        if self._owner is not None and self._owner is task:
            async with self._savepoint() as conn:
                yield conn
            return
        async with self._lock:
            self._owner = task
            try:
                try:
                    # Inside the try: a task cancelled while its BEGIN is on the connection's thread must still
                    # roll back, or the next transaction would find this one open.
                    await self._conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
                    yield self._conn
                    await self._conn.execute("COMMIT")
                except BaseException:
                    await self._rollback()
                    raise
            finally:
                self._owner = None

    @asynccontextmanager
    async def _savepoint(self) -> AsyncIterator[aiosqlite.Connection]:
        self._depth += 1
        name = f"nested_{self._depth}"
        try:
            await self._conn.execute(f"SAVEPOINT {name}")
            try:
                yield self._conn
            except BaseException:
                await self._conn.execute(f"ROLLBACK TO {name}")
                await self._conn.execute(f"RELEASE {name}")
                raise
            await self._conn.execute(f"RELEASE {name}")
        finally:
            self._depth -= 1

    async def _rollback(self) -> None:
        # SQLite rolls back by itself after some errors (disk full, I/O); a second ROLLBACK would then fail and
        # mask the original exception.
        # A BEGIN still queued on the connection's thread (its task cancelled meanwhile) is not in_transaction
        # yet but will be: the ROLLBACK queued behind it ends it.
        try:
            await self._conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass

    def _now(self) -> float:
        return self._clock()

    # Each await on the connection is a hand-off to its thread and back (and a turn of the interpreter lock):
    # execute_fetchall runs the statement and reads its rows in one, where execute + fetch + close took three.
    async def _one(self, db: aiosqlite.Connection, sql: str, params: Iterable[Any] = ()) -> aiosqlite.Row | None:
        rows = await db.execute_fetchall(sql, tuple(params))
        return next(iter(rows), None)

    async def _all(self, db: aiosqlite.Connection, sql: str, params: Iterable[Any] = ()) -> list[aiosqlite.Row]:
        return list(await db.execute_fetchall(sql, tuple(params)))
