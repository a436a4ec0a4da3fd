"""The engine, the connection(s) and the transaction discipline every store method goes through.

SQLite (the default): one connection shared by the whole process. SQLite's own locking only separates
*connections*, so two coroutines interleaving statements on one connection would share a transaction and silently
lose updates; the asyncio.Lock held across each whole transaction is what keeps them apart. Writers BEGIN IMMEDIATE
so the write lock is taken up front. WAL lets another process (a backup, a second bot process) read while we write;
busy_timeout makes such a process wait instead of failing.

PostgreSQL: a pool of connections, one per transaction, and no lock in the process: several workers share the
database, so the rows are what is locked (`_match_row(..., lock=True)` is SELECT ... FOR UPDATE), and the
database, not this process, decides who waits.

Statements are SQLAlchemy Core; rows come back as mappings (`row["column"]`).

The hot paths (a move, the reads of a press and of a delivery) run each whole transaction as one synchronous
function (`run`). The async engine would hand every cursor step (open, execute, fetch, close, BEGIN, COMMIT) to
aiosqlite's thread and back, about eight hand-offs per read and eighteen per move, each a queue put, a thread wake
and an event-loop wake. On SQLite a write's function runs on that thread in one hand-off (its commit's fsync
never blocks the event loop); a read outside any transaction runs right on the event loop, on a second,
read-only connection: WAL lets it read the last committed state while a write is under way, as PostgreSQL's
autocommit reads do, and a read costs tens of microseconds where a hand-off costs more than the read. Such a read
still waits for a transaction under way, as every read of the one shared connection did.
"""

from __future__ import annotations

import asyncio
import os
import socket
import sqlite3
import time
import weakref
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any, Self, TypeVar

from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import Connection, CursorResult, Engine
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import StaticPool
from sqlalchemy.sql import Executable

from storage import migrate
from storage.errors import DatabaseUnusable
from storage.fast_reads import Plan, plan_for
from storage.url import MEMORY, Target, database_target, ensure_parent

BUSY_TIMEOUT_MS = 5000
# PostgreSQL: seconds to wait for a server to accept a connection and answer its start-up (asyncpg's default is 60,
# which made a server that never answers a silent minute and then `TimeoutError`). Tests shorten it with
# MAJLIS_DB_CONNECT_TIMEOUT rather than wait.
CONNECT_TIMEOUT = 10.0
# synchronous=FULL: a move acknowledged in chat must survive a power cut, and moves are rare enough that the extra
# fsync per commit costs nothing noticeable.
SQLITE_PRAGMAS = ("journal_mode = WAL", f"busy_timeout = {BUSY_TIMEOUT_MS}", "foreign_keys = ON",
                  "synchronous = FULL")
_BEGIN = "majlis_begin"  # execution option: the statement SQLite opens the next transaction with
_IMMEDIATE, _DEFERRED = {_BEGIN: "BEGIN IMMEDIATE"}, {_BEGIN: "BEGIN"}

Row = Mapping[str, Any]
T = TypeVar("T")


