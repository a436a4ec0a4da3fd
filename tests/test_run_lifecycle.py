"""`majlis run` starts and stops cleanly (issue 10, point 7).

The real process is started against a local stand-in for the Telegram Bot API (`TELEGRAM_BASE_URL`), then sent
SIGTERM and SIGINT: it stops polling, closes its sessions and the database, and exits 0 without a traceback. A bogus
Discord token (the stand-in answers 401) fails with LoginFailure and leaves no unclosed HTTP session behind.
"""

from __future__ import annotations

import asyncio
import gc
import os
import random
import signal
import socket
import sys
from pathlib import Path

import aiohttp
import discord
import pytest
from aiohttp import web

import bot.runner
from bot.config import Settings
from bot.runner import run_platforms
from bot.service import Service

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "123456:TEST-TOKEN"
BOT = {"id": 7000001, "is_bot": True, "first_name": "Majlis", "username": "majlis_test_bot",
       "can_join_groups": True, "can_read_all_group_messages": False, "supports_inline_queries": False}


async def bot_api(request: web.Request) -> web.Response:
    method = request.match_info["method"]
    if method == "getMe":
        return web.json_response({"ok": True, "result": BOT})
    if method == "getUpdates":
        params = dict(await request.post()) if request.content_type != "application/json" else await request.json()
        if str(params.get("timeout", "0")) not in ("0", "0.0"):
            await asyncio.Event().wait()  # a long poll waits, as Telegram's would; stopping the bot cancels it
        return web.json_response({"ok": True, "result": []})  # the last call on stop marks updates as read
    return web.json_response({"ok": True, "result": True})


async def unauthorized(request: web.Request) -> web.Response:
    return web.json_response({"message": "401: Unauthorized", "code": 0}, status=401)


async def serve(handler, path: str) -> tuple[web.AppRunner, int]:
    app = web.Application()
    app.router.add_route("*", path, handler)
    # handler_cancellation: a long poll the stopping bot hangs up on ends with its connection; otherwise aiohttp's
    # cleanup waits its 60 s shutdown timeout for the handler (most of each signal test's minute, after the
    # process had exited).
    runner = web.AppRunner(app, handler_cancellation=True)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    return runner, port


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def wait_for_line(stream: asyncio.StreamReader, needle: str, seen: list[str]) -> None:
    while True:
        line = (await stream.readline()).decode(errors="replace")
        if not line:
            raise AssertionError("the process ended before saying: " + needle + "\n" + "".join(seen))
        seen.append(line)
        if needle in line:
            return


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGINT])
async def test_majlis_run_stops_cleanly_on_a_signal(tmp_path, stop_signal):
    runner, port = await serve(bot_api, "/bot{token}/{method}")
    env = {key: value for key, value in os.environ.items() if not key.startswith(("TELEGRAM_", "DISCORD_"))}
    metrics_port = free_port()
    env.update(TELEGRAM_BOT_TOKEN=TOKEN, TELEGRAM_BASE_URL=f"http://127.0.0.1:{port}",
               DATABASE_URL=str(tmp_path / "majlis.db"), PYTHONPATH=str(ROOT), PYTHONWARNINGS="always",
               MAJLIS_METRICS_PORT=str(metrics_port), MAJLIS_METRICS_LISTEN="127.0.0.1")
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.cli", "run", cwd=tmp_path, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    seen: list[str] = []
    try:
        await asyncio.wait_for(wait_for_line(process.stderr, "Majlis is running", seen), 60)
        # The operator's port (issue 30): ready, and the real Bot API calls counted through PTB's own HTTP client.
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://127.0.0.1:{metrics_port}/readyz") as response:
                assert (response.status, await response.text()) == (200, "database: ok\ntelegram: ok\n")
            async with session.get(f"http://127.0.0.1:{metrics_port}/metrics") as response:
                page = await response.text()
        assert 'majlis_platform_api_calls_total{method="getMe",outcome="ok",platform="telegram"} 1.0' in page
        assert TOKEN not in page
        process.send_signal(stop_signal)
        _, rest = await asyncio.wait_for(process.communicate(), 60)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        await runner.cleanup()
    err = "".join(seen) + (rest or b"").decode(errors="replace")
    assert process.returncode == 0, err
    assert "stopping" in err
    assert "threads take turns at most 0.5 ms apart" in err, "bot/interpreter.py: the database thread waits less"
    assert "Traceback" not in err and "Unclosed" not in err and "Task was destroyed" not in err, err


async def test_a_bogus_discord_token_fails_plainly_and_closes_its_session(tmp_path, monkeypatch):
    runner, port = await serve(unauthorized, "/{tail:.*}")
    monkeypatch.setattr(discord.http.Route, "BASE", f"http://127.0.0.1:{port}/api/v10")
    loop = asyncio.get_running_loop()
    reported: list[str] = []
    previous = loop.get_exception_handler()
    loop.set_exception_handler(lambda _, context: reported.append(str(context.get("message"))))
    monkeypatch.setattr(bot.runner, "Service",
                        lambda store, **settings: Service(store, seed_source=random.Random(1), **settings))
    settings = Settings(telegram_token=None, telegram_base_url=None, telegram_webhook_url=None,
                        telegram_webhook_port=8443, discord_token="bogus", discord_guild_id=None,
                        database_url=str(tmp_path / "majlis.db"))
    try:
        with pytest.raises(discord.LoginFailure):
            await run_platforms(settings)
        gc.collect()  # an unclosed aiohttp session reports itself when collected
    finally:
        loop.set_exception_handler(previous)
        await runner.cleanup()
    assert not [message for message in reported if "Unclosed" in message], reported
