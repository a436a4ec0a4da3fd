"""The move path answers each player in their own language (their choice, else their app's, else the chat's):
typed moves and their refusals, /timer, and the turn timer's "I played for you" — in a private chat on platforms
that push racks, in the group with a mention where they do not (Discord). Refusals of a typed move in a group are
shown to the typer only: "not in your hand" tells what they hold."""

from __future__ import annotations

import pytest

import engine
from bot import callbacks
from bot.games import ui_for
from bot.i18n import refusal, t, tn
from bot.messages import ERROR, Actor, ChatRef
from bot.service import Service
from engine import IllegalMove
from storage import Store
from tests.chat import Clock, fake_service, kenza_against_a_bot

GROUP = ChatRef("fake", "-100", private=False)
ALI = Actor("fake", "1", "Ali", language="ar")
DM = ChatRef("fake", ALI.user_id, private=True)


@pytest.fixture
async def built(tmp_path, request):
    async with fake_service(tmp_path / "m.db", 5, push_private=getattr(request, "param", True)) as built:
        yield built


async def test_typed_moves_are_answered_in_the_players_language_and_refusals_only_to_the_typer(built):
    service, _, store, _ = built
    assert (await service.command(ALI, DM, "m", ["play", "1O"])).text == t("ar", "err.no_game")
    match_id = await kenza_against_a_bot(service, ALI, GROUP)
    assert (await service.command(ALI, GROUP, "m", [])).text == t("ar", "err.move_syntax")
    match = await store.get_match(match_id)
    game = engine.get("kenza")
    state = game.from_json(match.snapshot)
    with pytest.raises(IllegalMove) as error:
        game.parse_move(state, 0, "play 99X")
    expected = t("ar", "err.illegal", reason=refusal("ar", error.value))
    assert expected.startswith("غير مسموح: ") and expected != t("en", "err.illegal", reason=refusal("en", error.value))
    for chat, private in ((GROUP, True), (DM, False)):
        reply = await service.command(ALI, chat, "m", ["play", "99X"])
        assert (reply.text, reply.alert, reply.kind, reply.private) == (expected, True, ERROR, private)
    move = game.legal_moves(state, 0)[0]
    reply = await service.command(ALI, DM, "m", move.split())
    assert reply.text.startswith("✓ ") and not reply.alert and not reply.private
    assert (await store.get_match(match_id)).version > match.version


async def test_timer_command_in_the_players_language_group_only_and_admins_only(built):
    service, _, store, _ = built
    assert (await service.command(ALI, DM, "timer", ["30"])).text == t("ar", "err.group_only")
    assert (await service.command(ALI, GROUP, "timer", ["30"])).text == t("ar", "err.admin_only")
    admin = Actor("fake", "9", "Huda", language="ar", is_admin=True)
    reply = await service.command(admin, GROUP, "timer", ["30"])
    assert reply.text.startswith(t("ar", "timer.set", n=30).split(" ")[0])
    assert (await store.get_chat("fake", "-100")).turn_timer == 30


async def timed_out_move(service: Service, store: Store, clock: Clock) -> str:
    match_id = await kenza_against_a_bot(service, ALI, GROUP)
    match = await store.get_match(match_id)
    clock.now = match.deadline + 1
    assert await service.tick() == 1
    record = next(r for r in await store.moves(match_id) if r.actor == "timer")
    return ui_for("kenza").describe_move(record.move, "ar")


async def test_the_timer_tells_the_player_in_their_language_privately_where_racks_are_pushed(built):
    service, transport, store, clock = built
    move = await timed_out_move(service, store, clock)
    told = [shown.message for shown in transport.sent if shown.chat_id == ALI.user_id and
            shown.message.text.startswith("انتهى الوقت")]
    assert [(m.text, m.mention) for m in told] == [(t("ar", "timer.played", move=move), None)]


