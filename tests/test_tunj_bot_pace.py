"""Tunj against a bot: its slips must not show (rules/tunj.md, "Bots"). Every bot move is shown on its own and
followed by the same pause — the claim window when the move was a slip — and the human holds the Tunj! control
through the whole bot turn, so neither a pause nor a button tells a slip from a clean move."""

from __future__ import annotations

import pytest

import engine
from bot import presenter
from bot.i18n import t
from engine.tunj.bots import NormalBot
from tests.chat import fake_service
from tests.test_tunj_chat import ALI, GROUP, open_tunj, private

GAME = engine.get("tunj")
WINDOW = 5  # the table's claim_seconds (open_tunj)
CALL = t("en", "tunj.btn.call")


@pytest.fixture
async def setup(tmp_path):
    async with fake_service(tmp_path / "pace.db", seed=5) as made:
        yield made


def _plain(legal: list[str]) -> str:
    """The human's move: a foundation move first, then any other move, turning last; never a call (the bot's
    slips are left to their windows here)."""
    moves = [move for move in legal if move != "tunj"]
    to_foundation = [move for move in moves if move.split()[-1].startswith("F")]
    placing = [move for move in moves if move != "turn"]
    return (to_foundation or placing or moves)[0]


def _shown_to(transport, chat_id: str) -> int:
    return sum(1 for call in transport.calls if call[0] in ("send", "edit") and call[1] == chat_id)


async def test_each_bot_move_is_shown_with_the_tunj_control_and_a_slip_pauses_like_a_clean_move(setup, monkeypatch):
    monkeypatch.setattr(NormalBot, "slip_rate", 0.3)  # slips often enough to meet several in one hand
    service, transport, store, clock = setup
    match = await open_tunj(service, players=(ALI,), bots=("normal",))
    human = next(seat.seat for seat in await store.seats(match.id) if seat.is_human)
    bot_name = t("en", "bot.name", n=2 - human, level=t("en", "level.normal"))
    pauses: dict[bool, set[float]] = {True: set(), False: set()}  # slip? -> the pauses that followed
    seen = rack_shows = table_shows = 0  # the bot may have made the first move as the table started
    run = longest = steps = 0
    for _ in range(3000):
        match = await store.get_match(match.id)
        if match.status != "active" or (longest >= 3 and len(pauses[True]) and steps >= 60):
            break
        state = GAME.from_json(match.snapshot)
        records = await store.moves(match.id)
        new, seen = records[seen:], len(records)
        if presenter.shown_turn(match, state) == human:
            run = 0
            rack_shows, table_shows = _shown_to(transport, ALI.user_id), _shown_to(transport, GROUP.chat_id)
            reply = await service.command(ALI, GROUP, "m", _plain(GAME.legal_moves(state, human)).split())
            assert not reply.alert, reply.text
            continue
        # The bot is shown moving: exactly one bot move since the last look, shown on the human's rack and on
        # the table, with the Tunj! control on both, and the same words whether it was a slip or not.
        assert [record.actor for record in new if record.actor == "bot"] == ["bot"], new
        run += 1
        steps += 1
        longest = max(longest, run)
        assert _shown_to(transport, ALI.user_id) > rack_shows, "the human's screen shows the bot's move"
        assert _shown_to(transport, GROUP.chat_id) > table_shows, "the table shows the bot's move"
        rack_shows, table_shows = _shown_to(transport, ALI.user_id), _shown_to(transport, GROUP.chat_id)
        rack = transport.latest(ALI.user_id)
        assert [button.label for button in transport.buttons(ALI.user_id)] == [CALL]
        assert rack.text == t("en", "rack.waiting", name=bot_name), rack.text
        assert any(button.data == f"t:{match.id}" for button in transport.buttons(GROUP.chat_id))
        assert t("en", "table.turn", name=bot_name) in transport.latest(GROUP.chat_id).text
        slip = state["claim"] is not None
        assert match.deadline is not None
        pauses[slip].add(round(match.deadline - clock.now, 6))
        clock.now = match.deadline - 0.01
        assert await service.tick() == 0, "nothing moves before the pause ends"
        clock.now = match.deadline + 0.01
        assert await service.tick() == 1
    assert steps >= 60, f"only {steps} bot moves were watched"
    assert longest >= 3, "a bot turn of several moves was watched move by move"
    assert pauses[True] and pauses[False], "both slips and clean moves were met"
    assert pauses[True] == pauses[False] == {WINDOW}, pauses


async def test_a_call_during_the_bots_pause_answers_a_slip_and_is_refused_after_a_clean_move(setup, monkeypatch):
    """The standing control works all through the bot's turn: after a clean move it is refused (no claim) and
    locked until the bot's next move; after a slip it wins the claim and the turn."""
    monkeypatch.setattr(NormalBot, "slip_rate", 0.3)
    service, transport, store, clock = setup
    match = await open_tunj(service, players=(ALI,), bots=("normal",))
    human = next(seat.seat for seat in await store.seats(match.id) if seat.is_human)
    refused = won = 0
    for _ in range(3000):
        match = await store.get_match(match.id)
        if match.status != "active" or (refused and won):
            break
        state = GAME.from_json(match.snapshot)
        if presenter.shown_turn(match, state) == human:
            await service.command(ALI, GROUP, "m", _plain(GAME.legal_moves(state, human)).split())
            continue
        control = transport.buttons(ALI.user_id)[0].data
        reply = await service.press(ALI, private(ALI), control)
        if state["claim"] is None:
            assert reply.alert and "no claim" in reply.text
            refused += 1
            clock.now = match.deadline + 0.01
            assert await service.tick() == 1
        else:
            assert not reply.alert, reply.text
            assert GAME.to_move(GAME.from_json((await store.get_match(match.id)).snapshot)) == human
            won += 1
    assert refused and won


async def test_a_restart_during_the_bots_pause_waits_for_it_then_the_timer_plays_on(tmp_path):
    """The pause is stored as the match's deadline: a new process neither plays the bot's next move early on
    resume nor loses it — its timer plays it when the pause ends."""
    from tests.chat import opened_store
    from tests.test_restart_timers import service_on

    path = str(tmp_path / "restart.db")
    async with fake_service(path, seed=5) as (service, transport, store, clock):
        match = await open_tunj(service, players=(ALI,), bots=("strong",))
        human = next(seat.seat for seat in await store.seats(match.id) if seat.is_human)
        for _ in range(200):  # the human plays until the bot has made a move and keeps the turn
            match = await store.get_match(match.id)
            state = GAME.from_json(match.snapshot)
            if GAME.to_move(state) != human:
                break
            await service.command(ALI, GROUP, "m", _plain(GAME.legal_moves(state, human)).split())
        assert GAME.to_move(state) != human and state["claim"] is None, "the strong bot pauses after a clean move"
        paused = match
    async with opened_store(path) as store:
        restarted = service_on(store, clock, transport, seed=6)
        await restarted.resume()
        match = await store.get_match(paused.id)
        assert (match.version, match.deadline) == (paused.version, paused.deadline), "resume waits for the pause"
        clock.now = paused.deadline - 0.01
        assert await restarted.tick() == 0
        clock.now = paused.deadline + 0.01
        assert await restarted.tick() == 1
        match = await store.get_match(paused.id)
        assert match.version > paused.version
        assert (await store.moves(match.id))[paused.version].actor == "bot"
