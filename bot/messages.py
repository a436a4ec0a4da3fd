"""Platform-neutral messages: what the service says, before an adapter turns it into Telegram or Discord calls.

Keyboards are plain data (rows of buttons carrying short action codes), so the same lobby or rack works on every
platform and in tests without any platform object.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Protocol


@dataclass(frozen=True)
class Button:
    label: str
    data: str | None = None  # action code sent back on press (Telegram callback_data, Discord custom_id)
    url: str | None = None  # a link button instead (deep links)


Keyboard = list[list[Button]]


@dataclass(frozen=True)
class OutMessage:
    """One message as shown: text (caption when there is an image), an optional picture, optional buttons.

    `alt` is the picture told in text; the console shows it, and it doubles as an accessible description.
    """

    text: str
    image: bytes | None = None
    keyboard: Keyboard = field(default_factory=list)
    alt: str = ""
    mention: str | None = None  # user id to mention/notify (Discord turn notice)
    ping: bool = False  # only a notification that the turn came (the rack above it is edited silently)
    picture_name: str = ""  # what the picture is, for platforms that show a file name ("score"); default the table
    animated: bool = False  # `image` is an animated GIF (a replay), sent as an animation, never edited into place
    # The content digest of `image` (renderers/picture.py `Picture.key`), "" if unknown: equal keys are the same
    # picture, so a platform may show an earlier upload of it again instead of uploading the bytes once more.
    picture_key: str = ""


ERROR = "error"
INFO = "info"


class Priority(IntEnum):
    """Which sends go first when a platform's budget is short (lower first). Past the budget the screens fall
    behind in the reverse order: the rack of the player to move is what a match waits for, the mover's own rack
    only confirms what they already know, the group table is mostly for onlookers, and a ping matters least (a
    player pressing every few seconds is looking at the chat)."""

    NEXT_RACK = 0  # the rack of the player to move (with its move buttons)
    REPLY = 1  # the answer to a user's own command, a rack they asked for, the mover's rack
    TABLE = 2  # the group's table, score sheets, lobby messages, turn notices
    PING = 3  # "your turn" pings and the removal of old ones


# The priority of the sends made in this context (asyncio tasks copy it): set by the delivery around each screen,
# read by a platform's rate limiter (bot/telegram_adapter/local_limiter.py). Anything not marked is a REPLY.
SEND_PRIORITY: ContextVar[Priority] = ContextVar("send_priority", default=Priority.REPLY)


@contextmanager
def sending(priority: Priority) -> Iterator[None]:
    """The sends made inside this block are of `priority`."""
    token = SEND_PRIORITY.set(priority)
    try:
        yield
    finally:
        SEND_PRIORITY.reset(token)


@dataclass(frozen=True)
class Reply:
    """The answer to one user's action, shown to that user only (alert, toast or ephemeral message).

    `kind` says what the text is, `alert` only how loudly it is shown: a score table is information shown in a
    box the user dismisses (alert=True, kind INFO); only kind ERROR is ever styled as an error ("⚠️" on Discord).
    Without a kind, an alert is an error (the refusals) and anything else information.
    `private`: the text depends on hidden information (a typed move's refusal): never show it in a group.
    `in_place`: see the field.
    """

    text: str
    alert: bool = False
    message: OutMessage | None = None  # a private message body (Discord ephemeral hand; console)
    kind: str = ""
    private: bool = False
    # `message` is this answer itself (a leaderboard, a profile picture), not a private message: shown where the
    # command was given, and for a press in place of the message whose button was pressed.
    in_place: bool = False

    @property
    def is_error(self) -> bool:
        return self.kind == ERROR or (not self.kind and self.alert)


@dataclass(frozen=True)
class Actor:
    platform: str
    user_id: str
    name: str
    language: str | None = None  # the client's language hint, used until the user picks one
    is_admin: bool = False  # a chat administrator (may cancel any table)
    username: str | None = None  # the platform handle (Telegram @username), for `/stats @name`


@dataclass(frozen=True)
class ChatRef:
    platform: str
    chat_id: str
    private: bool = False


class Unreachable(Exception):
    """The platform refused to deliver to a chat: a user's private chat they never opened with the bot, or a group
    where the bot may not post (no permission, removed)."""


class Busy(Exception):
    """The platform asked us to slow down (HTTP 429 after its client's own retries): try again after `retry_after`."""

    def __init__(self, retry_after: float, detail: str = "") -> None:
        super().__init__(detail or f"retry after {retry_after} s")
        self.retry_after = retry_after


class MessageGone(Exception):
    """The message to edit no longer exists or can no longer be edited."""


class Transport(Protocol):
    """What the service needs from a platform adapter. Implementations translate, never decide."""

    platform: str
    push_private: bool  # True: racks are pushed to private chats; False: shown on demand (Discord ephemerals)
    # How often a group's table may be edited (the platform's per-chat limit); None: as often as moves come.
    # Optional: the service reads it with getattr, so a transport without it is not paced.
    group_edits_per_minute: float | None

    async def send(self, chat_id: str, message: OutMessage) -> str:
        """Send; return the platform's message id. Raise Unreachable for a private chat the bot may not open."""
        ...

    async def edit(self, chat_id: str, message_id: str, message: OutMessage) -> None:
        """Edit in place; raise MessageGone when that is no longer possible."""
        ...

    async def delete(self, chat_id: str, message_id: str) -> None: ...

    def deep_link(self, payload: str) -> str | None:
        """A link that opens the private chat with the bot carrying `payload`, where the platform has one."""
        ...
