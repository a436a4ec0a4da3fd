"""Webhook mode: PTB's own webhook server on loopback registers with setWebhook and hands updates to the service."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import socket
import urllib.request
from typing import Any

from bot.service import Service
from bot.telegram_adapter import TelegramAdapter
from storage import Store
from tests.tg_harness import FakeTelegram, RecordingRequest, make_settings, user


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def post(url: str, body: dict, secret: str) -> int:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers={
        "Content-Type": "application/json", "X-Telegram-Bot-Api-Secret-Token": secret})
    with urllib.request.urlopen(request, timeout=5) as response:
        return response.status


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
