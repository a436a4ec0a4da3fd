"""The operators' commands (issue 30 point 7) through the real python-telegram-bot Application: /status, /ban (a
banned user's every press and command gets one short answer; their seat at a match in play goes to the away bot,
their lobby seat is freed), /unban."""

from __future__ import annotations

import random
from typing import Any

from bot.service import Service
from storage import Store
from tests import dc_harness
from tests.tg_harness import GROUP_ID, Bot, FakeTelegram, open_lobby, open_table, play_one, seat_to_move, user

ALICE = user(111, "Alice")  # the operator
BADR = user(222, "Badr")
CHAMS = user(333, "Chams")
DINA = user(444, "Dina")
OPERATORS = frozenset({("telegram", "111")})


def said_to(server: FakeTelegram, who: dict[str, Any], start: int) -> list[str]:
    """What the bot wrote to `who`'s private chat since call number `start`."""
    return [call.shown_text for call in server.calls[start:]
            if call.method == "sendMessage" and call.chat_id == str(who["id"])]


async def test_status_and_ban_hand_a_banned_players_seat_to_the_away_bot(store: Store) -> None:
    server = FakeTelegram()
    async with Bot(server, store, operators=OPERATORS, seed=4) as bot:
        match_id = await open_table(bot, BADR, [CHAMS])
        seats = {seat.player_id: seat.seat for seat in await store.seats(match_id)}
        badr = await store.find_player("telegram", "222")
        badr_seat = seats[badr.id]

        # A concern this module does not know (matchmaking) reports its queues through the metrics hook.
        bot.service.metrics.add_gauge("majlis_queue_players", "Players waiting, by queue.", ["queue"],
                                      lambda: {("kenza",): 3.0}, queue=True)
        refused = await bot.command(CHAMS, GROUP_ID, "/status")
        assert refused is not None and refused.shown_text == "Only the bot's operators may use this command."
        mark = len(server.calls)
        await bot.command(ALICE, GROUP_ID, "/status")  # answered in Alice's private chat, not the group
        [status] = said_to(server, ALICE, mark)
        assert status.startswith("Majlis 0.1.0 · worker ")
        match = await store.get_match(match_id)
        assert f"Live tables: 1 (kenza {match.mode}: 1)" in status
        assert "Queues: majlis_queue_players kenza: 3" in status
        assert "Deliveries pending on this worker: 0" in status
        assert not [c for c in server.calls[mark:] if c.chat_id == str(GROUP_ID) and c.method == "sendMessage"]

        # A lobby in another group with Badr and Dina: the ban frees Badr's seat there.
        other = -100777
        await bot.command(DINA, other, "/new kenza")
        lobby = await store.lobby_or_active_match("telegram", str(other))
        await store.add_seat(lobby.id, player_id=badr.id)

        reply = await bot.command(ALICE, ALICE["id"], "/ban 222")
        assert reply is not None and reply.shown_text == "Badr is banned; 2 open seats handed over."
        seat = (await store.seats(match_id))[badr_seat]
        assert seat.away, "the away bot plays Badr's seat"
        assert [s.player_id for s in await store.seats(lobby.id)] == [(await store.find_player("telegram", "444")).id]

        # Badr's presses and commands: one short answer each, nothing applied.
        before = await store.get_match(match_id)
        message_id, keyboard = server.rack(BADR["id"])
        data = next(b["callback_data"] for row in keyboard for b in row if b.get("callback_data"))
        answer = await bot.press(BADR, BADR["id"], message_id, data)
        assert answer.get("text") == "You are banned from this bot." and answer.get("show_alert")
        for text in ("/top", "/new kenza", "/back", "/status"):
            mark = len(server.calls)
            got = await bot.command(BADR, BADR["id"], text)
            expected = "Only the bot's operators may use this command." if text == "/status" else \
                "You are banned from this bot."
            assert got is not None and got.shown_text == expected, text
            assert len([c for c in server.calls[mark:] if c.method == "sendMessage"]) == 1, text
        assert (await store.get_match(match_id)).version == before.version, "nothing Badr did was applied"
        assert (await store.lobby_or_active_match("telegram", str(BADR["id"]))) is None

        # The match goes on: Chams plays, the away bot answers for Badr's seat.
        for _ in range(3):
            match, to_move = await seat_to_move(store, match_id)
            if match.status != "active":
                break
            assert to_move != badr_seat, "the away bot never leaves Badr's turn waiting"
            await play_one(bot, match_id, {1 - badr_seat: CHAMS})
        movers = {(record.seat, record.actor) for record in await store.moves(match_id)}
        assert (badr_seat, "bot") in movers

        # Unbanned: Badr is answered as anyone again.
        reply = await bot.command(ALICE, ALICE["id"], "/unban 222")
        assert reply is not None and reply.shown_text == "Badr may use the bot again."
        again = await bot.command(BADR, BADR["id"], "/coins")
        assert again is not None and "banned" not in again.shown_text and "coins" in again.shown_text


