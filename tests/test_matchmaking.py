"""Matchmaking (issue 28) through the real Telegram adapter: `/play` from private chats, a table with no group seated
from the queue, shown in each player's private chat (the table and their own rack), Quick queues filled with bots
after the wait, rated queues never; the bad inputs of point 6."""

from __future__ import annotations

import random
from typing import Any

import pytest

import engine
from bot import callbacks
from bot.console import play_queued
from bot.i18n import t
from bot.service import Service
from engine.bots import decide
from storage import Store
from storage.queue import MATCHED
from tests.chat import console_service, typed_lines
from tests.clock import Clock
from tests.dc_harness import (
    AMINA,
    BADR,
    CHANNEL_ID,
    FakeDiscord,
    answers,
    click,
    controls,
    custom_ids,
    find_control,
    replays,
    start_adapter,
)
from tests.tg_harness import (
    GROUP_ID,
    PICTURE_CALLS,
    Bot,
    Failure,
    FakeTelegram,
    first_data,
    group_table_calls,
    play_one,
    user,
)

KT = engine.get("konkan_tiles")
PLAYERS = [user(501 + n, name) for n, name in enumerate(["Alia", "Basim", "Cala", "Dunya"])]


@pytest.fixture
async def memory_store():
    """An in-memory store: a whole match of some 360 moves without a disk flush after each (the file store's
    synchronous=FULL is a durability choice, not what this test is about)."""
    store = await Store.open(":memory:")
    yield store
    await store.close()


def private_calls(server: FakeTelegram, who: dict[str, Any]) -> list[Any]:
    return [call for call in server.calls_to(who["id"]) if call.status == 200]


async def seated_match(store: Any, who: dict[str, Any]) -> Any:
    player = await store.find_player("telegram", str(who["id"]))
    return await store.player_active_match("telegram", player.id)


async def slot_message(store: Any, match_id: int, kind: str, seat: int) -> Any:
    return await store.get_message("telegram", kind, match_id=match_id, seat=seat)


async def test_four_strangers_play_ranked_are_seated_two_against_two_privately(store):
    server = FakeTelegram()
    async with Bot(server, store, seed=4, clock=Clock(1_700_000_000.0)) as bot:
        for who in PLAYERS[:3]:
            await bot.command(who, who["id"], "/start")
            reply = await bot.command(who, who["id"], "/play konkan_tiles ranked")
            assert reply is not None and "rated" in reply.params["text"], reply
            assert await seated_match(store, who) is None
        # Each waiting player has the queue message with Leave queue, in their own chat only.
        for who in PLAYERS[:3]:
            assert any(first_data((c.markup or {}).get("inline_keyboard", []), "z:")
                       for c in private_calls(server, who))
        last = PLAYERS[3]
        await bot.command(last, last["id"], "/start")
        reply = await bot.command(last, last["id"], "/play konkan ranked")
        assert reply is not None and reply.params["text"] == t("en", "queue.seated", table="Konkan (tiles) · Ranked"), \
            reply.params["text"]
        match = await seated_match(store, last)
        assert match is not None and match.platform == MATCHED and match.rated and match.mode == "ranked"
        seats = await store.seats(match.id)
        assert len(seats) == 4 and all(seat.is_human and seat.platform == "telegram" for seat in seats)
        assert KT.view(KT.from_json(match.snapshot), None)["teams"] == [[0, 2], [1, 3]]
        ids = {str(who["id"]): who for who in PLAYERS}
        for seat in seats:
            player = await store.get_player(seat.player_id)
            who = ids[player.user_id]
            table = await slot_message(store, match.id, "table", seat.seat)
            rack = await slot_message(store, match.id, "rack", seat.seat)
            assert table is not None and rack is not None, seat
            assert table.chat_id == rack.chat_id == str(who["id"])
            pictures = [c for c in private_calls(server, who) if c.method in PICTURE_CALLS]
            # Their chat shows exactly two pictures: the table and their own rack (no other seat's).
            assert {str(c.sent_id or c.params.get("message_id")) for c in pictures} == {table.message_id,
                                                                                       rack.message_id}
        # Nothing went to any group, and each rack went to its own player only.
        assert server.calls_to(GROUP_ID) == []
        assert await store.queue("konkan_tiles", "ranked") == []

        # The seat to move plays from its private rack; the others' tables follow, in their own chats.
        state = KT.from_json(match.snapshot)
        mover = seats[KT.to_move(state)]
        who = ids[(await store.get_player(mover.player_id)).user_id]
        rack = await slot_message(store, match.id, "rack", mover.seat)
        call = next(c for c in reversed(private_calls(server, who))
                    if str(c.sent_id or c.params.get("message_id")) == rack.message_id)
        data = first_data(call.markup["inline_keyboard"], "m:", "p:")
        answer = await bot.press(who, who["id"], int(rack.message_id), data)
        assert not answer.get("show_alert"), answer
        if data.startswith("p:"):
            call = next(c for c in reversed(private_calls(server, who))
                        if str(c.sent_id or c.params.get("message_id")) == rack.message_id)
            answer = await bot.press(who, who["id"], int(rack.message_id),
                                     first_data(call.markup["inline_keyboard"], "m:"))
            assert not answer.get("show_alert"), answer
        assert (await store.get_match(match.id)).version > match.version
        # /score in a private chat reads the matched table.
        other = ids[(await store.get_player(seats[(mover.seat + 1) % 4].player_id)).user_id]
        reply = await bot.command(other, other["id"], "/score")
        assert reply is not None and "Alia" in reply.params["text"]


