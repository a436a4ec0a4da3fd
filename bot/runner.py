"""Start every configured platform adapter around one service and one database (issue: one process, both)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
from typing import TYPE_CHECKING, Protocol

from bot.config import Settings
from bot.core.pictures import default_processes
from bot.drain import drain, drain_seconds, pid_file, remove_pid_file, write_pid_file
from bot.heap import freeze_startup_heap
from bot.interpreter import share_the_interpreter
from bot.messages import Transport
from bot.service import Service
from storage import Store

if TYPE_CHECKING:
    from bot.ops_server import Check, OpsServer

log = logging.getLogger(__name__)
CLOSE_SECONDS = 5.0  # after the drain: closing the service (its last deliveries) waits at most this long


class Adapter(Protocol):
    """A platform adapter: attaches its transport to the service, then runs until stopped."""

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    def connected(self) -> bool: ...

    @property
    def transport(self) -> Transport: ...


def build_adapters(service: Service, settings: Settings) -> list[Adapter]:
    adapters: list[Adapter] = []
    if settings.telegram_token:
        from bot.telegram_adapter import TelegramAdapter

        adapters.append(TelegramAdapter(service, settings))
    if settings.discord_token:
        from bot.discord_adapter import DiscordAdapter

        adapters.append(DiscordAdapter(service, settings))
    return adapters


def ops_server(service: Service, store: Store, adapters: list[Adapter], settings: Settings) -> OpsServer | None:
    """The /metrics, /healthz and /readyz server on MAJLIS_METRICS_PORT (None when it is not set): ready when the
    database answers and every configured platform is connected."""
    if settings.metrics_port is None:
        return None
    from bot.ops_server import OpsServer  # aiohttp's server: imported only by a bot that serves the port

    checks: dict[str, Check] = {"database": store.ping}
    for adapter in adapters:
        checks[adapter.transport.platform] = adapter.connected
    return OpsServer(service.metrics, checks, host=settings.metrics_listen, port=settings.metrics_port)


async def run_platforms(settings: Settings) -> None:
    """Run until SIGTERM or SIGINT (or Ctrl-C, or `majlis drain`), then drain (bot/drain.py: no new tables, the
    moves under way and their screens finish, within MAJLIS_DRAIN_SECONDS) and close the HTTP sessions and the
    database. A clean stop returns normally (exit code 0)."""
    store = await Store.open(settings.database_url)
    # MAJLIS_TEST_BOT_DELAY: seconds each bot waits before its move, for the multi-worker tests only
    # (tests/test_workers_telegram.py): a worker can then be killed between a human's commit and the bots' replies.
    service = Service(store, coin_grants=settings.coin_grants, operators=settings.operators,
                      render_processes=default_processes(), queue_waits=dict(settings.queue_waits),
                      bot_delay=float(os.environ.get("MAJLIS_TEST_BOT_DELAY") or 0))
    adapters = build_adapters(service, settings)
    started: list[Adapter] = []
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    handled = []
    for number in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(number, stopping.set)
            handled.append(number)
        except (NotImplementedError, RuntimeError):  # not the main thread, or a platform without signals
            pass
    timers: asyncio.Task[None] | None = None
    pids = pid_file()
    drained = False
    ops = ops_server(service, store, adapters, settings)
    try:
        write_pid_file(pids)
        if ops is not None:  # first: /healthz answers while the pictures warm up, /readyz once all is connected
            await ops.start()
        await service.warm_up()
        for adapter in adapters:
            # Counted before it starts: an adapter that fails half-way (a bad token after its HTTP session opened)
            # is stopped too, so nothing is left unclosed.
            started.append(adapter)
            await adapter.start()
        # The timer loop first: the turn timers that fall due meanwhile must not wait for resume's deliveries
        # (a whole backlog through the platforms' rate limits); the two share the matches' locks.
        timers = asyncio.create_task(service.run_timers(), name="timers")
        await service.resume()
        share_the_interpreter()
        log.info("threads take turns at most %.1f ms apart (bot/interpreter.py)", sys.getswitchinterval() * 1000)
        log.info("%d objects of the started bot left out of garbage collection", freeze_startup_heap())
        log.info("Majlis is running on %d platform(s); Ctrl-C stops it", len(started))
        stop = asyncio.create_task(stopping.wait(), name="stop-signal")
        await asyncio.wait({timers, stop}, return_when=asyncio.FIRST_COMPLETED)
        stop.cancel()
        log.info("stopping")
        in_time = await drain(service, list(reversed(started)), timers, drain_seconds())
        drained = True  # the adapters are stopped
        if not in_time and timers is not None:
            timers.cancel()  # its deliveries had their time (their marks bring them back after the restart)
    except asyncio.CancelledError:
        pass
    finally:
        for number in handled:
            loop.remove_signal_handler(number)
        service.stop_timers()
        if timers is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await timers
        if not drained:  # a start that failed half-way, or a second Ctrl-C: stop at once
            for adapter in reversed(started):
                try:
                    await adapter.stop()
                except Exception:
                    log.exception("stopping %s failed", type(adapter).__name__)
        try:  # what the drain left running has had its time: its screens are owed in the database
            await asyncio.wait_for(service.close(), CLOSE_SECONDS)
        except TimeoutError:
            service.pictures.close()
        if ops is not None:
            await ops.stop()
        await store.close()
        remove_pid_file(pids)
