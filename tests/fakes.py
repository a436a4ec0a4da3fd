"""An in-memory Transport that records what the service shows, for service-level tests; and forced Kenza deals,
so a test meets the case it names (a plain move first, or a capture choice first) on every run."""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import update

import engine
from bot.messages import MessageGone, OutMessage, Unreachable
from storage import Store
from storage.models import Match, dumps
from storage.schema import matches

# Two-player Kenza deals with seat 0 to move. Seat 0's rack offers one plain move button and one capture choice
# (6🪙 takes 2+3+4 or 4+5); the two layouts differ in which of them comes first.
_TABLE = ["2C", "3C", "4C", "5C"]
MOVE_FIRST: dict[str, Any] = {"hands": [["1C", "6O", "12E"], ["7C", "2B", "11O"]], "table": _TABLE, "stock": [],
                              "dealer": 1}
PICK_FIRST: dict[str, Any] = {"hands": [["6O", "1C", "12E"], ["7C", "2B", "11O"]], "table": _TABLE, "stock": [],
                              "dealer": 1}
LAYOUTS = {"move first": MOVE_FIRST, "pick first": PICK_FIRST}
# The same two racks for seat 0, reached after seat 1 opens with its one plain move (12⚔️ takes 3🏆): for tests that
# need a version older than the keyboard they press.
_BADR = ["12B", "4B", "6B"]
_TABLE_7 = ["2C", "3C", "4C", "5C", "7O"]
AFTER_A_MOVE: dict[str, dict[str, Any]] = {
    "move first": {"hands": [["1C", "6O", "12E"], _BADR], "table": _TABLE_7, "stock": [], "dealer": 0},
    "pick first": {"hands": [["6O", "1C", "12E"], _BADR], "table": _TABLE_7, "stock": [], "dealer": 0},
}


async def force_layout(store: Store, match_id: int, layout: dict[str, Any]) -> Match:
    """Replace a just-started match's deal with `layout` (the engine's `layout=` argument) as if its seed had dealt
    it. Only at version 0, so no stored move is left behind that the new deal would contradict; the caller then
    lets the service show it (`service.resume()` brings every table and rack up to date)."""
    match = await store.get_match(match_id)
    assert match is not None and match.status == "active" and match.version == 0, "force a deal before any move"
    game = engine.get(match.game)
    state = game.new(len(await store.seats(match_id)), match.options, layout=layout)
    async with store.transaction() as db:
        # The screens no longer show this deal: clear the pending-delivery mark so `resume()` delivers it.
        await db.execute(update(matches).where(matches.c.id == match_id)
                         .values(snapshot=dumps(game.to_json(state)), delivered_version=None))
    return await store.get_match(match_id)


@dataclass
class Shown:
    chat_id: str
    message_id: str
    message: OutMessage


class FakeTransport:
    platform = "fake"

    def __init__(self, push_private: bool = True, unreachable: set[str] | None = None) -> None:
        self.push_private = push_private
        self.unreachable = set(unreachable or ())
        self.calls: list[tuple[str, str, str]] = []  # (method, chat_id, message_id)
        self.current: dict[tuple[str, str], OutMessage] = {}
        self.sent: list[Shown] = []
        self.gone: set[str] = set()
        self._ids = itertools.count(100)
        self.watch: Callable[[str, OutMessage], Awaitable[None]] | None = None  # told of each message shown


    async def send(self, chat_id: str, message: OutMessage) -> str:
        if chat_id in self.unreachable:
            raise Unreachable(chat_id)
        message_id = str(next(self._ids))
        self.calls.append(("send", chat_id, message_id))
        self.current[(chat_id, message_id)] = message
        self.sent.append(Shown(chat_id, message_id, message))
        if self.watch is not None:
            await self.watch(chat_id, message)
        return message_id

    async def edit(self, chat_id: str, message_id: str, message: OutMessage) -> None:
        if message_id in self.gone or (chat_id, message_id) not in self.current:
            raise MessageGone(message_id)
        self.calls.append(("edit", chat_id, message_id))
        self.current[(chat_id, message_id)] = message
        if self.watch is not None:
            await self.watch(chat_id, message)

    async def delete(self, chat_id: str, message_id: str) -> None:
        self.calls.append(("delete", chat_id, message_id))
        self.current.pop((chat_id, message_id), None)

    def deep_link(self, payload: str) -> str | None:
        return f"https://example.invalid/start?{payload}"

    def latest(self, chat_id: str) -> OutMessage:
        """The newest message shown in a chat (by id), as it reads now; turn pings (text under the rack that only
        makes the phone ring) are skipped."""
        ids = [int(mid) for (chat, mid), message in self.current.items() if chat == chat_id and not message.ping]
        return self.current[(chat_id, str(max(ids)))]

    def pings(self, chat_id: str) -> list[OutMessage]:
        return [shown.message for shown in self.sent if shown.chat_id == chat_id and shown.message.ping]

    def buttons(self, chat_id: str) -> list:
        return [b for row in self.latest(chat_id).keyboard for b in row if b.data]
