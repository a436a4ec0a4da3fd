"""Where the database lives: `DATABASE_URL` or `./data/majlis.db`.

Accepted forms, following the SQLAlchemy convention so a URL copied from other tooling means the same here:
`sqlite:///relative/path.db`, `sqlite:////absolute/path.db`, `sqlite:///:memory:`, `sqlite://` (memory),
a plain path, and `:memory:`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

DEFAULT_PATH = "./data/majlis.db"
MEMORY = ":memory:"
_SCHEME = "sqlite://"


def database_path(url: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """The SQLite path for `url`, else `$DATABASE_URL`, else the default; `:memory:` for an in-memory database.

    Other schemes (postgres://, ...) raise ValueError: silently falling back to a local file would hide a
    misconfiguration until the data was found missing.
    """
    env = os.environ if environ is None else environ
    raw = url if url else env.get("DATABASE_URL") or DEFAULT_PATH
    raw = raw.strip()
    if raw.startswith(_SCHEME):
        rest = raw[len(_SCHEME):]
        rest = rest.split("?", 1)[0]
        if rest in ("", "/"):
            return MEMORY
        if not rest.startswith("/"):
            raise ValueError(f"DATABASE_URL {raw!r}: expected sqlite:///path (three slashes)")
        rest = rest[1:]  # sqlite:///x -> "x" (relative); sqlite:////x -> "/x" (absolute)
        raw = rest or MEMORY
    elif "://" in raw:
        raise ValueError(f"DATABASE_URL {raw!r}: only sqlite is supported")
    if raw == MEMORY:
        return MEMORY
    return str(Path(raw).expanduser())


def ensure_parent(path: str) -> None:
    """Create the folder a database file goes in, so a fresh checkout runs without setup."""
    if path != MEMORY:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
