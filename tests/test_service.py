"""The platform-independent service end to end, with an in-memory transport and a real SQLite file."""

from __future__ import annotations

import asyncio
import random

import pytest

import engine
from bot import callbacks
from bot.games.kenza import card_label
from bot.messages import Actor, ChatRef
from bot.service import Service
from storage import Store
from tests.chat import Clock, fake_service
from tests.fakes import LAYOUTS, FakeTransport, force_layout
from tests.privacy import PictureCheck, Received, shows_label

GROUP = ChatRef("fake", "-100", private=False)
ALI = Actor("fake", "1", "Ali", language="en")
MONA = Actor("fake", "2", "Mona", language="en")


@pytest.fixture
async def setup(tmp_path):
    async with fake_service(tmp_path / "majlis.db", seed=5) as made:
        yield made


async def open_table(service, players=(ALI,), bots=1, options=()):
    await service.command(ALI, GROUP, "new", ["kenza", *options])
    match = await service.store.lobby_or_active_match("fake", "-100")
    for actor in players[1:]:
        await service.press(actor, GROUP, callbacks.encode("j", match.id))
    for _ in range(bots):
        await service.press(ALI, GROUP, callbacks.encode("b", match.id, "normal"))
    reply = await service.press(ALI, GROUP, callbacks.encode("s", match.id))
    return await service.store.get_match(match.id), reply


async def play_first_button(service, transport, actor, match_id):
    """Press the first rack button; when it opens a second step, press its first choice."""
    buttons = transport.buttons(actor.user_id)
    assert buttons, "the player to move has buttons"
    reply = await service.press(actor, ChatRef("fake", actor.user_id, private=True), buttons[0].data)
    if buttons[0].data.startswith("p:"):
        choices = transport.buttons(actor.user_id)
        reply = await service.press(actor, ChatRef("fake", actor.user_id, private=True), choices[0].data)
    return reply


async def play_to_the_end(service, transport, store):
    """Ali against a bot to 101, pressing his first button each turn, until the match is over."""
    match, _ = await open_table(service, options=("target=101",))
    for _ in range(500):
        match = await store.get_match(match.id)
        if match.status != "active":
            break
        await play_first_button(service, transport, ALI, match.id)
    return match


async def test_lobby_join_bots_start_and_refusals(setup):
    service, transport, store, _ = setup
    await service.command(ALI, GROUP, "new", ["kenza", "target=101"])
    match = await store.lobby_or_active_match("fake", "-100")
    assert match.options == {"target": 101}  # what the creator chose; the rest follows the game's defaults
    lobby = transport.latest("-100").text  # the group speaks Arabic, the default
    assert "كينزة (جمع 15)" in lobby and "إلى 101" in lobby
    assert (await service.command(MONA, GROUP, "new", ["kenza"])).text == "This chat already has an open table."
    assert "already" in (await service.press(ALI, GROUP, callbacks.encode("j", match.id))).text
    # Only the creator changes options.
    assert (await service.press(MONA, GROUP, callbacks.encode("o", match.id, "target"))).alert
    await service.press(ALI, GROUP, callbacks.encode("o", match.id, "target"))
    assert (await store.get_match(match.id)).options["target"] == 151
    # Not enough players to start.
    assert (await service.press(ALI, GROUP, callbacks.encode("s", match.id))).alert
    await service.press(MONA, GROUP, callbacks.encode("j", match.id))
    await service.press(MONA, GROUP, callbacks.encode("l", match.id))
    await service.press(ALI, GROUP, callbacks.encode("b", match.id, "random"))
    seats = await store.seats(match.id)
    assert [(s.player_id is not None, s.bot_level) for s in seats] == [(True, None), (False, "random")]
    await service.press(ALI, GROUP, callbacks.encode("s", match.id))
    assert (await store.get_match(match.id)).status == "active"
    assert (await service.press(MONA, GROUP, callbacks.encode("j", match.id))).alert


