"""The structural checks of `majlis db check`, run on the database as it is (nothing migrated, nothing written).

SQLite: the full `integrity_check` (every page, record and index; the store's start-up runs only the quick one)
and `foreign_key_check` (rows pointing at rows that are gone: SQLite enforces keys only on connections that turn
them on, and a file edited by hand or by another tool may hold such rows). Both: the schema at the revision this
build migrates to, with every table and column the queries use; PostgreSQL: every identity sequence past the
largest id (a sequence behind it makes the next insert fail on a duplicate key, e.g. after rows were copied in
by hand). The checks of rows' meaning (ratings, replays) need the service's code and live in bot/dbtools.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncConnection

from storage.db import _unusable
from storage.migrate import head_number, revision_numbers
from storage.schema import metadata
from storage.transfer import engine_for
from storage.url import database_target


@dataclass(frozen=True)
class Finding:
    """One problem: a catalog key saying what kind, and the detail (a table, a row, SQLite's own words)."""

    reason: str
    detail: str


@dataclass(frozen=True)
class StructureReport:
    revision: int | None  # None: no Alembic mark (an empty or foreign database)
    findings: list[Finding]

    @property
    def at_head(self) -> bool:
        return self.revision == head_number()


async def check_structure(url: str) -> StructureReport:
    """Every structural check of the database at `url` (SQLite must exist: Store.open's refusals come first)."""
    target = database_target(url)
    engine = engine_for(target)
    try:
        async with engine.connect() as conn:
            findings, revision = await _checks(conn, target.is_sqlite)
    except Exception as error:
        unusable = _unusable(error, target)
        if unusable is not None:
            raise unusable from error
        raise
    finally:
        await engine.dispose()
    return StructureReport(revision, findings)


async def _checks(conn: AsyncConnection, is_sqlite: bool) -> tuple[list[Finding], int | None]:
    findings = await _sqlite_pages(conn) if is_sqlite else []
    revision = await conn.run_sync(_revision)
    if revision is None:
        findings.append(Finding("dbcheck.no_revision", ""))
    elif revision not in revision_numbers():
        findings.append(Finding("dbcheck.too_new", f"{revision:04d}"))
    elif revision != head_number():
        findings.append(Finding("dbcheck.behind", f"{revision:04d} → {head_number():04d}"))
    else:
        findings += await conn.run_sync(_missing_columns)
        if not is_sqlite:
            findings += await _sequences_behind(conn)
    return findings, revision


async def _sqlite_pages(conn: AsyncConnection) -> list[Finding]:
    found = [str(row[0]) for row in (await conn.exec_driver_sql("PRAGMA integrity_check")).all()]
    findings = [Finding("dbcheck.damaged", line) for line in found if line != "ok"]
    for table, rowid, parent, _key in (await conn.exec_driver_sql("PRAGMA foreign_key_check")).all():
        findings.append(Finding("dbcheck.orphan", f"{table} rowid {rowid} → {parent}"))
    return findings


def _revision(conn: Connection) -> int | None:
    heads = MigrationContext.configure(conn).get_current_heads()
    return max((int(head) for head in heads), default=None)


def _missing_columns(conn: Connection) -> list[Finding]:
    """Tables and columns the queries name (storage/schema.py) that the database lacks."""
    inspector = inspect(conn)
    present = set(inspector.get_table_names())
    findings = []
    for table in metadata.sorted_tables:
        if table.name not in present:
            findings.append(Finding("dbcheck.missing", table.name))
            continue
        columns = {column["name"] for column in inspector.get_columns(table.name)}
        findings += [Finding("dbcheck.missing", f"{table.name}.{column.name}")
                     for column in table.columns if column.name not in columns]
    return findings


async def _sequences_behind(conn: AsyncConnection) -> list[Finding]:
    """PostgreSQL: identity sequences that would hand out an id already taken."""
    findings = []
    for table in metadata.sorted_tables:
        column = table.autoincrement_column
        if column is None:
            continue
        sequence = (await conn.execute(text("SELECT pg_get_serial_sequence(:table, :column)"),
                                       {"table": table.name, "column": column.name})).scalar_one()
        if sequence is None:
            findings.append(Finding("dbcheck.no_sequence", f"{table.name}.{column.name}"))
            continue
        row = (await conn.execute(text(
            f"SELECT (SELECT max({column.name}) FROM {table.name}), last_value, is_called FROM {sequence}"))).one()
        largest, last, called = row
        following = last + 1 if called else last
        if largest is not None and following <= largest:
            findings.append(Finding("dbcheck.sequence_behind", f"{table.name}.{column.name}: next {following}, "
                                                                f"max {largest}"))
    return findings
