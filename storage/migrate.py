"""Bring a database's schema up to date with Alembic, including databases the hand-written runner created.

Until Alembic took over, storage/migrations.py applied versions 1-6 and recorded them in its own `schema_version`
table. Revisions 0001-0006 are those same versions (storage/revisions/ddl.py), so such a database is stamped at
the revision matching its highest recorded version and upgraded from there: nothing is re-run, nothing is lost.
`schema_version` stays behind, untouched; an older build reads only that table, so do not run one against a
migrated database.

Alembic itself (about 11 MiB of a process's memory, kept for the process's life once imported) is loaded only when
there is something to do: a database already at this build's newest revision, as at every start but the first
after an upgrade, is recognised from Alembic's own `alembic_version` table and the revision files' names.

The caller runs this inside a transaction that already excludes other migrators: SQLite's BEGIN IMMEDIATE, or on
PostgreSQL an advisory lock, so two workers starting together take turns and the second finds nothing to do.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection

from storage.errors import SchemaTooNew

if TYPE_CHECKING:
    from alembic.config import Config

REVISIONS = Path(__file__).resolve().parent / "revisions"
LEGACY_TABLE = "schema_version"
VERSION_TABLE = "alembic_version"  # Alembic's record of the revision a database is at
REVISION_FILE = re.compile(r"^(\d{4})_\w+\.py$")  # versions/0009_recent_sends.py holds revision "0009"
# Any number that no other program takes as its advisory lock key on the same server: "majlis" in ASCII.
MIGRATION_LOCK_KEY = 0x6D616A6C6973


def alembic_config(connection: Connection | None = None) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(REVISIONS))
    config.attributes["connection"] = connection
    return config


def revision_numbers() -> list[int]:
    """Every revision this build knows, oldest first (revision ids are the numbers 0001, 0002, ...)."""
    from alembic.script import ScriptDirectory

    script = ScriptDirectory.from_config(alembic_config())
    return sorted(int(rev.revision) for rev in script.walk_revisions())


def head_number() -> int:
    return revision_numbers()[-1]


def newest_file_revision() -> int:
    """The newest revision of this build, read from the revision files' names (no Alembic needed)."""
    return max(int(found.group(1)) for path in (REVISIONS / "versions").iterdir()
               if (found := REVISION_FILE.match(path.name)))


def at_head(connection: Connection) -> bool:
    """Whether the database is at this build's newest revision already: nothing for Alembic to do."""
    if not inspect(connection).has_table(VERSION_TABLE):
        return False
    heads = connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).scalars().all()
    return heads == [f"{newest_file_revision():04d}"]


def upgrade(connection: Connection) -> list[int]:
    """Apply every revision the database lacks; return their numbers. SchemaTooNew if a newer build wrote it."""
    if at_head(connection):
        return []
    from alembic import command
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory
    from alembic.util import CommandError

    config = alembic_config(connection)
    script = ScriptDirectory.from_config(config)
    known = set(revision_numbers())
    current = MigrationContext.configure(connection).get_current_heads()
    if current:
        for head in current:
            try:
                script.get_revision(head)
            except CommandError as error:
                raise SchemaTooNew(f"database schema is at revision {head}; this build knows up to "
                                   f"{max(known):04d}") from error
    else:
        legacy = _legacy_version(connection)
        if legacy > max(known):
            raise SchemaTooNew(f"database schema is version {legacy}; this build knows up to {max(known)}")
        if legacy:
            command.stamp(config, f"{legacy:04d}")
    applied: list[int] = []
    config.attributes["on_version_apply"] = lambda *, step, **_: applied.append(int(step.up_revision_id))
    command.upgrade(config, "head")
    return applied


def _legacy_version(connection: Connection) -> int:
    """The highest version the hand-written runner recorded; 0 for a database it never touched."""
    if not inspect(connection).has_table(LEGACY_TABLE):
        return 0
    value = connection.execute(text(f"SELECT max(version) FROM {LEGACY_TABLE}")).scalar()
    return int(value or 0)
