"""Two workers (two Services, each with its own memory, on one database and one chat platform) take turns handling
a match's moves; the players see what one worker alone would have shown them.

What each worker keeps in memory for showing a match — the table's recap, its message slots (which message is
the rack, the table), what it delivered last — must not make the screens differ: after every move, the group's
table and each player's rack read exactly as in a run on a single worker with the same deal and the same moves,
and no chat holds an extra copy.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from contextlib import AsyncExitStack

import engine
from bot.messages import Actor, ChatRef
from bot.service import Service
from engine.bots import decide
from storage import Store
from tests.chat import fake_service
from tests.fakes import FakeTransport

GROUP = ChatRef("fake", "-700")
ALI = Actor("fake", "11", "Ali", language="en")
BADR = Actor("fake", "12", "Badr", language="en")
PLAYERS = {"Ali": ALI, "Badr": BADR}


def private(actor: Actor) -> ChatRef:
    return ChatRef("fake", actor.user_id, private=True)


def screens(transport: FakeTransport) -> dict[str, list[str]]:
    """Every chat's live messages (turn pings aside), oldest first, as their text."""
    out: dict[str, list[str]] = {}
    for (chat, _message_id), message in sorted(transport.current.items(), key=lambda item: int(item[0][1])):
        if not message.ping:
            out.setdefault(chat, []).append(message.text)
    return out


async def open_table(service: Service) -> int:
    """A Kenza table of two humans, started: its match id."""
    from bot import callbacks

    for actor in (ALI, BADR):
        await service.command(actor, private(actor), "start")
    await service.command(ALI, GROUP, "new", ["kenza"])
    await service.command(BADR, GROUP, "join")
    match = await service.store.lobby_or_active_match(GROUP.platform, GROUP.chat_id)
    assert match is not None and match.status == "lobby"
    await service.press(ALI, GROUP, callbacks.encode("s", match.id))
    return match.id


class Moves:
    """The moves of one match, each chosen by the normal bot from the stored state: the same sequence in every
    run with the same deal."""

    def __init__(self, store: Store, match_id: int) -> None:
        self.store, self.match_id = store, match_id
        self.rules = engine.get("kenza")
        self.chooser = random.Random(3)

    async def next(self) -> tuple[Actor, list[str]]:
        match = await self.store.get_match(self.match_id)
        assert match is not None and match.status == "active"
        state = self.rules.from_json(match.snapshot)
        seat = self.rules.to_move(state)
        seats = await self.store.seats(self.match_id)
        move = decide("kenza", state, seat, "normal", self.chooser, slips=False)
        return PLAYERS[seats[seat].display_name], move.split()


async def play(services: list[Service], pick: Callable[[int], Service], moves: int,
               hand_at: int | None = None) -> list[dict[str, list[str]]]:
    """Open the table on the first service, then play `moves` moves (typed with /m) through the service
    `pick(number)`; the screens after each move. Before move `hand_at`, Ali asks for his rack again (/hand: a new
    rack message, the old one deleted) through the service of the move before."""
    first = services[0]
    chosen = Moves(first.store, await open_table(first))
    seen = []
    for number in range(moves):
        if number == hand_at:
            assert not (await pick(number - 1).command(ALI, private(ALI), "hand")).alert
        actor, move = await chosen.next()
        reply = await pick(number).command(actor, private(actor), "m", move)
        assert not reply.alert, reply.text
        seen.append(screens(first_transport(services)))
    return seen


def first_transport(services: list[Service]) -> FakeTransport:
    transport = services[0].transports["fake"]
    assert isinstance(transport, FakeTransport)
    return transport


async def test_moves_handled_by_two_workers_in_turn_show_what_one_worker_shows(any_database, tmp_path):
    moves, hand_at = 24, 9
    async with fake_service(tmp_path / "one.db", 4) as (alone, _, _, _):
        expected = await play([alone], lambda number: alone, moves, hand_at)
    async with AsyncExitStack() as stack:
        first, transport, store, clock = await stack.enter_async_context(fake_service(any_database, 4))
        second = Service(store, clock=clock, seed_source=random.Random(99))
        second.attach(transport, images=False)
        assert first.shared_store == (store.dialect == "postgresql")
        # A worker on a database others share reads its match's message slots for each delivery; on SQLite it
        # does when told to (one SQLite file is one worker's in production, two are simulated here).
        first.shared_store = second.shared_store = True
        got = await play([first, second], lambda number: (first, second)[number % 2], moves, hand_at)
        await second.close()
    assert len(got) == len(expected) == moves
    for number, (mine, theirs) in enumerate(zip(got, expected, strict=True)):
        assert mine == theirs, f"after move {number + 1} the screens differ"


async def test_a_delivery_overtaken_by_another_workers_move_shows_the_newest_state(any_database, tmp_path):
    """Worker A stores a move and starts showing it; meanwhile worker B stores the next move and shows it in full.
    A's older screens land last — so A, finding the match moved on when it marks its delivery, shows it again."""
    before = 6
    async with fake_service(tmp_path / "one.db", 4) as (alone, _, _, _):
        expected = await play([alone], lambda number: alone, before + 2)
    async with AsyncExitStack() as stack:
        first, transport, store, clock = await stack.enter_async_context(fake_service(any_database, 4))
        second = Service(store, clock=clock, seed_source=random.Random(99))
        second.attach(transport, images=False)
        first.shared_store = second.shared_store = True
        chosen = Moves(store, await open_table(first))
        for _ in range(before):
            actor, move = await chosen.next()
            assert not (await first.command(actor, private(actor), "m", move)).alert
        actor, move = await chosen.next()
        assert not (await first.command(actor, private(actor), "m", move, deliver=False)).alert
        overtaken = []

        async def meanwhile(chat_id: str, message: object) -> None:
            """At A's first screen of its move, B stores and shows the next one."""
            if not overtaken:
                overtaken.append(chat_id)
                nxt, nxt_move = await chosen.next()
                assert not (await second.command(nxt, private(nxt), "m", nxt_move)).alert

        transport.watch = meanwhile
        await first.deliver()
        transport.watch = None
        assert overtaken, "B's move came in the middle of A's delivery"
        assert screens(transport) == expected[before + 1]
        match = await store.get_match(chosen.match_id)
        assert match.delivered_version == match.version == before + 2
        await second.close()
