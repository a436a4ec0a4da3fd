"""`majlis db backup PATH`: a consistent copy of the live database in a new SQLite file.

SQLite: the online backup API (`sqlite3.Connection.backup`) in one step. One step reads the whole database in one
read transaction, which in WAL mode never blocks the bot's writers and is never restarted by them; a backup in
small steps restarts from the first page whenever another connection writes between two steps, so on a busy bot
it might never end. PostgreSQL: the rows copied into the new file in one REPEATABLE READ snapshot
(storage/transfer.py), a database `majlis db copy` can later move back.

The copy is written next to PATH under a temporary name and renamed when complete and checked, so PATH is never a
half-written file; an existing PATH is refused rather than overwritten.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
from pathlib import Path

from storage.errors import DatabaseUnusable
from storage.transfer import CopyRefused, Progress, copy_database
from storage.url import MEMORY, database_target


async def backup(source_url: str, path: str, progress: Progress | None = None) -> int:
    """Write the backup of `source_url` to `path`; its size in bytes."""
    destination = Path(path).expanduser()
    if destination.exists():
        raise CopyRefused("dbbackup.exists", str(destination))
    source = database_target(source_url)
    if source.where == MEMORY:
        raise CopyRefused("dbcopy.memory")
    if source.is_sqlite and not os.path.exists(source.where):
        raise DatabaseUnusable(source.where, "db.missing", "there is no database file there")
    destination.parent.mkdir(parents=True, exist_ok=True)
    partial = destination.with_name(f".{destination.name}.partial")
    partial.unlink(missing_ok=True)
    try:
        if source.is_sqlite:
            await asyncio.to_thread(_sqlite_backup, source.where, partial)
        else:
            await copy_database(source_url, str(partial), progress=progress)
        partial.replace(destination)
    finally:
        partial.unlink(missing_ok=True)
    return destination.stat().st_size


def _sqlite_backup(source: str, partial: Path) -> None:
    """The online backup, then SQLite's integrity check of the copy; the copy keeps the source's WAL mode."""
    reader = sqlite3.connect(source, timeout=5.0)  # reads only; busy_timeout as the store's
    copy = sqlite3.connect(partial)
    try:
        reader.backup(copy)  # pages=-1: the whole database in one step (see the module's docstring)
        problems = [row[0] for row in copy.execute("PRAGMA integrity_check")]
        if problems != ["ok"]:
            raise DatabaseUnusable(str(partial), "db.damaged", f"damaged: {problems[0]}", problems[0])
    finally:
        copy.close()
        reader.close()
