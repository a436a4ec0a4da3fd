"""The two database engines the storage tests run on: a fresh SQLite file, and PostgreSQL when the run names one.

PostgreSQL runs need `MAJLIS_TEST_DATABASE_URL` (e.g. postgresql://postgres@127.0.0.1:5432/test); without it they
skip, so the README's test command needs no database server. A run gets its own schema, named for the process,
which is dropped at the end; each test starts from empty tables in it.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from storage.schema import metadata
from storage.url import database_target

ENV = "MAJLIS_TEST_DATABASE_URL"
SKIP_REASON = (f"PostgreSQL tests need {ENV}, e.g. {ENV}=postgresql://postgres@127.0.0.1:5432/test "
               "(.ci/run sets it); SQLite ran instead")


def postgres_base_url() -> str | None:
    return os.environ.get(ENV) or None


async def _admin(url: str, *statements: str) -> None:
    target = database_target(url)
    engine = create_async_engine(target.url, connect_args=target.connect_args)
    try:
        async with engine.begin() as conn:
            for statement in statements:
                await conn.execute(text(statement))
    finally:
        await engine.dispose()


def run_aside(job: Coroutine[Any, Any, None]) -> None:
    """Run a coroutine to the end on a loop of its own: a session fixture may be first asked for from inside a
    test's running loop, where asyncio.run is not allowed."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(asyncio.run, job).result()


def with_schema(url: str, schema: str) -> str:
    return f"{url}{'&' if '?' in url else '?'}search_path={schema}"


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A URL to a schema of its own on the test server, for the whole run (skips without a server)."""
    base = postgres_base_url()
    if base is None:
        pytest.skip(SKIP_REASON)
    schema = f"majlis_test_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    run_aside(_admin(base, f'CREATE SCHEMA "{schema}"'))
    try:
        yield with_schema(base, schema)
    finally:
        run_aside(_admin(base, f'DROP SCHEMA "{schema}" CASCADE'))


def fresh_schema_url() -> tuple[str, str]:
    """(base URL, schema) of a brand-new schema, for a test that must see a database no run has touched; the
    caller drops it with `drop_schema`."""
    base = postgres_base_url()
    if base is None:
        pytest.skip(SKIP_REASON)
    schema = f"majlis_test_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    return base, schema


async def create_schema(base: str, schema: str) -> str:
    await _admin(base, f'CREATE SCHEMA "{schema}"')
    return with_schema(base, schema)


async def drop_schema(base: str, schema: str) -> None:
    await _admin(base, f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


async def empty_tables(url: str) -> None:
    """Every Majlis table emptied and its ids restarted, so a test sees what a fresh database would show."""
    names = ", ".join(f'"{table.name}"' for table in metadata.sorted_tables)
    await _admin(url, f"TRUNCATE {names} RESTART IDENTITY CASCADE")
