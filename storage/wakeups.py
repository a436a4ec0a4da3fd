"""Waking every worker's timer loop when a turn deadline is written, so a deadline another worker wrote (and then,
perhaps, died) fires on time instead of when the loop's longest sleep ends (bot/core/timers.py `run_timers`).

PostgreSQL: the statement that writes a deadline also sends it as a NOTIFY on the schema's channel (delivered at
its transaction's commit, so never for a write that rolled back); each timer loop LISTENs on a connection of its
own.
SQLite serves one process: the stores of that process opened on the same file tell each other in memory, after
the write commits.
"""

from __future__ import annotations

import logging
import os
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from sqlalchemy import literal_column
from sqlalchemy.ext.asyncio import AsyncConnection

from storage.db import Database
from storage.url import MEMORY

log = logging.getLogger(__name__)

Wake = Callable[[float], None]
CHANNEL = "majlis_deadline:"  # + the schema: test runs (a schema each) do not wake each other
# RETURNING this from the UPDATE of a match's row: NOTIFY its new deadline, in the same statement.
DEADLINE_NOTICE = literal_column(f"pg_notify('{CHANNEL}' || current_schema(), deadline::text)")
# SQLite: file path -> the wakes of every watch open on it in this process.
_LOCAL: defaultdict[str, set[Wake]] = defaultdict(set)


class DeadlineWatch:
    """One timer loop's subscription to the deadlines every worker writes (`DeadlineWakes.watch_deadlines`)."""

    def __init__(self, wake: Wake, *, local: str | None = None, conn: AsyncConnection | None = None,
                 driver: Any = None, channel: str = "") -> None:
        self._wake = wake
        self._local = local
        self._conn = conn
        self._driver = driver  # PostgreSQL: the asyncpg connection that LISTENs
        self._channel = channel

    @property
    def alive(self) -> bool:
        """False once the listening connection was lost (a PostgreSQL cut): the loop opens a new watch."""
        return self._driver is None or not self._driver.is_closed()

    def _lost(self, _connection: Any) -> None:
        """The listening connection closed: wake the loop now, so that it subscribes again and reads the deadlines
        written meanwhile (it would otherwise notice only at its longest sleep's end)."""
        self._wake(float("-inf"))

    def _notified(self, _connection: Any, _pid: int, _channel: str, payload: str) -> None:
        try:
            at = float(payload)
        except ValueError:
            return
        self._wake(at)

    async def close(self) -> None:
        if self._local is not None:
            _LOCAL[self._local].discard(self._wake)
            if not _LOCAL[self._local]:
                del _LOCAL[self._local]
        if self._conn is not None:
            conn, self._conn = self._conn, None
            try:
                self._driver.remove_termination_listener(self._lost)
                if not self._driver.is_closed():
                    await self._driver.remove_listener(self._channel, self._notified)  # UNLISTEN: back to the pool
                await conn.close()
            except Exception as error:  # a lost connection: nothing left to unsubscribe
                log.info("closing the deadline watch: %s", error)


class DeadlineWakes(Database):
    async def watch_deadlines(self, wake: Wake) -> DeadlineWatch:
        """Call `wake(deadline)` (on the event loop) whenever any worker writes a turn deadline, until the watch
        is closed. Only a wake-up: the loop still reads the deadlines themselves from the database."""
        if self.dialect != "postgresql":
            if self.path == MEMORY:  # a memory database is this store's alone: the service tells itself
                return DeadlineWatch(wake)
            key = os.path.realpath(self.path)
            _LOCAL[key].add(wake)
            return DeadlineWatch(wake, local=key)
        conn = await self._engine.connect()
        try:
            driver = (await conn.get_raw_connection()).driver_connection
            channel = CHANNEL + str(await driver.fetchval("SELECT current_schema()"))
            watch = DeadlineWatch(wake, conn=conn, driver=driver, channel=channel)
            await driver.add_listener(channel, watch._notified)
            driver.add_termination_listener(watch._lost)
        except BaseException:
            await conn.close()
            raise
        return watch

    def _tells(self, deadline: float | None) -> bool:
        """Whether the UPDATE writing `deadline` carries DEADLINE_NOTICE (PostgreSQL: the NOTIFY goes with it)."""
        return deadline is not None and self.dialect == "postgresql"

    def _deadline_written(self, deadline: float | None) -> None:
        """After the commit (SQLite): wake the loops of this process's other stores on the same file."""
        if deadline is None or self.dialect == "postgresql" or self.path == MEMORY:
            return
        for wake in list(_LOCAL.get(os.path.realpath(self.path), ())):
            wake(deadline)