async def test_a_quick_queue_of_one_fills_with_bots_after_the_wait_and_a_ranked_one_never(store):
    server = FakeTelegram()
    clock = Clock(1_700_000_000.0)
    async with Bot(server, store, seed=5, clock=clock, images=False) as bot:
        alone, ranked = PLAYERS[0], PLAYERS[1:4]
        # Ranked: three people wait ten minutes, and no bot ever sits.
        for who in ranked:
            await bot.command(who, who["id"], "/start")
            await bot.command(who, who["id"], "/play konkan_tiles ranked")
        for _ in range(2):
            clock.advance(300)
            await bot.service.tick()
        assert len(await store.queue("konkan_tiles", "ranked")) == 3
        for who in ranked:
            assert await seated_match(store, who) is None
        reply = await bot.command(ranked[0], ranked[0]["id"], "/queue")
        assert "3 of 4" in reply.params["text"], reply.params["text"]
        # The operators see the queue: its length and its first player's wait on /metrics (issue 30 point 1).
        metrics = bot.service.metrics
        await metrics.refresh()
        labels = {"game": "konkan_tiles", "mode": "ranked"}
        assert metrics.registry.get_sample_value("majlis_matchmaking_queue_players", labels) == 3
        assert metrics.registry.get_sample_value("majlis_matchmaking_queue_wait_seconds", labels) == 600
        assert await metrics.queue_lengths() == {"majlis_matchmaking_queue_players konkan_tiles ranked": 3}
        # Quick: alone for the wait, then bots take the three empty seats.
        await bot.command(alone, alone["id"], "/start")
        reply = await bot.command(alone, alone["id"], "/play konkan_tiles")
        assert "30 seconds" in reply.params["text"], reply.params["text"]
        clock.advance(29)
        await bot.service.tick()
        assert await seated_match(store, alone) is None
        clock.advance(2)
        await bot.service.tick()
        match = await seated_match(store, alone)
        assert match is not None and match.options == {"mode": "quick"} and not match.rated
        seats = await store.seats(match.id)
        assert [seat.is_human for seat in seats].count(True) == 1 and len(seats) == 4
        assert await slot_message(store, match.id, "rack", next(s.seat for s in seats if s.is_human)) is not None
        assert await slot_message(store, match.id, "table", next(s.seat for s in seats if s.is_human)) is not None
        assert len(await store.queue("konkan_tiles", "ranked")) == 3


