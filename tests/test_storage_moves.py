"""Storage: apply_move's version check, atomicity, concurrency, crash safety, stats and leaderboard, replay."""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

import engine
from engine import bots as engine_bots
from storage import GameStats, NotFound, StaleVersion, Store
from storage.stats import seat_outcomes

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def store(any_store: Store) -> Store:
    """Each test here runs on SQLite and on PostgreSQL (when MAJLIS_TEST_DATABASE_URL is set)."""
    return any_store


async def _started(store: Store, chat: str = "c", humans: int = 2, bots: int = 0, game: str = "kenza",
                   platform: str = "tg", snapshot: dict[str, Any] | None = None, mode: str = "classic"):
    players = [await store.upsert_player(platform, f"{chat}-u{i}", f"{chat}-P{i}") for i in range(humans)]
    match = await store.create_match(game, mode, {}, platform, chat, players[0].id if players else None, 3)
    for player in players:
        await store.add_seat(match.id, player_id=player.id)
    for _ in range(bots):
        await store.add_seat(match.id, bot_level="random")
    match = await store.start_match(match.id, snapshot if snapshot is not None else {"log": []}, 100.0)
    return match, players


# ---- the version check ----------------------------------------------------------------------------------------

async def test_apply_move_advances_and_logs(store: Store) -> None:
    match, _ = await _started(store)
    after = await store.apply_move(match.id, 0, 0, "human", "play 6o", {"log": ["play 6o"]}, 200.0)
    assert (after.version, after.snapshot, after.deadline, after.status) == (1, {"log": ["play 6o"]}, 200.0,
                                                                              "active")
    after = await store.apply_move(match.id, 1, 1, "timer", "draw", {"log": ["play 6o", "draw"]}, None)
    moves = await store.moves(match.id)
    assert [(m.seq, m.seat, m.actor, m.move) for m in moves] == [(1, 0, "human", "play 6o"), (2, 1, "timer", "draw")]
    assert after.deadline is None


async def test_duplicate_and_stale_moves_are_refused(store: Store) -> None:
    match, _ = await _started(store)
    await store.apply_move(match.id, 0, 0, "human", "a", {"log": ["a"]}, None)
    with pytest.raises(StaleVersion) as stale:  # the same button pressed twice
        await store.apply_move(match.id, 0, 0, "human", "a", {"log": ["a", "a"]}, None)
    assert (stale.value.expected, stale.value.current, stale.value.status) == (0, 1, "active")
    with pytest.raises(StaleVersion):  # from the future
        await store.apply_move(match.id, 5, 0, "human", "b", {}, None)
    assert [m.move for m in await store.moves(match.id)] == ["a"]
    assert (await store.get_match(match.id)).snapshot == {"log": ["a"]}


async def test_moves_only_while_active(store: Store) -> None:
    players = [await store.upsert_player("tg", 1, "A")]
    lobby = await store.create_match("kenza", "classic", {}, "tg", "c", players[0].id, 1)
    with pytest.raises(StaleVersion):
        await store.apply_move(lobby.id, 0, 0, "human", "x", {}, None)
    await store.add_seat(lobby.id, player_id=players[0].id)
    await store.start_match(lobby.id, {}, None)
    await store.cancel_match(lobby.id)
    with pytest.raises(StaleVersion) as stale:
        await store.apply_move(lobby.id, 0, 0, "human", "x", {}, None)
    assert stale.value.status == "cancelled"
    with pytest.raises(NotFound):
        await store.apply_move(999, 0, 0, "human", "x", {}, None)
    with pytest.raises(ValueError):
        await store.apply_move(lobby.id, 0, 0, "alien", "x", {}, None)


async def test_set_deadline(store: Store) -> None:
    match, _ = await _started(store)
    assert (await store.set_deadline(match.id, 555.0)).deadline == 555.0
    await store.apply_move(match.id, 0, 0, "human", "a", {"log": ["a"]}, 600.0)
    with pytest.raises(StaleVersion):
        await store.set_deadline(match.id, 1.0, expected_version=0)
    assert (await store.set_deadline(match.id, None, expected_version=1)).deadline is None
    await store.cancel_match(match.id)
    with pytest.raises(StaleVersion):
        await store.set_deadline(match.id, 1.0)


