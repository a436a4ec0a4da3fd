"""Who sits with whom (bot/core/matchmaking.py `pick_tables`, no I/O), and seating a queue from two workers at once
(two stores on one database: SQLite, and PostgreSQL when MAJLIS_TEST_DATABASE_URL is set): every player is seated
once, whichever worker's press seats them."""

from __future__ import annotations

import asyncio
import random

import pytest
from sqlalchemy import func, select

from bot.core.matchmaking import SPREAD_GROWTH, SPREAD_START, QueueRule, next_look, pick_tables, rule_for
from storage import Store
from storage.errors import AlreadyQueued
from storage.models import QueueEntry
from storage.queue import MATCHED, Deal
from storage.schema import seats

RANKED = rule_for("konkan_tiles", "ranked", {})
QUICK = rule_for("konkan_tiles", "quick", {"quick": 20.0})


def entry(number: int, ordinal: float = 0.0, queued: float = 0.0) -> QueueEntry:
    return QueueEntry(number, 100 + number, "telegram", "konkan_tiles", "ranked", ordinal, queued)


def test_the_rules_of_the_queues():
    assert (RANKED.rated, RANKED.bots, RANKED.seats, RANKED.teams) == (True, False, 4, True)
    assert (QUICK.rated, QUICK.bots, QUICK.wait) == (False, True, 20.0)
    assert rule_for("konkan_tiles", "turbo", {"quick": 20.0, "*": 45.0}).wait == 45.0
    assert rule_for("konkan_cards", "casual", {"konkan_cards.casual": 5.0}).wait == 5.0
    assert rule_for("kenza", "casual", {}).wait == 30.0


def test_quick_seats_the_first_come_and_fills_with_bots_only_after_the_wait():
    waiting = [entry(n, queued=n) for n in range(6)]
    assert pick_tables(waiting, QUICK, now=6.0) == [waiting[:4]]  # a full table at once; two wait on
    assert pick_tables(waiting[4:], QUICK, now=23.9) == []  # the first of them came at 4: 19.9 s waited
    assert pick_tables(waiting[4:], QUICK, now=24.0) == [[*waiting[4:], None, None]]
    assert next_look(waiting[4:], QUICK, now=10.0) == 24.0


def test_rated_queues_match_by_rating_never_seat_a_bot_and_balance_the_teams():
    strong = [entry(1, 30.0, 0), entry(3, 29.0, 2), entry(5, 31.0, 4), entry(6, 28.0, 5)]
    weak = [entry(2, 0.0, 1), entry(4, 1.0, 3), entry(7, 2.0, 6), entry(8, -1.0, 7)]
    waiting = sorted(strong + weak, key=lambda e: e.queued)
    tables = pick_tables(waiting, RANKED, now=8.0)
    assert [sorted(e.id for e in table) for table in tables] == [[1, 3, 5, 6], [2, 4, 7, 8]]
    # Strongest with weakest: seats 0 and 2 are partners, 1 and 3.
    assert [e.ordinal for e in tables[0]] == [31.0, 30.0, 28.0, 29.0]
    assert [e.ordinal for e in tables[1]] == [2.0, 1.0, -1.0, 0.0]
    for table in tables:
        assert table[0].ordinal + table[2].ordinal == table[1].ordinal + table[3].ordinal
    # Never a bot, however long three wait.
    assert pick_tables(weak[:3], RANKED, now=10**6) == []
    assert next_look(weak[:3], RANKED, now=5.0) is None
    # One far above three others: matched only once a waiter's spread has widened to reach all of them (the one
    # at 2.0 is 28 from the one at 30, and 2 at most from the others).
    lonely = [entry(1, 30.0, 0), entry(2, 0.0, 0), entry(3, 1.0, 0), entry(4, 2.0, 0)]
    reach = (28.0 - SPREAD_START) / SPREAD_GROWTH  # seconds until a gap of 28 is allowed
    assert pick_tables(lonely, RANKED, now=reach - 1) == []
    assert next_look(lonely, RANKED, now=100.0) == 105.0
    assert [sorted(e.id for e in t) for t in pick_tables(lonely, RANKED, now=reach + 1)] == [[1, 2, 3, 4]]


def _deal(table: list) -> Deal:
    return Deal(options={"mode": "quick"}, mode="quick", snapshot={"seats": len(table)}, seed=1, deadline=None,
                rated=False)


