"""Konkan tiles through the real python-telegram-bot Application: /new, the game picker, the mode picker (Quick),
the lobby (partner and two bots), then a whole 2v2 match played by pressing only the buttons of the recorded
private-chat rack pictures — tile toggles, listed openings, meld / add / steal / lock / discard, draw."""

from __future__ import annotations

import pytest

import engine
from bot.i18n import t
from storage import Store
from tests.rack_players import TelegramRackPlayer, play_konkan_tiles
from tests.test_konkan_tiles_chat import choose
from tests.tg_harness import (
    GROUP_ID,
    PICTURE_CALLS,
    Bot,
    FakeTelegram,
    group_keyboard,
    group_table_calls,
    lobby_press,
    replays,
    user,
)

GAME = engine.get("konkan_tiles")
ALICE = user(111, "Alice")
CHAMS = user(333, "Chams")
MAX_MOVES = 3000


@pytest.fixture
async def store(tmp_path):
    store = await Store.open(str(tmp_path / "db.sqlite"))
    yield store
    await store.close()



async def test_quick_2v2_partners_and_two_bots_play_by_buttons(store):
    server = FakeTelegram()
    async with Bot(server, store, seed=7) as bot:
        await bot.command(ALICE, GROUP_ID, "/new")
        picker_id, picker = group_keyboard(server, "n:")
        assert not (await bot.press_button(ALICE, GROUP_ID, picker_id, picker, "n:0:konkan_tiles")).get("show_alert")
        modes_id, modes = group_keyboard(server, "n:0:konkan_tiles.")
        codes = [b["callback_data"] for row in modes for b in row]
        assert codes == [f"n:0:konkan_tiles.{m}" for m in
                         ("quick", "ranked", "sulaymaniyah", "turbo", "tournament", "kirkuk", "private")]
        refused = await bot.press_button(ALICE, GROUP_ID, modes_id, modes, "n:0:konkan_tiles.kirkuk")
        assert refused.get("show_alert") and refused["text"] == t("en", "kt.kirkuk_soon")
        assert not (await bot.press_button(ALICE, GROUP_ID, modes_id, modes, "n:0:konkan_tiles.quick")).get(
            "show_alert")
        match = await store.lobby_or_active_match("telegram", str(GROUP_ID))
        assert match.mode == "quick"
        await lobby_press(bot, ALICE, "b:", ":normal")  # seat 1
        await lobby_press(bot, CHAMS, "j:")  # seat 2: Alice's partner
        await lobby_press(bot, ALICE, "b:", ":random")  # seat 3
        await lobby_press(bot, ALICE, "s:")
        match = await store.get_match(match.id)
        assert match.status == "active"
        humans = {0: TelegramRackPlayer(bot, ALICE), 2: TelegramRackPlayer(bot, CHAMS)}
        verbs: dict[str, int] = {}
        moves = 0
        for moves in range(MAX_MOVES):  # noqa: B007 (moves is reported below)
            match = await store.get_match(match.id)
            if match.status != "active":
                break
            state = GAME.from_json(match.snapshot)
            seat = GAME.to_move(state)
            assert seat in humans, "bots never wait for a human press"
            view, legal = GAME.view(state, seat), GAME.legal_moves(state, seat)
            move = choose(view, legal)
            await play_konkan_tiles(humans[seat], move, view, match.version)
            record = (await store.moves(match.id))[match.version]
            assert (record.seat, record.move.split()[0]) == (seat, move.split()[0])
            verbs[move.split()[0]] = verbs.get(move.split()[0], 0) + 1
        match = await store.get_match(match.id)
        assert match.status == "finished", f"not over after {moves} human moves"
        records = await store.moves(match.id)
        print(f"konkan quick over Telegram: {moves} human moves, {len(records)} in all, "
              f"{sum(h.presses for h in humans.values())} presses, {verbs}")
        assert verbs.get("meld") and verbs.get("discard") and verbs.get("draw")
        for human in humans.values():  # racks are pictures with their buttons in the private chats
            racks = [c for c in server.calls_to(human.who["id"]) if c.method in PICTURE_CALLS]
            assert racks and all(server.picture(c) for c in racks if c.method != "editMessageCaption")
        sent, edits = group_table_calls(server)
        assert len(sent) == 1 and edits
        assert await replays(store, match.id)
        top = await bot.command(ALICE, GROUP_ID, "/top konkan_tiles")
        assert top is not None and "Alice" in top.params["text"]
