"""Konkan (cards) through the real python-telegram-bot Application: a coin table of two humans, its stake set with
the lobby's stake button, played to the end by pressing only the buttons of the recorded private-chat racks
(draw / take, card toggles, set aside, meld, lay off, swap, discard); `/coins` before and after, and `/top` listing
the lower total first."""

from __future__ import annotations

import re
from typing import Any

import pytest

import engine
from bot.games.konkan_cards import UI, card_label
from bot.i18n import t
from storage import Store
from tests.test_konkan_cards_chat import choose
from tests.tg_harness import GROUP_ID, Bot, FakeTelegram, flat_buttons, lobby_press, open_lobby, replays, user

GAME = engine.get("konkan_cards")
ALICE = user(111, "Alice")
CHAMS = user(333, "Chams")
MAX_MOVES = 3000
PINNED = re.compile(r"^📌 (?=\d)")


@pytest.fixture
async def store(tmp_path):
    store = await Store.open(str(tmp_path / "db.sqlite"))
    yield store
    await store.close()


class Human:
    """A Telegram user who only presses buttons of the newest rack picture in their private chat."""

    def __init__(self, bot: Bot, who: dict[str, Any]) -> None:
        self.bot, self.who = bot, who
        self.presses = 0

    def find(self, label: str, exact: bool = False) -> dict[str, Any]:
        found = self.bot.server.rack(self.who["id"])
        assert found is not None, f"{self.who['first_name']} has no rack picture"
        # a card button of the taken discard is pinned (📌 5. 9♠); match it by its number
        plain = [(b, PINNED.sub("", b["text"])) for b in flat_buttons(found[1])]
        buttons = [b for b, text in plain if (text == label if exact else text.startswith(label))]
        assert buttons, (label, [b["text"] for b in flat_buttons(found[1])])
        return buttons[0]

    async def press(self, label: str, version: int, exact: bool = False) -> str:
        message_id, _ = self.bot.server.rack(self.who["id"])
        data = self.find(label, exact)["callback_data"]
        assert data.split(":")[2] == str(version), "the rack shows an old version"
        self.presses += 1
        answer = await self.bot.press(self.who, self.who["id"], message_id, data)
        assert not answer.get("show_alert"), answer
        return answer.get("text") or ""

    async def toggle(self, hand: list[str], cards: list[str], version: int, used: set[int] | None = None) -> None:
        """Tick `cards`; `used`: positions already set aside this move (a hand may hold two 9♠)."""
        used = set() if used is None else used
        for card in cards:
            code = "X" if card.startswith("X") else card
            position = next(p for p, c in enumerate(hand) if c == code and p not in used)
            used.add(position)
            await self.press(f"{position + 1}. ", version)

    async def play(self, move: str, view: dict[str, Any], legal: list[str], version: int) -> None:
        words, hand = move.split(), view["hand"]
        if words[0] in ("draw", "take"):
            text = await self.press("🂠" if words[0] == "draw" else "Take ", version)
        elif view["must_use"] and len(legal) <= 6:
            text = await self.press(UI.button_label(move, "en"), version, exact=True)
        elif words[0] == "discard":
            await self.toggle(hand, [words[1]], version)
            text = await self.press(t("en", "rummy.discard", card=card_label(words[1])), version, exact=True)
        elif words[0] in ("add", "swap"):
            await self.toggle(hand, words[1:-2], version)
            label = t("en", "rummy.add", n=words[-1]) if words[0] == "add" else t("en", "konkan.swap", n=words[-1])
            text = await self.press(label, version, exact=True)
        else:
            groups = [part.split() for part in move[5:].split(" | ")]
            staged: set[int] = set()
            for group in groups[:-1]:
                await self.toggle(hand, group, version, staged)
                await self.press(t("en", "rummy.stage"), version)
            await self.toggle(hand, groups[-1], version, staged)
            prefix = t("en", "rummy.lay_all", n=len(groups)) if len(groups) > 1 else "Meld "
            text = await self.press(prefix, version)
        assert text.startswith("Played: "), (text, move)


async def coins(bot: Bot, who: dict[str, Any]) -> str:
    reply = await bot.command(who, who["id"], "/coins")
    assert reply is not None
    return reply.params["text"]


async def test_a_coin_table_of_two_played_by_buttons_pays_the_winner(store):
    server = FakeTelegram()
    async with Bot(server, store, seed=4) as bot:
        for who in (ALICE, CHAMS):
            assert await coins(bot, who) == t("en", "coins.balance", n=500, daily=50)
        match_id = await open_lobby(bot, ALICE, "/new konkan_cards")
        await lobby_press(bot, ALICE, "o:", ":stake")  # free -> 10
        await lobby_press(bot, ALICE, "o:", ":stake")  # 10 -> 50
        await lobby_press(bot, CHAMS, "j:")
        assert not any(b.get("callback_data", "").startswith("b:")
                       for b in flat_buttons(server.latest(GROUP_ID, "editMessageText").markup["inline_keyboard"]))
        await lobby_press(bot, ALICE, "s:")
        match = await store.get_match(match_id)
        assert match.status == "active" and match.stake == 50
        for who in (ALICE, CHAMS):
            assert await coins(bot, who) == t("en", "coins.balance", n=450, daily=50)  # the stake is in the pot
        seats = await store.seats(match_id)
        alice = await store.find_player("telegram", ALICE["id"])
        humans = {s.seat: Human(bot, ALICE if s.player_id == alice.id else CHAMS) for s in seats}
        moves = 0
        for moves in range(MAX_MOVES):  # noqa: B007 (reported below)
            match = await store.get_match(match_id)
            if match.status != "active":
                break
            state = GAME.from_json(match.snapshot)
            seat = GAME.to_move(state)
            view, legal = GAME.view(state, seat), GAME.legal_moves(state, seat)
            move = choose(view, legal)
            await humans[seat].play(move, view, legal, match.version)
            record = (await store.moves(match_id))[match.version]
            assert (record.seat, record.move, record.actor) == (seat, move, "human")
        match = await store.get_match(match_id)
        assert match.status == "finished", f"not over after {moves} moves"
        result = match.result
        assert len(result["history"]) >= 5
        winner = result["winners"][0]
        assert result["scores"][winner] == min(result["scores"]) or result["konkan_winner"] == winner
        print(f"Konkan coin table over Telegram: {len(result['history'])} rounds, {moves} moves, "
              f"{sum(h.presses for h in humans.values())} presses")
        for seat, human in humans.items():
            assert await coins(bot, human.who) == t("en", "coins.balance", n=550 if seat == winner else 450, daily=50)
        assert await replays(store, match_id)
        top = await bot.command(ALICE, GROUP_ID, "/top konkan_cards")
        lines = top.params["text"].splitlines()
        assert lines[1].startswith(f"1. {humans[winner].who['first_name']}")