async def test_ban_by_reply_by_username_and_the_refusals(store: Store) -> None:
    server = FakeTelegram()
    async with Bot(server, store, operators=OPERATORS) as bot:
        await open_lobby(bot, BADR, "/new kenza")
        mark = len(server.calls)
        await bot.command(ALICE, GROUP_ID, "/ban", reply_to=BADR)  # a reply to Badr's message names him
        assert said_to(server, ALICE, mark) == ["Badr is banned; 1 open seat handed over."]
        assert not [c for c in server.calls[mark:] if c.chat_id == str(GROUP_ID) and c.method == "sendMessage"]
        assert (await store.find_player("telegram", "222")).banned_at is not None
        cases = {
            "/ban 111": "An operator cannot be banned.",
            "/ban @nobody": "No player @nobody is known to the bot.",
            "/ban": "Usage: /ban USER — a user id, @username or platform:id (on Telegram you may also reply to their "
                    "message).",
            "/unban 333": "telegram:333 was not banned.",
            "/ban discord:987654321": "discord:987654321 is banned; 0 open seats handed over.",
        }
        for text, expected in cases.items():
            got = await bot.command(ALICE, ALICE["id"], text)
            assert got is not None and got.shown_text == expected, (text, got and got.shown_text)
        await store.upsert_player("telegram", "333", "Chams", username="chams")  # seen by the bot as @chams
        got = await bot.command(ALICE, ALICE["id"], "/ban @chams")
        assert got is not None and got.shown_text == "Chams is banned; 0 open seats handed over."


async def test_discord_operators_ban_and_status_by_slash_command(store: Store) -> None:
    fake = dc_harness.FakeDiscord()
    amina = str(dc_harness.AMINA["id"])
    service = Service(store, seed_source=random.Random(2), operators=frozenset({("discord", amina)}))
    adapter = await dc_harness.start_adapter(store, fake, service)
    try:
        assert {"ban", "unban", "status"} <= {command.name for command in adapter.client.tree.get_commands()}
        calls = await fake.feed(adapter.client, fake.command(dc_harness.BADR, "status"))
        assert dc_harness.answers(calls) == ["⚠️ Only the bot's operators may use this command."]
        calls = await fake.feed(adapter.client, fake.command(dc_harness.AMINA, "status"))
        [status] = dc_harness.answers(calls)
        assert status.startswith("Majlis ") and "Live tables: 0 (none)" in status
        badr = dc_harness.BADR["id"]
        calls = await fake.feed(adapter.client, fake.command(dc_harness.AMINA, "ban", {"who": f"discord:{badr}"}))
        assert dc_harness.answers(calls) == ["Badr is banned; 0 open seats handed over."]  # seen at his /status
        calls = await fake.feed(adapter.client, fake.command(dc_harness.BADR, "new", {"game": "kenza"}))
        assert dc_harness.answers(calls) == ["⚠️ You are banned from this bot."]
        assert await store.lobby_or_active_match("discord", str(dc_harness.CHANNEL_ID)) is None
    finally:
        await adapter.client.close()
