"""`majlis db copy|backup|check` (issue 30 point 4) on a database made by playing whole matches of every game: the
copy to PostgreSQL passes the ratings check and replays every finished match, comes back to SQLite row for row,
and leaves PostgreSQL's id sequences past the copied ids; a non-empty target is refused and an interrupted copy
resumes; a backup taken while another connection writes is one consistent snapshot; the checks find damage."""

from __future__ import annotations

import shutil
import sqlite3
import threading
from pathlib import Path

import pytest
from sqlalchemy import select, text

import storage.db
from bot.cli import main
from bot.i18n import t, tn
from storage import Store
from storage.schema import metadata
from storage.transfer import CopyRefused, copy_database
from tests import played_db
from tests.engines import create_schema, drop_schema, fresh_schema_url, run_aside

FINISHED = 5  # one finished match of each game (tests/played_db.py), and one Kenza table still in play


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The played database, made once for the module; tests that change it work on a copy."""
    path = tmp_path_factory.mktemp("played") / "majlis.db"
    with pytest.MonkeyPatch.context() as patch:  # a throw-away file: no fsync at each of its 1300 commits
        pragmas = storage.db.SQLITE_PRAGMAS
        patch.setattr(storage.db, "SQLITE_PRAGMAS", tuple(
            "synchronous = OFF" if pragma.startswith("synchronous") else pragma for pragma in pragmas))
        run_aside(played_db.build(path))
    return path


@pytest.fixture
def english(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANG", "en_US.UTF-8")


def rows(url: str) -> dict[str, list[tuple]]:
    """Every row of every table, in primary-key order (recent_sends, which has none, by all its columns)."""
    async def read() -> dict[str, list[tuple]]:
        store = await Store.open(url, create=False)
        try:
            out = {}
            for table in metadata.sorted_tables:
                order = list(table.primary_key.columns) or list(table.columns)
                out[table.name] = await store.run(
                    lambda db, table=table, order=order: [tuple(row) for row in db.execute(
                        select(table).order_by(*order))], write=False)
            return out
        finally:
            await store.close()

    return run_aside_value(read())


def test_a_played_database_goes_to_postgresql_and_back_row_for_row(played, tmp_path, capsys, english,
                                                                     monkeypatch):
    base, schema = fresh_schema_url()
    pg = run_aside_value(create_schema(base, schema))
    try:
        assert main(["db", "copy", str(played), pg]) == 0
        out = capsys.readouterr().out
        assert tn("en", "dbverify.replayed", FINISHED) in out and t("en", "ladder.cli_identical") in out
        assert tn("en", "ladder.cli_summary", FINISHED, ratings=12) in out  # every table rated, humans only
        before = rows(str(played))
        assert sum(map(len, before.values())) > 1000 and all(before[name] for name in (
            "players", "chats", "matches", "seats", "moves", "messages", "stats", "coins", "coin_ledger",
            "rated_results", "ratings", "achievements"))
        assert rows(pg) == before

        # Refused a second time: the target holds rows now, and nothing of it changes.
        assert main(["db", "copy", str(played), pg]) == 2
        assert t("en", "dbcopy.not_empty", detail="")[:30] in capsys.readouterr().err
        back = tmp_path / "back.db"
        assert main(["db", "copy", pg, str(back)]) == 0
        assert rows(str(back)) == before

        monkeypatch.setenv("DATABASE_URL", pg)
        assert main(["db", "check"]) == 0
        assert t("en", "dbcheck.ok") in capsys.readouterr().out
        assert main(["db", "backup", str(tmp_path / "pg-backup.db")]) == 0  # PostgreSQL's rows of one snapshot
        assert rows(str(tmp_path / "pg-backup.db")) == before

        async def new_rows() -> tuple[int, int]:
            store = await Store.open(pg)
            try:  # the sequences were set past the copied ids: new rows take the next ones
                player = await store.upsert_player("fake", "99", "Nour")
                match = await store.create_match("kenza", "", {}, "fake", "-999", player.id, 1)
                return player.id, match.id
            finally:
                await store.close()

        assert run_aside_value(new_rows()) == (len(before["players"]) + 1, len(before["matches"]) + 1)
        run_aside(execute(pg, "SELECT setval(pg_get_serial_sequence('matches', 'id'), 2)"))
        assert main(["db", "check"]) == 1
        assert "matches.id: next 3, max 7" in capsys.readouterr().out
    finally:
        run_aside(drop_schema(base, schema))


def test_a_non_empty_target_is_refused_and_an_interrupted_copy_resumes(played, tmp_path):
    target = str(tmp_path / "target.db")

    class Interrupted(Exception):
        pass

    def stop_in_moves(table: str, done: int, total: int) -> None:
        if table == "moves" and done:
            raise Interrupted

    async def copy_twice() -> None:
        with pytest.raises(CopyRefused) as same:  # one file named two ways
            await copy_database(str(played), str(played.parent / ".." / played.parent.name / played.name))
        assert same.value.reason == "dbcopy.same"
        with pytest.raises(Interrupted):
            await copy_database(str(played), target, progress=stop_in_moves)
        with pytest.raises(CopyRefused) as refused:
            await copy_database(str(played), target)
        assert refused.value.reason == "dbcopy.not_empty"
        report = await copy_database(str(played), target, resume=True)
        assert "players" in report.skipped and "moves" not in report.skipped and not report.mismatched

    run_aside(copy_twice())
    assert rows(target) == rows(str(played))


def test_a_backup_while_another_connection_writes_is_one_snapshot(played, tmp_path, capsys, english, monkeypatch):
    live = tmp_path / "live.db"
    shutil.copy(played, live)
    monkeypatch.setenv("DATABASE_URL", str(live))
    stop, commits = threading.Event(), []

    def write() -> None:  # as another worker would: its own connection, committing all the time
        connection = sqlite3.connect(live, timeout=5)
        connection.execute("PRAGMA journal_mode = WAL")
        while not stop.is_set() or len(commits) < 20:
            with connection:  # one transaction: three rows, or none
                connection.executemany("INSERT INTO recent_sends (platform, chat_id, at) VALUES ('fake', ?, ?)",
                                       [("-1", len(commits))] * 3)
            commits.append(1)
        connection.close()

    writer = threading.Thread(target=write)
    writer.start()
    try:
        assert main(["db", "backup", str(tmp_path / "backup.db")]) == 0
    finally:
        stop.set()
        writer.join()
    assert t("en", "dbbackup.done", path=str(tmp_path / "backup.db"), size="")[:20] in capsys.readouterr().out
    copied = sqlite3.connect(tmp_path / "backup.db")
    sends = copied.execute("SELECT count(*) FROM recent_sends").fetchone()[0]
    copied.close()
    assert sends % 3 == 0 and sends < 3 * len(commits)  # whole transactions only, taken while they went on
    monkeypatch.setenv("DATABASE_URL", str(tmp_path / "backup.db"))
    assert main(["db", "check"]) == 0
    assert tn("en", "dbverify.replayed", FINISHED) in capsys.readouterr().out
    assert main(["db", "backup", str(tmp_path / "backup.db")]) == 2  # never over an existing file
    assert t("en", "dbbackup.exists", detail=str(tmp_path / "backup.db")) in capsys.readouterr().err


def test_the_check_finds_a_row_pointing_nowhere_and_a_log_that_does_not_replay(played, tmp_path, capsys, english,
                                                                                  monkeypatch):
    damaged = tmp_path / "damaged.db"
    shutil.copy(played, damaged)
    with sqlite3.connect(damaged) as connection:  # as a tool that does not turn foreign keys on could leave it
        connection.execute("UPDATE matches SET seed = seed + 1 WHERE id = 1")  # another deal: the log cannot fit it
        connection.execute("INSERT INTO seats (match_id, seat, player_id, timeouts_in_a_row, away) "
                           "VALUES (6, 9, 77, 0, 0)")
    monkeypatch.setenv("DATABASE_URL", str(damaged))
    assert main(["db", "check"]) == 1
    out = capsys.readouterr().out
    assert t("en", "dbcheck.orphan", detail="seats rowid") in out and "→ players" in out
    assert t("en", "dbverify.replay_failed", reason="match 1: the ") in out
    assert tn("en", "dbverify.replayed", FINISHED - 1) in out and tn("en", "dbcheck.problems", 2) in out
    monkeypatch.setenv("DATABASE_URL", str(tmp_path / "nothing.db"))
    assert main(["db", "check"]) == 2 and not (tmp_path / "nothing.db").exists()


def run_aside_value(job):  # noqa: ANN001, ANN201 - a coroutine's value, run on a loop of its own
    box = []

    async def keep() -> None:
        box.append(await job)

    run_aside(keep())
    return box[0]


async def execute(url: str, statement: str) -> None:
    store = await Store.open(url)
    try:
        async with store.transaction() as db:
            await db.execute(text(statement))
    finally:
        await store.close()

