"""The hot reads sent straight to sqlite3 (storage/fast_reads.py) give the rows SQLAlchemy gives, and the hot
queries find their rows by an index, not by walking every live match."""

from __future__ import annotations

import sqlite3

import pytest

import engine
from storage import matches as match_statements
from storage import players as player_statements
from storage.fast_reads import plan_for

HOT = {  # statement -> the parameters of a read that finds a row
    "_MATCH": lambda ids: {"match_id": ids["match"]},
    "_MATCH_SEATS": lambda ids: {"match_id": ids["match"]},
    "_PLAYER_MATCH": lambda ids: {"player_id": ids["player"], "platform": "telegram"},
    "_OPEN_MATCH": lambda ids: {"platform": "telegram", "chat_id": "-5"},
    "_PLAYER": lambda ids: {"player_id": ids["player"]},
    "_ACCOUNT": lambda ids: {"platform": "telegram", "user_id": "1"},
    "_CHAT": lambda ids: {"platform": "telegram", "chat_id": "-5"},
}


def statement(name: str):
    found = getattr(match_statements, name, None)
    return getattr(player_statements, name) if found is None else found


async def live_match(store) -> dict[str, int]:
    player = await store.upsert_player("telegram", "1", "Amal", client_language="ar", username="amal")
    await store.get_chat("telegram", "-5")
    match = await store.create_match("tunj", "private", {"timer": 30}, "telegram", "-5", player.id, 5)
    await store.add_seat(match.id, player.id)
    await store.add_seat(match.id, None, "normal")
    game = engine.get("tunj")
    await store.start_match(match.id, game.to_json(game.new(2, {}, seed=5)), 1234.5)
    return {"match": match.id, "player": player.id}


@pytest.mark.parametrize("name", sorted(HOT))
async def test_a_hot_read_gives_sqlalchemys_rows(store, name):
    ids = await live_match(store)
    chosen = statement(name)
    params = HOT[name](ids)
    store._fast_plan(chosen)  # a statement is planned from its second read on
    plan = store._fast_plan(chosen)
    assert plan is not None, f"{name} is read through SQLAlchemy, not sqlite3"
    expected = [dict(row) for row in await store.run(
        lambda db: list(db.execute(chosen, params).mappings().all()), write=False)]
    assert expected, f"the {name} read finds its row"
    assert await store._read_all(chosen, params) == expected
    assert await store._read_one(chosen, params) == expected[0]
    missing = {key: (-1 if isinstance(value, int) else "nobody") for key, value in params.items()}
    assert await store._read_one(chosen, missing) is None


async def test_a_read_inside_a_transaction_reads_in_it(store):
    ids = await live_match(store)
    async with store.transaction() as db:
        assert store._fast_plan(match_statements._MATCH) is None, "inside a transaction the read joins it"
        await db.execute(match_statements._CHANGE_MATCH, {"match_id": ids["match"], "mode": "quick"})
        assert (await store.get_match(ids["match"])).mode == "quick", "the transaction's own write is seen"
    assert (await store.get_match(ids["match"])).mode == "quick"


async def test_a_statement_built_for_one_call_is_never_planned_nor_kept(store):
    """Reads whose statement is built per call (values written in) stay with SQLAlchemy, which caches their
    compiled form by shape: planning each would compile every time and keep every one."""
    ids = await live_match(store)
    for _ in range(3):
        assert await store.moves(ids["match"]) == []
        await store.next_deadline()
    planned, seen = len(store._plans), len(store._seen)
    for _ in range(5):
        assert await store.moves(ids["match"]) == []
    assert len(store._plans) == planned, "a statement built per call was planned"
    assert len(store._seen) == seen, "a statement built per call is kept after its read"
    assert all(entry() is not None for entry in store._seen.values())


def test_an_in_list_or_converting_type_keeps_sqlalchemy():
    from sqlalchemy import bindparam, select
    from sqlalchemy.dialects import sqlite

    from storage.schema import matches

    expanded = select(matches).where(matches.c.id.in_(bindparam("ids", expanding=True)))
    assert plan_for(expanded, sqlite.dialect()) is None
    assert plan_for(match_statements._MATCH, sqlite.dialect()) is not None


@pytest.mark.parametrize("name", ["_PLAYER_MATCH", "_OPEN_MATCH"])
async def test_a_players_or_chats_table_is_found_by_an_index_not_by_every_live_match(store, name):
    ids = await live_match(store)
    store._fast_plan(statement(name))
    plan = store._fast_plan(statement(name))
    with sqlite3.connect(store.path) as connection:
        steps = [row[3] for row in connection.execute("EXPLAIN QUERY PLAN " + plan.sql,
                                                       plan.arguments(HOT[name](ids)))]
    assert not any(step == "SEARCH matches USING INDEX matches_by_status (status=?)" for step in steps), steps
