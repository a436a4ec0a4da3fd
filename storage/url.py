"""Where the database lives: `DATABASE_URL`, or `./data/majlis.db` (SQLite, nothing to set up).

Accepted forms, following the SQLAlchemy convention so a URL copied from other tooling means the same here:
`sqlite:///relative/path.db`, `sqlite:////absolute/path.db`, `sqlite:///:memory:`, `sqlite://` (memory), a plain
path, `:memory:`, and PostgreSQL as `postgresql://user@host:port/db` (also `postgres://`, `postgresql+asyncpg://`).
A PostgreSQL URL may end in `?search_path=name` to keep Majlis's tables in their own schema (the tests use one
schema per run).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy.engine import URL, make_url

DEFAULT_PATH = "./data/majlis.db"
MEMORY = ":memory:"
_SCHEME = "sqlite://"
_POSTGRES = ("postgresql://", "postgres://", "postgresql+asyncpg://")


@dataclass(frozen=True)
class Target:
    """A resolved DATABASE_URL: the SQLAlchemy URL to open, the driver options, and a printable place name."""

    url: URL
    where: str  # the SQLite path, or the PostgreSQL URL without its password
    connect_args: dict[str, Any] = field(default_factory=dict)

    @property
    def is_sqlite(self) -> bool:
        return self.url.get_backend_name() == "sqlite"


def raw_url(url: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """`url`, else `$DATABASE_URL`, else the default SQLite file."""
    env = os.environ if environ is None else environ
    return (url if url else env.get("DATABASE_URL") or DEFAULT_PATH).strip()


def is_postgres(raw: str) -> bool:
    return raw.startswith(_POSTGRES)


def database_target(url: str | None = None, environ: Mapping[str, str] | None = None) -> Target:
    """What `Store.open(url)` connects to: SQLite through aiosqlite, PostgreSQL through asyncpg."""
    raw = raw_url(url, environ)
    if not is_postgres(raw):
        path = database_path(raw, environ={})
        return Target(make_url("sqlite+aiosqlite://" if path == MEMORY else f"sqlite+aiosqlite:///{path}"), path)
    parsed = make_url(raw).set(drivername="postgresql+asyncpg")
    query = dict(parsed.query)
    connect_args: dict[str, Any] = {}
    search_path = query.pop("search_path", None)
    if search_path:
        connect_args["server_settings"] = {"search_path": str(search_path)}
    parsed = parsed.set(query=query)
    return Target(parsed, parsed.render_as_string(hide_password=True), connect_args)


def database_path(url: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """The SQLite path for `url`, else `$DATABASE_URL`, else the default; `:memory:` for an in-memory database.

    Other schemes (mysql://, ...) raise ValueError: silently falling back to a local file would hide a
    misconfiguration until the data was found missing. PostgreSQL URLs are not paths: see `database_target`.
    """
    raw = raw_url(url, environ)
    if raw.startswith(_SCHEME):
        rest = raw[len(_SCHEME):]
        rest = rest.split("?", 1)[0]
        if rest in ("", "/"):
            return MEMORY
        if not rest.startswith("/"):
            raise ValueError(f"DATABASE_URL {raw!r}: expected sqlite:///path (three slashes)")
        rest = rest[1:]  # sqlite:///x -> "x" (relative); sqlite:////x -> "/x" (absolute)
        raw = rest or MEMORY
    elif is_postgres(raw):
        raise ValueError(f"DATABASE_URL {raw!r}: a PostgreSQL URL names a server, not a file")
    elif "://" in raw:
        raise ValueError(f"DATABASE_URL {raw!r}: only sqlite and postgresql are supported")
    if raw == MEMORY:
        return MEMORY
    return str(Path(raw).expanduser())


def ensure_parent(path: str) -> None:
    """Create the folder a database file goes in, so a fresh checkout runs without setup."""
    if path != MEMORY:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