@pytest.mark.parametrize("built", [False], indirect=True)
async def test_the_timer_tells_the_player_in_the_group_with_a_mention_where_racks_are_not_pushed(built):
    service, transport, store, clock = built
    move = await timed_out_move(service, store, clock)
    told = [shown.message for shown in transport.sent if shown.chat_id == GROUP.chat_id and
            "انتهى الوقت" in shown.message.text]
    expected = t("ar", "mention", user=ALI.user_id) + " " + t("ar", "timer.played", move=move)
    assert [(m.text, m.mention) for m in told] == [(expected, ALI.user_id)]
    assert not [shown for shown in transport.sent if shown.chat_id == ALI.user_id]


async def test_a_new_turn_timer_applies_to_the_turn_being_played(built):
    """/timer (admins) sets the chat's turn timer and restarts the running turn's clock from now with it (a fresh
    full turn, or none for 0); before a match starts it applies from the first turn. Answers in the admin's
    language; anything but 0, 10-3600 or `default` gets the usage."""
    service, _, store, clock = built
    admin = Actor("fake", "9", "Huda", language="ar", is_admin=True)
    await service.command(ALI, GROUP, "new", ["kenza"])
    lobby = await store.lobby_or_active_match("fake", "-100")
    said = (await service.command(admin, GROUP, "timer", ["45"])).text
    assert said == tn("ar", "timer.set", 45) + " " + t("ar", "timer.next")
    await service.press(ALI, GROUP, callbacks.encode("b", lobby.id, "normal"))
    await service.press(ALI, GROUP, callbacks.encode("s", lobby.id))
    assert (await store.get_match(lobby.id)).deadline == clock.now + 45
    clock.now += 20
    said = (await service.command(admin, GROUP, "timer", ["30"])).text
    assert said == tn("ar", "timer.set", 30) + " " + t("ar", "timer.now")
    assert (await store.get_match(lobby.id)).deadline == clock.now + 30
    said = (await service.command(admin, GROUP, "timer", ["0"])).text
    assert said == t("ar", "timer.off") + " " + t("ar", "timer.now")
    assert (await store.get_match(lobby.id)).deadline is None
    clock.now += 5
    said = (await service.command(admin, GROUP, "timer", ["DEFAULT"])).text
    assert said == t("ar", "timer.default") + " " + t("ar", "timer.now")
    assert (await store.get_match(lobby.id)).deadline == clock.now + 60  # Kenza's own timer
    for wrong in (["5"], ["3601"], ["abc"], []):
        assert (await service.command(admin, GROUP, "timer", wrong)).text == t("ar", "timer.usage")
    await store.cancel_match(lobby.id)
    said = (await service.command(admin, GROUP, "timer", ["20"])).text
    assert said == tn("ar", "timer.set", 20) + " " + t("ar", "timer.next")


async def test_a_stale_pick_is_refused_in_the_pressers_language(built):
    service, transport, store, _ = built
    mona = Actor("fake", "2", "Mona", language="ar")
    await service.command(ALI, GROUP, "new", ["tunj"])
    match = await store.lobby_or_active_match("fake", "-100")
    await service.press(mona, GROUP, callbacks.encode("j", match.id))
    await service.press(ALI, GROUP, callbacks.encode("s", match.id))
    for player in (ALI, mona):
        picks = [b.data for b in transport.buttons(player.user_id) if b.data.startswith("p:")]
        if picks:
            op, match_id, version, key = picks[0].split(":", 3)
            reply = await service.press(player, GROUP, f"{op}:{match_id}:{int(version) + 1}:{key}")
            assert (reply.text, reply.alert) == (t("ar", "err.stale"), True)
            return
    raise AssertionError("the player to move has a pick button")


async def test_a_move_button_of_a_match_that_ended_is_out_of_date_in_the_pressers_language(built):
    service, transport, store, _ = built
    match_id = await kenza_against_a_bot(service, ALI, GROUP)
    button = next(b.data for b in transport.buttons(ALI.user_id) if b.data.startswith("m:"))
    await store.cancel_match(match_id)
    reply = await service.press(ALI, DM, button)
    assert (reply.text, reply.alert) == (t("ar", "err.stale"), True)
    assert await store.moves(match_id) == []


