"""A Bot API stand-in for driving the real python-telegram-bot `Application` without a network.

`FakeTelegram` keeps the server's side (messages per chat, incrementing message ids, chats that refuse the bot,
one-shot 429s) so that two `RecordingRequest`s can talk to the same server across a simulated restart.
`RecordingRequest` is the `BaseRequest` the application is built with: every API call is recorded (method,
parameters, uploaded files; with `keep_uploads=False`, as the bench runs it, only their size is counted; with
`history=N`, as the bench runs it, only each chat's newest N calls are kept, not every call of the run) and
answered with Telegram-shaped JSON, including Telegram's real error texts, so the
adapter's error mapping is exercised the way production would exercise it.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from telegram import Update
from telegram.request import BaseRequest, RequestData

import engine
from tests.clock import Clock

BOT_ID = 7000001
BOT_USERNAME = "majlis_test_bot"
GROUP_ID = -1001234567890

NOT_MODIFIED = ("Bad Request: message is not modified: specified new message content and reply markup are exactly "
                "the same as a current content and reply markup of the message")
CANT_INITIATE = "Forbidden: bot can't initiate conversation with a user"
# Calls that show a picture message: a caption edit (new caption or keyboard) keeps the message's picture.
PICTURE_CALLS = ("sendPhoto", "editMessageMedia", "editMessageCaption")
WRONG_FILE = "Bad Request: wrong file identifier/HTTP URL specified"
DATE = 1_700_000_000  # every message's date: nothing here reads the wall clock


@dataclass
class Call:
    """One Bot API request as the server saw it."""

    method: str
    params: dict[str, Any]
    files: dict[str, bytes]  # uploads by field name ({} when the server keeps no uploads)
    status: int = 200
    sent_id: int | None = None  # the message id the server answered a send with

    @property
    def chat_id(self) -> str | None:
        value = self.params.get("chat_id")
        return None if value is None else str(value)

    @property
    def markup(self) -> dict[str, Any] | None:
        return _as_dict(self.params.get("reply_markup"))

    @property
    def shown_text(self) -> str:
        """The words a user sees from this call: text, caption (also inside editMessageMedia's media)."""
        media = _as_dict(self.params.get("media")) or {}
        parts = [self.params.get("text"), self.params.get("caption"), media.get("caption")]
        return "\n".join(str(part) for part in parts if part)

    @property
    def button_labels(self) -> list[str]:
        markup = self.markup or {}
        return [button["text"] for row in markup.get("inline_keyboard", []) for button in row]


@dataclass
class StoredMessage:
    chat_id: str
    message_id: int
    text: str | None = None
    caption: str | None = None
    photo_digest: str | None = None
    markup: dict[str, Any] | str | None = None  # a str (its JSON) when the server keeps `history`

    def as_json(self, chats: FakeTelegram) -> dict[str, Any]:
        data: dict[str, Any] = {"message_id": self.message_id, "date": DATE,
                                "chat": chats.chat_json(self.chat_id),
                                "from": {"id": BOT_ID, "is_bot": True, "first_name": "Majlis",
                                         "username": BOT_USERNAME}}
        if self.photo_digest is not None:
            data["photo"] = [{"file_id": _file_id(self.photo_digest), "file_unique_id": self.photo_digest[:12],
                              "width": 800, "height": 450}]
            if self.caption:
                data["caption"] = self.caption
        else:
            data["text"] = self.text or ""
        markup = _as_dict(self.markup)
        if markup and markup.get("inline_keyboard"):
            data["reply_markup"] = markup
        return data


@dataclass
class Failure:
    """An error the server answers `times` times to `method` (in `chat_id`, when given)."""

    method: str
    status: int
    description: str
    chat_id: str | None = None
    times: int = 1
    retry_after: int | None = None

    def matches(self, method: str, chat_id: str | None) -> bool:
        return self.times > 0 and method == self.method and self.chat_id in (None, chat_id)


@dataclass
class FakeTelegram:
    """The server side: survives an application restart when handed to a second RecordingRequest."""

    calls: list[Call] = field(default_factory=list)
    messages: dict[tuple[str, int], StoredMessage] = field(default_factory=dict)
    blocked: set[str] = field(default_factory=set)  # private chats whose user never opened the bot
    admins: set[str] = field(default_factory=set)  # user ids that are administrators of the group
    retry_once: dict[str, int] = field(default_factory=dict)  # method -> retry_after seconds, answered once
    failures: list[Failure] = field(default_factory=list)  # errors to answer, in order, each `times` times
    on_call: Callable[[Call], Awaitable[None]] | None = None
    keep_uploads: bool = True  # False: upload bodies are counted (`uploaded_bytes`), not kept (the bench's memory)
    uploaded_bytes: int = 0
    # None: every call is kept in `calls` (tests read them all). N (the bench): a long run's every call would be most
    # of the process's memory and of its collector's work, and finding a chat's newest call would read them all;
    # instead each chat keeps its newest N calls (`calls_to`, `calls_since`) and callback answers wait to be read.
    history: int | None = None
    _by_chat: dict[str, deque[Call]] = field(default_factory=dict)
    _chat_counts: dict[str, int] = field(default_factory=dict)
    _answers: dict[str, Call] = field(default_factory=dict)
    file_ids: dict[str, str] = field(default_factory=dict)  # file_id the server gave -> digest of its content
    bodies: dict[str, bytes] = field(default_factory=dict)  # digest -> uploaded content (with keep_uploads)
    polled: asyncio.Event = field(default_factory=asyncio.Event)  # set by the first getUpdates
    open_polls: int = 0  # long polls waiting right now
    _ids: itertools.count = field(default_factory=lambda: itertools.count(100))
    _update_ids: itertools.count = field(default_factory=lambda: itertools.count(1))

    # ------------------------------------------------------------------------------------------------- queries
    def api_calls(self, *methods: str) -> list[Call]:
        """Recorded calls, without the polling loop's own getUpdates."""
        return [call for call in self.calls if call.method != "getUpdates" and (not methods or call.method in methods)]

    def calls_to(self, chat_id: str | int) -> list[Call]:
        if self.history is not None:
            return list(self._by_chat.get(str(chat_id), ()))
        return [call for call in self.api_calls() if call.chat_id == str(chat_id)]

    def chat_mark(self, chat_id: str | int) -> int:
        """How many calls went to this chat so far: `calls_since` gives the ones after."""
        if self.history is not None:
            return self._chat_counts.get(str(chat_id), 0)
        return len(self.calls_to(chat_id))

    def calls_since(self, chat_id: str | int, mark: int) -> list[Call]:
        """The calls to this chat after `chat_mark` said `mark` (with `history`, at most its newest N)."""
        kept = self.calls_to(chat_id)
        if self.history is None:
            return kept[mark:]
        new = self._chat_counts.get(str(chat_id), 0) - mark
        return kept[len(kept) - min(new, len(kept)):] if new > 0 else []

    def callback_answer(self, query_id: str) -> Call | None:
        """The answerCallbackQuery of this callback query, if it was answered (with `history`: read once)."""
        if self.history is not None:
            return self._answers.pop(query_id, None)
        return next((call for call in reversed(self.calls) if call.method == "answerCallbackQuery"
                     and call.params.get("callback_query_id") == query_id), None)

    def latest(self, chat_id: str | int, *methods: str) -> Call | None:
        for call in reversed(self.calls_to(chat_id)):
            if call.status == 200 and (not methods or call.method in methods):
                return call
        return None

    def rack(self, chat_id: str | int) -> tuple[int, list[list[dict[str, Any]]]] | None:
        """(message_id, keyboard) of the newest picture in a private chat, read from its newest sendPhoto,
        editMessageMedia or editMessageCaption."""
        call = self.latest(chat_id, *PICTURE_CALLS)
        if call is None:
            return None
        message_id = call.params.get("message_id") or call.sent_id
        return int(message_id), (call.markup or {}).get("inline_keyboard", [])

    def picture(self, call: Call) -> bytes | None:
        """The picture a sendPhoto / editMessageMedia call showed: its upload, or the upload its file id names
        (None without `keep_uploads`)."""
        if call.method == "sendPhoto":
            reference, field_name = call.params.get("photo"), "photo"
        elif call.method == "editMessageMedia":
            reference, field_name = (_as_dict(call.params.get("media")) or {}).get("media"), None
        else:
            return None
        reference = "" if reference is None else str(reference)
        name = reference.removeprefix("attach://") if reference.startswith("attach://") else field_name
        if name is not None and name in call.files:
            return call.files[name]
        digest = self.file_ids.get(reference)
        return None if digest is None else self.bodies.get(digest)

    def chat_json(self, chat_id: str) -> dict[str, Any]:
        if int(chat_id) < 0:
            return {"id": int(chat_id), "type": "supergroup", "title": "Majlis test group"}
        return {"id": int(chat_id), "type": "private", "first_name": f"user{chat_id}"}

    # ------------------------------------------------------------------------------------------------- updates
    def command(self, bot: Any, user: dict[str, Any], chat_id: str | int, text: str,
                reply_to: dict[str, Any] | None = None) -> Update:
        """An incoming message with a bot command at its start (entity included, as Telegram sends it)."""
        message_id = next(self._ids)
        word = text.split()[0]
        payload = {
            "update_id": next(self._update_ids),
            "message": {
                "message_id": message_id, "date": DATE, "chat": self.chat_json(str(chat_id)),
                "from": user, "text": text,
                "entities": [{"type": "bot_command", "offset": 0, "length": len(word)}],
            },
        }
        if reply_to is not None:  # the command answers another user's message
            payload["message"]["reply_to_message"] = {"message_id": message_id - 1, "date": DATE,
                                                      "chat": self.chat_json(str(chat_id)), "from": reply_to,
                                                      "text": "hello"}
        return Update.de_json(payload, bot)

    def press(self, bot: Any, user: dict[str, Any], chat_id: str | int, message_id: int, data: str) -> Update:
        """A button press on a message the server holds (or a made-up one for forged presses)."""
        stored = self.messages.get((str(chat_id), int(message_id))) or StoredMessage(str(chat_id), int(message_id),
                                                                                      text="?")
        payload = {
            "update_id": next(self._update_ids),
            "callback_query": {
                "id": str(next(self._update_ids) + 900000), "from": user, "chat_instance": "ci" + str(chat_id),
                "data": data, "message": stored.as_json(self),
            },
        }
        return Update.de_json(payload, bot)

    # ------------------------------------------------------------------------------------------------- answers
    async def long_poll(self) -> None:
        """A getUpdates with a timeout waits, as Telegram's would, for updates that never come here (tests hand
        updates to the application directly); the updater cancels it when it stops."""
        self.open_polls += 1
        try:
            await asyncio.Event().wait()
        finally:
            self.open_polls -= 1

    async def handle(self, method: str, params: dict[str, Any], files: dict[str, bytes]) -> tuple[int, Any]:
        self.uploaded_bytes += sum(len(body) for body in files.values())
        if self.history is not None:
            # Kept as Telegram receives them, nested objects as JSON text: a thousand tables' kept keyboards, as
            # lists, were a third of what the bench process's collector walked, which the bot's would not.
            params = {key: json.dumps(value) if isinstance(value, (dict, list)) else value
                      for key, value in params.items()}
        call = Call(method, params, files if self.keep_uploads else {})
        if self.history is None:
            self.calls.append(call)
        elif call.chat_id is not None:
            kept = self._by_chat.get(call.chat_id)
            if kept is None:
                kept = self._by_chat[call.chat_id] = deque(maxlen=self.history)
            kept.append(call)
            self._chat_counts[call.chat_id] = self._chat_counts.get(call.chat_id, 0) + 1
        elif method == "answerCallbackQuery":
            self._answers[str(params.get("callback_query_id"))] = call
        if self.on_call is not None and method != "getUpdates":
            await self.on_call(call)
        if method in self.retry_once:
            seconds = self.retry_once.pop(method)
            call.status = 429
            return 429, {"ok": False, "error_code": 429, "description": f"Too Many Requests: retry after {seconds}",
                         "parameters": {"retry_after": seconds}}
        chat = call.chat_id
        failure = next((f for f in self.failures if f.matches(method, chat)), None)
        if failure is not None:
            failure.times -= 1
            call.status = failure.status
            body: dict[str, Any] = {"ok": False, "error_code": failure.status, "description": failure.description}
            if failure.retry_after is not None:
                body["parameters"] = {"retry_after": failure.retry_after}
            return failure.status, body
        if chat is not None and chat in self.blocked:
            call.status = 403
            return 403, {"ok": False, "error_code": 403, "description": CANT_INITIATE}
        status, result = self._answer(method, params, files, call)
        call.status = status
        if status != 200:
            return status, {"ok": False, "error_code": status, "description": result}
        return 200, {"ok": True, "result": result}

    def _answer(self, method: str, params: dict[str, Any], files: dict[str, bytes], call: Call) -> tuple[int, Any]:
        chat = call.chat_id
        if method == "getMe":
            return 200, {"id": BOT_ID, "is_bot": True, "first_name": "Majlis", "username": BOT_USERNAME,
                         "can_join_groups": True, "can_read_all_group_messages": False,
                         "supports_inline_queries": False}
        if method in ("setMyCommands", "deleteWebhook", "answerCallbackQuery", "setWebhook", "deleteMyCommands",
                      "sendChatAction"):
            return 200, True
        if method == "getUpdates":
            self.polled.set()
            return 200, []
        if method == "getChatMember":
            user_id = str(params["user_id"])
            user = {"id": int(user_id), "is_bot": False, "first_name": f"user{user_id}"}
            if user_id in self.admins:
                rights = dict.fromkeys((
                    "can_be_edited", "is_anonymous", "can_manage_chat", "can_delete_messages",
                    "can_manage_video_chats", "can_restrict_members", "can_promote_members", "can_change_info",
                    "can_invite_users", "can_post_stories", "can_edit_stories", "can_delete_stories"), False)
                return 200, {"status": "administrator", "user": user, **rights, "can_manage_chat": True}
            return 200, {"status": "member", "user": user}
        if method in ("sendMessage", "sendPhoto", "sendAnimation"):
            stored = StoredMessage(chat, next(self._ids), markup=_markup(params))
            if method in ("sendPhoto", "sendAnimation"):
                name = "photo" if method == "sendPhoto" else "animation"
                digest = self._content(files, params.get(name), name)
                if digest is None:
                    return 400, WRONG_FILE
                stored.photo_digest = digest
                stored.caption = params.get("caption")
            else:
                stored.text = params.get("text")
            self.messages[(chat, stored.message_id)] = stored
            call.sent_id = stored.message_id
            return 200, stored.as_json(self)
        if method.startswith("editMessage"):
            return self._edit(method, params, files, chat)
        if method == "deleteMessage":
            if self.messages.pop((chat, int(params["message_id"])), None) is None:
                return 400, "Bad Request: message to delete not found"
            return 200, True
        return 400, f"Bad Request: method {method} is not emulated by the test server"

    def _edit(self, method: str, params: dict[str, Any], files: dict[str, bytes], chat: str) -> tuple[int, Any]:
        stored = self.messages.get((chat, int(params["message_id"])))
        if stored is None:
            return 400, "Bad Request: message to edit not found"
        markup = _markup(params)
        if method == "editMessageMedia":
            if stored.photo_digest is None:
                return 400, "Bad Request: there is no media in the message to edit"
            media = _as_dict(params["media"]) or {}
            digest = self._content(files, media.get("media"), None)
            if digest is None:
                return 400, WRONG_FILE
            new = (digest, media.get("caption"), markup)
            if new == (stored.photo_digest, stored.caption, stored.markup):
                return 400, NOT_MODIFIED
            stored.photo_digest, stored.caption, stored.markup = new
        elif method == "editMessageText":
            if stored.photo_digest is not None:
                return 400, "Bad Request: there is no text in the message to edit"
            if (params.get("text"), markup) == (stored.text, stored.markup):
                return 400, NOT_MODIFIED
            stored.text, stored.markup = params.get("text"), markup
        elif method == "editMessageCaption":
            if stored.photo_digest is None:
                return 400, "Bad Request: there is no caption in the message to edit"
            stored.caption, stored.markup = params.get("caption"), markup
        elif method == "editMessageReplyMarkup":
            stored.markup = markup
        else:
            return 400, f"Bad Request: method {method} is not emulated by the test server"
        return 200, stored.as_json(self)

    def _content(self, files: dict[str, bytes], reference: Any, field_name: str | None) -> str | None:
        """The digest of the picture a call sends: an upload (attached, or in the field itself), or a file id this
        server gave earlier (None: an unknown file id, refused as Telegram refuses it)."""
        reference = "" if reference is None else str(reference)
        name = reference.removeprefix("attach://") if reference.startswith("attach://") else field_name
        body = files.get(name) if name is not None else None
        if body is None and reference in files:
            body = files[reference]
        if body is not None:
            digest = _digest(body)
            self.file_ids[_file_id(digest)] = digest
            if self.keep_uploads:
                self.bodies[digest] = body
            return digest
        return self.file_ids.get(reference)


class RecordingRequest(BaseRequest):
    """The `BaseRequest` handed to `ApplicationBuilder.request(...)` and `.get_updates_request(...)`."""

    def __init__(self, server: FakeTelegram | None = None) -> None:
        self.server = server or FakeTelegram()

    @property
    def read_timeout(self) -> float | None:
        return 5.0

    async def initialize(self) -> None:
        return None

    async def shutdown(self) -> None:
        return None

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Any = None,
        write_timeout: Any = None,
        connect_timeout: Any = None,
        pool_timeout: Any = None,
    ) -> tuple[int, bytes]:
        api_method = url.rsplit("/", 1)[-1]
        params: dict[str, Any] = dict(request_data.parameters) if request_data else {}
        files: dict[str, bytes] = {}
        if request_data is not None and request_data.contains_files:
            for name, value in request_data.multipart_data.items():
                content = value[1] if isinstance(value, tuple) else value
                files[name] = content if isinstance(content, bytes) else content.read()
        status, body = await self.server.handle(api_method, params, files)
        if api_method == "getUpdates" and status == 200 and float(params.get("timeout") or 0) > 0:
            await self.server.long_poll()
        return status, json.dumps(body).encode()


