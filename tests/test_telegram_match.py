"""Whole Kenza matches through the real python-telegram-bot Application, by button presses only.

The test reads every keyboard from the recorded Bot API calls (the lobby's sendMessage/editMessageText in the
group, each human's rack from sendPhoto/editMessageMedia in their private chat) and presses the first legal button,
so anything the adapter or the service shows wrongly breaks the match.
"""

from __future__ import annotations

import io
import re
from typing import Any

from PIL import Image

import engine
from bot.games.kenza import card_label
from storage import Store
from tests.tg_harness import GROUP_ID, Bot, FakeTelegram, open_table, play_one, seat_to_move, user

ALICE = user(111, "Alice")
BADR = user(222, "Badr", language="ar")
CHAMS = user(333, "Chams")
DINA = user(444, "Dina")
MAX_PRESSES = 1500


async def play_out(bot: Bot, match_id: int, humans: dict[int, dict[str, Any]]) -> int:
    for presses in range(MAX_PRESSES):
        match, seat = await seat_to_move(bot.store, match_id)
        if match.status != "active":
            return presses
        await play_one(bot, match_id, humans)
    raise AssertionError("the match did not end")


class PrivacyWatch:
    """Checks each call as it is made: nothing in the group names a card held in any hand, and no private chat
    names a card another seat holds (cards named by the last few moves are public, even after a redeal)."""

    def __init__(self, store: Store, seats_by_user: dict[str, int]) -> None:
        self.store = store
        self.seats_by_user = seats_by_user
        self.match_id: int | None = None
        self.checked = 0

    async def __call__(self, call: Any) -> None:
        if self.match_id is None or call.chat_id is None:
            return
        shown = call.shown_text + "\n" + "\n".join(call.button_labels)
        if not shown.strip():
            return
        match = await self.store.get_match(self.match_id)
        if match is None or match.snapshot is None:
            return
        recent = " ".join(record.move for record in (await self.store.moves(self.match_id))[-8:])
        public = set(recent.split())
        hands: list[list[str]] = match.snapshot["hands"]
        if call.chat_id == str(GROUP_ID):
            secret = {card for hand in hands for card in hand}
        else:
            own = self.seats_by_user.get(call.chat_id)
            secret = {card for seat, hand in enumerate(hands) if seat != own for card in hand}
        for card in secret - public:
            for pattern in (rf"(?<![0-9A-Za-z]){re.escape(card)}(?![0-9A-Za-z])",
                            rf"(?<![0-9]){re.escape(card_label(card))}"):
                assert not re.search(pattern, shown), f"{card} leaked to chat {call.chat_id} by {call.method}"
        self.checked += 1


async def test_two_humans_play_a_whole_match_by_buttons(store):
    server = FakeTelegram()
    watch = PrivacyWatch(store, {"111": 0, "222": 1})
    server.on_call = watch
    async with Bot(server, store) as bot:
        match_id = await open_table(bot, ALICE, [BADR])
        watch.match_id = match_id
        seats = await store.seats(match_id)
        assert [s.player_id is not None for s in seats] == [True, True]
        table = [c for c in server.calls_to(GROUP_ID) if c.method == "sendPhoto"]
        assert len(table) == 1, "one table message per match"
        presses = await play_out(bot, match_id, {0: ALICE, 1: BADR})
        match = await store.get_match(match_id)
        assert match.status == "finished" and match.options["target"] == 101
        assert presses > 20
        # The table was edited in place all along: still one picture in the group, edits on its id only.
        photos = [c for c in server.calls_to(GROUP_ID) if c.method == "sendPhoto"]
        sheets = [c for c in photos if c.params.get("caption", "").startswith("🏁")]
        assert len(photos) - len(sheets) == 1
        # Each finished deal was announced once with its score sheet, the last with the match's result.
        history = engine.get("kenza").result(engine.get("kenza").from_json(match.snapshot))["history"]
        assert len(sheets) == len(history) and "🏆" in sheets[-1].params["caption"]
        edits = [c for c in server.calls_to(GROUP_ID) if c.method == "editMessageMedia"]
        assert len(edits) >= presses and {int(c.params["message_id"]) for c in edits} == {table[0].sent_id}
        final = server.latest(GROUP_ID, "editMessageMedia")
        assert "🏆" in final.shown_text or "🤝" in final.shown_text
        replay_button = [[b["callback_data"] for b in row] for row in (final.markup or {}).get("inline_keyboard", [])]
        assert replay_button == [[f"y:{match_id}"]], "a finished table has only its replay button"
        assert f"/replay {match_id}" in final.shown_text
        # The summary's replay button posts the match again as one animation in the group; a second press right
        # after is told it is just above.
        answer = await bot.press(BADR, GROUP_ID, int(final.params["message_id"]), f"y:{match_id}")
        assert not answer.get("show_alert"), answer
        animations = [c for c in server.calls_to(GROUP_ID) if c.method == "sendAnimation" and c.status == 200]
        assert len(animations) == 1 and f"#{match_id}" in animations[0].shown_text
        gif = Image.open(io.BytesIO(animations[0].files["animation"]))
        assert gif.format == "GIF" and gif.n_frames > 10
        again = await bot.press(ALICE, GROUP_ID, int(final.params["message_id"]), f"y:{match_id}")
        assert again.get("show_alert") and len([c for c in server.calls_to(GROUP_ID)
                                                 if c.method == "sendAnimation"]) == 1
        top = await bot.command(ALICE, GROUP_ID, "/top kenza")
        assert top is not None and ("Alice" in top.params["text"] and "Badr" in top.params["text"])
        assert watch.checked > presses


async def test_two_humans_and_two_bots_play_a_whole_match(store):
    server = FakeTelegram()
    watch = PrivacyWatch(store, {"111": 0, "333": 1})
    server.on_call = watch
    async with Bot(server, store, seed=5) as bot:
        match_id = await open_table(bot, ALICE, [CHAMS], bots=2)
        watch.match_id = match_id
        seats = await store.seats(match_id)
        assert [s.is_human for s in seats] == [True, True, False, False]
        humans = {0: ALICE, 1: CHAMS}
        presses = await play_out(bot, match_id, humans)
        match = await store.get_match(match_id)
        assert match.status == "finished" and presses > 10
        moves = await store.moves(match_id)
        assert {m.actor for m in moves} == {"human", "bot"}
        # Each human's private chat got racks; no rack ever went to a bot seat or to the group.
        for who in humans.values():
            assert server.calls_to(who["id"]) and server.rack(who["id"]) is not None
        photos = [c for c in server.calls_to(GROUP_ID) if c.method == "sendPhoto"]
        assert len([c for c in photos if not c.params.get("caption", "").startswith("🏁")]) == 1
        before = len(server.calls)
        await bot.command(CHAMS, GROUP_ID, "/stats")
        card = [c for c in server.calls[before:] if c.method == "sendPhoto" and c.chat_id == str(GROUP_ID)]
        assert len(card) == 1 and "Chams" in card[0].params["caption"]  # the profile picture, posted where asked
