"""Konkan (cards) through the real discord.py client: a free table of a human and a `normal` bot from the /new slash
command, played to the end by clicking only the components of the ephemeral rack "My hand" opened (buttons, or
select options where the keyboard was folded); and a coin table opened with /new's `stake` parameter, which
refuses bots, with /coins answered privately."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

import engine
from bot.games.konkan_cards import UI, card_label
from bot.i18n import t
from bot.service import Service
from storage import Store
from tests.dc_harness import (
    AMINA,
    BADR,
    CHANNEL_ID,
    EPHEMERAL,
    FakeDiscord,
    answers,
    assert_answered,
    click,
    controls,
    custom_ids,
    open_against_bot,
    open_hand,
    replays,
    start_adapter,
)
from tests.test_konkan_cards_chat import choose

GAME = engine.get("konkan_cards")
MAX_MOVES = 3000
PINNED = re.compile(r"^📌 (?=\d)")


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
        self.clicks = self.selects = 0

    @property
    def rack(self) -> dict[str, Any]:
        return self.fake.messages[self.rack_id]

    async def press(self, label: str, version: int, exact: bool = False) -> str:
        found = [(c, PINNED.sub("", c.label)) for c in controls(self.rack)]
        control = next((c for c, text in found if text == label), None)
        if control is None and not exact:
            control = next((c for c, text in found if text.startswith(label)), None)
        assert control is not None, f"no {label!r} in {[c.label for c in controls(self.rack)]}"
        assert control.code.split(":")[2] == str(version), "the rack shows an old version"
        payload = click(self.fake, self.who, self.rack, control)
        calls = await self.fake.feed(self.adapter.client, payload)
        assert_answered(self.fake, payload, calls)
        assert not [text for text in answers(calls) if text.startswith("⚠️")], answers(calls)
        self.clicks += 1
        self.selects += control.value is not None
        return self.rack["content"]

    async def toggle(self, hand: list[str], cards: list[str], version: int, used: set[int] | None = None) -> None:
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


async def test_a_free_table_against_a_bot_played_by_ephemeral_components(store):
    fake = FakeDiscord()
    adapter = await start_adapter(store, fake, service=Service(store, seed_source=random.Random(6)))
    try:
        match_id, _ = await open_against_bot(fake, adapter, store, AMINA,
                                             {"game": "konkan_cards", "variant": "konkan71"}, "normal")
        match = await store.get_match(match_id)
        assert match.options == {"variant": "konkan71"} and match.stake == 0
        human = next(s.seat for s in await store.seats(match_id) if s.is_human)
        player = Player(fake, adapter, AMINA, await open_hand(fake, adapter, AMINA))
        moves = 0
        for moves in range(MAX_MOVES):  # noqa: B007 (reported below)
            match = await store.get_match(match_id)
            if match.status != "active":
                break
            state = GAME.from_json(match.snapshot)
            assert GAME.to_move(state) == human, "the bot plays its turns at once"
            view, legal = GAME.view(state, human), GAME.legal_moves(state, human)
            move = choose(view, legal)
            await player.play(move, view, legal, match.version)
            record = (await store.moves(match_id))[match.version]
            assert (record.seat, record.actor, record.move) == (human, "human", move)
        match = await store.get_match(match_id)
        assert match.status == "finished", f"not over after {moves} human moves"
        assert len(match.result["history"]) >= 5
        records = await store.moves(match_id)
        print(f"Konkan 71 over Discord: {len(match.result['history'])} rounds, {moves} human moves, "
              f"{len(records)} in all, {player.clicks} clicks ({player.selects} in select menus)")
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
        assert balance["flags"] & EPHEMERAL and balance["content"] == t("en", "coins.balance", n=500, daily=50)
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
