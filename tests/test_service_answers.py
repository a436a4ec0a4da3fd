"""What the service answers a player on the move path's side doors: `/m` and `/back` without a game or without a
move, "I'm back" from a seat that was not away, from an outsider, and from an away seat (its timer restarts)."""

from __future__ import annotations

import asyncio

import pytest

from bot import callbacks
from bot.i18n import t
from bot.messages import Actor, ChatRef
from bot.service import Service
from tests.chat import fake_service, kenza_against_a_bot

GROUP = ChatRef("fake", "-100", private=False)
ALI = Actor("fake", "1", "Ali", language="en")
MONA = Actor("fake", "2", "Mona", language="en")
GUARD = 10.0  # seconds: only a guard against a hang, never a measured time



@pytest.fixture
async def setup(tmp_path):
    async with fake_service(tmp_path / "majlis.db", 5) as (service, transport, store, _clock):
        yield service, transport, store


async def test_typed_move_and_back_without_a_game_or_a_move_are_answered(setup):
    service, _, _ = setup
    for name, args in (("m", ["play", "1O"]), ("back", [])):
        reply = await service.command(ALI, GROUP, name, args)
        assert reply.text == t("en", "err.no_game") == "No game is being played here."
    await kenza_against_a_bot(service, ALI, GROUP)
    reply = await service.command(ALI, GROUP, "m", [])
    assert reply.text == t("en", "err.move_syntax") == "Type a move after /m, e.g. /m play 6O take 4C 5E"


async def test_im_back_from_a_seat_that_is_playing_or_from_an_outsider(setup):
    service, _, _ = setup
    match_id = await kenza_against_a_bot(service, ALI, GROUP)
    reply = await service.command(ALI, GROUP, "back", [])
    assert (reply.text, reply.alert) == ("You are already playing your seat.", False)
    reply = await service.press(MONA, GROUP, callbacks.encode("i", match_id))
    assert (reply.text, reply.alert) == ("You are not playing at this table.", True)


async def test_im_back_returns_an_away_seat_and_restarts_its_timer(setup):
    service, transport, store = setup
    match_id = await kenza_against_a_bot(service, ALI, GROUP)
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
    match_id = await kenza_against_a_bot(service, ALI, GROUP)
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
    assert (await service.press(mover, ChatRef("fake", mover.user_id, private=True), draw)).text.startswith("✓ You ")
    match = await store.get_match(match.id)
    tick = next(b.data for b in transport.buttons(mover.user_id) if b.data.startswith("p:"))
    reply = await service.press(mover, ChatRef("fake", mover.user_id, private=True), tick)
    assert (reply.text, reply.alert) == ("", False)
    assert (await store.get_match(match.id)).version == match.version, "a tick plays nothing"


def service_game_to_move(match) -> int:
    import engine

    game = engine.get(match.game)
    return game.to_move(game.from_json(match.snapshot))


async def test_back_in_arabic_redraws_only_the_returning_players_screens_and_pings_nobody(setup):
    """"I'm back" (typed in the player's private chat) answers in the player's language, gives the seat back, and
    redraws the returning player's rack and the table only: the other player's screen is not touched and nobody
    is pinged, because the turn did not move. Typed again, and typed by somebody without a seat, it is refused in
    their language."""
    service, transport, store = setup
    ali = Actor("fake", "1", "Ali", language="ar")
    private = ChatRef("fake", ali.user_id, private=True)
    assert (await service.command(ali, private, "back", [])).text == t("ar", "err.no_game") == \
        "لا تُلعب هنا أي لعبة."
    await service.command(ali, GROUP, "new", ["kenza"])
    match = await store.lobby_or_active_match("fake", "-100")
    await service.press(MONA, GROUP, callbacks.encode("j", match.id))
    await service.press(ali, GROUP, callbacks.encode("s", match.id))
    match = await store.get_match(match.id)
    seat = next(seat for seat in await store.seats(match.id) if seat.display_name == "Ali")
    await store.set_seat_flags(match.id, seat.seat, timeouts_in_a_row=2, away=True)
    service._fresh_reads()
    before = len(transport.calls)
    reply = await service.command(ali, private, "back", [])
    assert reply.text == t("ar", "back.welcome") == "أهلًا بعودتك — مقعدك لك من جديد."
    seat = next(seat for seat in await store.seats(match.id) if seat.display_name == "Ali")
    assert (seat.away, seat.timeouts_in_a_row) == (False, 0)
    calls = transport.calls[before:]
    assert ali.user_id in {chat for _, chat, _ in calls}, "the returning player's rack loses its I'm back button"
    assert MONA.user_id not in {chat for _, chat, _ in calls}, "the other player's rack did not change"
    assert [call for call in calls if call[0] == "send"] == [], "the turn did not move: no ping, no new message"
    assert (await service.command(ali, private, "back", [])).text == t("ar", "back.not_away") == \
        "أنت تلعب مقعدك بالفعل."
    omar = Actor("fake", "3", "Omar", language="ar")
    assert (await service.command(omar, GROUP, "back", [])).text == t("ar", "err.not_your_seat")


