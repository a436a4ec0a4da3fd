"""Webhook mode: PTB's own webhook server on loopback registers with setWebhook and hands updates to the service."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import random
import re
import signal
import socket
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from bot.config import ConfigError, Settings
from bot.service import Service
from bot.telegram_adapter import TelegramAdapter
from storage import Store
from tests.tg_harness import FakeTelegram, RecordingRequest, make_settings, user

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def post(url: str, body: dict, secret: str) -> int:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers={
        "Content-Type": "application/json", "X-Telegram-Bot-Api-Secret-Token": secret})
    with urllib.request.urlopen(request, timeout=5) as response:
        return response.status


def status_of(url: str, body: dict, secret: str) -> int:
    """`post`'s status, a refusal (403) included."""
    try:
        return post(url, body, secret)
    except urllib.error.HTTPError as error:
        return error.code


async def test_webhook_receives_an_update_and_the_bot_answers(tmp_path):
    port = free_port()
    url = f"https://bot.example/hook/{port}"
    settings = dataclasses.replace(make_settings(), telegram_webhook_url=url, telegram_webhook_port=port,
                                   telegram_webhook_listen="127.0.0.1")
    server = FakeTelegram()
    store = await Store.open(str(tmp_path / "hook.db"))
    adapter = TelegramAdapter.for_tests(Service(store, seed_source=random.Random(1)), settings,
                                        RecordingRequest(server))
    await adapter.start()
    try:
        hooks = [call for call in server.calls if call.method == "setWebhook"]
        assert hooks and hooks[-1].params["url"] == url
        secret = hooks[-1].params["secret_token"]
        who = user(41, "Huda")
        answered = asyncio.Event()

        async def watch(call: Any) -> None:
            if call.method == "sendMessage" and call.chat_id == str(who["id"]):
                answered.set()

        server.on_call = watch
        update = server.command(adapter.application.bot, who, who["id"], "/help").to_dict()
        status = await asyncio.to_thread(post, f"http://127.0.0.1:{port}/hook/{port}", update, secret)
        assert status == 200
        await answered.wait()  # the update is processed after the webhook answered 200
        answers = [c for c in server.calls if c.method == "sendMessage" and c.chat_id == str(who["id"])]
        assert answers and "/new" in answers[-1].params["text"]
        # A request without the secret is refused by the webhook server and reaches nobody.
        try:
            await asyncio.to_thread(post, f"http://127.0.0.1:{port}/hook/{port}", update, "wrong")
        except urllib.error.HTTPError as error:
            assert error.code == 403
        else:
            raise AssertionError("a webhook call without the secret was accepted")
    finally:
        await adapter.stop()
        await store.close()


async def test_two_webhook_workers_both_accept_what_telegram_sends(tmp_path):
    """Several workers behind one webhook URL (README "Scale out"): each registers with setWebhook, and Telegram
    keeps the last registration only, so every worker must register and check the same secret. Updates pushed to
    each worker in turn, with the secret Telegram holds, are all accepted (200, never 403) and answered."""
    server = FakeTelegram()
    url = "https://bot.example/tg"
    workers = []
    try:
        for name in ("one", "two"):
            port = free_port()
            settings = dataclasses.replace(make_settings(), telegram_webhook_url=url, telegram_webhook_port=port,
                                           telegram_webhook_listen="127.0.0.1")
            store = await Store.open(str(tmp_path / f"{name}.db"))
            adapter = TelegramAdapter.for_tests(Service(store, seed_source=random.Random(name)), settings,
                                                RecordingRequest(server))
            workers.append((adapter, store, port))
            await adapter.start()
        hooks = [call for call in server.calls if call.method == "setWebhook"]
        secret = hooks[-1].params["secret_token"]  # what Telegram sends: the last registration's secret
        answered: dict[int, asyncio.Event] = {}

        async def watch(call: Any) -> None:
            if call.method == "sendMessage" and int(call.chat_id) in answered:
                answered[int(call.chat_id)].set()

        server.on_call = watch
        for turn in range(4):  # round robin, as a load balancer spreads them
            adapter, _, port = workers[turn % 2]
            who = user(50 + turn, f"Player {turn}")
            answered[who["id"]] = asyncio.Event()
            update = server.command(adapter.application.bot, who, who["id"], "/help").to_dict()
            status = await asyncio.to_thread(status_of, f"http://127.0.0.1:{port}/tg", update, secret)
            assert status == 200, f"worker {turn % 2 + 1} answered {status} to an update"
            await asyncio.wait_for(answered[who["id"]].wait(), 10)
        assert len(hooks) == 2 and {(hook.params["url"], hook.params["secret_token"]) for hook in hooks} == {
            (url, secret)}, "each worker registers the same URL and secret"
    finally:
        for adapter, store, _ in workers:
            await adapter.stop()
            await store.close()


