"""A DATABASE_URL or a token that cannot work stops `majlis run` / `majlis ratings` at once with one line naming the
setting and the cause, exit code 2 (issue 26, point 7).

The real command runs in a subprocess (a start takes about half a second). Nothing here reaches a real server: a
closed local port, a local socket that accepts and never answers (the connect timeout is shortened with
MAJLIS_DB_CONNECT_TIMEOUT instead of waited out), and a local stand-in for the Bot API that refuses the token.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import web

from storage import Store
from storage.errors import DatabaseUnusable
from storage.url import database_target

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "123456:TEST-TOKEN"


def closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A 'hanging' PostgreSQL: accepts connections and never says a word."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    try:
        yield server.getsockname()[1]
    finally:
        server.close()


def majlis(tmp_path: Path, *args: str, timeout: float = 60, **env: str) -> subprocess.CompletedProcess[str]:
    """`python -m bot.cli ARGS` in tmp_path (no .env there), English lines, the given settings only. `timeout` only
    guards against a hang: a `run` start (its picture workers) passed 30 s at load 15 beside the suite's other
    worker process."""
    base = {key: value for key, value in os.environ.items()
            if not key.startswith(("TELEGRAM_", "DISCORD_", "DATABASE_", "MAJLIS_", "LC_", "LANG"))}
    base.update(PYTHONPATH=str(ROOT), LANG="C.UTF-8", **env)
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], cwd=tmp_path, env=base, capture_output=True,
                          text=True, timeout=timeout, check=False)


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    """The refusal: exit code 2, one line on stderr, no traceback."""
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2 and len(lines) == 1, f"exit {done.returncode}:\n{done.stderr}"
    assert "Traceback" not in done.stderr and "check the tokens" not in done.stderr.lower()
    return lines[0]


def test_postgresql_urls_that_cannot_work_are_refused_before_connecting():
    for url, reason in (("postgresql://", "db.no_name"), ("postgresql://db-host/", "db.no_name"),
                        ("postgresql://u:pw@db-host:abc/majlis", "db.address"),
                        ("postgresql://u@db-host:99999/majlis", "db.address"),
                        ("postgresql://u@db-host/majlis?sslmode=maybe", "db.sslmode"),
                        ("postgresql://u@db-host/majlis?application_name=x", "db.option")):
        with pytest.raises(DatabaseUnusable) as refused:
            database_target(url)
        assert refused.value.reason == reason, url
        assert "pw" not in str(refused.value) and "pw" not in refused.value.where
    for mode in ("disable", "require", "verify-full"):  # libpq's sslmode, as asyncpg's own `ssl` takes it
        target = database_target(f"postgresql://u@db-host/majlis?sslmode={mode}&search_path=s")
        assert target.connect_args == {"ssl": mode, "server_settings": {"search_path": "s"}}
        assert "sslmode" not in str(target.url)


@pytest.mark.parametrize("url,cause", [
    ("postgresql://postgres@127.0.0.1:{closed}", "names no database"),
    ("postgresql://postgres@127.0.0.1:{closed}/majlis?sslmode=require", "no connection to the server"),
    ("postgresql://postgres@127.0.0.1:port/majlis", "cannot read the host and port 127.0.0.1:port"),
    ("postgresql://postgres@127.0.0.1:{silent}/majlis", "did not answer within 1 s"),
])
def test_run_with_an_unusable_postgresql_url_says_why_in_one_line(tmp_path, silent_server, url, cause):
    url = url.format(closed=closed_port(), silent=silent_server)
    done = majlis(tmp_path, "run", DATABASE_URL=url, TELEGRAM_BOT_TOKEN=TOKEN, MAJLIS_DB_CONNECT_TIMEOUT="1",
                  TELEGRAM_BASE_URL=f"http://127.0.0.1:{closed_port()}")
    line = one_line(done)
    assert line.startswith("Cannot use the database of DATABASE_URL (postgresql://postgres@127.0.0.1:") and \
        cause in line, line
    assert "TypeError" not in line


def test_ratings_with_an_unusable_database_say_why_and_create_nothing(tmp_path):
    line = one_line(majlis(tmp_path, "ratings", "check", DATABASE_URL="postgresql://"))
    assert "DATABASE_URL (postgresql://)" in line and "names no database" in line
    missing = tmp_path / "data" / "nothing-here.db"
    line = one_line(majlis(tmp_path, "ratings", "rebuild", DATABASE_URL=str(missing)))
    assert f"DATABASE_URL ({missing})" in line and "no database file" in line
    assert not missing.parent.exists()
    # ... and reads the DATABASE_URL of .env, as `majlis run` does
    (tmp_path / ".env").write_text("DATABASE_URL=postgresql://db-host\n")
    assert "(postgresql://db-host)" in one_line(majlis(tmp_path, "ratings", "check"))


async def _new_database(path: Path) -> None:
    store = await Store.open(str(path))
    await store.close()


def test_a_damaged_sqlite_file_is_refused_at_start(tmp_path):
    path = tmp_path / "majlis.db"
    asyncio.run(_new_database(path))
    with path.open("r+b") as data:  # the b-tree page of the matches table: the schema still reads, moves would not
        data.seek(7 * 4096)
        data.write(b"\xff" * 64)
    before = path.read_bytes()
    done = majlis(tmp_path, "run", DATABASE_URL=str(path), TELEGRAM_BOT_TOKEN=TOKEN,
                  TELEGRAM_BASE_URL=f"http://127.0.0.1:{closed_port()}")
    line = one_line(done)
    assert line.startswith(f"Cannot use the database of DATABASE_URL ({path}): the file is damaged"), line
    assert path.read_bytes() == before


def test_a_sqlite_file_that_cannot_be_written_is_refused_at_start(tmp_path):
    path = tmp_path / "majlis.db"
    asyncio.run(_new_database(path))
    path.chmod(0o444)
    immutable = os.geteuid() == 0 and shutil.which("chattr") is not None  # root writes a 0444 file regardless
    if immutable and subprocess.run(["chattr", "+i", str(path)], capture_output=True, check=False).returncode:
        pytest.skip("chattr +i is not allowed here")
    try:
        try:
            path.open("r+b").close()
        except OSError:
            pass
        else:
            pytest.skip("cannot make a file unwritable here")
        done = majlis(tmp_path, "run", DATABASE_URL=str(path), TELEGRAM_BOT_TOKEN=TOKEN,
                      TELEGRAM_BASE_URL=f"http://127.0.0.1:{closed_port()}")
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(path)], check=True)
        path.chmod(0o644)
    line = one_line(done)
    assert line.startswith(f"Cannot use the database of DATABASE_URL ({path}): the file cannot be written"), line


async def _refusing_bot_api() -> tuple[web.AppRunner, int]:
    async def unauthorized(request: web.Request) -> web.Response:
        return web.json_response({"ok": False, "error_code": 401, "description": "Unauthorized"}, status=401)

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", unauthorized)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    return runner, site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]


async def test_only_a_refused_token_is_told_to_check_the_tokens(tmp_path):
    runner, port = await _refusing_bot_api()
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    try:  # side by side: each start takes a few seconds (the picture workers)
        done, unreachable = await asyncio.gather(
            asyncio.to_thread(majlis, tmp_path / "a", "run", TELEGRAM_BOT_TOKEN=TOKEN,
                              TELEGRAM_BASE_URL=f"http://127.0.0.1:{port}", DATABASE_URL=str(tmp_path / "a.db")),
            asyncio.to_thread(majlis, tmp_path / "b", "run", TELEGRAM_BOT_TOKEN=TOKEN,
                              TELEGRAM_BASE_URL=f"http://127.0.0.1:{closed_port()}",
                              DATABASE_URL=str(tmp_path / "b.db")))
    finally:
        await runner.cleanup()
    last = done.stderr.strip().splitlines()[-1]  # after the INFO lines of an operator's start
    assert done.returncode == 2 and last == "Telegram refused the token in TELEGRAM_BOT_TOKEN: check it in .env.", \
        done.stderr
    assert "Traceback" not in done.stderr
    # No Bot API at all: the network, not the token
    assert unreachable.returncode == 1 and "Check the network." in unreachable.stderr, unreachable.stderr
    assert "token" not in unreachable.stderr.lower() and "Traceback" not in unreachable.stderr


def test_a_refused_token_names_its_own_setting():
    import discord
    from telegram.error import InvalidToken, NetworkError

    from bot.cli import token_refused

    assert token_refused(InvalidToken()) == ("TELEGRAM_BOT_TOKEN", "Telegram")
    assert token_refused(discord.LoginFailure("Improper token has been passed.")) == ("DISCORD_BOT_TOKEN", "Discord")
    assert token_refused(NetworkError("no route")) is None and token_refused(ConnectionError()) is None


def test_a_server_that_refuses_is_quoted(tmp_path):
    """A real PostgreSQL (MAJLIS_TEST_DATABASE_URL) asked for a database it does not have: its own words, one line."""
    from sqlalchemy.engine import make_url

    from tests.engines import SKIP_REASON, postgres_base_url

    base = postgres_base_url()
    if base is None:
        pytest.skip(SKIP_REASON)
    url = make_url(base).set(database="majlis_no_such_database", query={}).render_as_string(hide_password=False)
    line = one_line(majlis(tmp_path, "ratings", "check", DATABASE_URL=url))
    assert 'the server refused: database "majlis_no_such_database" does not exist' in line, line
