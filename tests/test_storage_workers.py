"""Two workers on one database (two stores, each with its own connections): a match's moves, a lobby's start and
seats, and due timers are decided by the database, whatever each worker's memory says. Runs on SQLite (two
connections to one file) and PostgreSQL (when MAJLIS_TEST_DATABASE_URL is set)."""

from __future__ import annotations

import asyncio

import pytest

from storage import StaleVersion, Store, TableFull, WrongStatus


async def _lobby(store: Store, chat: str, humans: int = 2) -> int:
    players = [await store.upsert_player("tg", f"{chat}-{i}", f"P{i}") for i in range(humans)]
    match = await store.create_match("kenza", "classic", {}, "tg", chat, players[0].id, 1)
    for player in players:
        await store.add_seat(match.id, player_id=player.id)
    return match.id


async def test_a_lobby_started_by_two_workers_at_once_starts_once(workers: tuple[Store, Store]) -> None:
    a, b = workers
    for round_ in range(5):
        match_id = await _lobby(a, f"c{round_}")
        outcomes = await asyncio.gather(a.start_match(match_id, {"by": "a"}, None, seat_count=2),
                                        b.start_match(match_id, {"by": "b"}, None, seat_count=2),
                                        return_exceptions=True)
        started = [o for o in outcomes if not isinstance(o, BaseException)]
        assert len(started) == 1 and isinstance([o for o in outcomes if o not in started][0], WrongStatus)
        match = await b.get_match(match_id)
        assert (match.status, match.version, match.snapshot) == ("active", 0, started[0].snapshot)


async def test_a_start_dealt_for_fewer_seats_than_the_lobby_has_now_is_refused(workers: tuple[Store, Store]) -> None:
    a, b = workers
    match_id = await _lobby(a, "c")
    late = await b.upsert_player("tg", "late", "Late")
    await b.add_seat(match_id, player_id=late.id)  # joined through the other worker after a dealt for two
    with pytest.raises(WrongStatus, match="has 3 seats now, not 2"):
        await a.start_match(match_id, {}, None, seat_count=2)
    assert (await a.get_match(match_id)).status == "lobby"


async def test_the_last_seat_taken_through_two_workers_at_once_is_taken_once(workers: tuple[Store, Store]) -> None:
    a, b = workers
    match_id = await _lobby(a, "c", humans=3)
    x, y = await a.upsert_player("tg", "x", "X"), await b.upsert_player("tg", "y", "Y")
    outcomes = await asyncio.gather(a.add_seat(match_id, player_id=x.id, max_seats=4),
                                    b.add_seat(match_id, player_id=y.id, max_seats=4), return_exceptions=True)
    assert sorted(type(o).__name__ for o in outcomes) == ["Seat", "TableFull"]
    assert len(await a.seats(match_id)) == 4
    with pytest.raises(TableFull):
        await b.add_seat(match_id, bot_level="normal", max_seats=4)


async def test_presses_on_two_workers_apply_once_per_version(workers: tuple[Store, Store]) -> None:
    a, b = workers
    match_id = await _lobby(a, "c")
    await a.start_match(match_id, {"log": []}, None)
    for version in range(6):
        outcomes = await asyncio.gather(
            *(store.apply_move(match_id, version, 0, "human", f"{name}{version}", {"log": [name]}, None)
              for store, name in ((a, "a"), (b, "b"), (a, "c"), (b, "d"))), return_exceptions=True)
        winners = [o for o in outcomes if not isinstance(o, BaseException)]
        assert len(winners) == 1 and sum(isinstance(o, StaleVersion) for o in outcomes) == 3
    assert [m.seq for m in await b.moves(match_id)] == [1, 2, 3, 4, 5, 6]


async def test_each_due_timer_is_claimed_by_one_worker_until_its_lease_ends(workers: tuple[Store, Store]) -> None:
    a, b = workers
    due = []
    for n in range(12):
        match_id = await _lobby(a, f"t{n}")
        await a.start_match(match_id, {}, 100.0 + n)
        due.append(match_id)
    claims = await asyncio.gather(*(store.claim_due_timers(200.0, lease=30.0, limit=4) for store in (a, b, a, b)))
    claimed = [match_id for claim in claims for match_id, _ in claim]
    assert sorted(claimed) == sorted(due[:len(claimed)]) and len(claimed) == len(set(claimed))
    rest = await b.claim_due_timers(200.0, lease=30.0)
    assert sorted(claimed + [match_id for match_id, _ in rest]) == due
    assert await a.claim_due_timers(229.0, lease=30.0) == []  # all leased until 230
    assert (await a.get_match(due[0])).deadline == 230.0
    again = await b.claim_due_timers(230.0, lease=30.0)  # a killed claimer's timers come due again
    assert sorted(match_id for match_id, _ in again) == due
    assert {version for _, version in again} == {0}
