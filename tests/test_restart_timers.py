"""A restart must pick up where the last process stopped: bot turns still owed are played, a turn timer that was
running fires once when its time comes, and `majlis run` (`bot.runner.run_platforms`) starts the timer loop.

Every service here is a new `Service` on the same SQLite file, as after a real restart; time only moves when the
test moves the clock.
"""

from __future__ import annotations

import asyncio
import logging
import random

import engine
from bot import runner
from bot.config import Settings
from bot.messages import OutMessage
from bot.service import Service
from storage import Store
from tests.chat import fake_service, opened_store
from tests.fakes import FakeTransport
from tests.test_service import ALI, Clock, open_table, play_first_button

GAME = engine.get("kenza")
TIMER_NOTE = "Time ran out"


def service_on(store: Store, clock: Clock, transport: FakeTransport, seed: int) -> Service:
    service = Service(store, clock=clock, seed_source=random.Random(seed))
    service.attach(transport, images=False)
    return service


async def ali_and_a_bot(path: str, clock: Clock, transport: FakeTransport) -> int:
    """Ali opens Kenza to 101 against one bot (first process); returns the match id with Ali to move."""
    async with opened_store(path) as store:
        match, _ = await open_table(service_on(store, clock, transport, seed=5), options=("target=101",))
        assert GAME.to_move(GAME.from_json(match.snapshot)) == 0, "the bot's opening turns were played"
        return match.id


async def test_restart_plays_the_bot_turns_still_owed_and_the_match_goes_on(tmp_path):
    path, clock, transport = str(tmp_path / "owed.db"), Clock(), FakeTransport()
    match_id = await ali_and_a_bot(path, clock, transport)
    # Ali's move is stored, then the process dies before the bot answers: the bot owes its turn.
    store = await Store.open(path)
    match = await store.get_match(match_id)
    state = GAME.from_json(match.snapshot)
    move = GAME.legal_moves(state, 0)[0]
    after = GAME.apply(state, 0, move)
    assert GAME.to_move(after) == 1, "this layout leaves the bot to move"
    await store.apply_move(match_id, match.version, 0, "human", move, GAME.to_json(after), None)
    owed_version = match.version + 1
    await store.close()

    async with opened_store(path) as store:
        service = service_on(store, clock, transport, seed=6)
        before = len(transport.calls)
        await service.resume()
        match = await store.get_match(match_id)
        records = await store.moves(match_id)
        assert match.version > owed_version, "the owed bot turn was played on resume"
        assert [r.actor for r in records[owed_version:]] and all(r.actor == "bot" for r in records[owed_version:])
        assert match.status == "active" and GAME.to_move(GAME.from_json(match.snapshot)) == 0, "Ali to move again"
        assert match.deadline is not None, "and Ali's turn timer runs"
        # Ali's rack was brought up to date: its moves carry the current version, and pressing one plays.
        assert any(chat == ALI.user_id for _, chat, _ in transport.calls[before:])
        moves = [b.data for b in transport.buttons(ALI.user_id) if b.data.startswith(("m:", "p:"))]
        assert moves and all(data.split(":")[2] == str(match.version) for data in moves)
        reply = await play_first_button(service, transport, ALI, match_id)
        assert not reply.alert, reply.text
        assert (await store.get_match(match_id)).version > match.version


async def test_a_running_turn_timer_fires_once_after_a_restart(tmp_path):
    path, clock, transport = str(tmp_path / "timer.db"), Clock(), FakeTransport()
    match_id = await ali_and_a_bot(path, clock, transport)

    async with opened_store(path) as store:
        service = service_on(store, clock, transport, seed=6)
        await service.resume()
        match = await store.get_match(match_id)
        assert match.deadline is not None and match.deadline > clock.now, "Ali's timer survived the restart"
        assert await service.tick() == 0, "not yet due"
        clock.now = match.deadline + 1
        fired = await asyncio.gather(service.tick(), service.tick())
        assert sum(fired) == 1, "two timer sweeps racing fire the timeout once"
        assert await service.tick() == 0
        records = await store.moves(match_id)
        assert [r.actor for r in records].count("timer") == 1 and records[match.version].seat == 0
        assert records[match.version].actor == "timer"
        notes = [s.message.text for s in transport.sent if s.chat_id == ALI.user_id and TIMER_NOTE in s.message.text]
        assert len(notes) == 1
        after = await store.get_match(match_id)  # the bot answered; Ali's next turn has a fresh timer
        assert after.status == "active" and GAME.to_move(GAME.from_json(after.snapshot)) == 0
        assert after.deadline is not None and after.deadline > clock.now


class WatchedTransport(FakeTransport):
    """A FakeTransport that tells the test when a timer notice reaches the player."""

    def __init__(self) -> None:
        super().__init__()
        self.timer_fired = asyncio.Event()

    async def send(self, chat_id: str, message: OutMessage) -> str:
        message_id = await super().send(chat_id, message)
        if TIMER_NOTE in message.text:
            self.timer_fired.set()
        return message_id


class FakeAdapter:
    """A platform adapter for `run_platforms`: attaches its transport on start, records stop."""

    def __init__(self, service: Service, transport: FakeTransport) -> None:
        self.service = service
        self.transport = transport
        self.started = self.stopped = False

    async def start(self) -> None:
        self.service.attach(self.transport, images=False)
        self.started = True

    async def stop(self) -> None:
        self.stopped = True


