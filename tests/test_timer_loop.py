"""The timer loop sleeps until the next thing it must do — a turn deadline, a retry, a group's coalesced table edit —
instead of polling every second, and wakes early when a move or a delivery moves such a time earlier."""

from __future__ import annotations

import asyncio
import random

from bot.core.delivery import Due
from bot.service import Service
from tests.chat import Clock, opened_store
from tests.fakes import FakeTransport
from tests.test_service import open_table

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
        tick = service.tick

        async def counted() -> int:
            fired = await tick()
            ticks.put_nowait(fired)
            return fired

        service.tick = counted  # type: ignore[method-assign]
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