async def test_whole_match_against_a_bot_then_replay_and_leaderboard(setup):
    service, transport, store, _ = setup
    match = await play_to_the_end(service, transport, store)
    assert match.status == "finished"
    # Replay the log from the seed: the same final state.
    game = engine.get("kenza")
    state = game.new(2, match.options, seed=match.seed)
    for record in await store.moves(match.id):
        state = game.apply(state, record.seat, record.move)
    assert game.to_json(state) == match.snapshot
    top = await service.command(ALI, GROUP, "top", ["kenza"])
    assert top.in_place and "Ali" in top.message.text  # the board is the answer itself, shown where asked
    stats = await service.command(ALI, GROUP, "stats", [])
    assert stats.in_place and "1 game," in stats.message.text
    # The table message was edited in place, never re-sent; each finished deal was announced once, in order.
    group = [shown.message for shown in transport.sent if shown.chat_id == "-100"]
    sheets = [message for message in group if message.text.startswith("🏁")]
    group = [message for message in group if not message.text.startswith("🎖")]  # a first win's achievement
    assert len(group) - len(sheets) == 2  # the lobby and the table, once each
    details = game.view(state, None)["details"]
    assert len(sheets) == len(details) == len(game.result(state)["history"]) >= 2
    for number, (message, detail) in enumerate(zip(sheets, details, strict=True), start=1):
        lines = message.text.splitlines()
        assert f"التوزيعة {number}" in lines[0]
        for side, name in enumerate(["Ali", lines[2].split(":")[0]]):
            part = detail["sides"][side]
            line = next(line for line in lines if line.startswith(name))
            assert f"الأوراق المأكولة {part['cards']}" in line and f"نقاط الذهب {part['gold']}" in line
            assert f"المسحات {part['sweeps']}" in line and f"المجموع {detail['totals'][side]}" in line
            assert part["gold"] + part["others"] == detail["points"][side]
    assert "الفائز" in sheets[-1].text.splitlines()[-1]  # the match's result under the last deal
    # /score after the match: every deal with its breakdown (the same sheet as announced), then the totals.
    score = (await service.command(ALI, GROUP, "score")).text  # in Ali's language (English)
    sections = score.split("\nDeal ")[1:]
    assert len(sections) == len(details)
    for number, (section, detail) in enumerate(zip(sections, details, strict=True), start=1):
        assert section.startswith(f"{number}:")
        for side, part in enumerate(detail["sides"]):
            assert f"cards captured {part['cards']} · gold points {part['gold']}" in section
            assert f"Total {detail['totals'][side]}" in section
    assert score.splitlines()[-1].startswith("Total:")


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
async def test_stale_forged_out_of_turn_and_double_presses(setup, layout):
    service, transport, store, _ = setup
    match, _ = await open_table(service, players=(ALI, MONA), bots=0)
    match = await force_layout(store, match.id, LAYOUTS[layout])
    await service.resume()
    mover, other = ALI, MONA  # seat 0 is to move in both layouts
    data = transport.buttons(mover.user_id)[0].data
    assert data.startswith("m:" if layout == "move first" else "p:")
    version = match.version
    assert (await service.press(other, GROUP, data)).alert  # another player's button
    assert (await service.press(mover, GROUP, "m:999:0:0")).alert  # no such match
    assert (await service.press(mover, GROUP, "zz:1")).alert  # forged code
    assert (await service.press(mover, GROUP, f"m:{match.id}:{version}:99")).alert  # no such move
    assert (await store.get_match(match.id)).version == version
    if layout == "pick first":  # the capture choice opens; its first take is the move pressed three times
        await service.press(mover, GROUP, data)
        data = transport.buttons(mover.user_id)[0].data
    replies = await asyncio.gather(*(service.press(mover, GROUP, data) for _ in range(3)))
    assert (await store.get_match(match.id)).version == version + 1, "a double press applies once"
    assert sum(1 for reply in replies if reply.alert) == 2
    # The first player's old button is stale now; pressing it when not their turn is refused too.
    assert (await service.press(mover, GROUP, data)).alert
    assert (await service.command(mover, GROUP, "m", ["play", "1O"])).alert