async def test_move_log_cannot_be_rewritten(store: Store) -> None:
    match, _ = await _started(store)
    await store.apply_move(match.id, 0, 0, "human", "a", {"log": ["a"]}, None)
    for sql in ("UPDATE moves SET move = 'b'", "DELETE FROM moves"):
        with pytest.raises(DBAPIError, match="append-only"):
            async with store.transaction() as db:
                await db.execute(text(sql))
    assert [m.move for m in await store.moves(match.id)] == ["a"]


# ---- atomicity ------------------------------------------------------------------------------------------------

async def _assert_untouched(store: Store, match_id: int, players: list[Any]) -> None:
    match = await store.get_match(match_id)
    assert (match.status, match.version, match.snapshot, match.deadline, match.result) == ("active", 0,
                                                                                           {"log": []}, 100.0, None)
    assert await store.moves(match_id) == []
    for player in players:
        assert await store.player_stats(player.id) == {}


FAILING_STATS = {
    "sqlite": ("""CREATE TEMP TRIGGER fail_stats BEFORE INSERT ON main.stats
                  BEGIN SELECT RAISE(ABORT, 'injected failure'); END""",),
    "postgresql": ("""CREATE OR REPLACE FUNCTION fail_stats() RETURNS trigger LANGUAGE plpgsql AS $$
                      BEGIN RAISE EXCEPTION 'injected failure'; END $$""",
                   "CREATE TRIGGER fail_stats BEFORE INSERT ON stats FOR EACH ROW EXECUTE FUNCTION fail_stats()"),
}


async def test_failure_in_the_database_mid_move_writes_nothing(store: Store) -> None:
    match, players = await _started(store)
    async with store.transaction() as db:  # inject: the stats write fails after move + snapshot were written
        for statement in FAILING_STATS[store.dialect]:
            await db.execute(text(statement))
    result = {"scores": [10, 5], "winners": [0]}
    with pytest.raises(DBAPIError, match="injected"):
        await store.apply_move(match.id, 0, 0, "human", "last", {"log": ["last"]}, None, finished_result=result)
    await _assert_untouched(store, match.id, players)
    async with store.transaction() as db:
        await db.execute(text("DROP TRIGGER temp.fail_stats" if store.dialect == "sqlite"
                              else "DROP TRIGGER fail_stats ON stats"))
    done = await store.apply_move(match.id, 0, 0, "human", "last", {"log": ["last"]}, None, finished_result=result)
    assert done.status == "finished" and (await store.player_stats(players[0].id))["kenza"].won == 1