async def test_presses_on_two_workers_seat_each_player_of_one_queue_once(workers: tuple[Store, Store]) -> None:
    """Twelve players press Play now, each on one of two workers, all at once; each press joins the queue and
    seats what it can at once, as the service does. Every player ends at exactly one table, no table is short of
    a player, and what a race left waiting is seated by the next look (the timer loop's)."""
    a, b = workers
    players = [await a.upsert_player("telegram", str(900 + n), f"P{n}") for n in range(12)]
    rule = QueueRule("konkan_tiles", "quick", {"mode": "quick"}, 4, rated=False, bots=False, wait=30.0, teams=False)

    async def press(store: Store, player_id: int) -> int:
        await store.enqueue(player_id, "telegram", "konkan_tiles", "quick", 0.0)
        seated = await store.seat_queue("konkan_tiles", "quick", lambda w: pick_tables(w, rule, 0.0), _deal)
        return len(seated)

    order = list(range(12))
    random.Random(3).shuffle(order)
    await asyncio.gather(*(press((a, b)[n % 2], players[n].id) for n in order))
    await b.seat_queue("konkan_tiles", "quick", lambda w: pick_tables(w, rule, 0.0), _deal)
    assert await a.queue("konkan_tiles", "quick") == []
    rows = await a._read_all(select(seats.c.player_id, func.count().label("n")).group_by(seats.c.player_id))
    assert sorted(row["player_id"] for row in rows) == sorted(p.id for p in players)
    assert all(row["n"] == 1 for row in rows)
    tables = await a.active_matches()
    assert len(tables) == 3 and all(match.platform == MATCHED for match in tables)
    for match in tables:
        assert [seat.seat for seat in await a.seats(match.id)] == [0, 1, 2, 3]
    # One entry per player: a second join, on either worker, is refused with the entry it has.
    await a.enqueue(players[0].id, "telegram", "kenza", "casual", 0.0)
    outcomes = await asyncio.gather(a.enqueue(players[0].id, "telegram", "kenza", "casual", 0.0),
                                    b.enqueue(players[0].id, "telegram", "tunj", "casual", 0.0),
                                    return_exceptions=True)
    assert all(isinstance(outcome, AlreadyQueued) and outcome.entry.game == "kenza" for outcome in outcomes)
    # A queued player in a match in play (a group's table, a race) waits on: never seated at two tables at once.
    assert await b.seat_queue("kenza", "casual", lambda waiting: [[*waiting, None]] if waiting else [], _deal) == []
    assert [e.player_id for e in await a.queue("kenza", "casual")] == [players[0].id]
    assert await a.queue("kenza", "casual", seatable=True) == []  # so seating probes nobody it could not seat
    # A group's own queue is apart from the global one: seated as that group's table, one open table per group.
    await a.leave_queue(players[0].id)
    late = [await a.upsert_player("telegram", str(950 + n), f"G{n}") for n in range(3)]
    for player in late:
        await a.enqueue(player.id, "telegram", "kenza", "casual", 0.0, group_chat="-42")
    assert await a.queue("kenza", "casual") == [] and len(await b.queue("kenza", "casual", "-42")) == 3
    fill = lambda waiting: [[*waiting, None]] if waiting else []  # noqa: E731
    [one] = await b.seat_queue("kenza", "casual", fill, _deal, ("telegram", "-42"))
    assert (one.match.platform, one.match.chat_id, one.match.creator_id) == ("telegram", "-42", late[0].id)
    fresh = await a.upsert_player("telegram", "960", "G3")
    await a.enqueue(fresh.id, "telegram", "kenza", "casual", 0.0, group_chat="-42")
    assert await a.seat_queue("kenza", "casual", fill, _deal, ("telegram", "-42")) == []  # its table is open


def test_the_queue_wait_is_read_from_the_environment():
    from bot.config import ConfigError, Settings

    assert Settings.from_env({}).queue_waits == ()
    assert dict(Settings.from_env({"MAJLIS_QUEUE_WAIT": "45"}).queue_waits) == {"*": 45.0}
    waits = dict(Settings.from_env({"MAJLIS_QUEUE_WAIT": "konkan_tiles.quick=20, turbo=15,*=30"}).queue_waits)
    assert waits == {"konkan_tiles.quick": 20.0, "turbo": 15.0, "*": 30.0}
    assert rule_for("konkan_tiles", "quick", waits).wait == 20.0 and rule_for("kenza", "casual", waits).wait == 30.0
    for bad in ("soon", "quick=", "=5", "quick=-1", "quick=5000"):
        with pytest.raises(ConfigError) as error:
            Settings.from_env({"MAJLIS_QUEUE_WAIT": bad})
        assert error.value.name == "MAJLIS_QUEUE_WAIT" and error.value.reason == "config.queue_wait"
