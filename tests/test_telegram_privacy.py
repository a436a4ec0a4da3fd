"""Privacy of every picture through the real python-telegram-bot Application (tests/tg_harness.py), for every game.

Every Bot API call that shows something (sendPhoto, editMessageMedia, sendMessage, edits) is checked as the
fake server receives it: the uploaded bytes of a private-chat picture must be the render of that user's own seat
view, and differ from a render of another seat's; the group's picture the render of the public view; captions and
button labels name no card hidden from the recipient, and a rack's card buttons are that seat's own cards.
"""

from __future__ import annotations

import random

import pytest

import engine
from engine.bots import decide
from tests.privacy import PictureCheck, Received
from tests.tg_harness import GROUP_ID, Bot, Call, FakeTelegram, lobby_press, open_lobby, user

PLAYERS = [user(111, "Alice"), user(222, "Badr"), user(333, "Chams"), user(444, "Dina")]
TABLES = {
    "kenza": (2, "/new kenza target=101"),
    "rabaeen-teams": (4, "/new kenza variant=rabaeen"),
    "canasta-duo": (2, "/new canasta variant=duo"),
    "canasta-classic4": (4, "/new canasta variant=classic4"),
    "tunj": (2, "/new tunj"),
    "konkan-private": (2, "/new konkan_tiles mode=private"),
    "konkan-quick": (4, "/new konkan mode=quick"),
    "konkan-cards-51": (2, "/new konkan_cards variant=konkan51"),
    "konkan-cards-71": (4, "/new konkan_cards variant=konkan71"),
}
STEPS = 12  # at least; more until every seat's rack was drawn while it waited (a Tunj turn is a chain)
MAX_STEPS = 60
SHOWING = ("sendPhoto", "editMessageMedia", "sendMessage", "editMessageText", "editMessageCaption")


def watch_for(check: PictureCheck, server: FakeTelegram):
    async def watch(call: Call) -> None:
        if call.method not in SHOWING:
            return
        match = await check.match()
        if match is None:
            return
        seat = None if call.chat_id == str(GROUP_ID) else await check.seat_of_user(match, call.chat_id)
        if seat is None and call.chat_id != str(GROUP_ID):
            return  # a private chat of someone not seated
        await check.see(Received(call.chat_id, seat, server.picture(call), call.shown_text, call.button_labels))
    return watch


@pytest.mark.parametrize("table", list(TABLES))
async def test_every_telegram_picture_holds_only_its_recipients_view(store, table):
    players, text = TABLES[table]
    server = FakeTelegram()
    async with Bot(server, store, seed=17, images=True) as bot:
        check = PictureCheck(store, bot.service, "telegram", str(GROUP_ID))
        server.on_call = watch_for(check, server)
        match_id = await open_lobby(bot, PLAYERS[0], text)
        for who in PLAYERS[1:players]:
            await lobby_press(bot, who, "j:")
        await lobby_press(bot, PLAYERS[0], "s:")
        game = engine.get((await store.get_match(match_id)).game)
        for step in range(MAX_STEPS):
            match = await store.get_match(match_id)
            if match.status != "active" or (step >= STEPS and len(check.racks_waiting) == players):
                break
            state = game.from_json(match.snapshot)
            seat = game.to_move(state)
            await bot.command(PLAYERS[(seat + 1 + step % (players - 1)) % players], GROUP_ID, "/hand")
            mover = PLAYERS[seat]
            message_id, keyboard = server.rack(mover["id"])
            picks = [b["callback_data"] for row in keyboard for b in row if b.get("callback_data", "")[:2] == "p:"]
            if picks:
                answer = await bot.press(mover, mover["id"], message_id, picks[step % len(picks)])
                assert not answer.get("show_alert"), answer
            move = decide(match.game, state, seat, "normal", random.Random(step))
            await bot.command(mover, GROUP_ID, f"/m {move}")
            assert (await store.get_match(match_id)).version > match.version, move
        check.assert_clean(players)
        if table != "tunj":
            assert check.hand_buttons > 0