async def test_bad_queue_input_is_answered_to_that_user_only(store):
    server = FakeTelegram()
    clock = Clock(1_700_000_000.0)
    async with Bot(server, store, seed=6, clock=clock) as bot:
        ali, badr = PLAYERS[0], PLAYERS[1]
        await bot.command(ali, ali["id"], "/start")
        games = ", ".join(engine.game_ids())
        for text, key in (("/play chess", "err.unknown_game"), ("/play konkan_tiles blitz", "queue.unknown_mode"),
                          ("/play konkan_tiles private", "queue.mode_not_queued")):
            reply = await bot.command(ali, ali["id"], text)
            assert reply is not None and reply.params["text"].split(":")[0] == t(
                "en", key, games=games, mode=text.split()[-1], game="Konkan (tiles)",
                modes="quick, ranked, sulaymaniyah, turbo").split(":")[0], (text, reply.params["text"])
        assert await store.queue_entry_of((await store.find_player("telegram", str(ali["id"]))).id) is None
        # Two /play at once (a double tap) keep one entry; /play again later takes the player out.
        await bot.command(ali, ali["id"], "/play kenza")
        reply = await bot.command(ali, ali["id"], "/play kenza")
        assert reply.params["text"] == t("en", "queue.already", table="Kenza")
        assert len(await store.queue("kenza", "casual")) == 1
        reply = await bot.command(ali, ali["id"], "/play konkan_tiles")
        assert reply.params["text"] == t("en", "queue.elsewhere", table="Kenza")
        queue_call = next(c for c in private_calls(server, ali)
                          if first_data((c.markup or {}).get("inline_keyboard", []), "z:"))
        leave = first_data(queue_call.markup["inline_keyboard"], "z:")
        answer = await bot.press(ali, ali["id"], queue_call.sent_id, leave)
        assert answer.get("text") == t("en", "queue.left", table="Kenza")
        # The same Leave button again: the queue message is out of date.
        answer = await bot.press(ali, ali["id"], queue_call.sent_id, leave)
        assert answer.get("show_alert") and answer.get("text") == t("en", "queue.stale")
        # A forged queue code, and someone else's Leave button.
        await bot.command(ali, ali["id"], "/play kenza")
        entry = await store.queue_entry_of((await store.find_player("telegram", str(ali["id"]))).id)
        await bot.command(badr, badr["id"], "/start")
        answer = await bot.press(badr, badr["id"], 1, callbacks.encode("z", entry.id))
        assert answer.get("show_alert") and answer.get("text") == t("en", "queue.stale")
        for forged in ("q:0:chess.quick", "q:0:konkan_tiles.private", "q:7:kenza.casual", "z:1:x"):
            answer = await bot.press(badr, badr["id"], 1, forged)
            assert answer.get("show_alert") and answer.get("text") == t("en", "err.bad_button"), forged
        assert [e.player_id for e in await store.queue("kenza", "casual")] == [entry.player_id]
        # Later, /play again is how a player leaves.
        clock.advance(5)
        reply = await bot.command(ali, ali["id"], "/play kenza")
        assert reply.params["text"] == t("en", "queue.left", table="Kenza")
        assert await store.queue("kenza", "casual") == []
        # A player whose private chat is closed to the bot: told where to open it, and not queued.
        closed = user(599, "Closed")
        server.blocked.add(str(closed["id"]))
        reply = await bot.command(closed, GROUP_ID, "/play kenza")  # the group's own queue: its rack is private
        assert reply is not None and "private chat" in reply.params["text"], reply
        assert reply.params["text"].endswith("?start=play"), reply.params["text"]
        answer = await bot.press(closed, GROUP_ID, 1, "q:0:kenza.casual")  # 🎲 Play now: the global queue
        assert answer["text"].endswith("?start=qkenza-casual"), answer
        assert await store.queue_entry_of((await store.find_player("telegram", str(closed["id"]))).id) is None
        # Its link opens the private chat with /start qkenza-casual: that joins the queue asked for.
        server.blocked.discard(str(closed["id"]))
        reply = await bot.command(closed, closed["id"], "/start qkenza-casual")
        assert reply is not None and reply.params["text"].startswith("⏳ Queue for Kenza"), reply.params
        await bot.command(closed, closed["id"], "/play kenza")  # a double tap: still queued
        clock.advance(5)
        await bot.command(closed, closed["id"], "/play kenza")  # and out again
        # 🎲 Play now on the group's /new picker queues the presser privately.
        await bot.command(badr, GROUP_ID, "/new")
        picker = next(c for c in reversed(server.calls_to(GROUP_ID)) if first_data(
            (c.markup or {}).get("inline_keyboard", []), "q:"))
        answer = await bot.press(badr, GROUP_ID, picker.sent_id, first_data(picker.markup["inline_keyboard"], "q:"))
        assert not answer.get("show_alert") or "Queue" in answer.get("text", ""), answer
        assert (await store.queue_entry_of((await store.find_player("telegram", str(badr["id"]))).id)).game \
            == "konkan_tiles"


