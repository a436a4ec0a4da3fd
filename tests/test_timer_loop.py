"""The timer loop sleeps until the next thing it must do — a turn deadline, a retry, a group's coalesced table edit —
instead of polling every second, and wakes early when a move or a delivery moves such a time earlier."""

from __future__ import annotations

import asyncio
import random
import time

from bot.core.delivery import Due
from bot.messages import ChatRef
from bot.service import Service
from tests.chat import Clock, kenza_against_a_bot, opened_store
from tests.fakes import FakeTransport
from tests.test_service import ALI, MONA, open_table

GUARD = 10.0  # seconds: only a guard against a hang, never a measured time


def service_on(store, clock) -> Service:
    service = Service(store, clock=clock, seed_source=random.Random(1))
    service.attach(FakeTransport(), images=False)
    return service


async def test_the_loop_sleeps_until_the_earliest_deadline_or_delivery(tmp_path):
    clock = Clock()
    async with opened_store(str(tmp_path / "t.db")) as store:
        service = service_on(store, clock)
        assert await service._until_next(30.0) == 30.0, "nothing timed: the longest sleep"
        match, _ = await open_table(service, options=("target=101",))
        assert match.deadline is not None
        assert await service._until_next(3600.0) == match.deadline - clock.now, "until the turn's deadline"
        assert await service._until_next(5.0) == 5.0, "never longer than the loop's longest sleep"
        service._due[match.id] = Due(seats=set(), table=True, ready=True, table_after=clock.now + 3)
        assert await service._until_next(3600.0) == 3.0, "a coalesced table edit comes first"
        service._due[match.id] = Due(seats={0}, ready=True, retry_at=clock.now + 2, table_after=clock.now + 9)
        assert await service._until_next(3600.0) == 2.0, "a rack's retry does not wait for the table's slot"
        service._due[match.id] = Due(seats={0}, ready=False, retry_at=clock.now + 1)
        assert await service._until_next(3600.0) == match.deadline - clock.now, "work waiting for a move is untimed"
        clock.now = match.deadline + 1
        assert await service._until_next(3600.0) == 0.0, "past due: now"


async def test_the_loop_wakes_when_told_a_time_changed_and_otherwise_sleeps(tmp_path):
    clock = Clock()
    async with opened_store(str(tmp_path / "w.db")) as store:
        service = service_on(store, clock)
        ticks: asyncio.Queue[int] = asyncio.Queue()
        tick = service._fire_due

        async def counted() -> int:
            fired = await tick()
            ticks.put_nowait(fired)
            return fired

        service._fire_due = counted  # type: ignore[method-assign]
        loop = asyncio.create_task(service.run_timers(3600.0))
        try:
            await asyncio.wait_for(ticks.get(), GUARD)  # the first tick, then a sleep of up to an hour
            for _ in range(20):
                await asyncio.sleep(0)
            assert ticks.empty(), "the loop ticked again with nothing due"
            await open_table(service, options=("target=101",))  # a move: a new deadline, the loop is told
            await asyncio.wait_for(ticks.get(), GUARD)
            service._timer_due(service.clock() + 3600.0)  # later than planned: no wake
            for _ in range(20):
                await asyncio.sleep(0)
            assert ticks.empty(), "woken for a time later than it planned to wake"
            service._timer_due(service.clock() + 1.0)  # earlier: wakes now to plan again
            await asyncio.wait_for(ticks.get(), GUARD)
        finally:
            service.stop_timers()
            await asyncio.wait_for(loop, GUARD)


class GatedTransport(FakeTransport):
    """A fake platform whose message edits in one chat wait at a gate (a rate limiter holding them for seconds)."""

    def __init__(self, gated_chat: str) -> None:
        super().__init__()
        self.gated_chat = gated_chat
        self.gate = asyncio.Event()
        self.waiting = asyncio.Event()  # an edit is held at the gate

    async def edit(self, chat_id: str, message_id: str, message) -> None:
        if chat_id == self.gated_chat and not self.gate.is_set():
            self.waiting.set()
            await self.gate.wait()
        await super().edit(chat_id, message_id, message)


