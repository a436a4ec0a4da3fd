"""Several workers on one database (two services, each on its own store, as two `majlis run` processes): a bot turn
owed by a worker that died after storing the human's move is played by another worker's timer loop; workers that
resume the same matches at once both come up; a deadline one worker writes wakes the other's loop on time.

Runs on a SQLite file and on PostgreSQL (MAJLIS_TEST_DATABASE_URL; skipped without it).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import pytest
from sqlalchemy import text

import engine
from bot import callbacks
from bot.core.timers import BOT_TURN_GRACE
from bot.messages import Actor, ChatRef
from bot.service import Service
from storage import StaleVersion, Store
from tests.clock import Clock
from tests.fakes import FakeTransport
from tests.test_service import ALI, open_table, play_first_button

GAME = engine.get("kenza")
GUARD = 15.0  # seconds: only a guard against a hang, never a measured time
ON_TIME = 2.0  # seconds after its due time within which a deadline must fire on the surviving worker


class Killed(BaseException):
    """The worker's process ends here (a SIGKILL): nothing after this point of its work happens."""


@asynccontextmanager
async def worker(url: str, clock: Callable[[], float], seed: int) -> AsyncIterator[tuple[Service, FakeTransport]]:
    store = await Store.open(url)
    service = Service(store, clock=clock, seed_source=random.Random(seed))
    transport = FakeTransport()
    service.attach(transport, images=False)
    try:
        yield service, transport
    finally:
        service.stop_timers()
        await store.close()


def dies_before_the_bots(service: Service) -> None:
    """The worker stores the human's move and is killed before its bots reply."""
    async def killed(match):
        raise Killed

    service._run_bots = killed  # type: ignore[method-assign]


async def bot_to_move(store: Store, match_id: int) -> bool:
    match = await store.get_match(match_id)
    if match.status != "active":
        return False
    seat = GAME.to_move(GAME.from_json(match.snapshot))
    return seat is not None and not (await store.seats(match_id))[seat].is_human


def replays(records, match, seats: int) -> bool:
    state = GAME.new(seats, match.options, seed=match.seed)
    for record in records:
        state = GAME.apply(state, record.seat, record.move)
    return GAME.to_json(state) == match.snapshot and [r.seq for r in records] == list(range(1, match.version + 1))


async def test_a_bot_turn_a_dead_worker_owed_is_played_by_another_workers_timer_pass(any_database):
    clock = Clock()
    async with worker(any_database, clock, 1) as (a, a_screens), worker(any_database, clock, 2) as (b, b_screens):
        match, _ = await open_table(a, bots=3, options=("target=101",))
        assert GAME.to_move(GAME.from_json(match.snapshot)) == 0, "Ali to move (the bots' opening turns played)"
        dies_before_the_bots(a)
        try:
            await play_first_button(a, a_screens, ALI, match.id)
            raise AssertionError("worker A was to die before its bots moved")
        except Killed:
            pass
        owed = await b.store.get_match(match.id)
        assert await bot_to_move(b.store, match.id), "A stored Ali's move and died: the bots owe their turns"
        assert owed.deadline is not None, "the owed bot turn is claimable work"
        assert await b.tick() == 0 and (await b.store.get_match(match.id)).version == owed.version, \
            "a live worker plays its bots at once: another one does not race it before the due time"
        clock.advance(BOT_TURN_GRACE)
        assert await b.tick() == 1, "B's timer pass plays the owed turn"
        after = await b.store.get_match(match.id)
        records = await b.store.moves(match.id)
        assert after.version > owed.version and not await bot_to_move(b.store, match.id), "Ali to move again"
        assert {r.actor for r in records[owed.version:]} == {"bot"}, "the bots played their own moves"
        assert replays(records, after, 4)
        assert after.deadline is not None and after.deadline > clock.now, "and Ali's turn timer runs"
        # Ali's screen (through B) shows his turn, at the version he can press.
        moves = [x.data for x in b_screens.buttons(ALI.user_id) if x.data.startswith(("m:", "p:"))]
        assert moves and {data.split(":")[2] for data in moves} == {str(after.version)}
        reply = await play_first_button(b, b_screens, ALI, match.id)
        assert not reply.alert, reply.text