async def test_failure_in_python_mid_move_writes_nothing(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    match, players = await _started(store)
    with pytest.raises(ValueError):  # NaN is not JSON: fails after the move row was inserted
        await store.apply_move(match.id, 0, 0, "human", "x", {"log": [float("nan")]}, None)
    await _assert_untouched(store, match.id, players)

    original = Store._record_result

    async def half_then_fail(self: Store, db: Any, row: Any, result: dict[str, Any]) -> None:
        await original(self, db, row, result)  # every stats row written...
        raise RuntimeError("crash before commit")  # ...then the process dies before COMMIT

    monkeypatch.setattr(Store, "_record_result", half_then_fail)
    with pytest.raises(RuntimeError):
        await store.apply_move(match.id, 0, 0, "human", "x", {"log": ["x"]}, None,
                               finished_result={"scores": [1, 0], "winners": [0]})
    await _assert_untouched(store, match.id, players)


async def test_composed_transaction_is_atomic(store: Store) -> None:
    match, players = await _started(store)
    with pytest.raises(RuntimeError):
        async with store.transaction():
            await store.apply_move(match.id, 0, 0, "human", "x", {"log": ["x"]}, None)
            await store.set_seat_flags(match.id, 0, timeouts_in_a_row=0, away=True)
            raise RuntimeError("renderer failed")
    await _assert_untouched(store, match.id, players)
    assert not (await store.seats(match.id))[0].away


# ---- concurrency ----------------------------------------------------------------------------------------------

async def test_simultaneous_presses_apply_once(store: Store) -> None:
    match, _ = await _started(store)
    outcomes = await asyncio.gather(
        *(store.apply_move(match.id, 0, 0, "human", f"press{i}", {"log": [f"press{i}"]}, None) for i in range(30)),
        return_exceptions=True,
    )
    winners = [o for o in outcomes if not isinstance(o, BaseException)]
    assert len(winners) == 1
    assert all(isinstance(o, StaleVersion) for o in outcomes if o is not winners[0])
    assert [m.move for m in await store.moves(match.id)] == winners[0].snapshot["log"]


async def test_many_concurrent_writers_lose_no_update(store: Store) -> None:
    """Each writer reads the latest snapshot, extends it and applies with that version, retrying when beaten.

    A lost update would show as a snapshot log missing a move that the move table has (or vice versa).
    """
    match, _ = await _started(store)
    wins: dict[int, list[str]] = {}
    per_task, tasks = 5, 20
    all_read = asyncio.Barrier(tasks)

    async def writer(name: str) -> None:
        applied, first = 0, True
        while applied < per_task:
            seen = await store.get_match(match.id)
            if first:  # every writer holds the same version before the first of them applies
                await all_read.wait()
                first = False
            move = f"{name}.{applied}"
            try:
                new = await store.apply_move(match.id, seen.version, 0, "human", move,
                                             {"log": seen.snapshot["log"] + [move]}, None)
            except StaleVersion:
                continue
            wins.setdefault(new.version, []).append(name)
            applied += 1

    await asyncio.gather(*(writer(f"t{i}") for i in range(tasks)))
    final = await store.get_match(match.id)
    moves = await store.moves(match.id)
    assert final.version == per_task * tasks
    assert sorted(wins) == list(range(1, final.version + 1)) and all(len(v) == 1 for v in wins.values())
    assert [m.seq for m in moves] == list(range(1, final.version + 1))
    assert final.snapshot["log"] == [m.move for m in moves]
    assert len(set(final.snapshot["log"])) == final.version


# ---- crash safety ---------------------------------------------------------------------------------------------

async def test_close_and_reopen_keeps_everything(tmp_path: Path) -> None:
    path = str(tmp_path / "durable.db")
    store = await Store.open(path)
    match, _ = await _started(store)
    log: list[str] = []
    for i in range(10):
        log.append(f"m{i}")
        await store.apply_move(match.id, i, i % 2, "human", f"m{i}", {"log": list(log)}, 1000.0 + i)
    await store.close()
    store = await Store.open(path)
    again = await store.get_match(match.id)
    assert (again.version, again.snapshot, again.deadline) == (10, {"log": log}, 1009.0)
    assert [m.move for m in await store.moves(match.id)] == log
    assert [m.id for m in await store.active_matches()] == [match.id]
    await store.close()


def test_killed_process_keeps_committed_moves_only(tmp_path: Path) -> None:
    """A process that dies without closing (os._exit) keeps every committed move and loses the one in flight."""
    path = tmp_path / "crash.db"
    script = textwrap.dedent(f"""
        import asyncio, os, sys
        sys.path.insert(0, {str(ROOT)!r})
        from storage import Store

        async def main():
            store = await Store.open({str(path)!r})
            player = await store.upsert_player("tg", 1, "A")
            match = await store.create_match("kenza", "classic", {{}}, "tg", "c", player.id, 1)
            await store.add_seat(match.id, player_id=player.id)
            await store.start_match(match.id, {{"log": []}}, None)
            for i in range(5):
                await store.apply_move(match.id, i, 0, "human", f"m{{i}}", {{"log": [f"m{{j}}" for j in range(i + 1)]}},
                                       None)
            async with store.transaction():
                await store.apply_move(match.id, 5, 0, "human", "lost", {{"log": ["lost"]}}, None)
                os._exit(3)

        asyncio.run(main())
    """)
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30)
    assert completed.returncode == 3, completed.stderr

    async def check() -> None:
        store = await Store.open(str(path))
        match = (await store.active_matches())[0]
        assert match.version == 5 and match.snapshot == {"log": [f"m{i}" for i in range(5)]}
        assert [m.move for m in await store.moves(match.id)] == [f"m{i}" for i in range(5)]
        await store.close()

    asyncio.run(check())


