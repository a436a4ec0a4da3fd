"""One Telegram worker's rate limiter (no MAJLIS_REDIS_URL): Telegram's limits kept in this process, the per-group
window also in the database, so a restart does not forget it.

Why not python-telegram-bot's AIORateLimiter, as before: its buckets live in memory only, so a bot restarted within
a minute of sending a group 20 messages started empty and sent 20 more (measured: 47 of the 49 groups that passed
20 sends a minute did so across a restart), and Telegram answered with 429s. Here every request to a group is
written to the `recent_sends` table (storage/sends.py), in batches (`flush_every`, default a second) from a task of
its own so a send never waits for the database; a worker that starts reads the last minute back (`initialize`).
A worker killed outright loses at most the last batch. Several workers share a Redis instead
(bot/telegram_adapter/limiter.py), whose keys outlive a worker on their own.

What is kept, as the shared limiter keeps it (and as AIORateLimiter did, there without a per-chat spacing):
- 20 requests per minute per group or channel, as a sliding window: no 21 within any 60 seconds;
- 30 per second for the whole bot, as slots 1/30 s apart.
Requests without a chat are not counted. A 429 is retried as the shared limiter does (`RetryingLimiter`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Awaitable, Callable
from typing import Protocol

from telegram import constants

from bot.telegram_adapter.limiter import RetryingLimiter, Target

log = logging.getLogger(__name__)

PLATFORM = "telegram"
FLUSH_EVERY = 1.0  # seconds between two writes of the sends made meanwhile


class SendLog(Protocol):
    """Where the group sends are kept (a `Store`)."""

    async def record_sends(self, platform: str, sends: list[tuple[str, float]], forget_before: float) -> None: ...

    async def recent_sends(self, platform: str, since: float) -> dict[str, list[float]]: ...


class LocalRateLimiter(RetryingLimiter):
    """`clock` is wall-clock seconds (the times written must mean the same after a restart); `sleep` replaces
    `asyncio.sleep` (tests). Without `sends` nothing is written or read: limits in memory only."""

    def __init__(
        self,
        sends: SendLog | None = None,
        *,
        platform: str = PLATFORM,
        overall_max_rate: int = constants.FloodLimit.MESSAGES_PER_SECOND,
        overall_time_period: float = 1.0,
        group_max_rate: int = constants.FloodLimit.MESSAGES_PER_MINUTE_PER_GROUP,
        group_time_period: float = 60.0,
        max_retries: int = 0,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        flush_every: float = FLUSH_EVERY,
    ) -> None:
        if overall_max_rate < 1 or group_max_rate < 1:
            raise ValueError("rates must be at least 1")
        self.sends = sends
        self.platform = platform
        self.overall = (int(overall_max_rate), float(overall_time_period))
        self.group = (int(group_max_rate), float(group_time_period))
        self.max_retries = max_retries
        self.clock = clock
        self.sleep = sleep
        self.flush_every = flush_every
        self._pause_until = 0.0
        self._slots: set[int] = set()  # global slots taken (slot n is the time n * period / rate)
        self._groups: dict[str, list[float]] = {}  # group -> its send times in the window, oldest first
        self._pending: list[tuple[str, float]] = []  # group sends not written yet
        self._flushed_at = -math.inf
        self._writing: asyncio.Task[None] | None = None
        self._warned_at = -math.inf

    async def initialize(self) -> None:
        """Read back the sends of the last window, as the worker that ran before this one wrote them."""
        if self.sends is None:
            return
        now = self.clock()
        try:
            recent = await self.sends.recent_sends(self.platform, now - self.group[1])
        except Exception:
            log.warning("could not read the recent group sends; the per-group limit starts empty", exc_info=True)
            return
        for chat, times in recent.items():
            merged = sorted([*self._groups.get(chat, []), *times])
            self._groups[chat] = merged
        if recent:
            log.info("rate limiter: %d group(s) sent to within the last minute", len(recent))

    async def shutdown(self) -> None:
        """Write what is pending now (a clean stop loses nothing)."""
        if self._writing is not None and not self._writing.done():
            self._writing.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._writing
        await self._write()

    # ------------------------------------------------------------------------------------------------ schedule
    def _reserve(self, target: Target) -> float:
        """The earliest send time that keeps every limit for `target`, taken (counted) at once: nothing else runs
        between the reading and the taking (no await), as Redis' script is atomic for the shared limiter."""
        now = self.clock()
        at = max(now, self._pause_until)
        if target.chat is None:
            return at
        group_rate, group_period = self.group
        times: list[float] = []
        if target.group:
            times = [moment for moment in self._groups.get(target.chat, []) if moment > now - group_period]
            if times:
                at = max(at, times[-1])
            if len(times) >= group_rate:
                at = max(at, times[-group_rate] + group_period)
        rate, period = self.overall
        floor = math.floor(now * rate / period) - 1
        self._slots = {slot for slot in self._slots if slot >= floor}
        slot = math.ceil(at * rate / period)
        while slot in self._slots:
            slot += 1
        self._slots.add(slot)
        at = max(at, slot * period / rate)
        if target.group:
            times.append(at)
            self._groups[target.chat] = times
            self._pending.append((target.chat, at))
        return at

    async def _wait_turn(self, target: Target) -> None:
        while True:
            at = self._reserve(target)
            if target.group:
                self._write_soon()
            wait = at - self.clock()
            if wait <= 0:
                return
            await self.sleep(wait)
            if self._pause_until <= at:
                return  # no pause began meanwhile that covers the time this request took

    async def _hold_everyone(self, seconds: float) -> None:
        self._pause_until = max(self._pause_until, self.clock() + seconds)

    # ------------------------------------------------------------------------------------------------ storage
    def _write_soon(self) -> None:
        """Have the pending sends written within `flush_every`, by a task of its own: a send never waits for the
        database (nor joins a transaction its caller may hold open)."""
        if self.sends is None or not self._pending:
            return
        if self._writing is None or self._writing.done():
            self._writing = asyncio.create_task(self._writer(), name="rate limiter: recent sends")

    async def _writer(self) -> None:
        """Write batches, at most one per `flush_every`, until nothing is pending (or the database fails: the
        next send tries again)."""
        while self._pending:
            delay = self._flushed_at + self.flush_every - self.clock()
            if delay > 0:
                await asyncio.sleep(delay)
            if not await self._write():
                return

    async def _write(self) -> bool:
        if self.sends is None or not self._pending:
            return True
        batch, self._pending = self._pending, []
        now = self.clock()
        self._flushed_at = now
        since = now - self.group[1]
        # Groups quiet for a whole window are forgotten here too: their times no longer count for anything.
        self._groups = {chat: times for chat, times in self._groups.items() if times and times[-1] > since}
        try:
            await self.sends.record_sends(self.platform, batch, forget_before=since)
        except asyncio.CancelledError:  # shutdown: it writes them itself
            self._pending[:0] = batch
            raise
        except Exception:
            # Written with the next batch, as far as they still count then.
            self._pending[:0] = [(chat, at) for chat, at in batch if at > since]
            if now - self._warned_at >= 60:
                self._warned_at = now
                log.warning("could not keep the recent group sends in the database (kept in memory)",
                            exc_info=True)
            return False
        return True