async def test_a_match_started_by_a_worker_that_died_before_its_bots_first_turn_is_moved_on_by_another(
        any_database):
    clock = Clock()
    async with worker(any_database, clock, 0) as (a, _), worker(any_database, clock, 2) as (b, _):
        dies_before_the_bots(a)  # the seating seed 0 gives a bot the first turn
        try:
            await open_table(a, bots=3, options=("target=101",))
            raise AssertionError("worker A was to die before its bots moved")
        except Killed:
            pass
        match = await b.store.lobby_or_active_match("fake", "-100")
        assert match.status == "active" and await bot_to_move(b.store, match.id), "started, a bot to move first"
        clock.advance(BOT_TURN_GRACE)
        assert await b.tick() == 1
        assert not await bot_to_move(b.store, match.id), "the bots played up to Ali's turn"
        assert {r.actor for r in await b.store.moves(match.id)} == {"bot"}


async def test_a_turn_timer_a_dead_worker_claimed_fires_on_another_worker_soon_after(any_database):
    """A worker claims a due turn timer (its lease) and is killed before playing it: another worker fires it once
    the lease ends, seconds later, not half a minute."""
    clock = Clock()
    async with worker(any_database, clock, 1) as (a, _), worker(any_database, clock, 2) as (b, _):
        match, _ = await open_table(a, options=("target=101",))
        clock.now = match.deadline + 0.5

        async def killed(*args, **kwargs):
            raise Killed

        a._timeout = killed  # type: ignore[method-assign]
        try:
            await a.tick()
            raise AssertionError("worker A was to die with the timer claimed")
        except Killed:
            pass
        assert await b.tick() == 0, "claimed: not B's while A's lease lasts"
        clock.advance(5.0)
        assert await b.tick() == 1, "A's lease ended: B fires the timer"
        assert [r.actor for r in await b.store.moves(match.id)].count("timer") == 1


async def test_one_tick_fires_every_due_timer_however_many(any_database):
    """Due timers are claimed a batch at a time (each batch with a fresh lease): one tick still fires them all."""
    clock = Clock()
    async with worker(any_database, clock, 1) as (a, _):
        tables = [await open_bot_table(a, n, bots=1) for n in range(23)]
        clock.now = max([(await a.store.get_match(match_id)).deadline for match_id in tables]) + 1
        assert await a.tick() == len(tables)
        for match_id in tables:
            assert [r.actor for r in await a.store.moves(match_id)].count("timer") == 1


async def open_bot_table(service: Service, n: int, bots: int = 3) -> int:
    """A Kenza table of one player and `bots` bots in a chat of its own; returns its id, the player to move."""
    creator = Actor("fake", f"9{n}", f"P{n}", language="en")
    chat = ChatRef("fake", f"-7{n}", private=False)
    await service.command(creator, chat, "new", ["kenza", "target=101"])
    match = await service.store.lobby_or_active_match("fake", chat.chat_id)
    for _ in range(bots):
        await service.press(creator, chat, callbacks.encode("b", match.id, "normal"))
    await service.press(creator, chat, callbacks.encode("s", match.id))
    return match.id


async def test_two_workers_resuming_the_same_owed_bot_turns_at_once_both_start(any_database):
    """A deploy restarts every worker at once: each resume finds the same bot turns owed and plays them; the one
    that loses a move's race takes the other's newer version as done work (no StaleVersion at start-up)."""
    clock = Clock()
    async with worker(any_database, clock, 1) as (first, _):
        matches = [await open_bot_table(first, n) for n in range(4)]  # the resumes meet on some of them
        for match_id in matches:  # each player's move stored, then the worker died: the bots owe their turns
            match = await first.store.get_match(match_id)
            state = GAME.from_json(match.snapshot)
            human = GAME.to_move(state)
            move = GAME.legal_moves(state, human)[0]
            after = GAME.apply(state, human, move)
            await first.store.apply_move(match_id, match.version, human, "human", move, GAME.to_json(after), None)
            assert await bot_to_move(first.store, match_id)
    lost = 0
    async with worker(any_database, clock, 3) as (a, _), worker(any_database, clock, 4) as (b, _):
        for store in (a.store, b.store):
            async def counted(*args, _apply=store.apply_move, **kwargs):
                nonlocal lost
                try:
                    return await _apply(*args, **kwargs)
                except StaleVersion:
                    lost += 1
                    raise

            store.apply_move = counted  # type: ignore[method-assign]
        await asyncio.wait_for(asyncio.gather(a.resume(), b.resume()), GUARD)
        assert lost, "the two resumes raced on some bot move (else this test shows nothing)"
        for match_id in matches:
            match = await a.store.get_match(match_id)
            assert not await bot_to_move(a.store, match_id), f"match {match_id}: the bots' turns were played"
            assert replays(await a.store.moves(match_id), match, 4), f"match {match_id}: a bot move lost or doubled"