async def test_two_telegram_players_and_a_discord_player_play_a_whole_konkan_cards_match(memory_store):
    """One queue for both platforms: each seat is shown on its own platform (Telegram private chats, a Discord DM
    with components), the match is stored once, and it is played to its end by the three people."""
    store = memory_store
    server, fake, clock = FakeTelegram(), FakeDiscord(), Clock(1_700_000_000.0)
    game = engine.get("konkan_cards")
    async with Bot(server, store, seed=7, clock=clock, images=False) as bot:
        adapter = await start_adapter(store, fake, service=bot.service)
        bot.service.attach(adapter.transport, images=False)
        try:
            telegram = PLAYERS[:2]
            for who in telegram:
                await bot.command(who, who["id"], "/start")
                await bot.command(who, who["id"], "/play konkan_cards")
            payload = fake.command(AMINA, "play", {"game": "konkan_cards"})
            calls = await fake.feed(adapter.client, payload)
            assert any("3 of 4" in text for text in answers(calls)), answers(calls)
            dm = fake.dm_channel(AMINA)
            assert any(custom_ids(m, "z:") for m in fake.dm_messages(AMINA)), "the queue message, in her DM"
            clock.advance(31)
            await bot.service.tick()
            match = await seated_match(store, telegram[0])
            assert match is not None and match.game == "konkan_cards"
            seats = await store.seats(match.id)
            assert sorted(str(seat.platform) for seat in seats) == ["None", "discord", "telegram", "telegram"]
            by_seat: dict[int, tuple[str, dict[str, Any]]] = {}
            for seat in seats:
                if seat.is_human:
                    player = await store.get_player(seat.player_id)
                    who = AMINA if player.platform == "discord" else next(
                        w for w in telegram if str(w["id"]) == player.user_id)
                    by_seat[seat.seat] = (player.platform, who)
            amina_seat = next(s for s, (platform, _) in by_seat.items() if platform == "discord")
            names = {0: "Alia (Telegram)", 1: "Basim (Telegram)", 2: "Amina (Discord)", 3: "Bot 4 (normal)"}
            assert [m["content"] for m in fake.dm_messages(AMINA) if m["content"].startswith("✅")] == [
                t("en", "queue.found", table="Konkan (cards)", players=", ".join(names[n] for n in range(4)))]
            rack = await store.get_message("discord", "rack", match_id=match.id, seat=amina_seat)
            table = await store.get_message("discord", "table", match_id=match.id, seat=amina_seat)
            assert rack.chat_id == table.chat_id == dm and controls(fake.messages[rack.message_id])
            pressed = typed = 0
            for _ in range(1500):
                match = await store.get_match(match.id)
                if match.status != "active":
                    break
                state = game.from_json(match.snapshot)
                seat = game.to_move(state)
                platform, who = by_seat[seat]
                move = decide("konkan_cards", state, seat, "normal", random.Random(match.version), slips=False)
                if platform == "telegram":
                    reply = await bot.command(who, who["id"], f"/m {move}")
                    assert reply is not None and reply.params["text"].startswith("✓"), (move, reply.params)
                elif move in ("draw", "take"):  # her DM rack's button
                    rack_message = fake.messages[rack.message_id]
                    control = find_control(rack_message, "🂠" if move == "draw" else "Take ")
                    calls = await fake.feed(adapter.client, click(fake, AMINA, rack_message, control))
                    assert any(text.startswith("✓") for text in answers(calls)), answers(calls)
                    pressed += 1
                else:
                    calls = await fake.feed(adapter.client, fake.command(AMINA, "m", {"move": move}, guild=False,
                                                                         channel_id=int(dm)))
                    assert any(text.startswith("✓") for text in answers(calls)), (move, answers(calls))
                    typed += 1
                assert (await store.get_match(match.id)).version > match.version, move
            match = await store.get_match(match.id)
            assert match.status == "finished" and pressed and typed
            assert await replays(store, match.id)
            # Every human saw the final table on their own platform; nothing crossed platforms.
            for seat, (platform, who) in by_seat.items():
                final = await store.get_message(platform, "table", match_id=match.id, seat=seat)
                assert final is not None and final.chat_id == (dm if platform == "discord" else str(who["id"]))
            assert all(call.chat_id in {str(w["id"]) for w in telegram} for call in server.api_calls(
                "sendMessage", "editMessageText") if call.chat_id is not None)
            assert not any(message["channel_id"] == str(CHANNEL_ID) and custom_ids(message, "m:")
                           for message in fake.messages.values())
            reply = await bot.command(telegram[0], telegram[0]["id"], "/score")
            assert reply is not None and "Amina" in reply.params["text"]
        finally:
            await adapter.client.close()