async def polled(check, limit: float) -> float | None:
    """The time `check()` first came true, polling until `limit` (a real time); None if it never did."""
    while time.time() < limit:
        if await check():
            return time.time()
        await asyncio.sleep(0.01)
    return None


async def test_a_turn_timer_fires_on_time_while_another_matchs_delivery_waits_in_the_rate_limiter(any_database):
    """Issue 26 point 5: the loop's deliveries (a table edit that waits seconds in Telegram's rate limiter) must not
    hold up the next turn timer. Match A owes a table edit that the platform holds; match B's turn timer falls due
    meanwhile and fires on time; once the edit is let through, A's table is shown and the loop stops cleanly.
    On a SQLite file and on PostgreSQL (where the timer claim and the delivery run on pooled connections)."""
    group_a, group_b = ChatRef("fake", "-100", private=False), ChatRef("fake", "-200", private=False)
    async with opened_store(any_database) as store:
        service = Service(store, clock=time.time, seed_source=random.Random(3))
        transport = GatedTransport(gated_chat=group_a.chat_id)
        service.attach(transport, images=False)
        transport.gate.set()  # open while the two tables are set up
        match_a = await kenza_against_a_bot(service, ALI, group_a)
        match_b = await kenza_against_a_bot(service, MONA, group_b)
        transport.gate.clear()
        a = await store.get_match(match_a)
        service._schedule(a, changed_seats=set(), new_turn=False)  # A's table owes an edit, due now
        due_b = time.time() + 0.4
        await store.set_deadline(match_b, due_b)  # B's turn timer runs out shortly
        edits_before = sum(1 for call in transport.calls if call[:2] == ("edit", group_a.chat_id))

        async def b_fired() -> bool:
            return any(record.actor == "timer" for record in await store.moves(match_b))

        loop = asyncio.create_task(service.run_timers(0.25))
        try:
            assert await polled(lambda: _true(transport.waiting.is_set()), time.time() + GUARD), \
                "A's table edit waits at the platform"
            fired_at = await polled(b_fired, due_b + 3.0)
            assert fired_at is not None, "B's turn timer never fired while A's edit waited (held up behind it)"
            assert fired_at - due_b < 0.5, f"B's turn timer fired {fired_at - due_b:.2f} s late"
            assert not transport.gate.is_set() and match_a in service._delivering, "A's edit is still held"
            transport.gate.set()  # the rate limiter lets it through

            async def a_shown() -> bool:
                edits = sum(1 for call in transport.calls if call[:2] == ("edit", group_a.chat_id))
                return edits > edits_before and match_a not in service._delivering and match_a not in service._due

            assert await polled(a_shown, time.time() + GUARD) is not None, "A's table edit went out"
            assert (await store.get_match(match_a)).delivered_version == a.version
        finally:
            transport.gate.set()
            service.stop_timers()
            await asyncio.wait_for(loop, GUARD)
        assert loop.done() and not loop.cancelled() and loop.exception() is None
        assert not service._behind, "no delivery the loop started is left running"


async def _true(value: bool) -> bool:
    return value


async def test_cancelling_the_loop_cancels_the_deliveries_it_started(tmp_path):
    """The console cancels the loop when its match ends: a delivery the loop started (waiting at the platform) is
    cancelled with it, not left running behind a loop that is gone."""
    group = ChatRef("fake", "-100", private=False)
    async with opened_store(str(tmp_path / "cancel.db")) as store:
        service = Service(store, clock=time.time, seed_source=random.Random(3))
        transport = GatedTransport(gated_chat=group.chat_id)
        service.attach(transport, images=False)
        transport.gate.set()
        match_id = await kenza_against_a_bot(service, ALI, group)
        transport.gate.clear()
        service._schedule(await store.get_match(match_id), changed_seats=set(), new_turn=False)
        loop = asyncio.create_task(service.run_timers(0.25))
        await asyncio.wait_for(transport.waiting.wait(), GUARD)
        assert match_id in service._behind
        loop.cancel()
        try:
            await asyncio.wait_for(loop, GUARD)
        except asyncio.CancelledError:
            pass
        assert loop.cancelled()
        assert not service._behind and match_id not in service._delivering, "its delivery ended with it"
