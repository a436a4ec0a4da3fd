"""The hot reads of a SQLite file, sent straight to sqlite3 instead of through SQLAlchemy's execution.

Every press and every delivery reads its match, seats, chat and player: a handful of single-row SELECTs whose
statements are built once (storage/matches.py, storage/players.py). SQLite answers each in a few microseconds,
while SQLAlchemy's execution around it (cache-key lookup, execution context, result metadata, row mapping)
cost 90-300 µs of the event loop per read (`Store.get_match` 172 µs, `player_active_match` 300 µs). A `Plan` is
what SQLAlchemy compiles such a statement to, taken once: the SQL text, the order of its parameters, the values
the statement carries itself, the result's keys. A read then is one `execute` on the read-only connection.

Only a statement that needs none of SQLAlchemy's per-row or per-parameter work gets a plan: no IN list expanded
at execution, no type that converts a parameter or a column (on SQLite our columns are integers, reals and text,
so none does). Any other statement keeps going through SQLAlchemy (`plan_for` returns None).
tests/test_storage_fast_reads.py reads every statement with a plan both ways and compares the rows.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Dialect
from sqlalchemy.sql import Select


@dataclass(frozen=True)
class Plan:
    sql: str
    names: tuple[str, ...]  # the parameters in the order of the SQL's placeholders
    carried: Mapping[str, Any]  # values the statement holds itself (a literal status, a LIMIT)
    keys: tuple[str, ...]  # the result's column keys, as `.mappings()` names them

    def arguments(self, params: Mapping[str, Any] | None) -> list[Any]:
        given = params or {}
        return [given[name] if name in given else self.carried[name] for name in self.names]

    def one(self, connection: sqlite3.Connection, params: Mapping[str, Any] | None) -> dict[str, Any] | None:
        row = connection.execute(self.sql, self.arguments(params)).fetchone()
        return None if row is None else dict(zip(self.keys, row, strict=True))

    def all(self, connection: sqlite3.Connection, params: Mapping[str, Any] | None) -> list[dict[str, Any]]:
        rows = connection.execute(self.sql, self.arguments(params)).fetchall()
        return [dict(zip(self.keys, row, strict=True)) for row in rows]


def plan_for(statement: Any, dialect: Dialect) -> Plan | None:
    """The plan of a SELECT built once with bound parameters, or None when it needs SQLAlchemy at execution."""
    if not isinstance(statement, Select) or dialect.paramstyle != "qmark":
        return None
    compiled = statement.compile(dialect=dialect)
    names = compiled.positiontup
    if names is None:
        return None
    carried: dict[str, Any] = {}
    for name in names:
        bind = compiled.binds.get(name)
        if bind is None or bind.expanding or bind.type.dialect_impl(dialect).bind_processor(dialect) is not None:
            return None
        if not bind.required:
            carried[name] = bind.effective_value
    columns = statement.selected_columns
    if any(column.type.dialect_impl(dialect).result_processor(dialect, None) is not None for column in columns):
        return None
    return Plan(compiled.string, tuple(names), carried, tuple(columns.keys()))