async def test_discord_queue_by_dm_and_a_player_whose_dms_are_closed(memory_store):
    store = memory_store
    fake = FakeDiscord()
    adapter = await start_adapter(store, fake, service=Service(store, clock=Clock(1_700_000_000.0),
                                                               seed_source=random.Random(2)))
    try:
        fake.closed_dms.add(BADR["id"])
        calls = await fake.feed(adapter.client, fake.command(BADR, "play", {"game": "kenza"}))
        assert answers(calls) == ["⚠️ " + t("en", "queue.open_dm")], answers(calls)
        assert await store.queue("kenza", "casual") == []
        calls = await fake.feed(adapter.client, fake.command(AMINA, "play", {"game": "kenza"}))
        assert any(text.startswith("⏳") for text in answers(calls)), answers(calls)
        queued = next(m for m in fake.dm_messages(AMINA) if custom_ids(m, "z:"))
        calls = await fake.feed(adapter.client, fake.command(AMINA, "queue"))
        assert any("1 of 4" in text for text in answers(calls)), answers(calls)
        calls = await fake.feed(adapter.client, fake.press(AMINA, queued["id"], custom_ids(queued, "z:")[0]))
        assert answers(calls) == [t("en", "queue.left", table="Kenza")]
        assert fake.messages[queued["id"]]["components"] == [], "the queue message lost its Leave button"
        assert await store.queue("kenza", "casual") == []
        calls = await fake.feed(adapter.client, fake.command(AMINA, "queue"))
        assert answers(calls) == [t("en", "queue.none")]
    finally:
        await adapter.client.close()


async def test_play_now_on_start_in_the_private_chat(store):
    server = FakeTelegram()
    async with Bot(server, store, seed=8, clock=Clock(1_700_000_000.0)) as bot:
        who = PLAYERS[0]
        await bot.command(who, who["id"], "/start")
        welcome = next(c for c in reversed(private_calls(server, who)) if c.method == "sendMessage"
                       and first_data((c.markup or {}).get("inline_keyboard", []), "q:"))
        assert welcome.button_labels == [t("en", "btn.play_now")]
        answer = await bot.press(who, who["id"], welcome.sent_id,
                                 first_data(welcome.markup["inline_keyboard"], "q:"))
        assert answer.get("text", "").startswith("⏳ Queue for Konkan (tiles) · Quick"), answer
        entry = await store.queue_entry_of((await store.find_player("telegram", str(who["id"]))).id)
        assert (entry.game, entry.mode) == ("konkan_tiles", "quick")


async def test_the_terminal_is_one_more_platform_of_the_queue():
    """`majlis play --queue`: the terminal's player joins the Quick queue from their private chat; alone there, bots
    take the empty seats, the table prints above the prompt and the hand's numbered buttons play it. A rated queue,
    which never seats a bot, is refused at once rather than waited for."""
    store, service, transport, out = await console_service(3)
    try:
        service.matchmaking.waits = {"*": 0.0}
        refused = await play_queued(service, transport, "konkan_tiles", "ranked", "en", read=typed_lines([]))
        assert refused is not None and refused.text == t("en", "console.queue_people")
        assert await play_queued(service, transport, "kenza", None, "en", read=typed_lines(["1", "1"]),
                                 timer_interval=0.01) is None
        player = await store.find_player("console", "you")
        match = await store.player_latest_match(player.id)
        assert match.platform == MATCHED and match.game == "kenza"
        seats = await store.seats(match.id)
        assert [seat.platform for seat in seats] == ["console", None, None, None]
        assert (await store.moves(match.id))[0].actor == "human"
        text = out.getvalue()
        assert "✅ Table found for Kenza: " in text and "✓ You" in text and "Kenza — Deal 1" in text
    finally:
        await store.close()


