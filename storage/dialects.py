"""The one statement SQLite and PostgreSQL spell through different SQLAlchemy constructs: INSERT ... ON CONFLICT.

Both engines understand the same upsert (ON CONFLICT (...) DO UPDATE / DO NOTHING, with `excluded`), but SQLAlchemy
builds it from each dialect's own `insert`.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Table
from sqlalchemy.dialects import postgresql, sqlite


def upsert(dialect: str, table: Table) -> Any:
    """`insert(table)` with `.on_conflict_do_update` / `.on_conflict_do_nothing` and `.excluded`."""
    if dialect == "postgresql":
        return postgresql.insert(table)
    return sqlite.insert(table)