async def test_typed_back_returns_an_away_seat_at_a_table_with_a_bot(setup):
    """/back names the typer's own seat, never a bot's (a bot seat has no player: it is not "the typer's")."""
    service, _, store = setup
    match_id = await kenza_against_a_bot(service, ALI, GROUP)
    human = next(seat for seat in await store.seats(match_id) if seat.is_human)
    await store.set_seat_flags(match_id, human.seat, timeouts_in_a_row=2, away=True)
    service._fresh_reads()
    reply = await service.command(ALI, GROUP, "back", [])
    assert reply.text == "Welcome back — your seat is yours again."
    assert not next(seat for seat in await store.seats(match_id) if seat.is_human).away


async def tunj_table(service: Service, group: ChatRef, first: Actor, second: Actor) -> tuple[int, Actor, Actor]:
    """A two-player Tunj table in `group`; returns (match id, player to move, the other)."""
    await service.command(first, group, "new", ["tunj"])
    match = await service.store.lobby_or_active_match("fake", group.chat_id)
    await service.press(second, group, callbacks.encode("j", match.id))
    await service.press(first, group, callbacks.encode("s", match.id))
    match = await service.store.get_match(match.id)
    seats = await service.store.seats(match.id)
    mover = first if seats[service_game_to_move(match)].display_name == first.name else second
    return match.id, mover, second if mover is first else first


async def test_cancelling_a_table_forgets_it_and_leaves_other_tables_alone(setup):
    """A cancelled match leaves nothing behind in the service's memory (it runs for months: what it keeps per
    match must not grow with every table), and cancelling it does not touch another group's match: a player there
    who has picked the first step of a move still plays the second step from the same keyboard, and a call
    refused there still waits for the next move (rules/tunj.md, "Calling Tunj")."""
    service, transport, store = setup
    here, there = GROUP, ChatRef("fake", "-200", private=False)
    omar, sara = Actor("fake", "3", "Omar", language="en"), Actor("fake", "4", "Sara", language="en")
    kept_match, kept_mover, kept_other = await tunj_table(service, here, ALI, MONA)
    cancelled, mover, _ = await tunj_table(service, there, omar, sara)
    dm = {actor.user_id: ChatRef("fake", actor.user_id, private=True) for actor in (ALI, MONA, omar, sara)}
    # One whole move at the table to be cancelled (pick a source, then a destination), so it has a recap.
    await service.press(mover, dm[mover.user_id],
                        next(b.data for b in transport.buttons(mover.user_id) if b.data.startswith("p:")))
    played = await service.press(mover, dm[mover.user_id],
                                 next(b.data for b in transport.buttons(mover.user_id) if b.data.startswith("m:")))
    assert played.text.startswith("✓ You "), played.text
    match = await store.get_match(cancelled)
    seats = await store.seats(cancelled)
    mover = omar if seats[service_game_to_move(match)].display_name == "Omar" else sara
    other = sara if mover is omar else omar
    for player in (mover, kept_mover):
        pick = next(b.data for b in transport.buttons(player.user_id) if b.data.startswith("p:"))
        assert (await service.press(player, dm[player.user_id], pick)).text == "Choose where to put it."
    for player, match_id in ((other, cancelled), (kept_other, kept_match)):  # a call with no claim open locks calls
        reply = await service.press(player, dm[player.user_id], callbacks.encode("t", match_id))
        assert reply.text == t("en", "call.none")
    assert (await service.press(omar, there, callbacks.encode("x", cancelled))).text == t("en", "lobby.cancelled")
    memory = {"picks": service._picks, "calls": service._no_call, "recaps": service._recent,
              "sheets": service._announce, "turns": service._last_turn, "hand sizes": service._hand_sizes}
    left = {name: [key for key in held if (key[0] if isinstance(key, tuple) else key) == cancelled]
            for name, held in memory.items()}
    assert left == {name: [] for name in memory}
    again = await service.press(kept_other, dm[kept_other.user_id], callbacks.encode("t", kept_match))
    assert again.text == t("en", "call.wait"), "the other table's call lock holds until its next move"
    choice = next(b.data for b in transport.buttons(kept_mover.user_id) if b.data.startswith("m:"))
    played = await service.press(kept_mover, dm[kept_mover.user_id], choice)
    assert played.text.startswith("✓ You "), played.text