async def test_a_restart_cancels_no_queue(store):
    """The queue is stored: after a restart the waiting keep their places, the Quick wait counts from when they
    joined, and a Leave button posted before the restart still answers."""
    server, clock = FakeTelegram(), Clock(1_700_000_000.0)
    stay, leave = PLAYERS[0], PLAYERS[1]
    async with Bot(server, store, seed=9, clock=clock, images=False) as bot:
        for who in (stay, leave):
            await bot.command(who, who["id"], "/start")
        await bot.command(stay, stay["id"], "/play konkan_tiles turbo")
        await bot.command(leave, leave["id"], "/play kenza")
    queued = next(c for c in private_calls(server, leave) if first_data((c.markup or {}).get("inline_keyboard", []),
                                                                        "z:"))
    clock.advance(31)
    async with Bot(server, store, seed=9, clock=clock, images=False) as bot:
        await bot.service.resume()
        answer = await bot.press(leave, leave["id"], queued.sent_id, first_data(queued.markup["inline_keyboard"], "z:"))
        assert answer.get("text") == t("en", "queue.left", table="Kenza"), answer
        await bot.service.tick()
        match = await seated_match(store, stay)
        assert match is not None and match.options == {"mode": "turbo"}
        assert await slot_message(store, match.id, "rack", next(
            s.seat for s in await store.seats(match.id) if s.is_human)) is not None


async def test_a_player_who_blocked_the_bot_after_joining_is_taken_out_before_the_table_is_made(memory_store):
    """Point 6: the seating checks each private chat first (Telegram answers 403 to a chat action), so a table is
    made of reachable players only: the full table waits for a fourth, the Quick wait fills the gap with a bot."""
    store = memory_store
    server, clock = FakeTelegram(), Clock(1_700_000_000.0)
    async with Bot(server, store, seed=8, clock=clock, images=False) as bot:
        for who in PLAYERS[:3]:
            await bot.command(who, who["id"], "/start")
            await bot.command(who, who["id"], "/play konkan_tiles")
        gone = PLAYERS[1]
        server.failures.append(Failure("sendChatAction", 403, "Forbidden: bot was blocked by the user",
                                       chat_id=str(gone["id"]), times=99))
        last = PLAYERS[3]
        await bot.command(last, last["id"], "/start")
        reply = await bot.command(last, last["id"], "/play konkan_tiles")
        # Four were queued, one refuses: no table with a dead seat; the three others still wait.
        assert reply.params["text"].startswith("⏳"), reply.params["text"]
        assert await seated_match(store, gone) is None and await seated_match(store, last) is None
        waiting = [entry.player_id for entry in await store.queue("konkan_tiles", "quick")]
        gone_id = (await store.find_player("telegram", str(gone["id"]))).id
        assert len(waiting) == 3 and gone_id not in waiting
        # After the wait the three reachable players are seated with one bot.
        clock.advance(31)
        await bot.service.tick()
        match = await seated_match(store, last)
        assert match is not None
        seats = await store.seats(match.id)
        assert [seat.is_human for seat in seats].count(True) == 3 and gone_id not in {s.player_id for s in seats}
        assert await store.queue("konkan_tiles", "quick") == []


