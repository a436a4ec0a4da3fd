"""Konkan tiles through the real python-telegram-bot Application: /new, the game picker, the mode picker (Quick),
the lobby (partner and two bots), then a whole 2v2 match played by pressing only the buttons of the recorded
private-chat rack pictures — tile toggles, listed openings, meld / add / steal / lock / discard, draw."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from bot.games.konkan_tiles import UI, tile_label
from bot.i18n import t
from storage import Store
from tests.test_konkan_tiles_chat import choose
from tests.tg_harness import GROUP_ID, Bot, FakeTelegram, group_keyboard, group_table_calls, lobby_press, replays, user

GAME = engine.get("konkan_tiles")
ALICE = user(111, "Alice")
CHAMS = user(333, "Chams")
MAX_MOVES = 3000


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
        _, keyboard = found
        buttons = [b for row in keyboard for b in row if (b["text"] == label if exact else b["text"].startswith(label))]
        assert buttons, (label, [b["text"] for row in keyboard for b in row])
        return buttons[0]

    async def press(self, label: str, version: int, exact: bool = False) -> str:
        message_id, _ = self.bot.server.rack(self.who["id"])
        data = self.find(label, exact)["callback_data"]
        assert data.split(":")[2] == str(version), "the rack shows an old version"
        self.presses += 1
        answer = await self.bot.press(self.who, self.who["id"], message_id, data)
        assert not answer.get("show_alert"), answer
        return answer.get("text") or ""

    async def toggle(self, hand: list[str], tiles: list[str], version: int) -> None:
        used: set[int] = set()
        for tile in tiles:
            position = next(p for p, c in enumerate(hand) if c == tile and p not in used)
            used.add(position)
            await self.press(f"{position + 1}. ", version)
            assert self.find(f"✓ {position + 1}. ")

    async def play(self, move: str, view: dict[str, Any], version: int) -> None:
        words, hand = move.split(), view["hand"]
        bare = [cell.split(":")[0] for cell in words[1:]]
        if words[0] == "option":
            text = await self.press(t("en", f"kt.c.option_{words[1]}"), version, exact=True)
        elif words[0] == "draw":
            text = await self.press("🀫", version)
        elif words[0] == "meld" and " | " in move:
            key = "kt.c.konkan" if view["konkan"][view["seat"]] else "kt.c.open"
            text = await self.press(t("en", key, melds=UI._melds_text(move)), version, exact=True)
        elif words[0] == "meld":
            await self.toggle(hand, bare, version)
            text = await self.press("Meld ", version)
        elif words[0] == "discard":
            await self.toggle(hand, bare, version)
            text = await self.press(t("en", "rummy.discard", card=tile_label(words[1])), version, exact=True)
        else:
            verb_label = {"add": t("en", "rummy.add", n=words[-1]), "swap": t("en", "kt.c.steal", n=words[-1]),
                          "lock": t("en", f"kt.c.lock_{words[-1]}", n=words[-2])}[words[0]]
            await self.toggle(hand, bare[:-2] if words[0] != "lock" else [words[1]], version)
            text = await self.press(verb_label, version, exact=True)
        assert text.startswith("Played: "), text


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
        humans = {0: Human(bot, ALICE), 2: Human(bot, CHAMS)}
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
            await humans[seat].play(move, view, match.version)
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
            racks = [c for c in server.calls_to(human.who["id"]) if c.method in ("sendPhoto", "editMessageMedia")]
            assert racks and all(c.files for c in racks)
        sent, edits = group_table_calls(server)
        assert len(sent) == 1 and edits
        assert await replays(store, match.id)
        top = await bot.command(ALICE, GROUP_ID, "/top konkan_tiles")
        assert top is not None and "Alice" in top.params["text"]