class Database:
    """Engine and transactions; the record-level methods live in the mixins that make up `Store`."""

    def __init__(self, engine: AsyncEngine, target: Target, clock: Callable[[], float]) -> None:
        self._engine = engine
        self.path = target.where
        self.dialect = engine.dialect.name  # "sqlite" or "postgresql"
        self._clock = clock
        self._lock = asyncio.Lock()  # SQLite: one transaction at a time on the one connection
        self._shared: AsyncConnection | None = None  # SQLite's one connection
        self._driver: Any = None  # SQLite: the aiosqlite connection under it (its thread runs `run`'s functions)
        self._on_thread: Connection | None = None  # SQLite: a synchronous Connection used only on that thread
        self._reader: Connection | None = None  # SQLite file: the read-only connection of the event loop's reads
        # id of a statement read more than once -> (the statement, its sqlite3 plan or None: through SQLAlchemy)
        self._plans: dict[int, tuple[weakref.ref[Executable], Plan | None]] = {}
        self._seen: dict[int, weakref.ref[Executable]] = {}  # statements read once so far
        self._active: dict[asyncio.Task[Any], tuple[AsyncConnection, bool]] = {}  # the task's transaction, writes?
        self.migrations_applied: list[int] = []
        self._closed = False
        # Told of each statement's text and seconds (bot/metrics.py), once someone asks (`observe_statements`).
        self._statement_hooks: list[Callable[[str, float], None]] = []

    @classmethod
    async def open(cls, url: str | None = None, *, clock: Callable[[], float] = time.time,
                   create: bool = True) -> Self:
        """Open (creating if needed) the database named by `url` / `$DATABASE_URL` and bring its schema up to date.

        `clock` supplies every timestamp the store writes; tests pass a fake one. `create=False`: a SQLite file
        that does not exist is refused rather than made (`majlis ratings` has nothing to check in a new file).
        A database that cannot be used raises `DatabaseUnusable` saying why, before anything else runs on it: a
        SQLite file must pass `PRAGMA quick_check` and take a write (an immutable, read-only or damaged file used
        to start and then answer every move "Something went wrong").
        """
        target = database_target(url)
        if target.is_sqlite and target.where != MEMORY and not create and not os.path.exists(target.where):
            raise DatabaseUnusable(target.where, "db.missing", "there is no database file there")
        if target.is_sqlite:
            try:
                ensure_parent(target.where)
            except OSError as error:
                raise DatabaseUnusable(target.where, "db.cannot_open", str(error), _reason(error)) from error
            engine = create_async_engine(target.url, poolclass=StaticPool)
            _sqlite_transactions(engine)
        else:
            engine = create_async_engine(target.url, connect_args={**target.connect_args,
                                                                   "timeout": connect_timeout()})
        store = cls(engine, target, clock)
        try:
            if target.is_sqlite:
                store._shared = await engine.connect()
                store._driver = (await store._shared.get_raw_connection()).driver_connection
                if target.where != MEMORY:
                    store._reader = _reader(target.where)
                    await store._check_sqlite_file()
            async with store.transaction() as conn:
                if store.dialect == "postgresql":
                    await conn.execute(text("SELECT pg_advisory_xact_lock(:key)"),
                                       {"key": migrate.MIGRATION_LOCK_KEY})
                store.migrations_applied = await conn.run_sync(migrate.upgrade)
        except BaseException as error:
            await store.close()
            unusable = _unusable(error, target)
            if unusable is not None:
                raise unusable from error
            raise
        return store

    async def _check_sqlite_file(self) -> None:
        """SQLite's quick check (pages, records and indexes well-formed) and a write (the header's user_version
        set to what it is, in a savepoint rolled back): a file SQLite can only read, or cannot read whole, is
        refused at start instead of failing each move. SQLite opens a file it may not write read-only, so the
        write itself fails there; rolling it back leaves nothing to commit (no fsync at every open)."""
        async with self.transaction() as conn:
            problems = [str(row[0]) for row in (await conn.exec_driver_sql("PRAGMA quick_check")).all()]
            if problems != ["ok"]:
                raise DatabaseUnusable(self.path, "db.damaged", f"damaged: {problems[0]}", problems[0])
            version = int((await conn.exec_driver_sql("PRAGMA user_version")).scalar() or 0)
            probe = await conn.begin_nested()
            await conn.exec_driver_sql(f"PRAGMA user_version = {version}")
            await probe.rollback()

    def observe_statements(self, hook: Callable[[str, float], None]) -> None:
        """Call `hook(statement, seconds)` after every statement this store runs: through SQLAlchemy (its
        cursor events, on every engine: the async one, SQLite's read-only one and the one on aiosqlite's thread)
        and the sqlite3 fast reads, which bypass SQLAlchemy. A hook must be quick and thread-safe: SQLite's
        writes run on aiosqlite's thread."""
        first = not self._statement_hooks
        self._statement_hooks.append(hook)
        if first:
            engines = [self._engine.sync_engine]
            if self._reader is not None:
                engines.append(self._reader.engine)
            if self._on_thread is not None:
                engines.append(self._on_thread.engine)
            for engine in engines:
                _time_statements(engine, self._statement_hooks)

    async def close(self) -> None:
        """Close the connections once any transaction in progress has finished; closing twice is harmless."""
        async with self._lock:
            if not self._closed:
                self._closed = True
                if self._on_thread is not None and not self._terminated():
                    await self._driver._execute(self._on_thread.close)
                if self._reader is not None:
                    self._reader.close()
                    self._reader.engine.dispose()
                if self._shared is not None:
                    await self._shared.close()
                await self._engine.dispose()

    async def pragma(self, name: str) -> Any:
        """Read one SQLite PRAGMA value (journal_mode, foreign_keys, busy_timeout...); for checks and diagnostics."""
        if not name.isidentifier():
            raise ValueError(f"not a pragma name: {name!r}")
        if self.dialect != "sqlite":
            raise ValueError(f"PRAGMA {name}: only SQLite has pragmas")
        async with self.transaction(write=False) as db:
            result = await db.exec_driver_sql(f"PRAGMA {name}")
            row = result.first() if result.returns_rows else None  # an unknown pragma returns nothing at all
        return None if row is None else row[0]

    @asynccontextmanager
    async def transaction(self, write: bool = True) -> AsyncIterator[AsyncConnection]:
        """One whole transaction: commit on success, roll back on any exception.

        Nested use by the same task (e.g. `apply_move` and `set_seat_flags` inside one `async with
        store.transaction()`) becomes a SAVEPOINT, so the caller can compose store methods into one atomic unit.
        On SQLite, do not await a *different* task that uses the store while holding a transaction: it will wait
        for the lock you hold.
        """
        task = asyncio.current_task()
        assert task is not None
        if self._closed:
            raise ValueError("the store is closed")
        active = self._active.get(task)
        if active is not None:
            conn, writes = active
            if not writes:
                if write:
                    raise RuntimeError("a write cannot be nested in a read-only transaction")
                yield conn  # PostgreSQL reads run in autocommit: there is no transaction to nest in
                return
            async with conn.begin_nested():
                yield conn
            return
        if self._shared is not None:
            async with self._lock:
                if self._closed:
                    raise ValueError("the store is closed")
                await self._shared.execution_options(**{_BEGIN: "BEGIN IMMEDIATE" if write else "BEGIN"})
                async with self._in(task, self._shared, True) as conn:
                    yield conn
            return
        async with self._engine.connect() as conn:
            if not write:
                # PostgreSQL reads: READ COMMITTED gives each statement its own snapshot inside a transaction too,
                # so BEGIN and COMMIT would only add two round trips to every read.
                await conn.execution_options(isolation_level="AUTOCOMMIT")
                self._active[task] = (conn, False)
                try:
                    yield conn
                finally:
                    del self._active[task]
                return
            async with self._in(task, conn, True):
                yield conn

    async def run(self, work: Callable[[Connection], T], *, write: bool = True) -> T:
        """One whole transaction as one synchronous function of a Connection: commit when it returns, roll back
        when it raises (its exception is re-raised here).

        SQLite: the function runs on the connection's thread, in one hand-off for the whole transaction (see the
        module docstring), under the same lock and BEGIN IMMEDIATE / BEGIN as `transaction`. PostgreSQL: through
        the async connection (`run_sync`: each statement is still its own round trip there). Inside a
        `transaction()` of the same task it joins that transaction as a savepoint, like every store method.
        `work` must not touch the store's async API (it runs off the event loop).
        """
        task = asyncio.current_task()
        assert task is not None
        if self._closed:
            raise ValueError("the store is closed")
        active = self._active.get(task)
        if active is not None:
            conn, writes = active
            if not writes:
                if write:
                    raise RuntimeError("a write cannot be nested in a read-only transaction")
                return await conn.run_sync(work)
            async with conn.begin_nested():
                return await conn.run_sync(work)
        if self._shared is not None:
            if not write and self._reader is not None:
                if self._lock.locked():  # as every SQLite read: after the transaction under way (and those queued)
                    async with self._lock:
                        if self._closed:
                            raise ValueError("the store is closed")
                        return _read(self._reader, work)
                return _read(self._reader, work)
            async with self._lock:
                if self._closed:
                    raise ValueError("the store is closed")
                return await self._run_on_thread(work, write)
        async with self._engine.connect() as conn:
            if not write:
                await conn.execution_options(isolation_level="AUTOCOMMIT")  # as `transaction`'s reads
                return await conn.run_sync(work)
            async with conn.begin():
                return await conn.run_sync(work)

    async def _run_on_thread(self, work: Callable[[Connection], T], write: bool) -> T:
        """SQLite: `work` in its own transaction on the aiosqlite thread. A caller cancelled meanwhile gives the
        lock back while the thread may still be running it: harmless, as that thread runs one queued step at a
        time and this whole transaction is one step, so nothing queued later can interleave with it."""
        begin = _IMMEDIATE if write else _DEFERRED

        def whole() -> T:
            conn = self._on_thread if self._on_thread is not None else self._connect_on_thread()
            conn.execution_options(**begin)
            with conn.begin():
                return work(conn)

        if self._terminated():  # this connection is gone: the pool opens a new one, and the thread is its thread
            self._driver = (await self._shared.get_raw_connection()).driver_connection
            self._on_thread = None  # it wrapped the old sqlite3 connection
        return await self._driver._execute(whole)

    def _terminated(self) -> bool:
        """Whether SQLAlchemy has thrown the shared connection away: it terminates the connection of a task
        cancelled in the middle of one of its awaits (closing it in a task of its own) and opens a new one at the
        next use; the connection `run` uses on the thread must follow, or every later write and the close fail
        with "Connection closed" (seen when a bench stopped its players mid-move)."""
        return self._shared is not None and self._shared.sync_connection.invalidated

    def _connect_on_thread(self) -> Connection:
        """A synchronous SQLAlchemy Connection over the very sqlite3 connection aiosqlite holds (so one database
        connection, its locks and its transaction state shared with the async engine, which never runs at the
        same time: `_lock`). Created, used and closed only on aiosqlite's thread."""
        raw = self._driver._conn
        engine = create_engine("sqlite://", creator=lambda: raw, poolclass=StaticPool, pool_reset_on_return=None)
        _sqlite_begin(engine)
        if self._statement_hooks:
            _time_statements(engine, self._statement_hooks)
        self._on_thread = engine.connect()
        return self._on_thread

    @asynccontextmanager
    async def _in(self, task: asyncio.Task[Any], conn: AsyncConnection, writes: bool) -> AsyncIterator[AsyncConnection]:
        self._active[task] = (conn, writes)
        try:
            async with conn.begin():
                yield conn
        finally:
            del self._active[task]

    def _now(self) -> float:
        return self._clock()

    async def _read_one(self, statement: Executable, params: Mapping[str, Any] | None = None) -> Row | None:
        """One row of a single read, in one `run`. Hot reads pass a statement built once with `bindparam`s and
        their `params`: building a statement and its cache key costs more than SQLite's answer. On a SQLite
        file such a statement is read straight through sqlite3 (storage/fast_reads.py)."""
        plan = self._fast_plan(statement)
        if plan is not None:
            return await self._fast_read(lambda connection: plan.one(connection, params))
        return await self.run(lambda db: db.execute(statement, params).mappings().first(), write=False)

    async def _read_all(self, statement: Executable, params: Mapping[str, Any] | None = None) -> list[Row]:
        plan = self._fast_plan(statement)
        if plan is not None:
            return await self._fast_read(lambda connection: plan.all(connection, params))
        return await self.run(lambda db: list(db.execute(statement, params).mappings().all()), write=False)

    def _fast_plan(self, statement: Executable) -> Plan | None:
        """The sqlite3 plan of a statement, when this read may go straight to the read-only connection: a SQLite
        file, and no transaction of this task to read inside of."""
        if self._reader is None or self._active.get(asyncio.current_task()) is not None:  # type: ignore[arg-type]
            return None
        key = id(statement)
        known = self._plans.get(key)
        if known is not None and known[0]() is statement:
            return known[1]
        # Only a statement read a second time is planned: one built for a single call (a filter with its values
        # written in) would cost a compile per read and stay in the cache for ever. Entries go with their statement.
        seen = self._seen.get(key)
        if seen is None or seen() is not statement:
            self._seen[key] = weakref.ref(statement, lambda _, key=key: self._seen.pop(key, None))  # type: ignore[misc]
            return None
        plan = plan_for(statement, self._reader.dialect)
        self._plans[key] = (weakref.ref(statement, lambda _, key=key: self._plans.pop(key, None)), plan)  # type: ignore[misc]
        return plan

    async def _fast_read(self, read: Callable[[sqlite3.Connection], T]) -> T:
        """As `run`'s reads on the event loop: after the transaction under way, if any."""
        assert self._reader is not None
        if self._statement_hooks:
            return await self._timed_fast_read(read)
        if self._lock.locked():
            async with self._lock:
                if self._closed:
                    raise ValueError("the store is closed")
                return read(self._reader.connection.dbapi_connection)  # type: ignore[arg-type]
        if self._closed:
            raise ValueError("the store is closed")
        return read(self._reader.connection.dbapi_connection)  # type: ignore[arg-type]

    async def _timed_fast_read(self, read: Callable[[sqlite3.Connection], T]) -> T:
        """A fast read, timed for the statement hooks (the read itself: not the wait for the lock)."""
        assert self._reader is not None
        if self._lock.locked():
            async with self._lock:
                if self._closed:
                    raise ValueError("the store is closed")
                return self._timed(read)
        if self._closed:
            raise ValueError("the store is closed")
        return self._timed(read)

    def _timed(self, read: Callable[[sqlite3.Connection], T]) -> T:
        assert self._reader is not None
        started = time.perf_counter()
        try:
            return read(self._reader.connection.dbapi_connection)  # type: ignore[arg-type]
        finally:
            seconds = time.perf_counter() - started
            for hook in self._statement_hooks:
                hook("SELECT", seconds)

    async def _exec(self, db: AsyncConnection, statement: Executable, params: Any = None) -> CursorResult[Any]:
        return await db.execute(statement, params)

    async def _one(self, db: AsyncConnection, statement: Executable, params: Any = None) -> Row | None:
        return (await db.execute(statement, params)).mappings().first()

    async def _all(self, db: AsyncConnection, statement: Executable, params: Any = None) -> list[Row]:
        return list((await db.execute(statement, params)).mappings().all())


