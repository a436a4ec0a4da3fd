"""Alembic's environment: migrations always run on the connection `storage.migrate` hands over.

There is no alembic.ini and no offline (SQL script) mode: the store migrates its own database when it opens, inside
the transaction (and lock) it already holds.
"""

from __future__ import annotations

from alembic import context

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("Majlis migrations run through storage.migrate (Store.open), which supplies the connection")
context.configure(connection=connection, on_version_apply=context.config.attributes.get("on_version_apply"))
with context.begin_transaction():
    context.run_migrations()
