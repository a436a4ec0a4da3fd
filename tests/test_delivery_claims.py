"""Two workers delivering one match at once: one table, one rack per player, no ping left behind (issue 26, point 6).

Two Services (two workers, each with its own memory and its own Store) share one database and one Telegram. One
stores the start (then each move) and delivers it; the other finds the same match owed (`resume`, as a worker
starting meanwhile does) and delivers it at the same moment. Each new message goes out under its slot's claim in
the database, so the second worker edits the first one's table and racks instead of sending its own, and never
sends a second ping that nobody would delete.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

from bot import callbacks
from bot.i18n import game_name, t
from bot.messages import Actor, ChatRef, OutMessage
from bot.service import Service
from storage import Store
from tests.fakes import FakeTransport
from tests.tg_harness import GROUP_ID, Bot, Call, Clock, FakeTelegram, first_data, open_lobby, seat_to_move, user

ALICE = user(111, "Alice")
BADR = user(222, "Badr")
HUMANS = {0: ALICE, 1: BADR}
GROUP = str(GROUP_ID)
PING = t("en", "ping.turn", game=game_name("en", "kenza"))


def actor(who: dict[str, Any]) -> Actor:
    return Actor("telegram", str(who["id"]), who["first_name"], language="en")


async def slowly(call: Call) -> None:
    """Every send takes a moment, as a real upload does: both workers' passes are in flight together."""
    if call.method in ("sendPhoto", "sendMessage", "deleteMessage"):
        await asyncio.sleep(0.02)


async def both_deliver(first: Bot, second: Bot, clock: Clock) -> None:
    """The worker that stored the change delivers it while the other picks the same match up as owed; then both
    run their retries on the shared clock."""
    first.server.on_call = slowly
    await asyncio.gather(first.service.deliver(), second.service.resume())
    first.server.on_call = None
    for _ in range(4):
        clock.advance(5.0)
        await first.service.tick()
        await second.service.tick()


def live(server: FakeTelegram, chat: str | int) -> list[Any]:
    return [message for (chat_id, _), message in sorted(server.messages.items()) if chat_id == str(chat)]


async def check_one_of_each(server: FakeTelegram, store: Store, match_id: int) -> None:
    slots = {(m.kind, m.seat): m for m in await store.messages_for_match(match_id)}
    tables = [m for m in live(server, GROUP) if m.photo_digest is not None]
    assert len(tables) == 1, f"{len(tables)} live tables in the group"
    assert str(tables[0].message_id) == slots[("table", None)].message_id
    for seat, who in HUMANS.items():
        racks = [m for m in live(server, who["id"]) if m.photo_digest is not None]
        assert len(racks) == 1, f"{who['first_name']} has {len(racks)} live racks"
        pings = [m for m in live(server, who["id"]) if m.text == PING]
        assert len(pings) <= 1, f"{who['first_name']} has {len(pings)} live pings"
        remembered = slots.get(("ping", seat))
        assert [str(m.message_id) for m in pings] == ([remembered.message_id] if remembered else []), \
            "every live ping is the one the database remembers (the next turn deletes it)"


async def test_two_workers_delivering_one_match_send_one_table_one_rack_and_no_stray_ping(any_database) -> None:
    clock = Clock()
    server = FakeTelegram()
    stores = [await Store.open(any_database), await Store.open(any_database)]
    try:
        async with Bot(server, stores[0], clock=clock, seed=1) as a, Bot(server, stores[1], clock=clock, seed=2) as b:
            match_id = await open_lobby(a, ALICE, "/new kenza target=101")
            for who in (ALICE, BADR):  # both opened their private chat with the bot
                await a.command(who, who["id"], "/start")
            await a.service.press(actor(BADR), ChatRef("telegram", GROUP), callbacks.encode("j", match_id))
            reply = await a.service.press(actor(ALICE), ChatRef("telegram", GROUP), callbacks.encode("s", match_id),
                                          deliver=False)
            assert reply.text == t("en", "lobby.started")
            await both_deliver(a, b, clock)
            await check_one_of_each(server, stores[0], match_id)
            _, seat = await seat_to_move(stores[0], match_id)
            assert [m.text for m in live(server, HUMANS[seat]["id"])].count(PING) == 1, "the player to move is rung"
            for _ in range(4):  # each move stored on one worker, delivered by both at once
                match, seat = await seat_to_move(stores[0], match_id)
                who = HUMANS[seat]
                _, keyboard = server.rack(who["id"])
                data = first_data(keyboard, "m:", "p:")
                private = ChatRef("telegram", str(who["id"]), private=True)
                if data.startswith("p:"):
                    await a.service.press(actor(who), private, data)
                    _, keyboard = server.rack(who["id"])
                    data = first_data(keyboard, "m:")
                reply = await a.service.press(actor(who), private, data, deliver=False)
                assert not reply.alert, reply
                await both_deliver(a, b, clock)
                assert (await stores[0].get_match(match_id)).version > match.version
                await check_one_of_each(server, stores[0], match_id)
    finally:
        for store in stores:
            await store.close()


