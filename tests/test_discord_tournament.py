"""A solo Kenza tournament end to end on the real Discord adapter (emulated REST and interactions): /tournament new
by the operator, the card's Register button pressed in the channel (answered ephemerally), the draw, the check-in
buttons, the final played through ephemeral racks, the champion's bracket picture and /tournament's."""

from __future__ import annotations

import random

from bot.service import Service
from tests.clock import Clock
from tests.dc_harness import (
    AMINA,
    BADR,
    EPHEMERAL,
    FakeDiscord,
    answers,
    button_id,
    play_turn,
    start_adapter,
    whose_turn,
)


async def test_a_tournament_on_discord(store):
    fake = FakeDiscord()
    clock = Clock()
    service = Service(store, clock=clock, seed_source=random.Random(2),
                      operators=frozenset({("discord", str(AMINA["id"]))}))
    adapter = await start_adapter(store, fake, service)
    try:
        calls = await fake.feed(adapter.client, fake.command(BADR, "tournament", {"words": "new game=kenza"}))
        assert any("operators" in text for text in answers(calls))
        words = "new game=kenza target=101 close=10 start=15 grace=5 prize=Cup"
        await fake.feed(adapter.client, fake.command(AMINA, "tournament", {"words": words}))
        card = fake.last_with_button("u:")
        assert "Cup" in card["content"] and not card["flags"] & EPHEMERAL
        for who in (AMINA, BADR):
            calls = await fake.feed(adapter.client, fake.press(who, card["id"], button_id(card, "u:")))
            assert answers(calls) and not any("⚠️" in text for text in answers(calls))
        card = fake.messages[card["id"]]
        assert "Amina" in card["content"] and "Badr" in card["content"]
        clock.advance(16 * 60)
        await service.tick()
        call = fake.last_with_button("v:")
        for who in (AMINA, BADR):
            await fake.feed(adapter.client, fake.press(who, call["id"], button_id(call, "v:")))
        match_id = (await store.bracket(1))[0].match_id
        assert match_id is not None
        for _ in range(400):
            match, who = await whose_turn(store, match_id)
            if who is None:
                break
            await play_turn(fake, adapter, store, match_id, who)
        await service.tick()
        assert (await store.get_tournament(1)).status == "finished"
        pictures = [f["filename"] for c in fake.calls if c.via == "http" and c.method == "POST" for f in c.files]
        assert pictures.count("bracket.png") == 1  # the champion's announcement
        await fake.feed(adapter.client, fake.command(BADR, "tournament"))
        pictures = [f["filename"] for c in fake.calls if c.via == "http" and c.method == "POST" for f in c.files]
        assert pictures.count("bracket.png") == 2
    finally:
        await adapter.client.close()
