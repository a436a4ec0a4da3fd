"""Privacy of every picture through the real discord.py client (tests/dc_harness.py), for every game.

Every message Discord stores (channel posts, ephemerals, their edits) is checked as the fake receives it: an
ephemeral's hand.png must be the render of its user's own seat view and differ from a render of another seat's;
the channel's table.png the render of the public view; text, embed descriptions, attachment descriptions and
component labels name no card hidden from the recipient, and an ephemeral rack lists that seat's own cards.
Racks are on demand on Discord, so each turn a waiting player opens their hand as well as the player to move.
"""

from __future__ import annotations

import random

import pytest

from bot.service import Service
from engine.bots import decide
from tests.dc_harness import (
    CHANNEL_ID,
    Call,
    FakeDiscord,
    assert_answered,
    button_id,
    controls,
    open_hand,
    start_adapter,
    user,
)
from tests.privacy import PictureCheck, Received

PLAYERS = [user(1, "Amina"), user(2, "Badr"), user(3, "Chams"), user(4, "Dina")]
TABLES = {
    "kenza": (2, {"game": "kenza", "target": "101"}),
    "rabaeen-teams": (4, {"game": "kenza", "variant": "rabaeen"}),
    "canasta-duo": (2, {"game": "canasta", "variant": "duo"}),
    "canasta-classic4": (4, {"game": "canasta", "variant": "classic4"}),
    "tunj": (2, {"game": "tunj"}),
    "konkan-private": (2, {"game": "konkan_tiles", "mode": "private"}),
    "konkan-quick": (4, {"game": "konkan_tiles", "mode": "quick"}),
    "konkan-cards-51": (2, {"game": "konkan_cards", "variant": "konkan51"}),
    "konkan-cards-71": (4, {"game": "konkan_cards", "variant": "konkan71"}),
}
STEPS = 10  # at least; more until every seat's rack was drawn while it waited (a Tunj turn is a chain)
MAX_STEPS = 60


def watch_for(check: PictureCheck, fake: FakeDiscord):
    async def watch(call: Call) -> None:
        match = await check.match()
        if match is None or call.message is None:
            return
        seat = None
        if call.ephemeral:
            seat = await check.seat_of_user(match, fake.users.get(call.token or "", ""))
            if seat is None:
                return  # an answer to someone not seated
        image = next((f["data"] for f in call.files if f["filename"] in ("hand.png", "table.png")), None)
        alt = next((f.get("description") or "" for f in call.files if f["filename"] == "hand.png"), "")
        labels = [control.label for control in controls(call.message)]
        await check.see(Received(str(call.message["channel_id"]), seat, image, call.text, labels, rack_text=alt))
    return watch


async def feed(fake: FakeDiscord, adapter, payload) -> None:
    assert_answered(fake, payload, await fake.feed(adapter.client, payload))


@pytest.mark.parametrize("table", list(TABLES))
async def test_every_discord_picture_holds_only_its_recipients_view(store, table):
    players, options = TABLES[table]
    fake = FakeDiscord()
    service = Service(store, seed_source=random.Random(17))
    adapter = await start_adapter(store, fake, service=service)
    check = PictureCheck(store, service, "discord", str(CHANNEL_ID))
    fake.watch = watch_for(check, fake)
    try:
        await feed(fake, adapter, fake.command(PLAYERS[0], "new", options))
        for who in PLAYERS[1:players]:
            lobby = fake.last_with_button("j:")
            await feed(fake, adapter, fake.press(who, lobby["id"], button_id(lobby, "j:")))
        lobby = fake.last_with_button("s:")
        await feed(fake, adapter, fake.press(PLAYERS[0], lobby["id"], button_id(lobby, "s:")))
        opened = await store.lobby_or_active_match("discord", str(CHANNEL_ID))
        assert opened is not None and opened.status == "active"
        async for step, match, state, seat, waiting in check.turns(opened.id, players, STEPS, MAX_STEPS):
            await open_hand(fake, adapter, PLAYERS[waiting])
            mover = PLAYERS[seat]
            rack = await open_hand(fake, adapter, mover)
            picks = [c for c in controls(rack) if c.code.startswith("p:")]
            if picks:
                pick = picks[step % len(picks)]
                await feed(fake, adapter, fake.press(mover, rack["id"], pick.custom_id, value=pick.value))
            move = decide(match.game, state, seat, "normal", random.Random(step))
            await feed(fake, adapter, fake.command(mover, "m", {"move": move}))
            assert (await store.get_match(match.id)).version > match.version, move
    finally:
        await adapter.client.close()
    check.assert_clean(players)
    if table != "tunj":
        assert check.hand_texts > 0 and check.hand_buttons > 0