async def test_a_slot_claim_is_one_workers_until_saved_released_or_run_out(any_store: Store) -> None:
    player = await any_store.upsert_player("telegram", "111", "Alice")
    match = await any_store.create_match("kenza", "classic", {}, "telegram", GROUP, player.id, 1)
    claim = any_store.claim_slot
    first = await claim("telegram", "table", match.id, None, "a", now=100.0, lease=30.0)
    assert first.held and first.current is None
    assert not (await claim("telegram", "table", match.id, None, "b", now=110.0, lease=30.0)).held
    assert (await claim("telegram", "rack", match.id, 0, "b", now=110.0, lease=30.0)).held, "another slot is free"
    saved = await any_store.save_message("telegram", GROUP, "501", "table", match_id=match.id, claim="a")
    second = await claim("telegram", "table", match.id, None, "b", now=111.0, lease=30.0)
    assert second.held and second.current == saved, "saving released it, and the claimer finds the message"
    assert not (await claim("telegram", "table", match.id, None, "c", now=140.0, lease=30.0)).held
    await any_store.release_slot("telegram", "table", match.id, None, "c")  # not c's: b keeps it
    assert not (await claim("telegram", "table", match.id, None, "c", now=140.0, lease=30.0)).held
    assert (await claim("telegram", "table", match.id, None, "c", now=141.0, lease=30.0)).held, "b's lease ran out"
    await any_store.release_slot("telegram", "table", match.id, None, "c")
    assert (await claim("telegram", "table", match.id, None, "d", now=142.0, lease=30.0)).held


async def test_two_workers_without_pushed_racks_leave_one_turn_notice(any_database) -> None:
    """Discord's way (no racks pushed): the group's one turn notice is replaced by one worker at a time."""
    clock = Clock()
    transport = FakeTransport(push_private=False)  # one platform, both workers talk to it

    async def slow(chat_id: str, message: OutMessage) -> None:
        await asyncio.sleep(0.02)

    stores = [await Store.open(any_database), await Store.open(any_database)]
    services = [Service(store, clock=clock, seed_source=random.Random(seed)) for seed, store in enumerate(stores)]
    for service in services:
        service.attach(transport, images=False)
    group = ChatRef("fake", "-900")
    ali, badr = (Actor("fake", str(n), name, language="en") for n, name in ((11, "Ali"), (12, "Badr")))
    try:
        a, b = services
        await a.command(ali, group, "new", ["kenza"])
        await a.command(badr, group, "join")
        match = await stores[0].lobby_or_active_match("fake", "-900")
        await a.press(ali, group, callbacks.encode("s", match.id), deliver=False)
        transport.watch = slow
        await asyncio.gather(a.deliver(), b.resume())
        transport.watch = None
        for _ in range(4):
            clock.advance(5.0)
            await a.tick()
            await b.tick()
        notices = [(chat, mid) for (chat, mid), message in transport.current.items() if message.mention]
        stored = [(m.chat_id, m.message_id) for m in await stores[0].messages_for_match(match.id) if m.kind == "notice"]
        assert len(notices) == 1 and notices == stored, (notices, stored)
        tables = [key for key, message in transport.current.items() if key[0] == "-900" and message.keyboard
                  and not message.mention and "j:" not in str(message.keyboard)]
        assert len(tables) == 1, f"{len(tables)} live tables"
    finally:
        for store in stores:
            await store.close()


async def test_a_hand_asked_for_while_another_worker_sends_that_rack_is_answered_as_on_its_way(tmp_path) -> None:
    from tests.chat import fake_service

    async with fake_service(tmp_path / "db.sqlite", seed=3) as (service, transport, store, clock):
        ali, badr = (Actor("fake", str(n), name, language="en") for n, name in ((11, "Ali"), (12, "Badr")))
        group = ChatRef("fake", "-901")
        for who in (ali, badr):
            await service.command(who, ChatRef("fake", who.user_id, private=True), "start")
        await service.command(ali, group, "new", ["kenza"])
        await service.command(badr, group, "join")
        match = await store.lobby_or_active_match("fake", "-901")
        await service.press(ali, group, callbacks.encode("s", match.id))
        held = await store.claim_slot("fake", "rack", match.id, 0, "other-worker", clock(), 30.0)
        assert held.held
        reply = await service.command(ali, group, "hand")
        assert reply.text == t("en", "hand.sent") and not reply.alert, reply