async def test_run_platforms_resumes_and_its_timer_loop_plays_for_the_absent_player(tmp_path, monkeypatch):
    path, clock = str(tmp_path / "run.db"), Clock()
    match_id = await ali_and_a_bot(path, clock, FakeTransport())
    store = await Store.open(path)
    deadline = (await store.get_match(match_id)).deadline
    await store.close()
    clock.now = deadline + 1  # the process was down while Ali's time ran out

    transport = WatchedTransport()
    adapters: list[FakeAdapter] = []

    def build(service: Service, settings: Settings) -> list[FakeAdapter]:
        adapters.append(FakeAdapter(service, transport))
        return adapters

    monkeypatch.setattr(runner, "Service",
                        lambda store, **settings: Service(store, clock=clock, seed_source=random.Random(7), **settings))
    monkeypatch.setattr(runner, "build_adapters", build)
    settings = Settings(telegram_token=None, telegram_base_url=None, telegram_webhook_url=None,
                        telegram_webhook_port=8443, discord_token=None, discord_guild_id=None, database_url=path)
    running = asyncio.create_task(runner.run_platforms(settings))
    fired = asyncio.create_task(transport.timer_fired.wait())
    done, _ = await asyncio.wait({running, fired}, return_when=asyncio.FIRST_COMPLETED)
    assert fired in done, "run_platforms returned without any timer firing"
    running.cancel()
    await running  # the runner treats cancellation as Ctrl-C: adapters stopped, database closed
    assert adapters[0].started and adapters[0].stopped

    async with opened_store(path) as store:
        records = await store.moves(match_id)
        assert [r.actor for r in records].count("timer") == 1
        assert (await store.seats(match_id))[0].timeouts_in_a_row == 1


async def test_a_restart_pings_the_player_a_bot_turn_owed_hands_back_to_and_nobody_when_nothing_was_owed(tmp_path):
    """After a restart, bot turns still owed are played and the turn comes back to the human: their phone rings
    (a ping), as after any bot turn. A restart with nothing owed and every screen up to date sends nothing."""
    path, clock, transport = str(tmp_path / "ping.db"), Clock(), FakeTransport()
    match_id = await ali_and_a_bot(path, clock, transport)
    async with opened_store(path) as store:
        before = len(transport.calls)
        await service_on(store, clock, transport, seed=6).resume()
        assert transport.calls[before:] == [], "nothing owed, every screen up to date: nothing sent or edited"
        match = await store.get_match(match_id)
        state = GAME.from_json(match.snapshot)
        move = GAME.legal_moves(state, 0)[0]
        after = GAME.apply(state, 0, move)
        await store.apply_move(match_id, match.version, 0, "human", move, GAME.to_json(after), None)
    async with opened_store(path) as store:
        pings = len(transport.pings(ALI.user_id))
        await service_on(store, clock, transport, seed=7).resume()
        assert GAME.to_move(GAME.from_json((await store.get_match(match_id)).snapshot)) == 0
        assert len(transport.pings(ALI.user_id)) == pings + 1, "Ali is told it is his turn again"


async def test_the_timer_loop_keeps_ticking_past_a_failing_tick_until_stopped(tmp_path, caplog):
    """`run_timers` ticks again and again (a timer that falls due later still fires), a tick that fails is logged
    and does not end the loop (one bad match must not stop every table's timers), and `stop_timers` ends it."""
    async with fake_service(tmp_path / "loop.db", seed=1) as (service, _, _, _):
        ticks = 0

        async def tick() -> int:
            nonlocal ticks
            ticks += 1
            if ticks == 1:
                raise RuntimeError("a bad match")
            if ticks == 3:
                service.stop_timers()
            return 0

        service._fire_due = tick  # type: ignore[method-assign]
        with caplog.at_level(logging.ERROR, logger="bot.core.timers"):
            await asyncio.wait_for(service.run_timers(interval=0.001), 30)
        assert ticks == 3
        assert [(r.getMessage(), r.exc_info[0]) for r in caplog.records] == [("timer tick failed", RuntimeError)]


async def test_run_platforms_fires_due_timers_while_resume_still_delivers(tmp_path, monkeypatch):
    """After a restart, `resume` may take long (a backlog of screens through the platforms' rate limits): the
    timer loop runs from the start, so a turn timer that is due fires without waiting for it."""
    path, clock = str(tmp_path / "first.db"), Clock()
    match_id = await ali_and_a_bot(path, clock, FakeTransport())
    store = await Store.open(path)
    clock.now = (await store.get_match(match_id)).deadline + 1
    await store.close()

    transport = WatchedTransport()
    resumed = asyncio.Event()
    still_delivering = asyncio.Event()

    class SlowResume(Service):
        async def resume(self) -> None:
            still_delivering.set()
            await resumed.wait()  # the backlog: done only when the test says so
            await super().resume()

    monkeypatch.setattr(runner, "Service",
                        lambda store, **settings: SlowResume(store, clock=clock, seed_source=random.Random(7),
                                                             **settings))
    monkeypatch.setattr(runner, "build_adapters", lambda service, settings: [FakeAdapter(service, transport)])
    settings = Settings(telegram_token=None, telegram_base_url=None, telegram_webhook_url=None,
                        telegram_webhook_port=8443, discord_token=None, discord_guild_id=None, database_url=path)
    running = asyncio.create_task(runner.run_platforms(settings))
    try:
        await asyncio.wait_for(still_delivering.wait(), 30)
        await asyncio.wait_for(transport.timer_fired.wait(), 10)  # TimeoutError before the fix
        assert not resumed.is_set()
    finally:
        resumed.set()
        running.cancel()
        await running
    async with opened_store(path) as store:
        assert [r.actor for r in await store.moves(match_id)].count("timer") == 1
