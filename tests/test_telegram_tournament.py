"""A solo Kenza tournament end to end on the real Telegram adapter (emulated Bot API): the operator's command, the
card and its Register buttons in the group, a player who never opened the bot's private chat refused, the draw at the
start time, the check-in buttons, the final played by rack buttons, the champion announced with the bracket picture,
/tournament's picture and the final's replay."""

from __future__ import annotations

import io

from PIL import Image

from tests.clock import Clock
from tests.test_telegram_match import play_out
from tests.tg_harness import GROUP_ID, Bot, FakeTelegram, first_data, user

ALICE = user(111, "Alice")
BADR = user(222, "Badr")
CYRUS = user(333, "Cyrus")


def card_of(server: FakeTelegram, prefix: str) -> tuple[int, list]:
    for call in reversed(server.calls_to(GROUP_ID)):
        keyboard = (call.markup or {}).get("inline_keyboard", [])
        if call.status == 200 and first_data(keyboard, prefix):
            return int(call.params.get("message_id") or call.sent_id), keyboard
    raise AssertionError(f"no {prefix!r} button in the group")


async def test_a_tournament_from_the_operators_command_to_the_champion(store):
    server = FakeTelegram()
    server.blocked.add("333")  # Cyrus never opened the bot's private chat
    clock = Clock()
    async with Bot(server, store, clock=clock) as bot:
        bot.service.operators = frozenset({("telegram", "111")})
        for who in (ALICE, BADR):
            await bot.command(who, who["id"], "/start")
        denied = await bot.command(BADR, GROUP_ID, "/tournament new game=kenza")
        assert denied is not None and "operators" in denied.params["text"]
        await bot.command(ALICE, GROUP_ID, "/tournament new game=kenza target=101 close=10 start=15 grace=5 prize=Cup")
        message_id, keyboard = card_of(server, "u:")
        card = server.messages[(str(GROUP_ID), message_id)]
        assert "Cup" in card.text and "#1" in card.text
        for who in (ALICE, BADR):
            answer = await bot.press(who, GROUP_ID, message_id, "u:1")
            assert not answer.get("show_alert"), answer
        refused = await bot.press(CYRUS, GROUP_ID, message_id, "u:1")
        assert refused.get("show_alert")
        card = server.messages[(str(GROUP_ID), message_id)]
        assert "Alice" in card.text and "Badr" in card.text and "Cyrus" not in card.text  # edited in place
        clock.advance(16 * 60)
        await bot.service.tick()
        message_id, keyboard = card_of(server, "v:")
        for who in (ALICE, BADR):
            answer = await bot.press(who, GROUP_ID, message_id, first_data(keyboard, "v:"))
            assert not answer.get("show_alert"), answer
        game = (await store.bracket(1))[0]
        assert game.match_id is not None
        await play_out(bot, game.match_id, {0: ALICE, 1: BADR})
        await bot.service.tick()
        done = await store.get_tournament(1)
        assert done.status == "finished" and done.champion is not None
        told = [c for c in server.calls_to(GROUP_ID) if c.method == "sendPhoto" and "🏆" in c.shown_text
                and "#1" in c.shown_text and "Cup" in c.shown_text]
        assert len(told) == 1
        picture = Image.open(io.BytesIO(told[0].files["photo"]))
        assert picture.format == "PNG"
        before = len(server.calls)
        await bot.command(BADR, GROUP_ID, "/tournament")
        shown = [c for c in server.calls[before:] if c.method == "sendPhoto" and c.chat_id == str(GROUP_ID)]
        assert len(shown) == 1 and "/replay" in shown[0].shown_text
        await bot.command(BADR, GROUP_ID, f"/replay {game.match_id}")
        assert [c.method for c in server.calls_to(GROUP_ID)].count("sendAnimation") == 1