async def test_one_tick_counts_every_timer_it_fires(built):
    """`tick` answers how many turn timers fired: here two tables' timers at once."""
    service, _, store, clock = built
    other = ChatRef("fake", "-200", private=False)
    mona = Actor("fake", "2", "Mona", language="ar")
    match_ids = [await kenza_against_a_bot(service, ALI, GROUP)]
    await service.command(mona, other, "new", ["kenza"])
    match = await store.lobby_or_active_match("fake", "-200")
    await service.press(mona, other, callbacks.encode("b", match.id, "normal"))
    await service.press(mona, other, callbacks.encode("s", match.id))
    match_ids.append(match.id)
    clock.now = max([(await store.get_match(match_id)).deadline for match_id in match_ids]) + 1
    assert await service.tick() == 2
    assert await service.tick() == 0


async def test_forged_or_foreign_move_presses_are_refused_in_the_pressers_language(built):
    """A move code whose picking field no keyboard of ours carries is forged; a move button pressed by somebody
    without a seat is not theirs. Both are refused to the presser only, in their language, and play nothing."""
    service, transport, store, _ = built
    match_id = await kenza_against_a_bot(service, ALI, GROUP)
    match = await store.get_match(match_id)
    forged = callbacks.encode("m", match_id, match.version, 0, "zz!")
    assert callbacks.drawn(callbacks.decode(forged)), "the shape is right: only the picking field is foreign"
    reply = await service.press(ALI, DM, forged)
    assert (reply.text, reply.alert) == (t("ar", "err.bad_button"), True)
    buttons = [b.data for b in transport.buttons(ALI.user_id) if b.data.startswith("m:")]
    op, _, version, _, tag = buttons[0].split(":")
    beyond = ":".join([op, str(match_id), version, str(len(buttons)), tag])  # one past the last move button
    reply = await service.press(ALI, DM, beyond)
    assert (reply.text, reply.alert) == (t("ar", "err.bad_button"), True)
    button = buttons[0]
    omar = Actor("fake", "3", "Omar", language="ar")
    reply = await service.press(omar, GROUP, button)
    assert (reply.text, reply.alert) == (t("ar", "err.not_your_seat"), True)
    assert (await store.get_match(match_id)).version == match.version


async def test_an_old_move_button_and_a_call_on_ones_own_turn_are_refused_in_the_pressers_language(built):
    service, transport, store, _ = built
    match_id = await kenza_against_a_bot(service, ALI, GROUP)
    op, _, version, *rest = next(b.data for b in transport.buttons(ALI.user_id) if b.data.startswith("m:")).split(":")
    old = ":".join([op, str(match_id), str(int(version) + 1), *rest])  # not the version it was drawn for
    assert (await service.press(ALI, DM, old)).text == t("ar", "err.stale")
    mona = Actor("fake", "2", "Mona", language="ar")
    await service.command(mona, ChatRef("fake", "-200", private=False), "new", ["tunj"])
    tunj = await store.lobby_or_active_match("fake", "-200")
    await service.press(ALI, ChatRef("fake", "-200", private=False), callbacks.encode("j", tunj.id))
    await service.press(mona, ChatRef("fake", "-200", private=False), callbacks.encode("s", tunj.id))
    tunj = await store.get_match(tunj.id)
    game = engine.get("tunj")
    seats = await store.seats(tunj.id)
    mover = mona if seats[game.to_move(game.from_json(tunj.snapshot))].display_name == "Mona" else ALI
    reply = await service.press(mover, ChatRef("fake", mover.user_id, private=True), callbacks.encode("t", tunj.id))
    assert (reply.text, reply.alert) == (t("ar", "call.own_turn"), True)
