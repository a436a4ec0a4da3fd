"""Telegram as a separate process sees it: the Bot API over HTTP on 127.0.0.1 (an ephemeral port) and webhook
pushes to the workers, for tests that run real `majlis run` worker processes (tests/run_workers.py).

The server side is tests/tg_harness.py's `FakeTelegram` (messages, ids, Telegram's error texts); this module puts
it behind HTTP. Each worker gets a base URL of its own (`TELEGRAM_BASE_URL=http://127.0.0.1:PORT/w0`), so every
recorded call says which worker made it. Like Telegram, the stand-in keeps only the last `setWebhook` (its URL and
secret) and pushes each update with that secret, round-robin over the workers' webhook ports (a load balancer in
front of them), recording every push's HTTP status: a worker holding another secret answers 403.

`hold` stops a worker's chosen API call before the server acts on it (as if it were still on the wire), so a test
can SIGKILL that worker at a known point (after a commit, before its screens); the held call is then lost.
"""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp import web

from tests.tg_harness import DATE, Call, FakeTelegram

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
LOST = 599  # status of a held call whose worker was killed: the server never acted on it

_worker: contextvars.ContextVar[str] = contextvars.ContextVar("worker", default="?")


@dataclass
class Seen:
    """A recorded API call, with the worker that made it and when (monotonic seconds)."""

    worker: str
    at: float
    call: Call


@dataclass
class Hold:
    """Stop the first call of `worker` that `matches` (worker, call) until released; `held` is set when it is."""

    matches: Callable[[str, Call], bool]
    held: asyncio.Event = field(default_factory=asyncio.Event)
    release: asyncio.Event = field(default_factory=asyncio.Event)
    worker: str | None = None
    call: Call | None = None
    lost: bool = True  # released by a kill: the call is lost; `let_through()`: the server answers it

    def let_through(self) -> None:
        self.lost = False
        self.release.set()


@dataclass
class Push:
    """One webhook push: to which worker, the update, and the HTTP status it got (0: no connection)."""

    worker: str
    update: dict[str, Any]
    status: int


class StandIn:
    """The Bot API and the webhook sender. `start()` binds the port; `workers` maps worker name -> webhook port."""

    def __init__(self) -> None:
        self.fake = FakeTelegram()
        self.fake.on_call = self._on_call
        self.seen: list[Seen] = []
        self.holds: list[Hold] = []
        self.webhook: dict[str, Any] = {}  # the last setWebhook's parameters (Telegram keeps one)
        self.webhook_calls: list[Seen] = []
        self.workers: dict[str, int] = {}
        self.alive: dict[str, bool] = {}
        self.pushes: list[Push] = []
        self._turn = itertools.count()
        self._update_ids = itertools.count(1)
        self._query_ids = itertools.count(1)
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None
        self.port = 0

    # ------------------------------------------------------------------------------------------------ server
    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/{worker}/bot{token}/{method}", self._serve)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        # A connection per push: a kept-alive one to a killed worker's port would fail the restarted worker's push.
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10),
                                              connector=aiohttp.TCPConnector(force_close=True))

    async def stop(self) -> None:
        for hold in self.holds:
            hold.release.set()
        if self._session is not None:
            await self._session.close()
        if self._runner is not None:
            await self._runner.cleanup()

    def base_url(self, worker: str) -> str:
        return f"http://127.0.0.1:{self.port}/{worker}"

    async def _serve(self, request: web.Request) -> web.Response:
        worker, method = request.match_info["worker"], request.match_info["method"]
        params: dict[str, Any] = {}
        files: dict[str, bytes] = {}
        if request.body_exists:
            if request.content_type == "application/json":
                params = await request.json()
            else:
                for name, value in (await request.post()).items():
                    if isinstance(value, web.FileField):
                        files[name] = value.file.read()
                    else:
                        params[name] = value
        _worker.set(worker)
        try:
            status, body = await self.fake.handle(method, params, files)
        except _Lost:
            return web.Response(status=502)
        return web.Response(status=status, text=json.dumps(body), content_type="application/json")

    async def _on_call(self, call: Call) -> None:
        worker = _worker.get()
        self.seen.append(Seen(worker, time.monotonic(), call))
        if call.method == "setWebhook":
            self.webhook = dict(call.params)
            self.webhook_calls.append(self.seen[-1])
        for hold in self.holds:
            if hold.call is None and hold.matches(worker, call):
                hold.worker, hold.call = worker, call
                hold.held.set()
                await hold.release.wait()
                if hold.lost:
                    call.status = LOST
                    raise _Lost
        return None

    def hold(self, matches: Callable[[str, Call], bool]) -> Hold:
        hold = Hold(matches)
        self.holds.append(hold)
        return hold

    # ------------------------------------------------------------------------------------------------ queries
    def calls(self, *methods: str, worker: str | None = None, since: int = 0) -> list[Seen]:
        return [s for s in self.seen[since:] if (not methods or s.call.method in methods)
                and (worker is None or s.worker == worker)]

    def answer_to(self, query_id: str) -> Call | None:
        for seen in reversed(self.seen):
            call = seen.call
            if (call.method == "answerCallbackQuery" and call.status == 200
                    and str(call.params.get("callback_query_id")) == query_id):
                return call
        return None

    def live_pictures(self, chat_id: str | int) -> list[int]:
        """Ids of the picture messages standing in a chat now (sent and not deleted)."""
        return sorted(m.message_id for (chat, _), m in self.fake.messages.items()
                      if chat == str(chat_id) and m.photo_digest is not None)

    # ------------------------------------------------------------------------------------------------ updates
    def command(self, user: dict[str, Any], chat_id: str | int, text: str) -> dict[str, Any]:
        word = text.split()[0]
        return {"update_id": next(self._update_ids), "message": {
            "message_id": next(self.fake._ids), "date": DATE, "chat": self.fake.chat_json(str(chat_id)),
            "from": user, "text": text, "entities": [{"type": "bot_command", "offset": 0, "length": len(word)}]}}

    def press(self, user: dict[str, Any], chat_id: str | int, message_id: int, data: str) -> dict[str, Any]:
        stored = self.fake.messages.get((str(chat_id), int(message_id)))
        message = stored.as_json(self.fake) if stored is not None else {
            "message_id": int(message_id), "date": DATE, "chat": self.fake.chat_json(str(chat_id)), "text": "?"}
        return {"update_id": next(self._update_ids), "callback_query": {
            "id": f"q{next(self._query_ids)}", "from": user, "chat_instance": f"ci{chat_id}", "data": data,
            "message": message}}

    async def push(self, update: dict[str, Any], worker: str | None = None) -> Push:
        """Send one update by webhook, as Telegram does: to the next live worker (or the one named), with the
        secret of the last setWebhook. The status is recorded, 403s included."""
        if worker is None:
            live = [name for name in self.workers if self.alive.get(name)]
            assert live, "no live worker to push to"
            worker = live[next(self._turn) % len(live)]
        path = "/" + str(self.webhook.get("url", "/")).split("/", 3)[-1] if self.webhook else "/"
        url = f"http://127.0.0.1:{self.workers[worker]}{path}"
        headers = {SECRET_HEADER: str(self.webhook.get("secret_token", ""))}
        assert self._session is not None
        try:
            async with self._session.post(url, json=update, headers=headers) as response:
                status = response.status
        except aiohttp.ClientError:
            status = 0
        push = Push(worker, update, status)
        self.pushes.append(push)
        return push


class _Lost(Exception):
    """A held call whose worker is gone: answered with nothing the worker could read."""