# ---- finishing, stats and the leaderboard ---------------------------------------------------------------------

def test_seat_outcomes() -> None:
    assert seat_outcomes({"scores": [5, 9], "winners": [1]}, 2) == [(False, False, 5), (True, False, 9)]
    teams = seat_outcomes({"scores": [40, 70], "winners": [1]}, 4)  # teams {0,2} and {1,3}
    assert teams == [(False, False, 40), (True, False, 70), (False, False, 40), (True, False, 70)]
    drawn = seat_outcomes({"scores": [7, 7, 3], "winners": [0, 1], "draw": True}, 3)
    assert drawn == [(False, True, 7), (False, True, 7), (False, False, 3)]
    assert seat_outcomes({"winners": [0]}, 2) == [(True, False, 0), (False, False, 0)]


async def _play_out(store: Store, chat: str, people: list[Any], result: dict[str, Any], bots: int = 0,
                    game: str = "kenza", mode: str = "classic", record_stats: bool = True) -> None:
    match = await store.create_match(game, mode, {}, people[0].platform, chat, people[0].id, 1)
    for person in people:
        await store.add_seat(match.id, player_id=person.id)
    for _ in range(bots):
        await store.add_seat(match.id, bot_level="normal")
    await store.start_match(match.id, {}, 50.0)
    done = await store.apply_move(match.id, 0, 0, "human", "end", {"over": True}, 60.0, finished_result=result,
                                  record_stats=record_stats)
    assert (done.status, done.result, done.deadline) == ("finished", result, None)
    assert done.finished is not None


async def test_finishing_updates_stats_for_human_seats(store: Store) -> None:
    a, b, c = [await store.upsert_player("tg", i, name) for i, name in enumerate("ABC")]
    await _play_out(store, "c", [a, b, c], {"scores": [30, 80], "winners": [1]}, bots=1)  # teams: B + bot win
    assert await store.lobby_or_active_match("tg", "c") is None
    assert (await store.player_stats(b.id))["kenza"] == GameStats("kenza", played=1, won=1, drawn=0, points=80)
    a_stats = (await store.player_stats(a.id))["kenza"]
    assert (a_stats.played, a_stats.won, a_stats.lost, a_stats.points) == (1, 0, 1, 30)
    assert (await store.player_stats(c.id))["kenza"].won == 0
    await _play_out(store, "c", [a, b], {"scores": [50, 50], "winners": [0, 1], "draw": True})
    a_stats = (await store.player_stats(a.id))["kenza"]
    assert (a_stats.played, a_stats.won, a_stats.drawn, a_stats.points) == (2, 0, 1, 80)
    await _play_out(store, "c", [a], {"scores": [9, 0], "winners": [0]}, bots=1, game="tunj")
    assert set(await store.player_stats(a.id)) == {"kenza", "tunj"}
    await _play_out(store, "c", [a], {"scores": [9, 0], "winners": [0]}, bots=1, game="tunj", record_stats=False)
    assert (await store.player_stats(a.id))["tunj"].played == 1


async def test_leaderboard_order_and_filters(store: Store) -> None:
    a, b, c, d = [await store.upsert_player("tg", i, name) for i, name in enumerate("ABCD")]
    stranger = await store.upsert_player("dc", 9, "S")

    async def solo(person: Any, won: bool, points: int, game: str = "kenza", mode: str = "classic") -> None:
        await _play_out(store, f"chat-{person.id}", [person], {"scores": [points, 0], "winners": [0 if won else 1]},
                        bots=1, game=game, mode=mode)

    for won in (True, True, False):
        await solo(a, won, 5)  # 2 wins of 3
    for _ in range(2):
        await solo(b, True, 5)  # 2 of 2, 10 points
        await solo(c, True, 25, mode="ranked")  # 2 of 2, 50 points
    await _play_out(store, "chat-d", [d], {"scores": [1, 1], "winners": [0, 1], "draw": True}, bots=1)
    await solo(d, True, 1, game="tunj")
    for _ in range(5):
        await solo(stranger, True, 100)

    board = await store.leaderboard("kenza", "tg")
    assert [(r.rank, r.display_name, r.won, r.played, r.points) for r in board] == [
        (1, "C", 2, 2, 50), (2, "B", 2, 2, 10), (3, "A", 2, 3, 15), (4, "D", 0, 1, 1)]
    assert board[2].win_rate == pytest.approx(2 / 3) and board[3].drawn == 1
    assert [r.display_name for r in await store.leaderboard("kenza", "tg", limit=2)] == ["C", "B"]
    assert [r.display_name for r in await store.leaderboard("kenza", "tg", mode="ranked")] == ["C"]
    assert [r.display_name for r in await store.leaderboard("tunj", "tg")] == ["D"]
    everything = await store.leaderboard(None, "tg")
    assert [(r.display_name, r.won, r.played) for r in everything][-1] == ("D", 1, 2)
    assert [r.display_name for r in await store.leaderboard(None, "dc")] == ["S"]
    assert await store.leaderboard("canasta", "tg") == []


