"""An in-memory Transport that records what the service shows, for service-level tests."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from bot.messages import MessageGone, OutMessage, Unreachable


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

    async def send(self, chat_id: str, message: OutMessage) -> str:
        if chat_id in self.unreachable:
            raise Unreachable(chat_id)
        message_id = str(next(self._ids))
        self.calls.append(("send", chat_id, message_id))
        self.current[(chat_id, message_id)] = message
        self.sent.append(Shown(chat_id, message_id, message))
        return message_id

    async def edit(self, chat_id: str, message_id: str, message: OutMessage) -> None:
        if message_id in self.gone or (chat_id, message_id) not in self.current:
            raise MessageGone(message_id)
        self.calls.append(("edit", chat_id, message_id))
        self.current[(chat_id, message_id)] = message

    async def delete(self, chat_id: str, message_id: str) -> None:
        self.calls.append(("delete", chat_id, message_id))
        self.current.pop((chat_id, message_id), None)

    def deep_link(self, payload: str) -> str | None:
        return f"https://example.invalid/start?{payload}"

    def latest(self, chat_id: str) -> OutMessage:
        """The newest message shown in a chat (by id), as it reads now."""
        ids = [int(mid) for (chat, mid) in self.current if chat == chat_id]
        return self.current[(chat_id, str(max(ids)))]

    def buttons(self, chat_id: str) -> list:
        return [b for row in self.latest(chat_id).keyboard for b in row if b.data]