def test_the_webhook_secret_is_shared_and_fits_telegrams_rule():
    """Derived from the token when not set: the same in every worker, different per bot, 1-256 of [A-Za-z0-9_-];
    TELEGRAM_WEBHOOK_SECRET wins, and one Telegram would refuse stops the start naming the variable."""
    one = Settings.from_env({"TELEGRAM_BOT_TOKEN": "123:abc"})
    assert one.webhook_secret == Settings.from_env({"TELEGRAM_BOT_TOKEN": "123:abc"}).webhook_secret
    assert re.fullmatch(r"[A-Za-z0-9_-]{1,256}", one.webhook_secret)
    assert "abc" not in one.webhook_secret  # the token itself is not sent to whoever reads the header
    assert one.webhook_secret != Settings.from_env({"TELEGRAM_BOT_TOKEN": "124:abc"}).webhook_secret
    chosen = Settings.from_env({"TELEGRAM_BOT_TOKEN": "123:abc", "TELEGRAM_WEBHOOK_SECRET": "s3cret_-X"})
    assert chosen.webhook_secret == "s3cret_-X"
    for bad in ("has space", "é", "x" * 257, "a/b"):
        with pytest.raises(ConfigError) as error:
            Settings.from_env({"TELEGRAM_BOT_TOKEN": "123:abc", "TELEGRAM_WEBHOOK_SECRET": bad})
        assert error.value.name == "TELEGRAM_WEBHOOK_SECRET" and error.value.reason == "config.webhook_secret"


async def test_two_majlis_run_workers_both_handle_webhook_updates(tmp_path):
    """The same with real `majlis run` processes configured as README "Scale out" says (same .env but the port):
    a stand-in Bot API records setWebhook and the answers; updates go to each worker in turn with the secret it
    holds last, and each worker answers its own."""
    from aiohttp import web

    hooks: list[dict[str, Any]] = []
    answered: dict[int, asyncio.Event] = {}

    async def bot_api(request: web.Request) -> web.Response:
        method = request.match_info["method"]
        params = dict(await request.post()) if request.content_type != "application/json" else await request.json()
        if method == "getMe":
            return web.json_response({"ok": True, "result": {"id": 7000001, "is_bot": True, "first_name": "Majlis",
                                                             "username": "majlis_test_bot"}})
        if method == "setWebhook":
            hooks.append(params)
        if method == "sendMessage":
            chat = int(params["chat_id"])
            if chat in answered:
                answered[chat].set()
            return web.json_response({"ok": True, "result": {"message_id": 1, "date": 0, "text": params["text"],
                                                             "chat": {"id": chat, "type": "private"}}})
        return web.json_response({"ok": True, "result": True})

    app = web.Application()
    app.router.add_route("*", "/bot{token}/{method}", bot_api)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    api_port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    env = {key: value for key, value in os.environ.items() if not key.startswith(("TELEGRAM_", "DISCORD_"))}
    env.update(TELEGRAM_BOT_TOKEN="123456:TEST-TOKEN", TELEGRAM_BASE_URL=f"http://127.0.0.1:{api_port}",
               TELEGRAM_WEBHOOK_URL="https://bot.example/tg", TELEGRAM_WEBHOOK_LISTEN="127.0.0.1",
               PYTHONPATH=str(ROOT))
    ports = [free_port(), free_port()]
    workers = []
    try:
        for number, port in enumerate(ports):
            workers.append(await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot.cli", "run", cwd=tmp_path,
                env={**env, "TELEGRAM_WEBHOOK_PORT": str(port), "DATABASE_URL": str(tmp_path / f"w{number}.db")},
                stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE))
        for worker in workers:
            await asyncio.wait_for(running(worker), 60)
        assert len(hooks) == 2
        secret = hooks[-1]["secret_token"]
        for turn in range(4):
            chat = 60 + turn
            answered[chat] = asyncio.Event()
            sender = {"id": chat, "is_bot": False, "first_name": f"Player {turn}"}
            update = {"update_id": 100 + turn, "message": {
                "message_id": turn + 1, "date": 1, "from": sender, "chat": {**sender, "type": "private"},
                "text": "/help", "entities": [{"type": "bot_command", "offset": 0, "length": 5}]}}
            status = await asyncio.to_thread(status_of, f"http://127.0.0.1:{ports[turn % 2]}/tg", update, secret)
            assert status == 200, f"worker {turn % 2 + 1} answered {status}"
            await asyncio.wait_for(answered[chat].wait(), 30)
        assert hooks[0] == hooks[1], "both workers register the same webhook"
    finally:
        for worker in workers:
            if worker.returncode is None:
                worker.send_signal(signal.SIGTERM)
        for worker in workers:
            try:
                await asyncio.wait_for(worker.wait(), 30)
            except TimeoutError:
                worker.kill()
                await worker.wait()
        await runner.cleanup()


async def running(worker: asyncio.subprocess.Process) -> None:
    """Until the worker says it runs (its stderr is read on, so it never blocks on a full pipe)."""
    assert worker.stderr is not None
    seen = []
    while line := (await worker.stderr.readline()).decode(errors="replace"):
        seen.append(line)
        if "Majlis is running" in line:
            asyncio.get_running_loop().create_task(drain(worker.stderr))
            return
    raise AssertionError("a worker ended before it ran:\n" + "".join(seen))


async def drain(stream: asyncio.StreamReader) -> None:
    while await stream.readline():
        pass