async def test_timer_plays_for_absent_player_then_bot_keeps_seat_until_back(setup):
    service, transport, store, clock = setup
    match, _ = await open_table(service)
    assert match.deadline is not None
    clock.now = match.deadline + 1
    assert await service.tick() == 1
    match = await store.get_match(match.id)
    assert (await store.moves(match.id))[0].actor == "timer"
    seat = [s for s in await store.seats(match.id) if s.player_id is not None][0]
    assert seat.timeouts_in_a_row == 1 and not seat.away
    clock.now = match.deadline + 1
    assert await service.tick() == 1
    seat = [s for s in await store.seats(match.id) if s.player_id is not None][0]
    assert seat.away
    match = await store.get_match(match.id)
    # With the human away, bots play their seat: the match ran on without waiting.
    assert match.status == "finished" or match.deadline is None
    actors = {record.actor for record in await store.moves(match.id)}
    assert {"timer", "bot"} <= actors
    texts = [shown.message.text for shown in transport.sent if shown.chat_id == ALI.user_id]
    assert any("Time ran out" in text or "انتهى الوقت" in text for text in texts)


async def test_back_in_returns_the_seat(tmp_path):
    store = await Store.open(str(tmp_path / "m.db"))
    clock = Clock()
    service = Service(store, clock=clock, seed_source=random.Random(5))
    transport = FakeTransport()
    service.attach(transport, images=False)
    match, _ = await open_table(service, players=(ALI, MONA), bots=0)
    seats = await store.seats(match.id)
    game = engine.get("kenza")
    mover_seat = game.to_move(game.from_json(match.snapshot))
    mover = ALI if seats[mover_seat].display_name == "Ali" else MONA
    await store.set_seat_flags(match.id, mover_seat, timeouts_in_a_row=2, away=True)
    reply = await service.press(mover, GROUP, callbacks.encode("i", match.id))
    assert "Welcome back" in reply.text
    seat = (await store.seats(match.id))[mover_seat]
    assert not seat.away and seat.timeouts_in_a_row == 0
    await store.close()


async def test_restart_resumes_and_edits_the_same_messages(tmp_path):
    path = str(tmp_path / "restart.db")
    store = await Store.open(path)
    transport = FakeTransport()
    service = Service(store, seed_source=random.Random(9))
    service.attach(transport, images=False)
    match, _ = await open_table(service)
    await play_first_button(service, transport, ALI, match.id)
    old_buttons = transport.buttons(ALI.user_id)
    table_id = (await store.get_message("fake", "table", match_id=match.id)).message_id
    await store.close()

    store = await Store.open(path)
    service = Service(store, seed_source=random.Random(1))
    service.attach(transport, images=False)
    await service.resume()
    before = len(transport.calls)
    reply = await service.press(ALI, ChatRef("fake", "1", private=True), old_buttons[0].data)
    assert not reply.alert, reply.text
    assert ("edit", "-100", table_id) in transport.calls[before:]
    assert (await store.get_message("fake", "table", match_id=match.id)).message_id == table_id
    await store.close()


async def test_unreachable_player_blocks_start_until_private_chat(tmp_path):
    store = await Store.open(str(tmp_path / "dm.db"))
    transport = FakeTransport(unreachable={"2"})
    service = Service(store, seed_source=random.Random(3))
    service.attach(transport, images=False)
    match, reply = await open_table(service, players=(ALI, MONA), bots=0)
    assert match.status == "lobby" and reply.alert
    note = transport.latest("-100")
    assert "Mona" in note.text and note.keyboard[0][0].url
    transport.unreachable.clear()
    await service.command(MONA, ChatRef("fake", "2", private=True), "start", [f"m{match.id}"])
    await service.press(ALI, GROUP, callbacks.encode("s", match.id))
    assert (await store.get_match(match.id)).status == "active"
    await store.close()


