"""Every picture and word the service shows, for every game, holds only what its recipient's view allows
(service level, in-memory transport; the Telegram and Discord harnesses have their own tests of the same check).

Each table is played by humans only, so every rack is a human's: each turn one waiting player asks for their hand
(the rack of a seat not to move is drawn), the player to move presses a picking button when the rack has one (a
selection or capture choice is drawn into the picture), then plays the move a bot would choose, by command.
"""

from __future__ import annotations

import random

import pytest

from bot import callbacks
from bot.messages import Actor, ChatRef, OutMessage
from bot.service import Service
from engine.bots import decide
from storage import Store
from tests.fakes import FakeTransport
from tests.privacy import PictureCheck, Received

GROUP = ChatRef("fake", "-100", private=False)
ACTORS = [Actor("fake", str(n), name, language="en") for n, name in enumerate(("Ali", "Mona", "Sami", "Huda"), 1)]

TABLES = {
    "kenza": (2, ["kenza", "target=101"]),
    "rabaeen-teams": (4, ["kenza", "variant=rabaeen"]),
    "canasta-duo": (2, ["canasta", "variant=duo"]),
    "canasta-classic4": (4, ["canasta", "variant=classic4"]),
    "tunj": (2, ["tunj"]),
    "konkan-private": (2, ["konkan_tiles", "mode=private"]),
    "konkan-quick": (4, ["konkan_tiles", "mode=quick"]),
    "konkan-cards-51": (2, ["konkan_cards", "variant=konkan51"]),
    "konkan-cards-71": (4, ["konkan_cards", "variant=konkan71"]),
}
STEPS = 14  # at least; more until every seat's rack was drawn while it waited (a Tunj turn is a chain)
MAX_STEPS = 60


def watch_for(check: PictureCheck, transport: FakeTransport):
    async def watch(chat_id: str, message: OutMessage) -> None:
        match = await check.match()
        if match is None:
            return
        table = chat_id == GROUP.chat_id
        seat = None if table else await check.seat_of_user(match, chat_id)
        buttons = [button.label for row in message.keyboard for button in row]
        await check.see(Received(chat_id, seat, message.image, message.text + ("\n" + message.alt if table else ""),
                                 buttons, rack_text="" if table else message.alt))
    return watch


async def play(service: Service, store: Store, transport: FakeTransport, check: PictureCheck, players: int,
               words: list[str]) -> int:
    await service.command(ACTORS[0], GROUP, "new", words)
    opened = await store.lobby_or_active_match("fake", GROUP.chat_id)
    for actor in ACTORS[1:players]:
        await service.press(actor, GROUP, callbacks.encode("j", opened.id))
    reply = await service.press(ACTORS[0], GROUP, callbacks.encode("s", opened.id))
    assert not reply.alert, reply.text
    async for step, match, state, seat, waiting in check.turns(opened.id, players, STEPS, MAX_STEPS):
        reply = await service.press(ACTORS[waiting], GROUP, callbacks.encode("h", match.id))
        assert not reply.alert, reply.text
        mover = ACTORS[seat]
        picks = [b.data for b in transport.buttons(mover.user_id) if b.data.startswith("p:")]
        if picks:
            assert not (await service.press(mover, ChatRef("fake", mover.user_id, True), picks[step % len(picks)])
                        ).alert
        move = decide(match.game, state, seat, "normal", random.Random(step))
        reply = await service.command(mover, GROUP, "m", move.split())
        assert not reply.alert, (move, reply.text)
    return opened.id


@pytest.mark.parametrize("table", list(TABLES))
async def test_every_picture_holds_only_its_recipients_view(store, table):
    players, words = TABLES[table]
    service = Service(store, seed_source=random.Random(17))
    transport = FakeTransport()
    service.attach(transport, images=True)
    check = PictureCheck(store, service, "fake", GROUP.chat_id)
    transport.watch = watch_for(check, transport)
    await play(service, store, transport, check, players, words)
    check.assert_clean(players)
    if not table.startswith("tunj"):  # a Tunj hand is face down even to its owner: no hand to name
        assert check.hand_texts > 0 and check.hand_buttons > 0
