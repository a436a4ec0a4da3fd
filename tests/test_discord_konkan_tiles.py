"""Konkan tiles through the real discord.py client: a private 1v1 room against a bot, opened with /new, the mode
picker's Private button and the lobby (Sulaymaniyah rules chosen), then a whole match played by clicking only the
components of the ephemeral rack "My hand" opened. Private rooms are untimed and leave no statistics."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from bot.games.konkan_tiles import UI, tile_label
from bot.i18n import t
from storage import Store
from tests.dc_harness import (
    AMINA,
    CHANNEL_ID,
    EPHEMERAL,
    FakeDiscord,
    answers,
    assert_answered,
    click,
    controls,
    custom_ids,
    find_control,
    open_hand,
    replays,
    start_adapter,
)
from tests.test_konkan_tiles_chat import choose

GAME = engine.get("konkan_tiles")
MAX_MOVES = 3000


@pytest.fixture
async def store(tmp_path):
    store = await Store.open(str(tmp_path / "db.sqlite"))
    yield store
    await store.close()


class Player:
    """A Discord user who plays only by clicking the components of their one ephemeral rack."""

    def __init__(self, fake: FakeDiscord, adapter: Any, who: dict[str, Any], rack: dict[str, Any]) -> None:
        self.fake, self.adapter, self.who = fake, adapter, who
        self.rack_id = rack["id"]
        self.clicks = 0

    @property
    def rack(self) -> dict[str, Any]:
        return self.fake.messages[self.rack_id]

    async def press(self, label: str, version: int) -> str:
        control = find_control(self.rack, label)
        assert control is not None, f"no {label!r} in {[c.label for c in controls(self.rack)]}"
        assert control.code.split(":")[2] == str(version), "the rack shows an old version"
        payload = click(self.fake, self.who, self.rack, control)
        calls = await self.fake.feed(self.adapter.client, payload)
        assert_answered(self.fake, payload, calls)
        assert not [text for text in answers(calls) if text.startswith("⚠️")], answers(calls)
        self.clicks += 1
        assert int(self.rack["flags"]) & EPHEMERAL
        return self.rack["content"]

    async def toggle(self, hand: list[str], tiles: list[str], version: int) -> None:
        used: set[int] = set()
        for tile in tiles:
            position = next(p for p, c in enumerate(hand) if c == tile and p not in used)
            used.add(position)
            label = f"{position + 1}. {tile_label(tile)}"
            await self.press(label, version)
            assert find_control(self.rack, f"✓ {label}") is not None, f"{label} not ticked"

    async def play(self, move: str, view: dict[str, Any], version: int) -> None:
        words, hand = move.split(), view["hand"]
        bare = [cell.split(":")[0] for cell in words[1:]]
        if words[0] == "option":
            text = await self.press(t("en", f"kt.c.option_{words[1]}"), version)
        elif words[0] == "draw":
            text = await self.press("🀫", version)
        elif words[0] == "meld" and " | " in move:
            key = "kt.c.konkan" if view["konkan"][view["seat"]] else "kt.c.open"
            text = await self.press(t("en", key, melds=UI._melds_text(move)), version)
        elif words[0] == "meld":
            await self.toggle(hand, bare, version)
            text = await self.press("Meld ", version)
        elif words[0] == "discard":
            await self.toggle(hand, bare, version)
            text = await self.press(t("en", "rummy.discard", card=tile_label(words[1])), version)
        else:
            label = {"add": t("en", "rummy.add", n=words[-1]), "swap": t("en", "kt.c.steal", n=words[-1]),
                     "lock": t("en", f"kt.c.lock_{words[-1]}", n=words[-2])}[words[0]]
            await self.toggle(hand, bare[:-2] if words[0] != "lock" else [words[1]], version)
            text = await self.press(label, version)
        assert "Played: " in text, text


async def feed_press(fake: FakeDiscord, adapter: Any, who: dict[str, Any], message: dict[str, Any], code: str):
    payload = fake.press(who, message["id"], code)
    calls = await fake.feed(adapter.client, payload)
    assert_answered(fake, payload, calls)
    return calls


async def test_private_1v1_against_a_bot_with_sulaymaniyah_rules_by_clicks(store):
    fake = FakeDiscord()
    adapter = await start_adapter(store, fake, seed=4)
    await fake.feed(adapter.client, fake.command(AMINA, "lang", {"language": "en"}))
    payload = fake.command(AMINA, "new", {"game": "konkan_tiles"})
    assert_answered(fake, payload, await fake.feed(adapter.client, payload))
    assert await store.lobby_or_active_match("discord", str(CHANNEL_ID)) is None  # the picker first
    picker = fake.last_with_button("n:0:konkan_tiles.")
    assert custom_ids(picker, "n:0:konkan_tiles.") == [f"n:0:konkan_tiles.{m}" for m in (
        "quick", "ranked", "sulaymaniyah", "turbo", "tournament", "kirkuk", "private")]
    await feed_press(fake, adapter, AMINA, picker, "n:0:konkan_tiles.private")
    match = await store.lobby_or_active_match("discord", str(CHANNEL_ID))
    assert match is not None and match.mode == "private"
    lobby = fake.last_with_button("j:")
    await feed_press(fake, adapter, AMINA, lobby, f"o:{match.id}:rules")  # Standard -> Sulaymaniyah
    await feed_press(fake, adapter, AMINA, fake.last_with_button("b:"), f"b:{match.id}:normal")
    await feed_press(fake, adapter, AMINA, fake.last_with_button("s:"), f"s:{match.id}")
    match = await store.get_match(match.id)
    assert match.status == "active" and match.options == {"mode": "private", "rules": "sulaymaniyah"}
    assert match.deadline is None, "a private room has no timers"
    state = GAME.from_json(match.snapshot)
    human = next(s.seat for s in await store.seats(match.id) if s.is_human)
    assert state["players"] == 2
    player = Player(fake, adapter, AMINA, await open_hand(fake, adapter, AMINA))
    moves = 0
    for moves in range(MAX_MOVES):  # noqa: B007 (moves is reported below)
        match = await store.get_match(match.id)
        if match.status != "active":
            break
        state = GAME.from_json(match.snapshot)
        assert GAME.to_move(state) == human, "the bot never waits for a click"
        view, legal = GAME.view(state, human), GAME.legal_moves(state, human)
        move = choose(view, legal)
        await player.play(move, view, match.version)
        record = (await store.moves(match.id))[match.version]
        assert (record.seat, record.move.split()[0]) == (human, move.split()[0])
    match = await store.get_match(match.id)
    assert match.status == "finished", f"not over after {moves} moves"
    print(f"konkan private 1v1 over Discord: {moves} human moves, {player.clicks} clicks")
    assert await replays(store, match.id)
    human_player = next(s.player_id for s in await store.seats(match.id) if s.is_human)
    assert await store.player_stats(human_player) == {}, "a private room leaves no statistics"
