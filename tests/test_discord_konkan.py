"""Konkan (cards) through the real discord.py client: a free table of a human and a `normal` bot from the /new slash
command, played to the end by clicking only the components of the ephemeral rack "My hand" opened (buttons, or
select options where the keyboard was folded); and a coin table opened with /new's `stake` parameter, which
refuses bots, with /coins answered privately."""

from __future__ import annotations

import random

import pytest

import engine
from bot.i18n import t
from bot.service import Service
from storage import Store
from tests.chat import TOGGLE
from tests.dc_harness import (
    AMINA,
    BADR,
    CHANNEL_ID,
    EPHEMERAL,
    FakeDiscord,
    answers,
    assert_answered,
    controls,
    custom_ids,
    open_against_bot,
    open_hand,
    replays,
    start_adapter,
)
from tests.rack_players import DiscordRackPlayer, play_konkan_cards
from tests.test_konkan_cards_chat import choose

GAME = engine.get("konkan_cards")
MAX_MOVES = 3000


@pytest.fixture
async def store(tmp_path):
    store = await Store.open(str(tmp_path / "db.sqlite"))
    yield store
    await store.close()



async def test_a_free_table_against_a_bot_played_by_ephemeral_components(store):
    fake = FakeDiscord()
    adapter = await start_adapter(store, fake, service=Service(store, seed_source=random.Random(6)))
    try:
        match_id, _ = await open_against_bot(fake, adapter, store, AMINA,
                                             {"game": "konkan_cards", "variant": "konkan71"}, "normal")
        match = await store.get_match(match_id)
        assert match.options == {"variant": "konkan71"} and match.stake == 0
        human = next(s.seat for s in await store.seats(match_id) if s.is_human)
        player = DiscordRackPlayer(fake, adapter, AMINA, await open_hand(fake, adapter, AMINA))
        moves = 0
        for moves in range(MAX_MOVES):  # noqa: B007 (reported below)
            match = await store.get_match(match_id)
            if match.status != "active":
                break
            state = GAME.from_json(match.snapshot)
            assert GAME.to_move(state) == human, "the bot plays its turns at once"
            view, legal = GAME.view(state, human), GAME.legal_moves(state, human)
            move = choose(view, legal)
            await play_konkan_cards(player, move, view, legal, match.version)
            record = (await store.moves(match_id))[match.version]
            assert (record.seat, record.actor, record.move) == (human, "human", move)
        match = await store.get_match(match_id)
        assert match.status == "finished", f"not over after {moves} human moves"
        assert len(match.result["history"]) >= 5
        records = await store.moves(match_id)
        print(f"Konkan 71 over Discord: {len(match.result['history'])} rounds, {moves} human moves, "
              f"{len(records)} in all, {player.presses} clicks ({player.selects} in select menus)")
        kinds = {r.move.split()[0] for r in records if r.actor == "human"}
        assert {"meld", "discard", "draw"} <= kinds, kinds
        assert not controls(player.rack), "a finished match leaves no controls in the rack"
        assert await replays(store, match_id)
    finally:
        await adapter.client.close()


async def test_a_coin_table_from_the_slash_command_refuses_bots_and_coins_is_private(store):
    fake = FakeDiscord()
    adapter = await start_adapter(store, fake, service=Service(store, seed_source=random.Random(6)))
    try:
        payload = fake.command(AMINA, "coins", {})
        assert_answered(fake, payload, await fake.feed(adapter.client, payload))
        balance = fake.original(payload["token"])
        first_day = t("en", "coins.balance_first_day", n=500, daily=50)
        assert balance["flags"] & EPHEMERAL and balance["content"] == first_day
        payload = fake.command(AMINA, "new", {"game": "konkan_cards", "stake": 50})
        assert_answered(fake, payload, await fake.feed(adapter.client, payload))
        match = await store.lobby_or_active_match("discord", str(CHANNEL_ID))
        assert match is not None and match.stake == 50
        lobby = fake.last_with_button("j:")
        assert not custom_ids(lobby, "b:"), "no bot buttons at a coin table"
        assert f"o:{match.id}:stake" in custom_ids(lobby, "o:")
        payload = fake.press(BADR, lobby["id"], f"b:{match.id}:normal", forge=True)  # a forged or stale bot button
        calls = await fake.feed(adapter.client, payload)
        assert_answered(fake, payload, calls)
        assert any(t("en", "coins.no_bots") in text for text in answers(calls)), answers(calls)
        assert len(await store.seats(match.id)) == 1
    finally:
        await adapter.client.close()


async def set_aside_first_group(player: DiscordRackPlayer, hand: list[str], move: str, version: int) -> list[str]:
    """Tick the cards of the first meld of `move` and press "📌 Set aside"; the rack's controls afterwards."""
    group = ["X" if card.startswith("X") else card.split(":")[0] for card in move[5:].split(" | ")[0].split()]
    await player.toggle(hand, group, version)
    await player.press(t("en", "rummy.stage"), version)
    return player.labels()


def assert_every_card_has_a_control(labels: list[str], hand: list[str], staged: int) -> None:
    """Each rack position has its own control (Discord keeps only the first component of a custom_id), and the
    set-aside cards are all there, pinned."""
    numbers = [int(found.group(1)) for label in labels if (found := TOGGLE.match(label))]
    assert sorted(numbers) == list(range(1, len(hand) + 1)), labels
    assert len([label for label in labels if TOGGLE.match(label) and label.startswith("📌 ")]) == staged, labels


async def test_a_set_aside_meld_keeps_a_control_for_each_of_its_cards(store, monkeypatch):
    """Issue 25, defect 11: after "📌 Set aside" with three cards, each of them (and every other card) still has
    a control in the ephemeral rack, and pressing one takes that card out of the set-aside meld."""
    dealt = GAME.new
    layout = {"hands": [["KS", "KH", "KD", "7C", "8C", "9C", "TC", "2H", "5D"], ["4C", "3C", "JD"]],
              "stock": ["6S", "QH", "4D"], "dealer": 0}
    monkeypatch.setattr(GAME, "new", lambda players, options=None, *, seed=None, layout_=None, **_:
                        dealt(players, options, seed=seed, layout=layout))
    fake = FakeDiscord()
    adapter = await start_adapter(store, fake, service=Service(store, seed_source=random.Random(6)))
    try:
        match_id, _ = await open_against_bot(fake, adapter, store, AMINA, {"game": "konkan_cards"}, "normal")
        player = DiscordRackPlayer(fake, adapter, AMINA, await open_hand(fake, adapter, AMINA))
        match = await store.get_match(match_id)
        await player.press("🂠", match.version)
        match = await store.get_match(match_id)
        state = GAME.from_json(match.snapshot)
        view, legal = GAME.view(state, 0), GAME.legal_moves(state, 0)
        opening = next(move for move in legal if move.startswith("meld ") and " | " in move)
        labels = await set_aside_first_group(player, view["hand"], opening, match.version)
        group = opening[5:].split(" | ")[0].split()
        assert_every_card_has_a_control(labels, view["hand"], len(group))
        pinned = next(label for label in labels if label.startswith("📌 "))
        await player.press(pinned.removeprefix("📌 "), match.version, exact=True)  # matched without its pin
        after = player.labels()
        assert not [label for label in after if TOGGLE.match(label) and label.startswith("📌 ")], after
        assert len([label for label in after if label.startswith("✓ ")]) == len(group) - 1, after
    finally:
        await adapter.client.close()