# ---- replay with a real game ----------------------------------------------------------------------------------

async def test_kenza_match_replays_from_the_move_log(tmp_path: Path) -> None:
    """Play a whole Kenza match through the store with bots, reopen, and rebuild the state from seed + moves."""
    game = engine.get("kenza")
    path = str(tmp_path / "kenza.db")
    store = await Store.open(path)
    people = [await store.upsert_player("tg", i, f"K{i}") for i in range(2)]
    options = {"target": 101}
    match = await store.create_match("kenza", "classic", options, "tg", "k", people[0].id, 2024)
    for person in people:
        await store.add_seat(match.id, player_id=person.id)
    state = game.new(players=2, options=options, seed=match.seed)
    match = await store.start_match(match.id, game.to_json(state), None)
    chooser, rng = engine_bots.get("kenza", "random"), random.Random(5)
    while (seat := game.to_move(state)) is not None:
        move = chooser.choose(game.view(state, seat), game.legal_moves(state, seat), rng)
        state = game.apply(state, seat, move)
        over = game.result(state)["over"]
        match = await store.apply_move(match.id, match.version, seat, "bot", move, game.to_json(state), None,
                                       finished_result=game.result(state) if over else None)
    await store.close()

    store = await Store.open(path)
    saved = await store.get_match(match.id)
    assert saved.version == len(await store.moves(saved.id)) > 20
    replayed = game.new(players=2, options=saved.options, seed=saved.seed)
    for record in await store.moves(saved.id):
        assert game.to_move(replayed) == record.seat
        replayed = game.apply(replayed, record.seat, record.move)
    assert game.to_json(replayed) == saved.snapshot
    assert saved.status == "finished" and saved.result == game.result(replayed)
    winners = set(saved.result["winners"])
    for seat, person in enumerate(people):
        record = (await store.player_stats(person.id))["kenza"]
        assert record.played == 1 and record.won == int(seat in winners and not saved.result.get("draw"))
    await store.close()


async def test_player_active_match_and_due_timers(tmp_path) -> None:
    from storage import Store

    store = await Store.open(str(tmp_path / "due.db"))
    ali = await store.upsert_player("tg", 1, "Ali")
    first = await store.create_match("kenza", "casual", {}, "tg", -1, ali.id, 1)
    await store.add_seat(first.id, player_id=ali.id)
    await store.add_seat(first.id, bot_level="normal")
    assert await store.player_active_match("tg", ali.id) is None  # a lobby is not in play
    await store.start_match(first.id, {"game": "kenza"}, deadline=100.0)
    second = await store.create_match("kenza", "casual", {}, "tg", -2, ali.id, 2)
    await store.add_seat(second.id, player_id=ali.id)
    await store.add_seat(second.id, bot_level="random")
    await store.start_match(second.id, {"game": "kenza"}, deadline=50.0)
    assert (await store.player_active_match("tg", ali.id)).id == second.id
    assert await store.player_active_match("dc", ali.id) is None
    assert await store.due_timers(40.0) == []
    assert await store.due_timers(100.0) == [(second.id, 0), (first.id, 0)]
    await store.cancel_match(second.id)
    assert await store.due_timers(1000.0) == [(first.id, 0)]
    assert (await store.player_active_match("tg", ali.id)).id == first.id
    await store.close()
