"""Alembic took over from the hand-written runner: databases it created at any version migrate forward with every
row kept; fresh databases on both engines get the schema the query layer expects; newer schemas are refused;
workers starting together migrate once."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Iterable
from pathlib import Path

import aiosqlite
import pytest
from sqlalchemy import create_engine, inspect, text

from storage import SchemaTooNew, Store
from storage.migrate import at_head, newest_file_revision, revision_numbers
from storage.schema import metadata
from tests.engines import create_schema, drop_schema, fresh_schema_url
from tests.legacy_migrations import MIGRATIONS, Migration, apply_migrations

# Rows a bot had written by each legacy version: (version the rows need, table, row).
ROWS: list[tuple[int, str, dict[str, object]]] = [
    (1, "players", {"id": 1, "platform": "telegram", "user_id": "-100", "display_name": "علي", "language": "ar",
                    "created": 1700000000.25}),
    (1, "players", {"id": 2, "platform": "discord", "user_id": "99", "display_name": "Mona", "language": None,
                    "created": 1700000001.5}),
    (1, "chats", {"platform": "telegram", "chat_id": "-100", "language": "ar", "defaults": '{"turn_timer":30}',
                  "created": 1700000002.0}),
    (1, "matches", {"id": 1, "game": "kenza", "mode": "classic", "options": '{"target":151}', "status": "active",
                    "seed": 2**61 + 5, "snapshot": '{"log":["a","b"]}', "version": 2, "platform": "telegram",
                    "chat_id": "-100", "creator_id": 1, "deadline": 1700000100.75, "created": 1700000003.0,
                    "updated": 1700000004.0, "finished": None, "result": None}),
    (1, "matches", {"id": 2, "game": "tunj", "mode": "pairs", "options": "{}", "status": "finished", "seed": 3,
                    "snapshot": '{"over":true}', "version": 1, "platform": "telegram", "chat_id": "-100",
                    "creator_id": 1, "deadline": None, "created": 1699000000.0, "updated": 1699000001.0,
                    "finished": 1699000001.0, "result": '{"scores":[5,9],"winners":[1]}'}),
    (1, "seats", {"match_id": 1, "seat": 0, "player_id": 1, "bot_level": None, "timeouts_in_a_row": 1, "away": 0}),
    (1, "seats", {"match_id": 1, "seat": 1, "player_id": None, "bot_level": "normal", "timeouts_in_a_row": 0,
                  "away": 0}),
    (1, "seats", {"match_id": 2, "seat": 0, "player_id": 2, "bot_level": None, "timeouts_in_a_row": 0, "away": 1}),
    (1, "moves", {"match_id": 1, "seq": 1, "seat": 0, "actor": "human", "move": "a", "at": 1700000003.5}),
    (1, "moves", {"match_id": 1, "seq": 2, "seat": 1, "actor": "bot", "move": "b", "at": 1700000003.75}),
    (1, "moves", {"match_id": 2, "seq": 1, "seat": 0, "actor": "timer", "move": "x", "at": 1699000001.0}),
    (1, "messages", {"id": 1, "match_id": 1, "platform": "telegram", "chat_id": "-100", "message_id": "77",
                     "kind": "table", "seat": None, "updated": 1700000004.0}),
    (1, "messages", {"id": 2, "match_id": None, "platform": "telegram", "chat_id": "-100", "message_id": "78",
                     "kind": "notice", "seat": 0, "updated": 1700000004.5}),
    (1, "stats", {"player_id": 2, "game": "tunj", "mode": "pairs", "played": 1, "won": 1, "drawn": 0, "points": 9}),
    (5, "coins", {"player_id": 1, "balance": 420, "grant_day": "2026-11-29"}),
    (5, "coin_ledger", {"id": 1, "player_id": 1, "match_id": None, "delta": 500, "reason": "start", "at": 1.0}),
    (5, "coin_ledger", {"id": 2, "player_id": 1, "match_id": 1, "delta": -80, "reason": "stake", "at": 2.0}),
    (6, "ratings", {"player_id": 2, "game": "tunj", "mode": "pairs", "mu": 27.125, "sigma": 7.5, "rating": 1100,
                    "matches": 1, "wins": 1, "draws": 0, "losses": 0, "points": 9, "streak": 1, "best_streak": 1,
                    "updated": 1699000001.0}),
    (6, "rated_results", {"match_id": 2, "player_id": 2, "seq": 1, "seat": 0, "game": "tunj", "mode": "pairs",
                          "side": 0, "place": 1, "abandoned": 0, "points": 9, "outcome": "win", "rating_before": 1000,
                          "mu": 27.125, "sigma": 7.5, "at": 1699000001.0}),
    (6, "achievements", {"player_id": 2, "code": "first_win", "match_id": 2, "at": 1699000001.0}),
]
# Columns later versions added, with what an upgraded row must read in them.
ADDED = {2: {"players": {"client_language": None, "username": None}},
         4: {"matches": {"delivered_version": "by status"}},
         5: {"matches": {"stake": 0}},
         6: {"matches": {"rated": 0}},
         8: {"matches": {"lobby_version": 0, "lobby_shown": 0}},  # revision 0008: no lobby message owed
         10: {"seats": {"platform": "by player"}},  # revision 0010: a human seat is on its player's platform
         12: {"players": {"banned_at": None}}}  # revision 0012 (bans): nobody is banned


async def _legacy_database(path: str, version: int) -> list[tuple[str, dict[str, object]]]:
    """A database as the hand-written runner left it at `version`, holding the rows that version could hold."""
    written = []
    async with aiosqlite.connect(path, isolation_level=None) as conn:
        assert await apply_migrations(conn, MIGRATIONS[:version]) == list(range(1, version + 1))
        await conn.execute("PRAGMA foreign_keys = ON")
        for needs, table, row in ROWS:
            if needs <= version:
                marks = ", ".join("?" for _ in row)
                await conn.execute(f"INSERT INTO {table} ({', '.join(row)}) VALUES ({marks})", tuple(row.values()))
                written.append((table, row))
    return written


def _read(path: str, table: str) -> list[dict[str, object]]:
    with sqlite3.connect(path) as conn:
        conn.row_factory = sqlite3.Row
        return _ordered(dict(row) for row in conn.execute(f"SELECT * FROM {table}"))


def _ordered(rows: Iterable[dict[str, object]]) -> list[dict[str, object]]:
    return sorted(rows, key=lambda row: repr(sorted(row.items())))


@pytest.mark.parametrize("version", range(1, len(MIGRATIONS) + 1))
async def test_a_database_of_every_legacy_version_migrates_with_every_row_kept(tmp_path: Path, version: int) -> None:
    path = str(tmp_path / f"v{version}.db")
    written = await _legacy_database(path, version)
    store = await Store.open(path)
    assert store.migrations_applied == list(range(version + 1, revision_numbers()[-1] + 1))
    await store.close()
    for table in {table for table, _ in written}:
        expected = []
        for row in (row for name, row in written if name == table):
            row = dict(row)
            for tables in ADDED.values():
                for column, value in tables.get(table, {}).items():
                    if column not in row:
                        if value == "by status":  # version 4 marks ended matches delivered, open ones owed
                            delivered = version < 4 and row["status"] in ("finished", "cancelled")
                            value = row["version"] if delivered else None
                        elif value == "by player":
                            value = next((player["platform"] for name, player in written
                                          if name == "players" and player["id"] == row["player_id"]), None)
                        row[column] = value
            expected.append(row)
        assert _read(path, table) == _ordered(expected), table
    # ...and the store reads them, and carries on writing: the next move joins the same log.
    store = await Store.open(path)
    try:
        assert store.migrations_applied == []
        match = await store.get_match(1)
        assert (match.version, match.snapshot, match.seed, match.deadline) == (2, {"log": ["a", "b"]}, 2**61 + 5,
                                                                               1700000100.75)
        assert [(s.player_id, s.bot_level, s.display_name) for s in await store.seats(1)] == [
            (1, None, "علي"), (None, "normal", None)]
        assert (await store.player_stats(2))["tunj"].won == 1
        await store.apply_move(1, 2, 0, "human", "c", {"log": ["a", "b", "c"]}, None)
        assert [m.move for m in await store.moves(1)] == ["a", "b", "c"]
    finally:
        await store.close()


async def test_alembic_builds_on_sqlite_exactly_the_schema_the_old_runner_built(tmp_path: Path) -> None:
    old, new = str(tmp_path / "old.db"), str(tmp_path / "new.db")
    await _legacy_database(old, len(MIGRATIONS))
    await (await Store.open(old)).close()  # stamped at the runner's last version, then the revisions after it
    await (await Store.open(new)).close()

    def schema(path: str) -> dict[str, str]:
        with sqlite3.connect(path) as conn:
            return {name: sql for name, sql in conn.execute("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL")
                    if name not in ("schema_version", "alembic_version")}

    assert schema(new) == schema(old)
    assert len(schema(new)) > 20


async def test_a_fresh_database_has_the_tables_and_columns_the_queries_use(any_store: Store) -> None:
    def tables(connection: object) -> dict[str, set[str]]:
        inspector = inspect(connection)
        return {name: {column["name"] for column in inspector.get_columns(name)}
                for name in inspector.get_table_names() if name != "alembic_version"}

    async with any_store.transaction(write=False) as db:
        found = await db.run_sync(tables)
    assert found == {table.name: {column.name for column in table.columns} for table in metadata.sorted_tables}


async def test_a_database_from_a_newer_build_is_refused(tmp_path: Path) -> None:
    path = str(tmp_path / "future.db")
    async with aiosqlite.connect(path, isolation_level=None) as conn:
        # A version past every revision this build knows (the runner's numbers went on as the revisions' do).
        later = tuple(Migration(number, "later", (f"CREATE TABLE later{number} (x INTEGER)",))
                      for number in range(len(MIGRATIONS) + 1, revision_numbers()[-1] + 2))
        await apply_migrations(conn, MIGRATIONS + later)
    with pytest.raises(SchemaTooNew, match=f"version {revision_numbers()[-1] + 1}; this build knows up to"):
        await Store.open(path)
    path = str(tmp_path / "future_alembic.db")
    await (await Store.open(path)).close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '9999'")
    with pytest.raises(SchemaTooNew, match="revision 9999"):
        await Store.open(path)


async def test_workers_starting_together_on_a_new_postgresql_database_migrate_it_once() -> None:
    base, schema = fresh_schema_url()
    url = await create_schema(base, schema)
    try:
        stores = await asyncio.gather(*(Store.open(url) for _ in range(3)))
        assert sorted(store.migrations_applied for store in stores) == [[], [], revision_numbers()]
        player = await stores[0].upsert_player("tg", 1, "A")
        assert await stores[2].get_player(player.id) == player
        for store in stores:
            await store.close()
    finally:
        await drop_schema(base, schema)


async def test_a_database_at_the_newest_revision_is_recognised_without_alembic(tmp_path: Path) -> None:
    """Every start but the first after an upgrade skips Alembic (storage/migrate.py `at_head`): the revision files'
    names must name the very head Alembic walks to, and a database one revision behind must still be upgraded."""
    assert newest_file_revision() == revision_numbers()[-1]
    path = str(tmp_path / "head.db")
    await (await Store.open(path)).close()
    again = await Store.open(path)
    assert again.migrations_applied == []
    await again.close()
    engine = create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        assert at_head(conn)
        conn.execute(text("UPDATE alembic_version SET version_num = :old"), {"old": f"{revision_numbers()[-2]:04d}"})
        assert not at_head(conn), "a database one revision behind goes to Alembic"
    engine.dispose()
