"""Konkan tiles through the real discord.py client: a private 1v1 room against a bot, opened with /new, the mode
picker's Private button and the lobby (Sulaymaniyah rules chosen), then a whole match played by clicking only the
components of the ephemeral rack "My hand" opened. Private rooms are untimed and leave no statistics."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from bot.i18n import t
from storage import Store
from tests.chat import TOGGLE
from tests.dc_harness import (
    AMINA,
    CHANNEL_ID,
    FakeDiscord,
    assert_answered,
    custom_ids,
    open_hand,
    replays,
    start_adapter,
)
from tests.rack_players import DiscordRackPlayer, play_konkan_tiles
from tests.test_konkan_tiles_chat import choose

GAME = engine.get("konkan_tiles")
MAX_MOVES = 3000


@pytest.fixture
async def store(tmp_path):
    store = await Store.open(str(tmp_path / "db.sqlite"))
    yield store
    await store.close()



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
    player = DiscordRackPlayer(fake, adapter, AMINA, await open_hand(fake, adapter, AMINA))
    moves = 0
    for moves in range(MAX_MOVES):  # noqa: B007 (moves is reported below)
        match = await store.get_match(match.id)
        if match.status != "active":
            break
        state = GAME.from_json(match.snapshot)
        assert GAME.to_move(state) == human, "the bot never waits for a click"
        view, legal = GAME.view(state, human), GAME.legal_moves(state, human)
        move = choose(view, legal)
        await play_konkan_tiles(player, move, view, match.version, full_labels=True)
        record = (await store.moves(match.id))[match.version]
        assert (record.seat, record.move.split()[0]) == (human, move.split()[0])
    match = await store.get_match(match.id)
    assert match.status == "finished", f"not over after {moves} moves"
    print(f"konkan private 1v1 over Discord: {moves} human moves, {player.presses} clicks")
    assert await replays(store, match.id)
    human_player = next(s.player_id for s in await store.seats(match.id) if s.is_human)
    assert await store.player_stats(human_player) == {}, "a private room leaves no statistics"


async def test_a_set_aside_meld_keeps_a_control_for_each_of_its_tiles(store, monkeypatch):
    """Issue 25, defect 11 (the tiles picker is the cards' picker): after "📌 Set aside" with three tiles every tile
    of the rack still has its own control in the ephemeral (Discord keeps one component per custom_id)."""
    dealt = GAME.new
    hands = ["K7 K8 K9 K10 K11 K12 K13 R10 B10 Y10 R1 B3 Y8 K2 R5".split(),
             "R2 R3 B7 B8 Y1 Y2 K3 K4 R8 R9 B12 B13 Y11 Y12".split()]
    dealt_layout = {"indicator": "Y5", "stock": ["B5", "B6", "R13", "K12", "R4", "R6"], "hands": hands}
    monkeypatch.setattr(GAME, "new", lambda players, options=None, *, seed=None, layout=None, **_:
                        dealt(players, options, seed=seed, layout=dealt_layout if players == 2 else layout))
    fake = FakeDiscord()
    adapter = await start_adapter(store, fake, seed=4)
    await fake.feed(adapter.client, fake.command(AMINA, "lang", {"language": "en"}))
    await feed_press(fake, adapter, AMINA, (await _picker(fake, adapter)), "n:0:konkan_tiles.private")
    match = await store.lobby_or_active_match("discord", str(CHANNEL_ID))
    await feed_press(fake, adapter, AMINA, fake.last_with_button("b:"), f"b:{match.id}:normal")
    await feed_press(fake, adapter, AMINA, fake.last_with_button("s:"), f"s:{match.id}")
    match = await store.get_match(match.id)
    state = GAME.from_json(match.snapshot)
    assert GAME.to_move(state) == 0 and state["hands"][0] == hands[0]
    player = DiscordRackPlayer(fake, adapter, AMINA, await open_hand(fake, adapter, AMINA))
    view = GAME.view(state, 0)
    await player.toggle(view["hand"], ["R10", "B10", "Y10"], match.version)
    await player.press(t("en", "rummy.stage"), match.version)
    labels = player.labels()
    numbers = [int(found.group(1)) for label in labels if (found := TOGGLE.match(label))]
    assert sorted(numbers) == list(range(1, len(view["hand"]) + 1)), labels
    assert len([label for label in labels if TOGGLE.match(label) and label.startswith("📌 ")]) == 3, labels


async def _picker(fake: FakeDiscord, adapter: Any) -> dict[str, Any]:
    payload = fake.command(AMINA, "new", {"game": "konkan_tiles"})
    assert_answered(fake, payload, await fake.feed(adapter.client, payload))
    return fake.last_with_button("n:0:konkan_tiles.")
