"""The moves a turn timer plays for an absent player: only legal ones (never a slip in their name, NOTATION.md and
engine.bots.decide), the same ones whenever the same match is replayed (a match is deterministic from its seed),
and a timer fires from its deadline on, as the store's due list says."""

from __future__ import annotations

import engine
from bot import callbacks
from bot.core.timers import TIMER_LEASE
from bot.messages import Actor, Busy, ChatRef
from tests.chat import fake_service

GROUP = ChatRef("fake", "-100", private=False)
ALI = Actor("fake", "1", "Ali", language="en")


async def tunj_with_absent_ali(path, seed: int, turns: int) -> tuple[list[tuple[int, str, str]], bool]:
    """Ali against a normal bot at Tunj; every one of Ali's turns runs out. His count of timeouts in a row is reset
    after each (as if he had played a move in between), so the away rule never hands his seat to a bot and the
    timer keeps playing for him. Returns the move log and whether a timer move was not a legal move."""
    async with fake_service(path, seed=seed) as (service, _, store, clock):
        await service.command(ALI, GROUP, "new", ["tunj"])
        match = await store.lobby_or_active_match("fake", "-100")
        await service.press(ALI, GROUP, callbacks.encode("b", match.id, "normal"))
        await service.press(ALI, GROUP, callbacks.encode("s", match.id))
        for _ in range(turns):
            match = await store.get_match(match.id)
            if match.status != "active" or match.deadline is None:
                break
            clock.now = match.deadline + 1
            assert await service.tick() == 1
            human = next(seat for seat in await store.seats(match.id) if seat.is_human)
            assert not human.away
            await store.set_seat_flags(match.id, human.seat, timeouts_in_a_row=0)
            service._fresh_reads()
        game = engine.get("tunj")
        state = game.new(2, match.options, seed=match.seed)
        illegal = False
        log = []
        for record in await store.moves(match.id):
            if record.actor == "timer":
                illegal |= record.move not in game.legal_moves(state, record.seat)
            state = game.apply(state, record.seat, game.parse_move(state, record.seat, record.move))
            log.append((record.seat, record.actor, record.move))
        return log, illegal


async def test_the_timer_plays_only_legal_moves_and_the_same_ones_on_a_replay(tmp_path):
    log, illegal = await tunj_with_absent_ali(tmp_path / "one.db", seed=7, turns=40)
    assert sum(actor == "timer" for _, actor, _ in log) >= 20
    assert not illegal, "the timer slipped in the absent player's name"
    again, _ = await tunj_with_absent_ali(tmp_path / "two.db", seed=7, turns=40)
    assert again == log


async def test_a_turn_timer_fires_at_its_deadline_not_before(tmp_path):
    async with fake_service(tmp_path / "m.db", seed=3) as (service, _, store, clock):
        await service.command(ALI, GROUP, "new", ["kenza"])
        match = await store.lobby_or_active_match("fake", "-100")
        await service.press(ALI, GROUP, callbacks.encode("b", match.id, "normal"))
        await service.press(ALI, GROUP, callbacks.encode("s", match.id))
        match = await store.get_match(match.id)
        clock.now = match.deadline - 0.5
        assert await service.tick() == 0
        assert (await store.get_match(match.id)).version == match.version
        clock.now = match.deadline
        assert await service.tick() == 1
        assert [record.actor for record in await store.moves(match.id)][0] == "timer"


async def test_timeouts_while_the_platform_refuses_the_players_rack_are_not_their_absence(tmp_path):
    """A player whose rack the platform refused (a 429 after the client's own retries) could not have played: the
    timer still moves for them, but those timeouts do not count towards the away rule. Once the rack gets through
    again, a timeout counts as usual (here the second one: the seat goes to a bot and the player is told so)."""
    async with fake_service(tmp_path / "m.db", seed=3) as (service, transport, store, clock):
        refused: set[str] = set()
        send, edit = transport.send, transport.edit

        async def refusing_send(chat_id, message):
            if chat_id in refused:
                raise Busy(1.0)
            return await send(chat_id, message)

        async def refusing_edit(chat_id, message_id, message):
            if chat_id in refused:
                raise Busy(1.0)
            await edit(chat_id, message_id, message)

        transport.send, transport.edit = refusing_send, refusing_edit
        await service.command(ALI, GROUP, "new", ["kenza"])
        match = await store.lobby_or_active_match("fake", "-100")
        await service.press(ALI, GROUP, callbacks.encode("b", match.id, "normal"))
        await service.press(ALI, GROUP, callbacks.encode("s", match.id))
        refused.add(ALI.user_id)
        for count in (1, 1, 1):  # the first counts (his rack was shown); the next two found it refused
            match = await store.get_match(match.id)
            clock.now = match.deadline + 1
            assert await service.tick() == 1
            human = next(seat for seat in await store.seats(match.id) if seat.is_human)
            assert (human.timeouts_in_a_row, human.away) == (count, False)
            assert service.rack_missing(match.id, human.seat)
        assert [record.actor for record in await store.moves(match.id)].count("timer") == 3
        refused.clear()
        clock.now += 120  # past every retry: the rack is shown again
        await service.deliver()
        assert not service.rack_missing(match.id, human.seat)
        match = await store.get_match(match.id)
        clock.now = match.deadline + 1
        assert await service.tick() == 1
        human = next(seat for seat in await store.seats(match.id) if seat.is_human)
        assert (human.timeouts_in_a_row, human.away) == (2, True)
        told = [shown.message.text for shown in transport.sent if shown.chat_id == ALI.user_id]
        assert [text for text in told if text.startswith("Time ran out")] == [
            text for text in told if text.startswith("Time ran out again")] != []


async def test_a_timer_read_from_the_due_list_does_not_fire_once_its_turn_has_changed(tmp_path):
    """`tick` reads the due timers, then plays each under the match's lock; by then the turn may have changed: a
    move landed (the version moved on), /timer 0 switched the timer off, or /timer or "I'm back" restarted the
    turn's clock. None of these fires, and nothing is played."""
    async with fake_service(tmp_path / "m.db", seed=3) as (service, _, store, clock):
        await service.command(ALI, GROUP, "new", ["kenza"])
        match = await store.lobby_or_active_match("fake", "-100")
        await service.press(ALI, GROUP, callbacks.encode("b", match.id, "normal"))
        await service.press(ALI, GROUP, callbacks.encode("s", match.id))
        match = await store.get_match(match.id)
        clock.now = match.deadline + 1
        assert await store.claim_due_timers(clock.now, TIMER_LEASE) == [(match.id, match.version)]
        lease_end = clock.now + TIMER_LEASE
        assert await service._timeout(match.id, match.version - 1, lease_end) == 0  # a move landed since the claim
        await store.set_deadline(match.id, None)
        assert await service._timeout(match.id, match.version, lease_end) == 0  # switched off
        await store.set_deadline(match.id, clock.now + 45)
        assert await service._timeout(match.id, match.version, lease_end) == 0  # restarted
        assert await service._timeout(match.id, match.version) == 0  # not due by the stored deadline either
        assert all(record.actor != "timer" for record in await store.moves(match.id))
        assert (await store.get_match(match.id)).version == match.version
        await store.set_deadline(match.id, clock.now - 1)
        assert await store.claim_due_timers(clock.now, TIMER_LEASE) == [(match.id, match.version)]
        assert await service._timeout(match.id, match.version, clock.now + TIMER_LEASE) == 1