def user(user_id: int, name: str, language: str = "en") -> dict[str, Any]:
    return {"id": user_id, "is_bot": False, "first_name": name, "language_code": language}


def _digest(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


def _file_id(digest: str) -> str:
    """The file id the server gives an upload: the same content always gets the same one."""
    return f"ph{digest[:16]}"


def _markup(params: dict[str, Any]) -> dict[str, Any] | str | None:
    """A call's keyboard as the server keeps it: as it came (JSON text from a server keeping `history`)."""
    value = params.get("reply_markup")
    return value if isinstance(value, str) else _as_dict(value)


def _as_dict(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return json.loads(value)
    return value


# ===================================================================================================== driving
def make_settings(token: str = "123456:TEST-TOKEN", base_url: str | None = None) -> Any:
    from bot.config import Settings

    return Settings(telegram_token=token, telegram_base_url=base_url, telegram_webhook_url=None,
                    telegram_webhook_port=8443, discord_token=None, discord_guild_id=None, database_url=None)


class Bot:
    """One running adapter on a `FakeTelegram`: the real Application, Service and Store, fed updates by hand."""

    def __init__(self, server: FakeTelegram, store: Any, *, clock: Callable[[], float] | None = None,
                 seed: int = 1, images: bool = True, pacing: bool = False, limiter: Any = None,
                 operators: frozenset[tuple[str, str]] = frozenset()) -> None:
        """`seed` fixes every deal the service makes; `clock` (a `Clock` unless given) is the only time it reads.
        `pacing`: keep Telegram's ~20 table edits a minute per group (driven by `clock` and `Service.tick`);
        without it the table is edited after every move, as a test playing at machine speed wants to read it.
        `limiter`: another PTB rate limiter (e.g. one that lets a 429 through at once). `operators`: the
        service's MAJLIS_OPERATORS."""
        import random

        from bot.service import Service
        from bot.telegram_adapter import TelegramAdapter

        self.server = server
        self.store = store
        self.service = Service(store, clock=clock or Clock(1_700_000_000.0), seed_source=random.Random(seed),
                               operators=operators)
        self.request = RecordingRequest(server)
        self.adapter = TelegramAdapter.for_tests(self.service, make_settings(), self.request, images=images,
                                                 **({"rate_limiter": limiter} if limiter is not None else {}))
        if not pacing:
            self.adapter.transport.group_edits_per_minute = None

    @property
    def bot(self) -> Any:
        return self.adapter.application.bot

    async def __aenter__(self) -> Bot:
        await self.adapter.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.adapter.stop()

    async def command(self, who: dict[str, Any], chat_id: str | int, text: str,
                      reply_to: dict[str, Any] | None = None) -> Call | None:
        """Send a command; returns the bot's text reply in that chat, if it sent one."""
        before = len(self.server.calls)
        await self.adapter.process(self.server.command(self.bot, who, chat_id, text, reply_to))
        for call in self.server.calls[before:]:
            if call.method == "sendMessage" and call.chat_id == str(chat_id) and call.params.get("reply_parameters"
                                                                                                 ) is not None:
                return call
        replies = [c for c in self.server.calls[before:] if c.method == "sendMessage" and c.chat_id == str(chat_id)]
        return replies[-1] if replies else None

    async def press(self, who: dict[str, Any], chat_id: str | int, message_id: int, data: str) -> dict[str, Any]:
        """Press a button; returns the answerCallbackQuery parameters (there must be exactly one)."""
        update = self.server.press(self.bot, who, chat_id, message_id, data)
        before = len(self.server.calls)
        await self.adapter.process(update)
        answers = [c.params for c in self.server.calls[before:] if c.method == "answerCallbackQuery"
                   and c.params.get("callback_query_id") == update.callback_query.id and c.status == 200]
        assert len(answers) == 1, f"callback {data!r} answered {len(answers)} times"
        return answers[0]

    async def press_button(self, who: dict[str, Any], chat_id: str | int, message_id: int,
                           keyboard: list[list[dict[str, Any]]], prefix: str) -> dict[str, Any]:
        """Press the first button whose callback_data starts with `prefix`."""
        data = first_data(keyboard, prefix)
        assert data is not None, f"no {prefix!r} button in {keyboard}"
        return await self.press(who, chat_id, message_id, data)


def first_data(keyboard: list[list[dict[str, Any]]], *prefixes: str) -> str | None:
    for row in keyboard:
        for button in row:
            data = button.get("callback_data")
            if data and data.startswith(prefixes):
                return data
    return None


# ===================================================================================================== tables
def group_keyboard(server: FakeTelegram, prefix: str) -> tuple[int, list[list[dict[str, Any]]]]:
    """The newest text message in the group carrying a button whose code starts with `prefix`."""
    for call in reversed(server.calls_to(GROUP_ID)):
        if call.method in ("sendMessage", "editMessageText") and call.status == 200 and first_data(
                (call.markup or {}).get("inline_keyboard", []), prefix):
            return int(call.params.get("message_id") or call.sent_id), call.markup["inline_keyboard"]
    raise AssertionError(f"no {prefix!r} keyboard in the group")


def lobby_keyboard(server: FakeTelegram) -> tuple[int, list[list[dict[str, Any]]]]:
    return group_keyboard(server, "j:")


async def open_table(bot: Bot, creator: dict[str, Any], joiners: list[dict[str, Any]], bots: int = 0,
                     target_presses: int = 2) -> int:
    """/new -> pick Kenza -> cycle the target option -> joins and bots -> Start. Returns the match id."""
    server = bot.server
    await bot.command(creator, GROUP_ID, "/new")
    picker_id, picker = group_keyboard(server, "n:")
    answer = await bot.press_button(creator, GROUP_ID, picker_id, picker, "n:0:kenza")
    assert not answer.get("show_alert")
    message_id, keyboard = lobby_keyboard(server)
    for _ in range(target_presses):  # 151 -> 301 -> 101: a shorter match
        data = next(b["callback_data"] for row in keyboard for b in row if b.get("callback_data", "").endswith(
            ":target"))
        await bot.press(creator, GROUP_ID, message_id, data)
        message_id, keyboard = lobby_keyboard(server)
    for joiner in joiners:
        await bot.press_button(joiner, GROUP_ID, message_id, keyboard, "j:")
        message_id, keyboard = lobby_keyboard(server)
    for _ in range(bots):
        await bot.press_button(creator, GROUP_ID, message_id, keyboard, "b:")
        message_id, keyboard = lobby_keyboard(server)
    answer = await bot.press_button(creator, GROUP_ID, message_id, keyboard, "s:")
    assert not answer.get("show_alert"), answer
    match = await bot.store.lobby_or_active_match("telegram", str(GROUP_ID))
    assert match is not None and match.status == "active"
    return match.id


async def seat_to_move(store: Any, match_id: int) -> tuple[Any, int | None]:
    match = await store.get_match(match_id)
    state = engine.get(match.game).from_json(match.snapshot)
    return match, engine.get(match.game).to_move(state) if match.status == "active" else None


async def play_one(bot: Bot, match_id: int, humans: dict[int, dict[str, Any]]) -> None:
    """The human to move presses the first move button of their rack (two steps when it is a pick)."""
    match, seat = await seat_to_move(bot.store, match_id)
    who = humans[seat]
    message_id, keyboard = bot.server.rack(who["id"])
    data = first_data(keyboard, "m:", "p:")
    assert data is not None, f"seat {seat} to move but its rack has no move button: {keyboard}"
    assert data.split(":")[2] == str(match.version), "the rack shows an old version"
    answer = await bot.press(who, who["id"], message_id, data)
    if data.startswith("p:"):
        assert not answer.get("show_alert"), answer
        message_id, keyboard = bot.server.rack(who["id"])
        data = first_data(keyboard, "m:")
        assert data is not None, keyboard
        answer = await bot.press(who, who["id"], message_id, data)
    assert not answer.get("show_alert"), answer
    after = await bot.store.get_match(match_id)
    assert after.version > match.version


# ===================================================================================================== any game
def flat_buttons(keyboard: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return [button for row in keyboard for button in row]


def labelled(keyboard: list[list[dict[str, Any]]], prefix: str) -> dict[str, Any] | None:
    """The first button whose label starts with `prefix` (labels are what a player reads)."""
    return next((button for button in flat_buttons(keyboard) if button["text"].startswith(prefix)), None)


async def open_lobby(bot: Bot, creator: dict[str, Any], text: str) -> int:
    """`/new <game> key=value...` in the group; returns the id of the lobby it opened."""
    await bot.command(creator, GROUP_ID, text)
    match = await bot.store.lobby_or_active_match("telegram", str(GROUP_ID))
    assert match is not None and match.status == "lobby", f"{text!r} opened no lobby"
    return match.id


async def lobby_press(bot: Bot, who: dict[str, Any], prefix: str, suffix: str = "") -> dict[str, Any]:
    """Press the newest lobby's button whose code starts with `prefix` and ends with `suffix` (e.g. a bot level)."""
    message_id, keyboard = lobby_keyboard(bot.server)
    data = next((b["callback_data"] for b in flat_buttons(keyboard)
                 if b.get("callback_data", "").startswith(prefix) and b["callback_data"].endswith(suffix)), None)
    assert data is not None, f"no {prefix!r}…{suffix!r} button in the lobby: {keyboard}"
    answer = await bot.press(who, GROUP_ID, message_id, data)
    assert not answer.get("show_alert"), answer
    return answer


async def replays(store: Any, match_id: int) -> bool:
    """Whether the stored move log, replayed from the match's seed, gives exactly the stored snapshot."""
    match = await store.get_match(match_id)
    game = engine.get(match.game)
    state = game.new(len(await store.seats(match_id)), match.options, seed=match.seed)
    for record in await store.moves(match_id):
        state = game.apply(state, record.seat, record.move)
    return game.to_json(state) == match.snapshot


def group_table_calls(server: FakeTelegram) -> tuple[list[Call], list[Call]]:
    """(sendPhoto, editMessageMedia / editMessageCaption) calls in the group: the table picture and its edits."""
    calls = server.calls_to(GROUP_ID)
    return ([c for c in calls if c.method == "sendPhoto" and c.status == 200
             and not c.params.get("caption", "").startswith("🏁")],  # a finished round's score sheet
            [c for c in calls if c.method in PICTURE_CALLS[1:] and c.status == 200])