# SQLSTATEs of a server that will not let us work (PostgreSQL's appendix A): a connection exception, an invalid
# authorization (role, password), no such database or schema, no privilege, too many connections, starting up or
# shutting down. Any other SQL error at open is a bug of ours and keeps its traceback.
_REFUSALS = ("08", "28", "3D", "3F", "42501", "53", "57P")


def connect_timeout() -> float:
    """CONNECT_TIMEOUT, or MAJLIS_DB_CONNECT_TIMEOUT's seconds when that is a positive number."""
    try:
        seconds = float(os.environ.get("MAJLIS_DB_CONNECT_TIMEOUT", ""))
    except ValueError:
        return CONNECT_TIMEOUT
    return seconds if seconds > 0 else CONNECT_TIMEOUT


def _reason(error: BaseException) -> str:
    """An OS or driver error's own words, without the errno prefix or SQLAlchemy's background link."""
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error).split("\n")[0] or type(error).__name__


def _unusable(error: BaseException, target: Target) -> DatabaseUnusable | None:
    """What went wrong opening the database, as the one line a person can act on; None for anything else (a bug,
    a newer schema), which keeps its own exception."""
    if isinstance(error, DatabaseUnusable):
        return error
    where = target.where
    if isinstance(error, TimeoutError):
        seconds = f"{connect_timeout():g}"
        return DatabaseUnusable(where, "db.timeout", f"the server did not answer within {seconds} s", seconds)
    if isinstance(error, socket.gaierror):
        host = str(target.url.host or "")
        return DatabaseUnusable(where, "db.host", f"the host {host!r} was not found", host)
    cause = error.orig if isinstance(error, DBAPIError) else error
    if target.is_sqlite and isinstance(cause, (sqlite3.Error, OSError)):
        words = _reason(cause)
        if "readonly" in words or "read-only" in words:
            return DatabaseUnusable(where, "db.readonly", words)
        if isinstance(cause, sqlite3.OperationalError) or isinstance(cause, OSError):
            return DatabaseUnusable(where, "db.cannot_open", words, words)
        return DatabaseUnusable(where, "db.damaged", f"damaged: {words}", words)
    if not target.is_sqlite and isinstance(error, DBAPIError) and \
            str(getattr(cause, "sqlstate", "")).startswith(_REFUSALS):
        words = _reason(cause)
        return DatabaseUnusable(where, "db.refused", f"the server refused: {words}", words)
    if not target.is_sqlite and isinstance(error, OSError):  # refused, unreachable, the SSL upgrade rejected
        words = _reason(error)
        return DatabaseUnusable(where, "db.unreachable", f"no connection: {words}", words)
    return None


