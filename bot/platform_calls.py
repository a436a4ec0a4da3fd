"""Counting every call the bot makes to a platform's API, by method and outcome (bot/metrics.py's api_calls).

Telegram: a python-telegram-bot `BaseRequest` around the real one (`MeteredRequest`): every HTTP request the Bot
API client makes goes through `do_request`, which sees the HTTP status itself, so a 429 that PTB's rate limiter
then waits out and retries is counted as the 429 it was, and the retry as the next call.

Discord: discord.py's `HTTPClient.request`, the one entry of the bot's REST calls (`meter_discord`). discord.py
waits out most 429s inside it, so a call counted `429` here is one it gave up waiting for. (Interaction responses
go through discord.py's webhook adapter instead and are not counted.)

The method label is the Bot API method name (`sendMessage`) or discord.py's route template
(`PATCH /channels/{channel_id}/messages/{message_id}`): a fixed set, and never the token the URL carries.
"""

from __future__ import annotations

import asyncio
import functools
import re
from collections.abc import Awaitable, Callable
from typing import Any

from telegram.error import TimedOut
from telegram.request import BaseRequest, RequestData

from bot.metrics import Metrics

BOT_API_METHOD = re.compile(r"[A-Za-z]{1,64}")


def outcome_of_status(status: int) -> str:
    if 200 <= status < 300:
        return "ok"
    if status == 429:
        return "429"
    if 400 <= status < 500:
        return "4xx"
    if status >= 500:
        return "5xx"
    return "error"


def bot_api_method(url: str) -> str:
    """`https://api.telegram.org/bot<token>/sendMessage` -> `sendMessage`; anything else (a file download's path)
    -> `other`."""
    name = url.rstrip("/").rsplit("/", 1)[-1]
    return name if BOT_API_METHOD.fullmatch(name) else "other"


class MeteredRequest(BaseRequest):
    """A `BaseRequest` that hands every request to `inner` and counts its method and outcome."""

    def __init__(self, inner: BaseRequest, metrics: Metrics, platform: str = "telegram") -> None:
        self.inner = inner
        self.metrics = metrics
        self.platform = platform

    @property
    def read_timeout(self) -> float | None:
        return self.inner.read_timeout

    async def initialize(self) -> None:
        await self.inner.initialize()

    async def shutdown(self) -> None:
        await self.inner.shutdown()

    async def do_request(self, url: str, method: str, request_data: RequestData | None = None,
                         read_timeout: Any = BaseRequest.DEFAULT_NONE, write_timeout: Any = BaseRequest.DEFAULT_NONE,
                         connect_timeout: Any = BaseRequest.DEFAULT_NONE,
                         pool_timeout: Any = BaseRequest.DEFAULT_NONE) -> tuple[int, bytes]:
        name = bot_api_method(url)
        try:
            code, payload = await self.inner.do_request(url, method, request_data, read_timeout=read_timeout,
                                                        write_timeout=write_timeout, connect_timeout=connect_timeout,
                                                        pool_timeout=pool_timeout)
        except (TimedOut, TimeoutError):
            self.metrics.api_call(self.platform, name, "timeout")
            raise
        except BaseException as error:
            if not isinstance(error, asyncio.CancelledError):
                self.metrics.api_call(self.platform, name, "error")
            raise
        self.metrics.api_call(self.platform, name, outcome_of_status(code))
        return code, payload


def meter_discord(http: Any, metrics: Metrics) -> None:
    """Count each REST call of a discord.py `HTTPClient` (its `request`, wrapped in place; once)."""
    import aiohttp
    import discord

    request: Callable[..., Awaitable[Any]] = http.request
    if getattr(request, "majlis_metered", False):
        return

    @functools.wraps(request)
    async def metered(route: Any, *args: Any, **kwargs: Any) -> Any:
        name = f"{route.method} {route.path}"
        try:
            result = await request(route, *args, **kwargs)
        except discord.HTTPException as error:
            metrics.api_call("discord", name, outcome_of_status(error.status))
            raise
        except discord.RateLimited:
            metrics.api_call("discord", name, "429")
            raise
        except (TimeoutError, aiohttp.ServerTimeoutError):
            metrics.api_call("discord", name, "timeout")
            raise
        except Exception:
            metrics.api_call("discord", name, "error")
            raise
        metrics.api_call("discord", name, "ok")
        return result

    metered.majlis_metered = True  # type: ignore[attr-defined]
    http.request = metered