async def test_a_group_opens_its_own_quick_queue_and_its_table_is_shown_there(memory_store):
    """Point 5: `/play` typed in a group queues for that group's own table (the global queue is left alone); a
    member presses its Join button; after the wait bots fill the rest and the table lives in the group, racks
    privately. A rated mode is refused there; a player blocked since joining is told in the group."""
    store = memory_store
    server, clock = FakeTelegram(), Clock(1_700_000_000.0)
    alia, basim, cala, dunya = PLAYERS
    async with Bot(server, store, seed=10, clock=clock) as bot:
        for who in PLAYERS:
            await bot.command(who, who["id"], "/start")
        await bot.command(dunya, dunya["id"], "/play konkan_tiles")  # the global queue: not this group's
        reply = await bot.command(alia, GROUP_ID, "/play konkan_tiles ranked")
        assert reply.params["text"].startswith("A group's own queue"), reply.params["text"]
        reply = await bot.command(alia, GROUP_ID, "/play konkan_tiles")
        assert "in this group: 1 of 4" in reply.params["text"], reply.params["text"]
        posted = next(c for c in reversed(server.calls_to(GROUP_ID))
                      if first_data((c.markup or {}).get("inline_keyboard", []), "q:1:"))
        answer = await bot.press(basim, GROUP_ID, posted.sent_id, first_data(posted.markup["inline_keyboard"], "q:"))
        assert "in this group: 2 of 4" in answer.get("text", ""), answer
        # A member whose private chat is closed is told to open it (the link starts no other queue), not queued.
        closed = user(598, "Closed")
        server.blocked.add(str(closed["id"]))
        answer = await bot.press(closed, GROUP_ID, posted.sent_id, first_data(posted.markup["inline_keyboard"], "q:"))
        assert answer.get("show_alert") and answer["text"].endswith("?start=play"), answer
        assert await store.queue_entry_of((await store.find_player("telegram", str(closed["id"]))).id) is None
        await bot.command(cala, GROUP_ID, "/play konkan_tiles")
        server.failures.append(Failure("sendChatAction", 403, "Forbidden: bot was blocked by the user",
                                       chat_id=str(cala["id"]), times=99))
        assert [e.player_id for e in await store.queue("konkan_tiles", "quick")] == [
            (await store.find_player("telegram", str(dunya["id"]))).id]
        assert len(await store.queue("konkan_tiles", "quick", str(GROUP_ID))) == 3
        clock.advance(31)
        await bot.service.tick()
        match = await seated_match(store, alia)
        assert match is not None and match.platform == "telegram" and match.chat_id == str(GROUP_ID)
        seats = await store.seats(match.id)
        assert [seat.is_human for seat in seats].count(True) == 2 and len(seats) == 4
        assert await seated_match(store, basim) == match and await seated_match(store, cala) is None
        # Cala blocked the bot since joining: taken out, and told so in the group.
        assert any(c.params.get("text", "").startswith("Cala was taken out") for c in server.calls_to(GROUP_ID))
        assert await store.queue("konkan_tiles", "quick", str(GROUP_ID)) == []
        # The table is in the group, like a /new table; each human's rack in their private chat.
        table = await store.get_message("telegram", "table", match_id=match.id)
        assert table is not None and table.chat_id == str(GROUP_ID), table
        for who in (alia, basim):
            player_id = (await store.find_player("telegram", str(who["id"]))).id
            seat = next(s for s in seats if s.player_id == player_id)
            rack = await slot_message(store, match.id, "rack", seat.seat)
            assert rack is not None and rack.chat_id == str(who["id"]), rack
        # The humans play from their racks, and the group's table follows (edited in the group).
        humans = {s.seat: who for s in seats for who in (alia, basim)
                  if s.player_id == (await store.find_player("telegram", str(who["id"]))).id}
        edits = len(group_table_calls(server)[1])
        for _ in range(3):
            await play_one(bot, match.id, humans)
        assert len(group_table_calls(server)[1]) > edits
        # The global queue's player still waits alone (their own wait is over too: seated with bots, apart).
        other = await seated_match(store, dunya)
        assert other is not None and other.id != match.id and other.platform == MATCHED


async def test_a_group_queue_waits_while_the_group_has_a_table_open(memory_store):
    """One open table per group: a group's queue is not seated over a /new lobby, nor probes anyone meanwhile."""
    store = memory_store
    server, clock = FakeTelegram(), Clock(1_700_000_000.0)
    alia, basim = PLAYERS[:2]
    async with Bot(server, store, seed=11, clock=clock, images=False) as bot:
        await bot.command(alia, alia["id"], "/start")
        await bot.command(basim, GROUP_ID, "/new kenza")
        await bot.command(alia, GROUP_ID, "/play kenza")
        lobby = await store.lobby_or_active_match("telegram", GROUP_ID)
        assert lobby is not None and lobby.status == "lobby"
        probes = len(server.api_calls("sendChatAction"))
        clock.advance(31)
        await bot.service.tick()
        assert await seated_match(store, alia) is None
        assert len(await store.queue("kenza", "casual", str(GROUP_ID))) == 1
        assert len(server.api_calls("sendChatAction")) == probes