async def test_a_deadline_another_worker_wrote_fires_on_time_on_this_workers_loop(any_database):
    """B's loop sleeps until the next deadline it knows of (an hour away at most); A writes an earlier one and
    dies. B is woken (PostgreSQL: NOTIFY; one SQLite file: in the process) and fires it on time, on the real
    clock."""
    async with worker(any_database, time.time, 1) as (a, a_screens), worker(any_database, time.time, 2) as (b, _):
        match, _ = await open_table(a, options=("target=101",))
        assert match.deadline is not None and match.deadline > time.time() + 10, "Ali's turn timer runs"
        loop = asyncio.create_task(b.run_timers(3600.0))
        try:
            await asyncio.sleep(0.3)  # B's loop has ticked and sleeps until Ali's deadline
            due = time.time() + 0.5
            await a.store.set_deadline(match.id, due)  # A's /timer: Ali's turn ends sooner; A then dies
            fired_at = await first_timer_move(b.store, match.id, due + GUARD)
            assert fired_at is not None, "B's loop never fired the deadline A wrote"
            assert fired_at - due <= ON_TIME, f"fired {fired_at - due:.2f} s after its due time"
            assert fired_at >= due - 0.05, "not before it was due"
        finally:
            b.stop_timers()
            await asyncio.wait_for(loop, GUARD)


async def test_a_loop_whose_listening_connection_was_cut_listens_again_at_once(any_database):
    """PostgreSQL: the connection that LISTENs is cut (a database restart, a proxy): the loop subscribes again at
    once, so a deadline another worker writes afterwards still fires on time."""
    if not any_database.startswith("postgresql"):
        pytest.skip("a PostgreSQL connection")
    async with worker(any_database, time.time, 1) as (a, _), worker(any_database, time.time, 2) as (b, _):
        match, _ = await open_table(a, options=("target=101",))
        loop = asyncio.create_task(b.run_timers(3600.0))
        try:
            await asyncio.sleep(0.3)
            schema = any_database.rsplit("search_path=", 1)[1]
            async with a.store.transaction() as db:
                cut = (await db.execute(text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE :listen"),
                    {"listen": f'LISTEN "majlis_deadline:{schema}"'})).all()
            assert len(cut) == 1, "B's loop listens on one connection"
            await asyncio.sleep(0.5)
            due = time.time() + 0.5
            await a.store.set_deadline(match.id, due)
            fired_at = await first_timer_move(b.store, match.id, due + GUARD)
            assert fired_at is not None and fired_at - due <= ON_TIME, "B's loop listens again"
        finally:
            b.stop_timers()
            await asyncio.wait_for(loop, GUARD)


async def test_a_bot_turn_a_dead_worker_owed_is_played_on_time_by_another_workers_loop(any_database):
    async with worker(any_database, time.time, 1) as (a, a_screens), worker(any_database, time.time, 2) as (b, _):
        match, _ = await open_table(a, options=("target=101",))
        loop = asyncio.create_task(b.run_timers(3600.0))
        try:
            await asyncio.sleep(0.3)
            dies_before_the_bots(a)
            killed_at = time.time()
            try:
                await play_first_button(a, a_screens, ALI, match.id)
            except Killed:
                pass
            assert await bot_to_move(b.store, match.id)
            for _ in range(int(GUARD / 0.05)):
                if not await bot_to_move(b.store, match.id):
                    break
                await asyncio.sleep(0.05)
            played_in = time.time() - killed_at
            assert not await bot_to_move(b.store, match.id), "the owed bot turn was never played"
            assert played_in <= BOT_TURN_GRACE + ON_TIME, f"played {played_in:.2f} s after the kill"
        finally:
            b.stop_timers()
            await asyncio.wait_for(loop, GUARD)


async def first_timer_move(store: Store, match_id: int, until: float) -> float | None:
    """When the first timer move of the match was stored (polled), or None by `until`."""
    while time.time() < until:
        if any(record.actor == "timer" for record in await store.moves(match_id)):
            return time.time()
        await asyncio.sleep(0.02)
    return None
