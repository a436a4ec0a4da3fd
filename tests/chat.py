"""What the chat tests share: a service on a fresh store with a hand-moved clock and the fake transport, and a
player who presses the rummy picker's buttons in a private chat (Canasta, Konkan)."""

from __future__ import annotations

import io
import random
import re
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from bot import callbacks
from bot.console import ConsoleTransport
from bot.i18n import t
from bot.messages import Actor, ChatRef
from bot.service import Service
from storage import Store
from tests.clock import Clock
from tests.fakes import FakeTransport

__all__ = ["Clock"]  # re-exported: the chat tests take the clock from here

TOGGLE = re.compile(r"^(?:✓ |📌 )?(\d+)\. ")  # a picker's card button: "3. 7♥", "✓ 3. 7♥", "📌 3. 7♥"


@asynccontextmanager
async def opened_store(path: str) -> AsyncIterator[Store]:
    """The store at `path`, closed on the way out (one "process" of a restart test)."""
    store = await Store.open(path)
    try:
        yield store
    finally:
        await store.close()


@asynccontextmanager
async def fake_service(path: Path | str, seed: int, *, images: bool = False, now: float = 1_000_000.0,
                       store_clock: bool = False, push_private: bool = True, **options: Any
                       ) -> AsyncIterator[tuple[Service, FakeTransport, Store, Clock]]:
    """A service on a new store at `path` (a file, or any database URL) with the fake transport and a seeded shuffle
    source. `images`: draw the pictures too; `store_clock`: the store keeps time by the same hand-moved clock (daily
    grants, stats dates);
    `push_private`: the platform may write to a player first (Telegram, the fake) or not (Discord's ephemerals);
    `options` go to the Service (e.g. coin_grants)."""
    clock = Clock(now)
    store = await Store.open(str(path), clock=clock) if store_clock else await Store.open(str(path))
    service = Service(store, clock=clock, seed_source=random.Random(seed), **options)
    transport = FakeTransport(push_private=push_private)
    service.attach(transport, images=images)
    try:
        yield service, transport, store, clock
    finally:
        await store.close()


async def console_service(seed: int, clock: Callable[[], float] = time.time
                          ) -> tuple[Store, Service, ConsoleTransport, io.StringIO]:
    """A service on an in-memory store printing to a string, as the terminal game runs it (close the store)."""
    store = await Store.open(":memory:")
    out = io.StringIO()
    service = Service(store, clock=clock, seed_source=random.Random(seed))
    transport = ConsoleTransport(out)
    service.attach(transport, images=False)
    return store, service, transport, out


def typed_lines(lines: list[str]) -> Callable[[str], str]:
    """A terminal reader that types `lines` one per prompt, then ends the input as Ctrl-D would."""
    feed = iter(lines)

    def read(prompt: str) -> str:
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    return read


def flat(keyboard: list[list[Any]]) -> list[Any]:
    return [button for row in keyboard for button in row]


def toggles(keyboard: list[list[Any]]) -> dict[int, Any]:
    """Rack position -> its toggle button."""
    out = {}
    for button in flat(keyboard):
        found = TOGGLE.match(button.label)
        if found and button.kind == "pick":
            out[int(found.group(1)) - 1] = button
    return out


class PickerPlayer:
    """Presses buttons in a private chat, checking every press is answered without an alert."""

    check_ticks = False  # after each card press, require its "✓" (the picker shows it as selected)

    def __init__(self, service: Service, transport: FakeTransport, actor: Any):
        self.service, self.transport, self.actor = service, transport, actor
        self.chat = ChatRef("fake", actor.user_id, private=True)
        self.presses = 0

    def keyboard(self) -> list[list[Any]]:
        return self.transport.latest(self.actor.user_id).keyboard

    async def press(self, button: Any) -> str:
        self.presses += 1
        reply = await self.service.press(self.actor, self.chat, button.data)
        assert not reply.alert, reply.text
        return reply.text

    def find(self, label: str, exact: bool = False) -> Any:
        """The first button whose label is `label` (exact) or starts with it."""
        found = [b for b in flat(self.keyboard()) if (b.label == label if exact else b.label.startswith(label))]
        assert found, (label, [b.label for row in self.keyboard() for b in row])
        return found[0]

    @staticmethod
    def code(card: str) -> str:
        """The hand code a move's card is pressed as."""
        return card

    async def toggle(self, view: dict[str, Any], cards: list[str]) -> None:
        """Select `cards` (distinct positions for repeated codes)."""
        used: set[int] = set()
        for card in cards:
            code = self.code(card)
            position = next(p for p, c in enumerate(view["hand"]) if c == code and p not in used)
            used.add(position)
            await self.press(self.find(f"{position + 1}. "))
            if self.check_ticks:
                assert self.find(f"✓ {position + 1}. ")

    async def lay(self, view: dict[str, Any], move: str) -> str:
        """`meld A B C | D E F`: each group but the last selected and staged, then the last selected and all laid
        by one press; the reply's text."""
        groups = [part.split() for part in move[5:].split(" | ")]
        for group in groups[:-1]:
            await self.toggle(view, group)
            await self.press(self.find(t("en", "rummy.stage")))
        await self.toggle(view, groups[-1])
        prefix = t("en", "rummy.lay_all", n=len(groups)) if len(groups) > 1 else "Meld "
        return await self.press(self.find(prefix))


async def kenza_against_a_bot(service: Service, actor: Actor, group: ChatRef) -> int:
    """`actor` opens Kenza in `group`, seats a normal bot and starts: the id of the match now in play."""
    await service.command(actor, group, "new", ["kenza"])
    match = await service.store.lobby_or_active_match(group.platform, group.chat_id)
    await service.press(actor, group, callbacks.encode("b", match.id, "normal"))
    await service.press(actor, group, callbacks.encode("s", match.id))
    return match.id
