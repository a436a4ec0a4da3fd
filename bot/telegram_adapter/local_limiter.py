"""One Telegram worker's rate limiter (no MAJLIS_REDIS_URL): Telegram's limits kept in this process, the per-group
window also in the database, so a restart does not forget it.

Why not python-telegram-bot's AIORateLimiter, as before: its buckets live in memory only, so a bot restarted within
a minute of sending a group 20 messages started empty and sent 20 more (measured: 47 of the 49 groups that passed
20 sends a minute did so across a restart), and Telegram answered with 429s. Here every request to a group is
written to the `recent_sends` table (storage/sends.py), in batches (`flush_every`, default a second) from a task of
its own so a send never waits for the database; a worker that starts reads the last minute back (`initialize`).
A worker killed outright loses at most the last batch. Several workers share a Redis instead
(bot/telegram_adapter/limiter.py), whose keys outlive a worker on their own.

What is kept, as the shared limiter keeps it:
- one request per private chat per second (`chat_max_rate` per `chat_time_period`); a group keeps the 20 a minute
  below, within which a burst goes at once (as AIORateLimiter lets it: a table and its round's score sheet);
- 20 requests per minute per group or channel, as a sliding window: no 21 within any 60 seconds;
- 30 per second for the whole bot, as slots 1/30 s apart.
Requests without a chat are not counted. A 429 is retried as the shared limiter does (`RetryingLimiter`).

Priorities (bot/messages.py `Priority`, read from the sender's context): when more is asked than the bot's 30 a
second, the slots go to the waiting requests in priority order — the rack of the player to move, then replies and
the mover's rack, then tables, pings last — each priority first come, first served, skipping a request whose chat
or group must wait anyway. So past the budget the screens fall behind in that order instead of all together (issue
27; bench/pipeline.py --limits telegram shows it). A send with nothing waiting before it goes at once; the others
wait on a future that one dispatcher task sets when their slot comes. The shared limiter (several workers, Redis)
takes its send times first come, first served.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from telegram import constants

from bot.messages import SEND_PRIORITY
from bot.telegram_adapter.limiter import RetryingLimiter, Target

log = logging.getLogger(__name__)

PLATFORM = "telegram"
FLUSH_EVERY = 1.0  # seconds between two writes of the sends made meanwhile
CHATS_KEPT = 10_000  # chats' last send times kept before the ones that no longer count are dropped


@dataclass(eq=False)
class _Waiter:
    """A request waiting for its send time: the dispatcher sets `future` to the time it was let go."""

    target: Target
    future: asyncio.Future[float]


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
        chat_max_rate: int = constants.FloodLimit.MESSAGES_PER_SECOND_PER_CHAT,
        chat_time_period: float = 1.0,
        max_retries: int = 0,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        flush_every: float = FLUSH_EVERY,
    ) -> None:
        if overall_max_rate < 1 or group_max_rate < 1 or chat_max_rate < 1:
            raise ValueError("rates must be at least 1")
        self.sends = sends
        self.platform = platform
        self.overall = (int(overall_max_rate), float(overall_time_period))
        self.group = (int(group_max_rate), float(group_time_period))
        self.max_retries = max_retries
        self.clock = clock
        self.sleep = sleep
        self.flush_every = flush_every
        self.chat_spacing = float(chat_time_period) / chat_max_rate
        self._pause_until = 0.0
        self._last_slot = -math.inf  # the bot's newest slot taken (slot n is the time n * period / rate)
        self._chats: dict[str, float] = {}  # chat -> its last send time
        self._queues: dict[int, deque[_Waiter]] = {}  # priority -> the requests waiting, oldest first
        self._arrived = asyncio.Event()
        self._dispatcher: asyncio.Task[None] | None = None
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
        if self._dispatcher is not None and not self._dispatcher.done():
            self._dispatcher.cancel()
        if self._writing is not None and not self._writing.done():
            self._writing.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._writing
        await self._write()

    # ------------------------------------------------------------------------------------------------ schedule
    def _ready_at(self, target: Target, now: float) -> float:
        """The earliest time `target`'s chat and group limits allow a send (the bot's slot aside)."""
        assert target.chat is not None
        if not target.group:
            return self._chats.get(target.chat, -math.inf) + self.chat_spacing
        at = -math.inf
        if target.group:
            group_rate, group_period = self.group
            times = self._groups.get(target.chat)
            if times:
                while times and times[0] <= now - group_period:
                    times.pop(0)
                if len(times) >= group_rate:
                    at = max(at, times[-group_rate] + group_period)
        return at

    def _slot(self, now: float) -> tuple[int, float]:
        """The bot's next free slot (slot n is the time n * period / rate, each taken once) and its time."""
        rate, period = self.overall
        slot = max(math.ceil(now * rate / period), self._last_slot + 1)
        return slot, slot * period / rate

    def _take(self, target: Target, now: float, slot: int) -> None:
        """Count a send to `target` now in slot `slot`: nothing else runs between the check and this (no await)."""
        assert target.chat is not None
        self._last_slot = slot
        if not target.group:
            self._chats[target.chat] = now
        if len(self._chats) > CHATS_KEPT:  # chats quiet for longer than the spacing no longer count
            self._chats = {chat: at for chat, at in self._chats.items() if at > now - self.chat_spacing}
        if target.group:
            self._groups.setdefault(target.chat, []).append(now)
            self._pending.append((target.chat, now))
            self._write_soon()

    def _queued(self) -> bool:
        return any(self._queues.values())

    async def _wait_turn(self, target: Target) -> None:
        """Wait until `target` may be sent to, its send counted. A send that may go now and finds no one waiting
        goes at once; otherwise it waits in its priority's queue (`SEND_PRIORITY` of the caller's context) and the
        dispatcher hands the bot's slots out, highest priority first among those their chat and group allow."""
        while True:
            now = self.clock()
            if self._pause_until > now:
                await self.sleep(self._pause_until - now)
                continue
            if target.chat is None:
                return
            slot, at = self._slot(now)
            if not self._queued() and at <= now and self._ready_at(target, now) <= now:
                self._take(target, now, slot)
                return
            waiter = _Waiter(target, asyncio.get_running_loop().create_future())
            queue = self._queues.setdefault(int(SEND_PRIORITY.get()), deque())
            queue.append(waiter)
            self._arrived.set()
            if self._dispatcher is None or self._dispatcher.done():
                self._dispatcher = asyncio.create_task(self._dispatch(), name="rate limiter: dispatcher")
            try:
                granted = await waiter.future
            except BaseException:  # the caller was cancelled while waiting: its place is given up
                waiter.future.cancel()
                with contextlib.suppress(ValueError):
                    queue.remove(waiter)
                raise
            if self._pause_until <= granted:
                return  # no pause began meanwhile that covers the time this request took

    async def _dispatch(self) -> None:
        """Hand out the bot's slots while requests wait: at each slot the first waiting request, highest priority
        first, that its chat's and group's limits let go now; none: sleep until one may, or a new one comes."""
        while self._queued():
            now = self.clock()
            if self._pause_until > now:
                await self.sleep(self._pause_until - now)
                continue
            slot, at = self._slot(now)
            if at > now:  # this slot is the next one's to take, whoever waits when it comes
                await self.sleep(at - now)
                now = max(self.clock(), at)
                if self._pause_until > now:
                    continue
            waiter, soonest = self._pick(now)
            if waiter is not None:
                self._take(waiter.target, now, slot)
                waiter.future.set_result(now)
                continue
            self._arrived.clear()
            sleeper = asyncio.ensure_future(self.sleep(max(0.0, soonest - now)))
            arrival = asyncio.ensure_future(self._arrived.wait())
            try:
                await asyncio.wait({sleeper, arrival}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for task in (sleeper, arrival):
                    task.cancel()

    def _pick(self, now: float) -> tuple[_Waiter | None, float]:
        """The waiting request to send now (taken off its queue), or None and the soonest time one may go."""
        soonest = math.inf
        for priority in sorted(self._queues):
            queue = self._queues[priority]
            for index, waiter in enumerate(queue):
                if waiter.future.done():
                    continue
                ready = self._ready_at(waiter.target, now)
                if ready <= now:
                    del queue[index]
                    return waiter, now
                soonest = min(soonest, ready)
        return None, soonest

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
