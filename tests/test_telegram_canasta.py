"""Canasta through the real python-telegram-bot Application: a classic4 table of two partners and two bots, opened
with /new and the lobby buttons, then played by pressing only the buttons found in the recorded private-chat racks
(sendPhoto/editMessageMedia reply_markup) — card toggles, set-aside, meld/add/discard, draw/take, "May I go out?"
and its Yes/No — while every call to the group is checked for hand cards.
"""

from __future__ import annotations

import re
from typing import Any

import engine
from bot.games.canasta import card_label
from storage import Store
from tests.privacy import recap_moves
from tests.rack_players import TelegramRackPlayer, play_canasta
from tests.tg_harness import (
    GROUP_ID,
    PICTURE_CALLS,
    Bot,
    Call,
    FakeTelegram,
    group_table_calls,
    lobby_press,
    open_lobby,
    replays,
    user,
)

GAME = engine.get("canasta")
ALICE = user(111, "Alice")
CHAMS = user(333, "Chams")
CARD = re.compile(r"^(?:[2-9TJQKA][SHDC]|X)$")
LABEL = re.compile(r"(?:10|[2-9JQKA])[♠♥♦♣]|🃏")
MAX_MOVES = 2000


def choose(view: dict[str, Any], legal: list[str], answers: list[str]) -> str:
    """The test's player: answer its partner no the first time, yes after; take the pile when it may, else draw;
    meld a taken top card the first forced way; ask to go out when it may; lay the biggest meld or addition the
    legal list has; else discard the first card it may."""
    if "answer yes" in legal:
        answers.append("answer no" if not answers else "answer yes")
        return answers[-1]
    if view["phase"] == "draw":
        return "take" if "take" in legal else "draw" if "draw" in legal else legal[0]
    if view["must_use"]:
        return legal[0]
    if "ask" in legal and view.get("ask") is None:
        return "ask"
    lays = [m for m in legal if m.startswith(("meld", "add"))]
    if lays:
        return max(lays, key=lambda m: (m.count("|"), len(m.split())))
    return next(m for m in legal if m.startswith("discard"))



