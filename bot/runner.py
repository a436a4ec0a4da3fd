"""Start every configured platform adapter around one service and one database (issue: one process, both)."""

from __future__ import annotations

import asyncio
import logging
from typing import Protocol

from bot.config import Settings
from bot.service import Service
from storage import Store

log = logging.getLogger(__name__)


class Adapter(Protocol):
    """A platform adapter: attaches its transport to the service, then runs until stopped."""

    async def start(self) -> None: ...

    async def stop(self) -> None: ...


def build_adapters(service: Service, settings: Settings) -> list[Adapter]:
    adapters: list[Adapter] = []
    if settings.telegram_token:
        from bot.telegram_adapter import TelegramAdapter

        adapters.append(TelegramAdapter(service, settings))
    if settings.discord_token:
        from bot.discord_adapter import DiscordAdapter

        adapters.append(DiscordAdapter(service, settings))
    return adapters


async def run_platforms(settings: Settings) -> None:
    store = await Store.open(settings.database_url)
    service = Service(store)
    adapters = build_adapters(service, settings)
    started: list[Adapter] = []
    try:
        await service.warm_up()
        for adapter in adapters:
            await adapter.start()
            started.append(adapter)
        await service.resume()
        log.info("Majlis is running on %d platform(s); Ctrl-C stops it", len(started))
        await service.run_timers()
    except asyncio.CancelledError:
        pass
    finally:
        for adapter in reversed(started):
            try:
                await adapter.stop()
            except Exception:
                log.exception("stopping %s failed", type(adapter).__name__)
        await store.close()