async def test_group_messages_never_show_a_hand(setup):
    """Words as displayed ("6⚔️", not the engine's "6E"): the group never names a card hidden from the public
    view, and each rack names exactly its own seat's hand (checked as each message is shown, against the state
    of that moment; the pictures are checked in tests/test_privacy_pictures.py)."""
    service, transport, store, _ = setup
    check = PictureCheck(store, service, "fake", "-100")
    actors = {ALI.user_id: ALI, MONA.user_id: MONA}

    async def watch(chat_id, message):
        match = await check.match()
        if match is not None:
            seat = None if chat_id == "-100" else await check.seat_of_user(match, chat_id)
            buttons = [button.label for row in message.keyboard for button in row]
            await check.see(Received(chat_id, seat, None, message.text + "\n" + message.alt, buttons,
                                     rack_text=message.alt if seat is not None else ""))
    transport.watch = watch
    match, _ = await open_table(service, players=(ALI, MONA), bots=1)
    for _ in range(12):
        match = await store.get_match(match.id)
        state = engine.get("kenza").from_json(match.snapshot)
        seats = await store.seats(match.id)
        seat = seats[engine.get("kenza").to_move(state)]
        mover = ALI if seat.display_name == "Ali" else MONA
        waiting = MONA if mover is ALI else ALI
        await service.press(waiting, GROUP, callbacks.encode("h", match.id))  # a waiting player's rack
        await play_first_button(service, transport, actors[mover.user_id], match.id)
    assert not check.problems, "\n".join(check.problems[:10])
    assert check.hand_texts >= 12 and check.hand_buttons > 0
    # The last group message and each player's last rack, read as displayed.
    match = await store.get_match(match.id)
    state = engine.get("kenza").from_json(match.snapshot)
    seats = await store.seats(match.id)
    table = transport.latest("-100")
    for seat in seats:
        if seat.player_id is None:
            continue
        user = ALI.user_id if seat.display_name == "Ali" else MONA.user_id
        own = [card_label(code) for code in state["hands"][seat.seat]]
        assert not any(shows_label(table.text + table.alt, label) for label in own)
        racks = {int(mid): message for (chat, mid), message in transport.current.items() if chat == user
                 and message.alt}
        rack = racks[max(racks)]  # the newest rack as it reads now (edited since it was sent)
        assert rack.alt == "Your cards: " + ("  ".join(f"{i}) {label}" for i, label in enumerate(own, 1)) or "—")


async def test_commands_help_rules_lang_and_unknown(setup):
    service, _, store, _ = setup
    assert "/new" in (await service.command(ALI, GROUP, "help", [])).text
    assert "15" in (await service.command(ALI, GROUP, "rules", ["kenza"])).text
    assert (await service.command(ALI, GROUP, "lang", ["xx"])).text.startswith("Use")
    reply = await service.command(ALI, GROUP, "lang", ["ar"])
    assert "العربية" in reply.text
    assert "لا أعرف" in (await service.command(ALI, GROUP, "frobnicate", [])).text
    assert (await service.command(ALI, GROUP, "new", ["chess"])).alert
    assert (await service.command(ALI, GROUP, "new", ["kenza", "target=7"])).alert


async def test_score_after_the_match_shows_the_final_scores(setup):
    service, transport, store, _ = setup
    match = await play_to_the_end(service, transport, store)
    reply = await service.command(MONA, GROUP, "score", [])
    assert match.status == "finished" and "Total" in reply.text
    assert all(str(points) in reply.text for points in match.result["scores"]), reply.text


async def test_canasta_table_follows_its_seats_unless_a_variant_is_chosen(setup):
    service, transport, store, _ = setup
    await service.command(ALI, GROUP, "new", ["canasta", "target=2500"])
    match = await store.lobby_or_active_match("fake", "-100")
    assert "لاعبان" in transport.latest("-100").text  # "two players": one seat so far, shown as it would start
    await service.press(ALI, GROUP, callbacks.encode("b", match.id, "normal"))
    await service.press(ALI, GROUP, callbacks.encode("s", match.id))
    match = await store.get_match(match.id)
    assert match.status == "active" and match.snapshot["options"]["variant"] == "duo"
    assert match.snapshot["options"]["target"] == 2500


async def test_tunj_lobby_cycles_the_claim_window_and_hides_an_unset_target(setup):
    service, transport, store, _ = setup
    await service.command(ALI, GROUP, "new", ["tunj"])
    match = await store.lobby_or_active_match("fake", "-100")
    lobby = transport.latest("-100")
    assert "None" not in lobby.text and "مهلة طنج 10" in lobby.text
    assert any(b.data == callbacks.encode("o", match.id, "claim_seconds") for row in lobby.keyboard for b in row)
    await service.press(ALI, GROUP, callbacks.encode("o", match.id, "claim_seconds"))
    assert (await store.get_match(match.id)).options == {"claim_seconds": 15}
    assert "مهلة طنج 15" in transport.latest("-100").text
