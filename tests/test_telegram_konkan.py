"""Konkan (cards) through the real python-telegram-bot Application: a coin table of two humans, its stake set with
the lobby's stake button, played to the end by pressing only the buttons of the recorded private-chat racks
(draw / take, card toggles, set aside, meld, lay off, swap, discard); `/coins` before and after, and `/top` listing
the lower total first."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from bot.i18n import t
from storage import Store
from tests.rack_players import TelegramRackPlayer, play_konkan_cards
from tests.test_konkan_cards_chat import choose
from tests.tg_harness import GROUP_ID, Bot, FakeTelegram, flat_buttons, lobby_press, open_lobby, replays, user

GAME = engine.get("konkan_cards")
ALICE = user(111, "Alice")
CHAMS = user(333, "Chams")
MAX_MOVES = 3000


@pytest.fixture
async def store(tmp_path):
    store = await Store.open(str(tmp_path / "db.sqlite"))
    yield store
    await store.close()



async def coins(bot: Bot, who: dict[str, Any]) -> str:
    reply = await bot.command(who, who["id"], "/coins")
    assert reply is not None
    return reply.params["text"]


async def test_a_coin_table_of_two_played_by_buttons_pays_the_winner(store):
    server = FakeTelegram()
    async with Bot(server, store, seed=4) as bot:
        for who in (ALICE, CHAMS):
            assert await coins(bot, who) == t("en", "coins.balance_first_day", n=500, daily=50)
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
            # the stake is in the pot
            assert await coins(bot, who) == t("en", "coins.balance_first_day", n=450, daily=50)
        seats = await store.seats(match_id)
        alice = await store.find_player("telegram", ALICE["id"])
        humans = {s.seat: TelegramRackPlayer(bot, ALICE if s.player_id == alice.id else CHAMS) for s in seats}
        moves = 0
        for moves in range(MAX_MOVES):  # noqa: B007 (reported below)
            match = await store.get_match(match_id)
            if match.status != "active":
                break
            state = GAME.from_json(match.snapshot)
            seat = GAME.to_move(state)
            view, legal = GAME.view(state, seat), GAME.legal_moves(state, seat)
            move = choose(view, legal)
            await play_konkan_cards(humans[seat], move, view, legal, match.version)
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
            left = 550 if seat == winner else 450
            assert await coins(bot, human.who) == t("en", "coins.balance_first_day", n=left, daily=50)
        assert await replays(store, match_id)
        top = await bot.command(ALICE, GROUP_ID, "/top konkan_cards")
        lines = top.params["text"].splitlines()
        assert lines[1].startswith(f"1. {humans[winner].who['first_name']}")