async def test_a_service_whose_timer_loop_never_ran_shuts_down_cleanly(setup):
    """The console and the tests drive timers with `tick` and never start `run_timers`: shutting down must not
    depend on the loop having run."""
    service, _, _ = setup
    service.stop_timers()
    await service.close()


async def test_a_finished_match_leaves_nothing_in_the_services_memory(setup):
    """Once a finished match's last screens are shown, the service keeps nothing of it (recaps, picks, turns, hand
    sizes, round sheets owed): it runs for months, hosting match after match."""
    from tests.test_service import play_to_the_end

    service, transport, store = setup
    match = await play_to_the_end(service, transport, store)
    assert match.status == "finished"
    await service.settle()
    memory = {"picks": service._picks, "calls": service._no_call, "recaps": service._recent,
              "sheets": service._announce, "turns": service._last_turn, "hand sizes": service._hand_sizes,
              "owed": service._due}
    left = {name: [key for key in held if (key[0] if isinstance(key, tuple) else key) == match.id]
            for name, held in memory.items()}
    assert left == {name: [] for name in memory}
    assert (await store.get_match(match.id)).delivered_version == match.version, "its last screens were shown"


async def test_im_back_wakes_a_sleeping_timer_loop_for_the_returners_turn(tmp_path):
    """An away seat's turn has no timer, so the loop may sleep its longest; "I'm back" gives the turn its timer
    again and must wake the loop to plan for it, else the returner's turn would wait out the loop's long sleep
    before its timer could ever fire."""
    async with fake_service(tmp_path / "back.db", 5) as (service, _transport, store, _clock):
        match_id = await kenza_against_a_bot(service, ALI, GROUP)
        human = next(seat for seat in await store.seats(match_id) if seat.is_human)
        await store.set_seat_flags(match_id, human.seat, timeouts_in_a_row=2, away=True)
        await store.set_deadline(match_id, None)
        service._fresh_reads()
        ticks: asyncio.Queue[int] = asyncio.Queue()
        tick = service._fire_due

        async def counted() -> int:
            fired = await tick()
            ticks.put_nowait(fired)
            return fired

        service._fire_due = counted  # type: ignore[method-assign]
        loop = asyncio.create_task(service.run_timers(3600.0))
        try:
            await asyncio.wait_for(ticks.get(), GUARD)  # the first tick; nothing timed: a sleep of an hour
            for _ in range(20):
                await asyncio.sleep(0)
            assert ticks.empty(), "the loop ticked again with nothing due"
            reply = await service.press(ALI, GROUP, callbacks.encode("i", match_id))
            assert reply.text == "Welcome back — your seat is yours again."
            assert (await store.get_match(match_id)).deadline is not None
            await asyncio.wait_for(ticks.get(), GUARD)  # woken to plan for the new deadline
        finally:
            service.stop_timers()
            await asyncio.wait_for(loop, GUARD)


async def test_chat_help_gives_a_typed_move_of_the_game_at_the_table(setup):
    """Issue 25: /help's typed-move example was a Kenza move whatever the game; now it is the table's game's (and
    Kenza's with no table), in the group and in the private chat of a seated player."""
    service, _, store = setup
    assert "/m play 6O take 4C 5E" in (await service.command(ALI, GROUP, "help", [])).text
    await service.command(ALI, ChatRef("fake", ALI.user_id, private=True), "start")
    await service.command(ALI, GROUP, "new", ["konkan_tiles", "mode=private"])
    match = await store.lobby_or_active_match(GROUP.platform, GROUP.chat_id)
    await service.press(ALI, GROUP, callbacks.encode("b", match.id, "normal"))
    assert not (await service.press(ALI, GROUP, callbacks.encode("s", match.id))).alert
    for chat in (GROUP, ChatRef("fake", ALI.user_id, private=True)):
        text = (await service.command(ALI, chat, "help", [])).text
        assert "/m meld R9 K9 Y9" in text and "6O" not in text and "/join" in text  # the chat's commands stay
    arabic = (await service.command(Actor("fake", "1", "Ali", language="ar"), GROUP, "help", [])).text
    assert "/m meld R9 K9 Y9" in arabic
