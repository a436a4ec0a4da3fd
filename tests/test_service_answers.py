"""What the service answers a player on the move path's side doors: `/m` and `/back` without a game or without a
move, "I'm back" from a seat that was not away, from an outsider, and from an away seat (its timer restarts)."""

from __future__ import annotations

import pytest

from bot import callbacks
from bot.i18n import t
from bot.messages import Actor, ChatRef
from bot.service import Service
from tests.chat import fake_service

GROUP = ChatRef("fake", "-100", private=False)
ALI = Actor("fake", "1", "Ali", language="en")
MONA = Actor("fake", "2", "Mona", language="en")



@pytest.fixture
async def setup(tmp_path):
    async with fake_service(tmp_path / "majlis.db", 5) as (service, transport, store, _clock):
        yield service, transport, store


async def kenza_against_a_bot(service: Service) -> int:
    await service.command(ALI, GROUP, "new", ["kenza"])
    match = await service.store.lobby_or_active_match("fake", "-100")
    await service.press(ALI, GROUP, callbacks.encode("b", match.id, "normal"))
    await service.press(ALI, GROUP, callbacks.encode("s", match.id))
    return match.id


async def test_typed_move_and_back_without_a_game_or_a_move_are_answered(setup):
    service, _, _ = setup
    for name, args in (("m", ["play", "1O"]), ("back", [])):
        reply = await service.command(ALI, GROUP, name, args)
        assert reply.text == t("en", "err.no_game") == "No game is being played here."
    await kenza_against_a_bot(service)
    reply = await service.command(ALI, GROUP, "m", [])
    assert reply.text == t("en", "err.move_syntax") == "Type a move after /m, e.g. /m play 6O take 4C 5E"


async def test_im_back_from_a_seat_that_is_playing_or_from_an_outsider(setup):
    service, _, _ = setup
    match_id = await kenza_against_a_bot(service)
    reply = await service.command(ALI, GROUP, "back", [])
    assert (reply.text, reply.alert) == ("You are already playing your seat.", False)
    reply = await service.press(MONA, GROUP, callbacks.encode("i", match_id))
    assert (reply.text, reply.alert) == ("You are not playing at this table.", True)


async def test_im_back_returns_an_away_seat_and_restarts_its_timer(setup):
    service, transport, store = setup
    match_id = await kenza_against_a_bot(service)
    match = await store.get_match(match_id)
    human = next(seat for seat in await store.seats(match_id) if seat.is_human)
    await store.set_seat_flags(match_id, human.seat, timeouts_in_a_row=2, away=True)
    await store.set_deadline(match_id, None)
    service._fresh_reads()
    before = len(transport.calls)
    reply = await service.press(ALI, GROUP, callbacks.encode("i", match_id))
    assert (reply.text, reply.alert) == ("Welcome back — your seat is yours again.", False)
    seat = next(seat for seat in await store.seats(match_id) if seat.is_human)
    assert (seat.away, seat.timeouts_in_a_row) == (False, 0)
    after = await store.get_match(match_id)
    assert after.version == match.version and after.status == "active"
    assert after.deadline is not None and after.deadline > 1_000_000.0, "the human's turn timer runs again"
    redrawn = {chat for _, chat, _ in transport.calls[before:]}
    assert ALI.user_id in redrawn, "the returning player's rack is redrawn"


async def test_im_back_after_the_match_ended_only_clears_the_flag(setup):
    service, _, store = setup
    match_id = await kenza_against_a_bot(service)
    human = next(seat for seat in await store.seats(match_id) if seat.is_human)
    await store.set_seat_flags(match_id, human.seat, away=True)
    await store.cancel_match(match_id)
    service._fresh_reads()
    reply = await service.press(ALI, GROUP, callbacks.encode("i", match_id))
    assert reply.text == "Welcome back — your seat is yours again."
    assert (await store.get_match(match_id)).deadline is None
    assert not next(seat for seat in await store.seats(match_id) if seat.is_human).away


async def test_a_pick_press_is_refused_to_an_outsider_off_turn_or_stale_and_answered_when_taken(setup):
    """The first step of a two-step move (Tunj: the source pile) goes through the same guards as a move."""
    service, transport, store = setup
    await service.command(ALI, GROUP, "new", ["tunj"])
    match = await store.lobby_or_active_match("fake", "-100")
    await service.press(MONA, GROUP, callbacks.encode("j", match.id))
    await service.press(ALI, GROUP, callbacks.encode("s", match.id))
    match = await store.get_match(match.id)
    seats = await store.seats(match.id)
    mover_seat = service_game_to_move(match)
    mover = ALI if seats[mover_seat].display_name == "Ali" else MONA
    waiting = MONA if mover is ALI else ALI
    pick = next(b.data for b in transport.buttons(mover.user_id) if b.data.startswith("p:"))
    op, match_id, version, key = pick.split(":", 3)
    outsider = Actor("fake", "3", "Omar", language="en")
    answers = {
        "outsider": await service.press(outsider, GROUP, pick),
        "waiting": await service.press(waiting, GROUP, pick),
        "stale": await service.press(mover, GROUP, f"{op}:{match_id}:{int(version) + 1}:{key}"),
    }
    assert {name: (reply.text, reply.alert) for name, reply in answers.items()} == {
        "outsider": ("You are not playing at this table.", True),
        "waiting": ("It is not your turn.", True),
        "stale": ("That button is out of date.", True),
    }
    chosen = await service.press(mover, ChatRef("fake", mover.user_id, private=True), pick)
    assert (chosen.text, chosen.alert) == ("Choose where to put it.", False), "a Tunj pick lifts a card: where next"
    back = next(b.data for b in transport.buttons(mover.user_id) if b.data.startswith("k:"))
    cleared = await service.press(mover, ChatRef("fake", mover.user_id, private=True), back)
    assert (cleared.text, cleared.alert) == ("", False)
    assert (await store.get_match(match.id)).version == match.version, "a pick plays nothing"


async def test_ticking_a_card_in_a_canasta_rack_answers_without_a_hint_about_taking(setup):
    """A tick only marks a card (the redrawn rack shows it); "Choose what to take" belongs to Kenza's captures."""
    service, transport, store = setup
    await service.command(ALI, GROUP, "new", ["canasta", "variant=duo"])
    match = await store.lobby_or_active_match("fake", "-100")
    await service.press(MONA, GROUP, callbacks.encode("j", match.id))
    await service.press(ALI, GROUP, callbacks.encode("s", match.id))
    match = await store.get_match(match.id)
    seats = await store.seats(match.id)
    mover = ALI if seats[service_game_to_move(match)].display_name == "Ali" else MONA
    draw = next(b.data for b in transport.buttons(mover.user_id) if b.data.startswith("m:"))
    assert (await service.press(mover, ChatRef("fake", mover.user_id, private=True), draw)).text.startswith("Played")
    match = await store.get_match(match.id)
    tick = next(b.data for b in transport.buttons(mover.user_id) if b.data.startswith("p:"))
    reply = await service.press(mover, ChatRef("fake", mover.user_id, private=True), tick)
    assert (reply.text, reply.alert) == ("", False)
    assert (await store.get_match(match.id)).version == match.version, "a tick plays nothing"


def service_game_to_move(match) -> int:
    import engine

    game = engine.get(match.game)
    return game.to_move(game.from_json(match.snapshot))