class GroupWatch:
    """Checks each call to the group as it is made: a caption may name only cards the last moves showed (melds,
    additions, discards), never one held in a hand; group texts name no card at all."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.match_id: int | None = None
        self.captions = 0
        self.naming = 0  # captions that named public cards (so the check had something to check)
        self.problems: list[str] = []

    async def __call__(self, call: Call) -> None:
        if call.chat_id != str(GROUP_ID) or self.match_id is None:
            return
        shown = call.shown_text
        named = set(LABEL.findall(shown))
        if call.method in ("sendMessage", "editMessageText"):
            if named:
                self.problems.append(f"{call.method} names cards {named}: {shown!r}")
            return
        if call.method not in PICTURE_CALLS or shown.startswith("🏁"):
            return  # a score sheet names no card
        self.captions += 1
        self.naming += bool(named)
        match = await self.store.get_match(self.match_id)
        state = engine.get("canasta").from_json(match.snapshot)
        moves = recap_moves(await self.store.moves(self.match_id), match, state)
        public = {card_label(word) for move in moves for word in move.split() if CARD.match(word)}
        if named - public:
            self.problems.append(f"caption names {named - public} not shown by {moves}: {shown!r}")


async def test_classic4_partners_and_two_bots_play_by_buttons(store):
    server = FakeTelegram()
    watch = GroupWatch(store)
    server.on_call = watch
    async with Bot(server, store, seed=3) as bot:
        match_id = await open_lobby(bot, ALICE, "/new canasta variant=classic4 target=2500")
        await lobby_press(bot, ALICE, "b:", ":normal")  # seat 1
        await lobby_press(bot, CHAMS, "j:")  # seat 2: Alice's partner
        await lobby_press(bot, ALICE, "b:", ":random")  # seat 3
        await lobby_press(bot, ALICE, "s:")
        watch.match_id = match_id
        match = await store.get_match(match_id)
        assert match.status == "active" and match.options == {"variant": "classic4", "target": 2500}
        seats = await store.seats(match_id)
        assert [s.is_human for s in seats] == [True, False, True, False]
        humans = {0: TelegramRackPlayer(bot, ALICE), 2: TelegramRackPlayer(bot, CHAMS)}
        moves = hands_scored = 0
        answers: list[str] = []
        score_text = None
        for moves in range(MAX_MOVES):  # noqa: B007 (moves is reported below)
            match = await store.get_match(match_id)
            if match.status != "active":
                break
            state = GAME.from_json(match.snapshot)
            seat = GAME.to_move(state)
            assert seat in humans, "bots never wait for a human press"
            view, legal = GAME.view(state, seat), GAME.legal_moves(state, seat)
            move = choose(view, legal, answers)
            await play_canasta(humans[seat], move, view, match.version)
            records = await store.moves(match_id)
            assert (records[match.version].seat, records[match.version].move) == (seat, move)
            rounds = len(GAME.result(GAME.from_json((await store.get_match(match_id)).snapshot))["history"])
            if rounds > hands_scored and score_text is None and (await store.get_match(match_id)).status == "active":
                reply = await bot.command(ALICE, GROUP_ID, "/score")
                score_text = reply.params["text"] if reply else ""
            hands_scored = rounds
        match = await store.get_match(match_id)
        assert match.status == "finished", f"not over after {moves} human moves"
        final = GAME.from_json(match.snapshot)
        result = GAME.result(final)
        assert max(result["scores"]) >= 2500
        records = await store.moves(match_id)
        print(f"classic4 to 2500 over Telegram: {len(result['history'])} hands, {moves} human moves, "
              f"{len(records)} in all, {sum(h.presses for h in humans.values())} presses")

        # Partners: "May I go out?" came up (seed 3) and each ask was answered at once by the other human, with
        # the No button the first time and Yes after.
        asked = [i for i, r in enumerate(records) if r.move == "ask" and r.seat in humans]
        assert asked and [records[i + 1].move for i in asked] == answers
        assert all((records[i + 1].seat, records[i + 1].actor) == ((records[i].seat + 2) % 4, "human")
                   for i in asked)
        human_moves = [r.move for r in records if r.actor == "human"]
        for kind in ("meld", "add", "discard", "take", "draw"):
            assert any(m.startswith(kind) for m in human_moves), kind

        # Racks are pictures in the private chats; the group has one table picture, edited in place.
        for human in humans.values():
            racks = [c for c in server.calls_to(human.who["id"]) if c.method in PICTURE_CALLS]
            assert racks and all(server.picture(c) for c in racks if c.method != "editMessageCaption")
            keyed = [c for c in server.calls_to(human.who["id"]) if c.button_labels and c.status == 200]
            assert all(c.method in PICTURE_CALLS for c in keyed), "a rack went out as text"
        sent, edits = group_table_calls(server)
        assert len(sent) == 1 and edits and {int(c.params["message_id"]) for c in edits} == {sent[0].sent_id}
        group_methods = {c.method for c in server.calls_to(GROUP_ID)}
        assert group_methods <= {"sendMessage", "editMessageText", *PICTURE_CALLS}, group_methods
        assert watch.captions > moves / 2 and watch.naming > 10 and not watch.problems, watch.problems[:3]
        final_caption = server.latest(GROUP_ID, *PICTURE_CALLS[1:]).shown_text
        assert "🏆" in final_caption and [b["callback_data"] for row in (server.latest(
            GROUP_ID, "editMessageMedia").markup or {}).get("inline_keyboard", []) for b in row] == [f"y:{match_id}"]

        assert await replays(store, match_id)
        assert score_text and "2500" in score_text  # /score between hands: the history so far, to 2500
        after_end = await bot.command(CHAMS, GROUP_ID, "/score")  # answered; the final scores are on the table
        assert after_end is not None and after_end.params["text"]
        top = await bot.command(ALICE, GROUP_ID, "/top canasta")
        assert top is not None and "Alice" in top.params["text"] and "Chams" in top.params["text"]