def _sqlite_transactions(engine: AsyncEngine) -> None:
    """Take transaction control away from the sqlite3 module (which would BEGIN lazily and commit before DDL) and
    give it to SQLAlchemy, which then emits our BEGIN / BEGIN IMMEDIATE: SQLAlchemy's documented recipe for
    SERIALIZABLE transactions and savepoints on pysqlite and aiosqlite."""

    @event.listens_for(engine.sync_engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        for pragma in SQLITE_PRAGMAS:
            cursor.execute(f"PRAGMA {pragma}")
        cursor.close()

    _sqlite_begin(engine.sync_engine)


def _read(conn: Connection, work: Callable[[Connection], T]) -> T:
    with conn.begin():  # no BEGIN is sent (see `_reader`): SQLAlchemy's own bookkeeping only
        return work(conn)


def _reader(path: str) -> Connection:
    """The read-only connection `run` reads through on the event loop (query_only: it can never write). No BEGIN:
    each statement reads its own committed snapshot, as PostgreSQL's autocommit reads do."""
    engine = create_engine(f"sqlite:///{path}", poolclass=StaticPool, pool_reset_on_return=None)

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        for pragma in (f"busy_timeout = {BUSY_TIMEOUT_MS}", "query_only = ON"):
            cursor.execute(f"PRAGMA {pragma}")
        cursor.close()

    return engine.connect()


_STARTED = "majlis_statement_started"  # Connection.info key: when the statement under way began


def _time_statements(engine: Engine, hooks: list[Callable[[str, float], None]]) -> None:
    """Tell `hooks` of every statement `engine` runs and how long its cursor took (SQLAlchemy's cursor events)."""

    @event.listens_for(engine, "before_cursor_execute")
    def _before(conn: Connection, _cursor: Any, _statement: str, _parameters: Any, _context: Any,
                _many: bool) -> None:
        conn.info[_STARTED] = time.perf_counter()

    @event.listens_for(engine, "after_cursor_execute")
    def _after(conn: Connection, _cursor: Any, statement: str, _parameters: Any, _context: Any,
               _many: bool) -> None:
        started = conn.info.pop(_STARTED, None)
        if started is not None:
            seconds = time.perf_counter() - started
            for hook in hooks:
                hook(statement, seconds)


def _sqlite_begin(engine: Engine) -> None:
    """Each transaction starts with the BEGIN its caller chose (BEGIN IMMEDIATE for writers)."""

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        conn.exec_driver_sql(conn.get_execution_options().get(_BEGIN, "BEGIN"))
