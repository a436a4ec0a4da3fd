"""Copying every row of a Majlis database to another one, SQLite to PostgreSQL or back (`majlis db copy`, and a
PostgreSQL `majlis db backup` into a new SQLite file).

The target's schema is made by the migrations (`Store.open`), never by this module, so a copied database is the
same schema a worker would have created. The source is read in one snapshot (a deferred SQLite read transaction in
WAL mode, PostgreSQL's REPEATABLE READ): the copy is consistent even while a bot still writes to it. Each table is
written in one transaction of its own, in foreign-key order: an interruption leaves whole tables behind, which
`resume` skips on the next run instead of refusing the target as not empty.

PostgreSQL hands out ids from identity sequences, which rows inserted with their ids do not move: after the copy
each sequence is set past the largest id, or the next match created would collide with a copied one.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from sqlalchemy import Table, func, inspect, select, text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import NullPool

from storage.db import _sqlite_transactions, connect_timeout
from storage.errors import StoreError
from storage.migrate import LEGACY_TABLE
from storage.schema import metadata
from storage.store import Store
from storage.url import MEMORY, Target, database_target

BATCH = 500  # rows per INSERT round trip: big enough to amortise it, small enough to show progress
# Tables of the database that are not Majlis's rows: Alembic's revision mark, and the hand-written runner's.
BOOKKEEPING = {"alembic_version", LEGACY_TABLE}

Progress = Callable[[str, int, int], None]  # (table, rows copied so far, rows in the table)


class CopyRefused(StoreError):
    """The copy cannot start or go on: the target holds rows, the source has tables this build does not know, or
    both URLs name the same database. `reason` is a catalog key, `detail` fills its `{detail}`."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = reason, detail


@dataclass
class CopyReport:
    """Rows per table in the source and in the target once the copy ended; tables a resumed copy found done."""

    source: dict[str, int] = field(default_factory=dict)
    target: dict[str, int] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    sequences: dict[str, int] = field(default_factory=dict)  # PostgreSQL: table -> the next id it hands out

    @property
    def mismatched(self) -> list[str]:
        return [name for name, count in self.source.items() if self.target.get(name) != count]


def engine_for(target: Target) -> AsyncEngine:
    """An engine of its own for bulk work (the store's engine is built for many short transactions): SQLite with
    explicit BEGINs, so a read transaction really is one snapshot, and no pool to keep connections around."""
    if target.is_sqlite:
        engine = create_async_engine(target.url, poolclass=NullPool)
        _sqlite_transactions(engine)
        return engine
    return create_async_engine(target.url, poolclass=NullPool,
                               connect_args={**target.connect_args, "timeout": connect_timeout()})


@asynccontextmanager
async def snapshot(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """One read-only transaction over the whole source: every table as of one moment."""
    async with engine.connect() as conn:
        if engine.dialect.name == "postgresql":
            conn = await conn.execution_options(isolation_level="REPEATABLE READ", postgresql_readonly=True)
        async with conn.begin():
            yield conn


async def row_counts(conn: AsyncConnection) -> dict[str, int]:
    return {table.name: int((await conn.execute(select(func.count()).select_from(table))).scalar_one())
            for table in metadata.sorted_tables}


async def unknown_tables(conn: AsyncConnection) -> list[str]:
    """Tables of the database that are neither Majlis's nor its bookkeeping: rows a copy would silently drop."""
    names = await conn.run_sync(lambda sync: inspect(sync).get_table_names())
    return sorted(set(names) - set(metadata.tables) - BOOKKEEPING)


async def migrated(url: str, *, create: bool) -> list[int]:
    """Open the database once through the store, which checks it and brings its schema to this build's head (the
    revisions it applied come back); the copy then works on the schema the migrations made."""
    store = await Store.open(url, create=create)
    applied = list(store.migrations_applied)
    await store.close()
    return applied


async def copy_database(source_url: str, target_url: str, *, resume: bool = False,
                        progress: Progress | None = None) -> CopyReport:
    """Copy every Majlis table from `source_url` into `target_url`, whose schema the migrations make first.

    Refuses (CopyRefused) a target with rows in any table, unless `resume`: then a table whose row count already
    equals the source's is taken as copied by an earlier, interrupted run and skipped, and any other table must be
    empty. The report has both sides' counts; the caller checks more (ratings, replays) on the target.
    """
    source, target = database_target(source_url), database_target(target_url)
    if MEMORY in (source.where, target.where):
        raise CopyRefused("dbcopy.memory")
    if _same_place(source, target):
        raise CopyRefused("dbcopy.same", source.where)
    await migrated(source_url, create=False)
    await migrated(target_url, create=True)
    report = CopyReport()
    reading, writing = engine_for(source), engine_for(target)
    try:
        async with snapshot(reading) as src:
            extra = await unknown_tables(src)
            if extra:
                raise CopyRefused("dbcopy.unknown_tables", ", ".join(extra))
            report.source = await row_counts(src)
            async with writing.connect() as dst:
                present = await row_counts(dst)
            filled = [name for name, count in present.items() if count]
            if filled and not resume:
                raise CopyRefused("dbcopy.not_empty", ", ".join(filled))
            for table in metadata.sorted_tables:
                have, want = present[table.name], report.source[table.name]
                if resume and have and have == want:
                    report.skipped.append(table.name)
                    continue
                if have:
                    raise CopyRefused("dbcopy.partly", f"{table.name} ({have}/{want})")
                await _copy_table(src, writing, table, want, progress)
        async with writing.begin() as dst:
            if writing.dialect.name == "postgresql":
                report.sequences = await _advance_sequences(dst)
            report.target = await row_counts(dst)
    finally:
        await reading.dispose()
        await writing.dispose()
    return report


def _same_place(source: Target, target: Target) -> bool:
    """One database named twice (a relative and an absolute path to one file, or one server, database and schema)."""
    if source.is_sqlite and target.is_sqlite:
        return os.path.realpath(source.where) == os.path.realpath(target.where)
    return (source.url.render_as_string(hide_password=False), source.connect_args) == \
        (target.url.render_as_string(hide_password=False), target.connect_args)


async def _copy_table(src: AsyncConnection, writing: AsyncEngine, table: Table, total: int,
                      progress: Progress | None) -> None:
    """One table in one transaction of the target, streamed from the source in primary-key order; the count is
    checked before the commit, so a table is either all there or not at all."""
    order = list(table.primary_key.columns)
    done = 0
    if progress is not None:
        progress(table.name, 0, total)
    async with writing.begin() as dst:
        result = await src.stream(select(table).order_by(*order))
        async for rows in result.mappings().partitions(BATCH):
            await dst.execute(table.insert(), [dict(row) for row in rows])
            done += len(rows)
            if progress is not None:
                progress(table.name, done, total)
        written = int((await dst.execute(select(func.count()).select_from(table))).scalar_one())
        if written != total:
            raise CopyRefused("dbcopy.count_changed", f"{table.name} ({written}/{total})")


async def _advance_sequences(dst: AsyncConnection) -> dict[str, int]:
    """Each identity column's sequence set to hand out max(id) + 1 next (1 for an empty table)."""
    out: dict[str, int] = {}
    for table in metadata.sorted_tables:
        column = table.autoincrement_column
        if column is None:
            continue
        following = await dst.execute(
            text(f"SELECT setval(pg_get_serial_sequence(:table, :column), "
                 f"coalesce((SELECT max({column.name}) FROM {table.name}), 0) + 1, false)"),
            {"table": table.name, "column": column.name})
        out[table.name] = int(following.scalar_one())
    return out

