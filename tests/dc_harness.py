"""A Discord without network for the adapter tests and the bench.

The real discord.py objects run unchanged: interactions enter as raw gateway `INTERACTION_CREATE` payloads through
`ConnectionState.parse_interaction_create`, and the two HTTP entry points (`HTTPClient.request` for the bot's
REST calls, `AsyncWebhookAdapter.request` for interaction responses, edits and followups) are answered by
`FakeDiscord`, which keeps messages the way Discord would (ids, attachments, components, ephemeral flags) so that
later interactions can carry the very message a user clicked on.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import discord
from discord.http import Route
from discord.webhook.async_ import AsyncWebhookAdapter, async_context

import engine
from bot.config import Settings
from bot.discord_adapter import DiscordAdapter
from bot.service import Service
from storage import Store

APP_ID = 1_000_000_000_000_000_001
GUILD_ID = 1_000_000_000_000_000_100
CHANNEL_ID = 1_000_000_000_000_000_200
EPHEMERAL = 64
LOADING = 128
ADMIN = str(1 << 3)
MANAGE_GUILD = str(1 << 5)
TIMESTAMP = "2026-01-01T00:00:00.000000+00:00"
CDN = "https://cdn.discordapp.com/attachments"

BOT_USER = {"id": str(APP_ID), "username": "majlis", "global_name": "Majlis", "discriminator": "0",
            "avatar": None, "bot": True}


def user(number: int, name: str | None = None) -> dict[str, Any]:
    return {"id": str(2_000_000_000_000_000_000 + number), "username": f"user{number}",
            "global_name": name or f"Player {number}", "discriminator": "0", "avatar": None}


AMINA = user(1, "Amina")
BADR = user(2, "Badr")


def settings(guild: bool = True) -> Settings:
    return Settings(telegram_token=None, telegram_base_url=None, telegram_webhook_url=None,
                    telegram_webhook_port=8443, discord_token="test-token",
                    discord_guild_id=GUILD_ID if guild else None, database_url=None)


@dataclass
class Call:
    seq: int
    via: str  # "http" (bot REST) or "webhook" (interaction token)
    method: str
    path: str
    payload: dict[str, Any] | None
    files: list[dict[str, Any]] = field(default_factory=list)  # filename, data, description
    token: str | None = None
    message: dict[str, Any] | None = None  # the message created or edited, as stored afterwards
    status: int = 200

    @property
    def ephemeral(self) -> bool:
        return bool(self.message and int(self.message.get("flags", 0)) & EPHEMERAL)

    @property
    def text(self) -> str:
        """Everything readable in the call: content, embed descriptions, file names and alt texts."""
        payload = self.payload or {}
        data = payload.get("data", payload) if isinstance(payload.get("data"), dict) else payload
        parts = [str(data.get("content") or "")]
        parts += [str(embed.get("description") or "") for embed in data.get("embeds") or []]
        parts += [f"{f['filename']} {f.get('description') or ''}" for f in self.files]
        parts += [str(c.get("label", "")) for row in data.get("components") or [] for c in row.get("components", [])]
        return "\n".join(parts)


class DiscordError(Exception):
    pass


class FakeDiscord:
    """Answers discord.py's HTTP calls like Discord, records them, and builds interaction payloads."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.messages: dict[str, dict[str, Any]] = {}
        self.originals: dict[str, str] = {}  # interaction token -> message id of its original response
        self.sources: dict[str, str | None] = {}  # interaction token -> message id the component was on
        self.expired: set[str] = set()  # tokens older than 15 minutes
        self.frozen: set[str] = set()  # message ids whose ephemeral can no longer be edited by webhook
        self.commands: dict[str, list[dict[str, Any]]] = {}
        self.users: dict[str, str] = {}  # interaction token -> id of the user who interacted
        self.fail_original: tuple[int, int, str] | None = None  # the next PATCH @original fails like this
        # REST errors to answer: [method, path regex, status, times left]; e.g. a 503 on the table's edit
        self.failures: list[list[Any]] = []
        self.watch: Callable[[Call], Awaitable[None]] | None = None  # told of each message created or edited
        self.guilds: dict[str, int] = {}  # channel id -> its guild, for channels outside GUILD_ID (other shards)
        self.dms: dict[str, dict[str, Any]] = {}  # DM channel id -> the user it is with
        self.closed_dms: set[str] = set()  # user ids who allow no DMs from the bot (50007 on a DM send)
        self._ids = itertools.count(1_100_000_000_000_000_000)
        self._seq = itertools.count()
        self.webhook_adapter = _RecordingAdapter(self)

    # ------------------------------------------------------------------------------------------ wiring
    def install(self, client: discord.Client) -> None:
        client.http.request = self.http_request  # type: ignore[method-assign]

    async def login(self, adapter: Any) -> None:
        """What DiscordAdapter.start does before connecting the gateway (no gateway here)."""
        self.install(adapter.client)
        await adapter.login()

    async def feed(self, client: discord.Client, payload: dict[str, Any]) -> list[Call]:
        """Deliver one INTERACTION_CREATE and wait until the adapter has finished with it; its calls."""
        async_context.set(self.webhook_adapter)
        start = len(self.calls)
        before = asyncio.all_tasks()
        client._connection.parse_interaction_create(payload)  # type: ignore[arg-type]
        spawned = asyncio.all_tasks() - before
        if spawned:
            await asyncio.gather(*spawned)
        return self.calls[start:]

    # ------------------------------------------------------------------------------------------ payloads
    def _interaction(self, kind: int, member: dict[str, Any], data: dict[str, Any], *, guild: bool,
                     channel_id: int, message: dict[str, Any] | None, locale: str) -> dict[str, Any]:
        interaction_id = next(self._ids)
        token = f"tok{interaction_id}"
        guild_id = self.guild_of(channel_id)
        self.sources[token] = message["id"] if message else None
        self.users[token] = member["user"]["id"]
        payload: dict[str, Any] = {
            "id": str(interaction_id), "application_id": str(APP_ID), "type": kind, "token": token, "version": 1,
            "data": data, "locale": locale, "app_permissions": "0", "entitlements": [],
            "authorizing_integration_owners": {"0": guild_id} if guild else {}, "context": 0 if guild else 1,
            "attachment_size_limit": 10_485_760,
        }
        if guild:
            payload.update(guild_id=guild_id, guild_locale="en-US", channel_id=str(channel_id),
                           channel={"id": str(channel_id), "type": 0, "guild_id": guild_id, "name": "games",
                                    "position": 0, "nsfw": False, "parent_id": None,
                                    "permission_overwrites": [], "rate_limit_per_user": 0},
                           member={"user": member["user"], "roles": [], "joined_at": TIMESTAMP, "deaf": False,
                                   "mute": False, "flags": 0, "nick": None,
                                   "permissions": member.get("permissions", "0")})
        else:
            payload.update(channel_id=str(channel_id), user=member["user"],
                           channel={"id": str(channel_id), "type": 1, "recipients": [member["user"]]})
        if message is not None:
            payload["message"] = json.loads(json.dumps(message))
        return payload

    def command(self, who: dict[str, Any], name: str, options: dict[str, Any] | None = None, *,
                permissions: str = "0", guild: bool = True, channel_id: int = CHANNEL_ID,
                locale: str = "en-US", resolved: dict[str, Any] | None = None,
                guild_command: bool = True) -> dict[str, Any]:
        """A slash command as Discord delivers it (string options; user options are ids with `resolved`).

        `guild_command`: registered to the guild (data carries guild_id) rather than globally.
        """
        data: dict[str, Any] = {
            "id": str(next(self._ids)), "name": name, "type": 1,
            "options": [{"name": key, "type": 6 if key == "user" else 3, "value": str(value)}
                        for key, value in (options or {}).items()],
        }
        if guild and guild_command:
            data["guild_id"] = self.guild_of(channel_id)
        if resolved:
            data["resolved"] = resolved
        return self._interaction(2, {"user": who, "permissions": permissions}, data, guild=guild,
                                 channel_id=channel_id, message=None, locale=locale)

    def press(self, who: dict[str, Any], message_id: str, custom_id: str, *, value: str | None = None,
              permissions: str = "0", locale: str = "en-US", forge: bool = False) -> dict[str, Any]:
        """A click on component `custom_id` of a stored message (a select when `value` is given).

        `forge` adds that button to the message first, as a tampered client would claim it was there.
        """
        message = self.messages[message_id]
        if forge:
            message = json.loads(json.dumps(message))
            message["components"] = [*message["components"][:4], {"type": 1, "components": [
                {"type": 2, "style": 2, "label": "forged", "custom_id": custom_id}]}]
        kind = 3 if value is not None else 2
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": kind}
        if value is not None:
            data["values"] = [value]
        return self._interaction(3, {"user": who, "permissions": permissions}, data,
                                 guild=message["channel_id"] not in self.dms,
                                 channel_id=int(message["channel_id"]), message=message, locale=locale)

    # ------------------------------------------------------------------------------------------ lookups
    def guild_of(self, channel_id: int | str) -> str | None:
        if str(channel_id) in self.dms:
            return None
        return str(self.guilds.get(str(channel_id), GUILD_ID))

    def dm_channel(self, who: dict[str, Any]) -> str:
        """The id of the DM channel between the bot and `who` (opened here first if the bot has not yet)."""
        for channel_id, other in self.dms.items():
            if other["id"] == who["id"]:
                return channel_id
        channel_id = str(next(self._ids))
        self.dms[channel_id] = who
        return channel_id

    def dm_messages(self, who: dict[str, Any]) -> list[dict[str, Any]]:
        channel = self.dm_channel(who)
        return [m for m in self.messages.values() if m["channel_id"] == channel]

    def channel_messages(self) -> list[dict[str, Any]]:
        return [m for m in self.messages.values() if not int(m.get("flags", 0)) & EPHEMERAL]

    def last_with_button(self, prefix: str) -> dict[str, Any]:
        """The newest stored message having a component whose custom_id starts with `prefix`."""
        for message in reversed(list(self.messages.values())):
            if custom_ids(message, prefix):
                return message
        raise LookupError(prefix)

    def original(self, token: str) -> dict[str, Any] | None:
        message_id = self.originals.get(token)
        return self.messages.get(message_id) if message_id else None

    # ------------------------------------------------------------------------------------------ HTTP
    async def http_request(self, route: Route, *, files: Any = None, form: Any = None, **kwargs: Any) -> Any:
        payload, uploaded = _body(kwargs.get("json"), form)
        path = route.url[len(Route.BASE):]
        call = Call(next(self._seq), "http", route.method, path, payload, uploaded)
        self.calls.append(call)
        answer = self._http(call)
        if self.watch is not None and call.message is not None:
            await self.watch(call)
        return answer

    def _http(self, call: Call) -> Any:
        method, path = call.method, call.path
        for failure in self.failures:
            if failure[3] > 0 and failure[0] == method and re.fullmatch(failure[1], path):
                failure[3] -= 1
                self._raise(call, failure[2], 0, {403: "Missing Permissions", 503: "Service Unavailable"}.get(
                    failure[2], "error"))
        if (method, path) == ("GET", "/users/@me"):
            return BOT_USER
        if (method, path) == ("POST", "/users/@me/channels"):
            recipient = str((call.payload or {})["recipient_id"])
            who = next((u for u in self.dms.values() if u["id"] == recipient), None) or {
                "id": recipient, "username": f"user{recipient[-4:]}", "global_name": None, "discriminator": "0",
                "avatar": None}
            return {"id": self.dm_channel(who), "type": 1, "recipients": [who], "last_message_id": None}
        if (method, path) == ("GET", "/oauth2/applications/@me"):
            return {"id": str(APP_ID), "name": "Majlis", "description": "", "icon": None, "bot_public": True,
                    "bot_require_code_grant": False, "owner": user(0, "Owner"), "verify_key": "0" * 64,
                    "flags": 0}
        if method == "PUT" and re.fullmatch(r"/applications/\d+(/guilds/\d+)?/commands", path):
            commands = [{**command, "id": str(next(self._ids)), "application_id": str(APP_ID), "version": "1",
                         "default_member_permissions": None, "type": command.get("type", 1)}
                        for command in call.payload or []]
            self.commands[path] = commands
            return commands
        found = re.fullmatch(r"/channels/(\d+)/messages(?:/(\d+))?", path)
        if found:
            channel_id, message_id = found.groups()
            if method == "POST" and channel_id in self.dms and self.dms[channel_id]["id"] in self.closed_dms:
                self._raise(call, 403, 50007, "Cannot send messages to this user")
            if method == "POST":
                call.message = self._create(channel_id, call.payload or {}, call.files)
                return call.message
            if message_id not in self.messages:
                self._raise(call, 404, 10008, "Unknown Message")
            if method == "PATCH":
                call.message = self._edit(message_id, call.payload or {}, call.files)
                return call.message
            if method == "DELETE":
                del self.messages[message_id]
                return None
        self._raise(call, 404, 0, f"no fake route for {method} {path}")

    async def webhook_request(self, route: Route, *, payload: Any = None, multipart: Any = None,
                              files: Any = None, params: Any = None, **kwargs: Any) -> Any:
        body, uploaded = _body(payload, multipart)
        path = route.url[len(Route.BASE):]
        call = Call(next(self._seq), "webhook", route.method, path, body, uploaded, token=route.webhook_token)
        self.calls.append(call)
        answer = self._webhook(call, params or {})
        if self.watch is not None and call.message is not None:
            await self.watch(call)
        return answer

    def _webhook(self, call: Call, params: dict[str, Any]) -> Any:
        token = call.token or ""
        if token in self.expired:
            self._raise(call, 401, 50027, "Invalid Webhook Token")
        found = re.fullmatch(r"/interactions/(\d+)/[^/]+/callback", call.path)
        if found and call.method == "POST":
            return self._callback(call, found.group(1))
        found = re.fullmatch(r"/webhooks/\d+/[^/]+(?:/messages/(@original|\d+))?", call.path)
        if not found:
            self._raise(call, 404, 10015, "Unknown Webhook")
        target = found.group(1)
        message_id = self.originals.get(token) if target == "@original" else target
        if call.method == "POST" and target is None:  # a followup
            data = call.payload or {}
            call.message = self._create(self._channel_of(token), data, call.files, flags=int(data.get("flags", 0)))
            return call.message
        if message_id is None or message_id not in self.messages:
            self._raise(call, 404, 10008, "Unknown Message")
        if message_id in self.frozen:
            self._raise(call, 401, 50027, "Invalid Webhook Token")
        if call.method == "PATCH" and target == "@original" and self.fail_original is not None:
            status, code, text = self.fail_original
            self.fail_original = None
            self._raise(call, status, code, text)
        if call.method == "PATCH":
            call.message = self._edit(message_id, call.payload or {}, call.files)
            return call.message
        if call.method == "DELETE":
            del self.messages[message_id]
            return None
        self._raise(call, 404, 0, f"no fake route for {call.method} {call.path}")

    def _callback(self, call: Call, interaction_id: str) -> Any:
        body = call.payload or {}
        kind, data = int(body["type"]), body.get("data") or {}
        token = call.token or ""
        source = self.sources.get(token)
        message = None
        if kind in (4, 5):
            flags = int(data.get("flags", 0)) | (LOADING if kind == 5 else 0)
            message = self._create(self._channel_of(token), data, call.files, flags=flags,
                                   interaction_id=interaction_id)
            self.originals[token] = message["id"]
        elif kind in (6, 7):
            if source is not None:
                self.originals[token] = source
                if kind == 7:
                    message = self._edit(source, data, call.files)
        call.message = message
        answer: dict[str, Any] = {"interaction": {
            "id": interaction_id, "type": 3 if source else 2, "response_message_loading": kind == 5,
            "response_message_ephemeral": bool(message and int(message["flags"]) & EPHEMERAL)}}
        if message is not None:
            answer["interaction"]["response_message_id"] = message["id"]
            answer["resource"] = {"type": kind, "message": message}
        return answer

    def _channel_of(self, token: str) -> str:
        source = self.sources.get(token)
        if source and source in self.messages:
            return self.messages[source]["channel_id"]
        return str(CHANNEL_ID)

    # ------------------------------------------------------------------------------------------ storage
    def _attachments(self, payload: dict[str, Any] | None, files: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out = []
        for file in files:
            attachment_id = str(next(self._ids))
            out.append({"id": attachment_id, "filename": file["filename"], "size": len(file["data"]),
                        "url": f"{CDN}/{attachment_id}/{file['filename']}", "proxy_url": f"{CDN}/{file['filename']}",
                        "content_type": "image/png", "description": file.get("description"),
                        "ephemeral": False})
        return out

    def _embeds(self, embeds: list[dict[str, Any]], attachments: list[dict[str, Any]]) -> list[dict[str, Any]]:
        urls = {a["filename"]: a["url"] for a in attachments}
        out = []
        for embed in embeds:
            embed = json.loads(json.dumps(embed))
            image = embed.get("image") or {}
            if str(image.get("url", "")).startswith("attachment://"):
                image["url"] = urls.get(image["url"][len("attachment://"):], image["url"])
            out.append(embed)
        return out

    def _create(self, channel_id: str, payload: dict[str, Any], files: list[dict[str, Any]], *, flags: int = 0,
                interaction_id: str | None = None) -> dict[str, Any]:
        message_id = str(next(self._ids))
        attachments = self._attachments(payload, files)
        message = {
            "id": message_id, "channel_id": str(channel_id), "author": BOT_USER,
            "content": payload.get("content") or "", "embeds": self._embeds(payload.get("embeds") or [], attachments),
            "attachments": attachments, "components": payload.get("components") or [], "flags": flags,
            "type": 20 if interaction_id else 0, "timestamp": TIMESTAMP, "edited_timestamp": None, "tts": False,
            "mention_everyone": False, "mentions": [], "mention_roles": [], "pinned": False,
            "application_id": str(APP_ID),
        }
        if self.guild_of(channel_id) is not None:
            message["guild_id"] = self.guild_of(channel_id)
        self.messages[message_id] = message
        return json.loads(json.dumps(message))

    def _edit(self, message_id: str, payload: dict[str, Any], files: list[dict[str, Any]]) -> dict[str, Any]:
        message = self.messages[message_id]
        if "content" in payload:
            message["content"] = payload["content"] or ""
        if "components" in payload:
            message["components"] = payload["components"] or []
        if "attachments" in payload or files:
            message["attachments"] = self._attachments(payload, files)
        if "embeds" in payload:
            message["embeds"] = self._embeds(payload["embeds"] or [], message["attachments"])
        message["flags"] = int(message.get("flags", 0)) & ~LOADING
        message["edited_timestamp"] = TIMESTAMP
        return json.loads(json.dumps(message))

    def _raise(self, call: Call, status: int, code: int, text: str) -> None:
        call.status = status
        response = SimpleNamespace(status=status, reason=text)
        error_type = {403: discord.Forbidden, 404: discord.NotFound}.get(
            status, discord.DiscordServerError if status >= 500 else discord.HTTPException)
        raise error_type(response, {"code": code, "message": text})  # type: ignore[arg-type]


class _RecordingAdapter(AsyncWebhookAdapter):
    def __init__(self, fake: FakeDiscord) -> None:
        super().__init__()
        self.fake = fake

    async def request(self, route: Route, session: Any = None, **kwargs: Any) -> Any:  # type: ignore[override]
        return await self.fake.webhook_request(route, **kwargs)


def _body(payload: Any, form: Any) -> tuple[Any, list[dict[str, Any]]]:
    """The JSON body and the uploaded files of a request, however discord.py encoded them."""
    if not form:
        return payload, []
    body: Any = None
    files: list[dict[str, Any]] = []
    for entry in form:
        if entry["name"] == "payload_json":
            body = json.loads(entry["value"])
        else:
            stream = entry["value"]
            stream.seek(0)
            files.append({"filename": entry.get("filename"), "data": stream.read()})
    described = {a.get("filename"): a.get("description") for a in (body or {}).get("attachments", [])} \
        if isinstance(body, dict) else {}
    if isinstance(body, dict) and isinstance(body.get("data"), dict):
        described = {a.get("filename"): a.get("description") for a in body["data"].get("attachments", [])}
    for file in files:
        file["description"] = described.get(file["filename"])
    return body, files


def custom_ids(message: dict[str, Any], prefix: str = "") -> list[str]:
    """The custom_ids of a stored message's components, in order."""
    out = []
    for row in message.get("components") or []:
        for component in row.get("components", []):
            custom_id = component.get("custom_id")
            if custom_id and custom_id.startswith(prefix):
                out.append(custom_id)
    return out


def buttons(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for row in message.get("components") or [] for c in row.get("components", []) if c.get("type") == 2]


def answers(calls: list[Call]) -> list[str]:
    """What the acting user was told: the content of every ephemeral written in these calls."""
    return [c.message["content"] for c in calls if c.via == "webhook" and c.ephemeral and c.message["content"]]


# ---------------------------------------------------------------------------------------------- flows
async def start_adapter(store: Store, fake: FakeDiscord, service: Service | None = None, seed: int = 1
                        ) -> DiscordAdapter:
    """A DiscordAdapter logged in to the fake (commands synced, components registered), without a gateway; its
    service (unless given) deals from `seed`, so a test meets the same cards every run."""
    adapter = DiscordAdapter(service or Service(store, seed_source=random.Random(seed)), settings())
    await fake.login(adapter)
    return adapter


def button_id(message: dict[str, Any], prefix: str) -> str:
    found = custom_ids(message, prefix)
    assert found, f"no {prefix!r} button in {message['components']}"
    return found[0]


async def open_table(fake: FakeDiscord, adapter: DiscordAdapter, store: Store) -> int:
    """Amina opens Kenza to 101 with /new, Badr presses Join, Amina presses Start."""
    calls = await fake.feed(adapter.client, fake.command(AMINA, "new", {"game": "kenza", "target": "101"}))
    assert calls[0].payload["type"] == 5 and calls[0].payload["data"]["flags"] == EPHEMERAL, "deferred, ephemeral"
    match = await store.lobby_or_active_match("discord", str(CHANNEL_ID))
    assert match is not None and match.options["target"] == 101
    lobby = fake.last_with_button("j:")
    await fake.feed(adapter.client, fake.press(BADR, lobby["id"], button_id(lobby, "j:")))
    lobby = fake.messages[lobby["id"]]
    assert "Badr" in lobby["content"], "the lobby message was edited in place"
    calls = await fake.feed(adapter.client, fake.press(AMINA, lobby["id"], button_id(lobby, "s:")))
    assert (await store.get_match(match.id)).status == "active"
    assert any(c.path.endswith("/messages") and c.files and c.files[0]["filename"] == "table.png" for c in calls)
    return match.id


async def whose_turn(store: Store, match_id: int, humans: dict[int, dict[str, Any]] | None = None
                     ) -> tuple[Any, dict[str, Any] | None]:
    match = await store.get_match(match_id)
    if match.status != "active":
        return match, None
    seat = engine.get("kenza").to_move(engine.get("kenza").from_json(match.snapshot))
    return match, (humans or {0: AMINA, 1: BADR}).get(seat)


async def play_turn(fake: FakeDiscord, adapter: DiscordAdapter, store: Store, match_id: int,
                    who: dict[str, Any]) -> None:
    """`who` presses "My hand" on the table, then the first move in the ephemeral (a capture choice if asked)."""
    table = fake.last_with_button("h:")
    payload = fake.press(who, table["id"], button_id(table, "h:"))
    await fake.feed(adapter.client, payload)
    rack = fake.original(payload["token"])
    assert rack is not None and rack["flags"] & EPHEMERAL and rack["attachments"][0]["filename"] == "hand.png"
    version = (await store.get_match(match_id)).version
    for _ in range(3):
        code = (custom_ids(rack, "m:") or custom_ids(rack, "p:"))[0]
        assert code.split(":")[2] == str(version), "the rack shows an old version"
        payload = fake.press(who, rack["id"], code)
        calls = await fake.feed(adapter.client, payload)
        assert calls[0].payload["type"] == 6, "a press in the ephemeral is a deferred update"
        rack = fake.messages[rack["id"]]
        if code.startswith("m:"):
            assert (await store.get_match(match_id)).version > version
            assert rack["content"], "the ephemeral says what was played"
            return
    raise AssertionError("no move after three presses")


# ---------------------------------------------------------------------------------------------- whole games
# Helpers for playing any game through the ephemeral rack only (tests/test_discord_canasta.py, _tunj.py).
CARD_CODE = re.compile(r"^(?:[2-9TJQKA][SHDC]|X)$")


@dataclass(frozen=True)
class Control:
    """One thing a user can click in a stored message: a button, or one option of a select menu."""

    label: str
    custom_id: str
    value: str | None = None  # the option's value (an action code) for a select menu

    @property
    def code(self) -> str:
        """The service action code the click sends."""
        return self.value if self.value is not None else self.custom_id


def controls(message: dict[str, Any]) -> list[Control]:
    """Every button and select option of a stored message, in display order (link buttons have no id)."""
    out = []
    for row in message.get("components") or []:
        for component in row.get("components", []):
            if component.get("type") == 2 and component.get("custom_id"):
                out.append(Control(str(component.get("label", "")), component["custom_id"]))
            elif component.get("type") == 3:
                out += [Control(str(option["label"]), component["custom_id"], str(option["value"]))
                        for option in component.get("options", [])]
    return out


def find_control(message: dict[str, Any], label: str) -> Control | None:
    """The control labelled exactly `label`, else the first whose label starts with it."""
    found = controls(message)
    return next((c for c in found if c.label == label), None) or next(
        (c for c in found if c.label.startswith(label)), None)


def click(fake: FakeDiscord, who: dict[str, Any], message: dict[str, Any], control: Control) -> dict[str, Any]:
    """The interaction payload of clicking `control` (a select menu choice when it is an option)."""
    return fake.press(who, message["id"], control.custom_id, value=control.value)


def assert_answered(fake: FakeDiscord, payload: dict[str, Any], calls: list[Call]) -> None:
    """Discord saw exactly one accepted interaction response for `payload`, and a "thinking" ephemeral it opened
    was then filled in or removed (a user never sees an interaction left loading)."""
    token = payload["token"]
    callbacks = [c for c in calls if c.token == token and c.path.endswith("/callback")]
    assert len(callbacks) == 1 and callbacks[0].status == 200, f"interaction {payload['data']} answered {callbacks}"
    if int(callbacks[0].payload["type"]) == 5:
        later = [c for c in calls if c.token == token and c.seq > callbacks[0].seq and c.status == 200]
        original = fake.original(token)
        assert later and (original is None or not int(original["flags"]) & LOADING), \
            f"the thinking ephemeral of {payload['data']} was never answered"


def card_codes(data: Any) -> set[str]:
    """Every card code written anywhere in a JSON value (move strings are split into their words)."""
    if isinstance(data, str):
        return {word for word in data.split() if CARD_CODE.match(word)}
    if isinstance(data, dict):
        return set().union(*(card_codes(value) for value in data.values())) if data else set()
    if isinstance(data, list):
        return set().union(*(card_codes(value) for value in data)) if data else set()
    return set()


class SecretWatch:
    """Checks each message as Discord stores it, for any game: a channel message names no card that only a hand,
    the stock or a face-down pile holds (a card code in the full state but not in the public view), and carries
    no rack picture or move control; an ephemeral names no card hidden from its user's seat. Cards the last few
    moves named are public (they may name a twin of a hidden card: two decks repeat codes)."""

    def __init__(self, fake: FakeDiscord, store: Store, game_id: str, label: Callable[[str], str],
                 seats_by_user: dict[str, int]) -> None:
        self.fake, self.store, self.label = fake, store, label
        self.game = engine.get(game_id)
        self.seats_by_user = seats_by_user
        self.match_id: int | None = None
        self.channel = 0
        self.private = 0
        self.problems: list[str] = []

    async def __call__(self, call: Call) -> None:
        if self.match_id is None:
            return
        match = await self.store.get_match(self.match_id)
        if match is None or match.snapshot is None:
            return
        state = self.game.from_json(match.snapshot)
        recent = card_codes([record.move for record in (await self.store.moves(self.match_id))[-8:]])
        if call.ephemeral:
            seat = self.seats_by_user.get(self.fake.users.get(call.token or "", ""))
            self.private += 1
        else:
            seat = None
            self.channel += 1
            if any(f["filename"] == "hand.png" for f in call.files):
                self.problems.append(f"a rack picture in the channel: {call.path}")
            moving = [c for c in controls(call.message or {}) if c.code.split(":", 1)[0] in ("m", "p", "k")]
            if moving:
                self.problems.append(f"move controls in the channel: {moving[:3]}")
        secret = card_codes(match.snapshot) - card_codes(self.game.view(state, seat)) - recent
        shown = "\n".join([call.text, *(c.label for c in controls(call.message or {}))])
        where = f"seat {seat}" if call.ephemeral else "channel"
        for card in sorted(secret):
            if re.search(rf"(?<![0-9]){re.escape(self.label(card))}", shown):
                self.problems.append(f"{card} ({where}) in {shown!r}")


async def open_against_bot(fake: FakeDiscord, adapter: DiscordAdapter, store: Store, who: dict[str, Any],
                           options: dict[str, str], level: str) -> tuple[int, list[Call]]:
    """`who` opens a table with /new `options`, adds a bot of `level` and presses Start, all by interactions.
    Returns the match id and every call made meanwhile."""
    start = len(fake.calls)
    payload = fake.command(who, "new", options)
    assert_answered(fake, payload, await fake.feed(adapter.client, payload))
    match = await store.lobby_or_active_match("discord", str(CHANNEL_ID))
    assert match is not None and match.status == "lobby", f"/new {options} opened no lobby"
    for prefix in ("b:", "s:"):
        lobby = fake.last_with_button(prefix)
        code = next(c for c in custom_ids(lobby, prefix) if prefix != "b:" or c.endswith(f":{level}"))
        payload = fake.press(who, lobby["id"], code)
        assert_answered(fake, payload, await fake.feed(adapter.client, payload))
    match = await store.get_match(match.id)
    assert match.status == "active", "Start did not start the match"
    return match.id, fake.calls[start:]


async def open_hand(fake: FakeDiscord, adapter: DiscordAdapter, who: dict[str, Any]) -> dict[str, Any]:
    """`who` presses "My hand" on the table message; the ephemeral rack it opened."""
    table = fake.last_with_button("h:")
    payload = fake.press(who, table["id"], button_id(table, "h:"))
    assert_answered(fake, payload, await fake.feed(adapter.client, payload))
    rack = fake.original(payload["token"])
    assert rack is not None and int(rack["flags"]) & EPHEMERAL, "My hand did not answer with an ephemeral"
    assert rack["attachments"] and rack["attachments"][0]["filename"] == "hand.png"
    return rack


async def replays(store: Store, match_id: int) -> bool:
    """Whether the stored move log, replayed from the match's seed, gives exactly the stored snapshot."""
    match = await store.get_match(match_id)
    game = engine.get(match.game)
    state = game.new(len(await store.seats(match_id)), match.options, seed=match.seed)
    for record in await store.moves(match_id):
        state = game.apply(state, record.seat, record.move)
    return game.to_json(state) == match.snapshot
