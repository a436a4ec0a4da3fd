"""Where the database lives: `DATABASE_URL`, or `./data/majlis.db` (SQLite, nothing to set up).

Accepted forms, following the SQLAlchemy convention so a URL copied from other tooling means the same here:
`sqlite:///relative/path.db`, `sqlite:////absolute/path.db`, `sqlite:///:memory:`, `sqlite://` (memory), a plain
path, `:memory:`, and PostgreSQL as `postgresql://user@host:port/db` (also `postgres://`, `postgresql+asyncpg://`).
A PostgreSQL URL may end in `?search_path=name` to keep Majlis's tables in their own schema (the tests use one
schema per run) and `sslmode=` (libpq's modes, handed to asyncpg as its `ssl`). A URL that cannot be used as
written (no database name, a port that is not one, an option asyncpg does not take) is refused here with
`DatabaseUnusable`, before any connection: `postgresql://` alone used to create the schema in whatever database
the server picks by default.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy.engine import URL, make_url

from storage.errors import DatabaseUnusable

DEFAULT_PATH = "./data/majlis.db"
MEMORY = ":memory:"
_SCHEME = "sqlite://"
_POSTGRES = ("postgresql://", "postgres://", "postgresql+asyncpg://")
# libpq's sslmode values; asyncpg's `ssl` takes the same words.
SSL_MODES = ("disable", "allow", "prefer", "require", "verify-ca", "verify-full")


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
    try:
        parsed = make_url(raw).set(drivername="postgresql+asyncpg")
    except ValueError as error:  # `host:abc`: SQLAlchemy's message is int()'s ("invalid literal for int()")
        address = raw.partition("://")[2].partition("/")[0].rpartition("@")[2]
        raise DatabaseUnusable(_hide_password(raw), "db.address", f"cannot read the host and port {address!r}",
                               address) from error
    where = _hide_password(raw)  # as written, for the refusals below
    if not parsed.database:
        raise DatabaseUnusable(where, "db.no_name", "the URL names no database (postgresql://user@host/NAME)")
    if parsed.port is not None and not 1 <= parsed.port <= 65535:
        raise DatabaseUnusable(where, "db.address", f"the port {parsed.port} is not from 1 to 65535",
                               f"{parsed.host}:{parsed.port}")
    query = dict(parsed.query)
    connect_args: dict[str, Any] = {}
    search_path = query.pop("search_path", None)
    if search_path:
        connect_args["server_settings"] = {"search_path": str(search_path)}
    ssl_mode = query.pop("sslmode", None)
    if ssl_mode is not None:
        if ssl_mode not in SSL_MODES:
            raise DatabaseUnusable(where, "db.sslmode", f"sslmode={ssl_mode} is not one of {', '.join(SSL_MODES)}",
                                   str(ssl_mode))
        connect_args["ssl"] = ssl_mode
    if query:  # asyncpg.connect() would fail with a TypeError naming a keyword argument
        raise DatabaseUnusable(where, "db.option", f"unknown option {sorted(query)[0]!r} (accepted: sslmode, "
                               "search_path)", sorted(query)[0])
    parsed = parsed.set(query=query)
    return Target(parsed, make_url(raw).render_as_string(hide_password=True), connect_args)


def _hide_password(raw: str) -> str:
    """A URL that SQLAlchemy could not read, printable: `user:secret@` -> `user:***@`."""
    scheme, sep, rest = raw.partition("://")
    netloc, slash, path = rest.partition("/")
    credentials, at, host = netloc.rpartition("@")
    if at and ":" in credentials:
        credentials = credentials.partition(":")[0] + ":***"
    return f"{scheme}{sep}{credentials}{at}{host}{slash}{path}"


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
            raise DatabaseUnusable(raw, "db.slashes", "expected sqlite:///path (three slashes)")
        rest = rest[1:]  # sqlite:///x -> "x" (relative); sqlite:////x -> "/x" (absolute)
        raw = rest or MEMORY
    elif is_postgres(raw):
        raise ValueError(f"DATABASE_URL {raw!r}: a PostgreSQL URL names a server, not a file")
    elif "://" in raw:
        raise DatabaseUnusable(raw, "db.scheme", "only sqlite and postgresql are supported")
    if raw == MEMORY:
        return MEMORY
    return str(Path(raw).expanduser())


def ensure_parent(path: str) -> None:
    """Create the folder a database file goes in, so a fresh checkout runs without setup."""
    if path != MEMORY:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
