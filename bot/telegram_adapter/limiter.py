"""Telegram's flood limits kept by every worker together: a python-telegram-bot rate limiter whose counts live in Redis.

Why a shared limiter rather than chat affinity. Several webhook workers sit behind one load balancer, and Telegram
posts every update of a chat to the one webhook URL, so the balancer cannot pin a chat to a worker without parsing
the update body. Even with such pinning, affinity would not be enough: a turn timer fires on whichever worker claims
it (`FOR UPDATE SKIP LOCKED`), a press on a private rack edits the group's table, and a killed worker's chats move to
another worker; all of these write to a chat from a worker that did not receive its last update. And the global
limit (about 30 messages a second per bot) is shared by all chats, which no routing can split. So each worker asks
one Redis before every request that names a chat, and Redis hands out send times that hold for all workers at once.

What is kept (defaults from Telegram's bot FAQ, each configurable):
- one request per chat per second (`chat_max_rate` per `chat_time_period`);
- 20 per minute per group or channel (negative or `@name` chat ids, as python-telegram-bot's AIORateLimiter tells
  groups apart), as a sliding window: no 21 requests to one group fall within any 60 seconds;
- 30 per second for the whole bot, as slots 1/30 s apart: no 31 requests fall within any second. Spreading them
  evenly costs at most a thirtieth of a second and lets the slot search stay a few lines of Lua.
Requests without a chat (answerCallbackQuery, getMe, setMyCommands) are not counted, as in AIORateLimiter.

How a send time is taken: one Lua script (atomic in Redis: no other worker's reservation runs in between) reads the
chat's last send time, the group's recent send times and the taken global slots, picks the earliest time that keeps
all three, records it and returns the wait. The worker sleeps that long and sends. Times come from Redis' own clock
(`TIME`), so workers whose clocks disagree still agree on the schedule; a worker only sleeps a duration.

RetryAfter (HTTP 429) is handled as AIORateLimiter handles it, but for all workers: the request is retried up to
`max_retries` times, and meanwhile every request of every worker waits out `retry_after` + 0.1 s (a pause time kept
in Redis). A request that was already scheduled for a time the pause now covers takes a new time after the pause.
A 429 that outlives the retries is passed on (the transport makes it `Busy`, which the service's delivery retries
on its own clock, and a press answers "busy"): it is logged as what it is, a WARNING line naming the method and
the wait Telegram asked for, not an ERROR with a traceback; a delivery that really gives up logs its own ERROR.

When Redis cannot be reached, requests go out unthrottled (logged): Telegram then answers excess with 429, which
the retry above and the service's delivery retries absorb; a Redis outage does not stop the bot.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from telegram import constants
from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter

if TYPE_CHECKING:
    from redis.asyncio import Redis

log = logging.getLogger(__name__)

RETRY_MARGIN = 0.1  # seconds added to Telegram's retry_after, as AIORateLimiter does
KEY_MARGIN_MS = 1000  # Redis keys outlive the last time they can matter by this much

# KEYS: 1 pause time, 2 global slots, 3 chat's last send, 4 group's send times
# ARGV: 1 now in ms (negative: Redis TIME), 2 count globally (0/1), 3 global rate, 4 global period ms,
#       5 count the chat (0/1), 6 chat spacing ms, 7 count the group (0/1), 8 group rate, 9 group period ms,
#       10 a unique member name for the group's set
# Returns {wait ms, send time ms}.
RESERVE = """
local now = tonumber(ARGV[1])
if now < 0 then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local at = now
local pause = tonumber(redis.call('GET', KEYS[1]) or '0')
if pause > at then at = pause end
local chat_spacing = tonumber(ARGV[6])
if ARGV[5] == '1' then
  local last = redis.call('GET', KEYS[3])
  if last then at = math.max(at, tonumber(last) + chat_spacing) end
end
local group_rate, group_period = tonumber(ARGV[8]), tonumber(ARGV[9])
if ARGV[7] == '1' then
  redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now - group_period)
  local newest = redis.call('ZREVRANGE', KEYS[4], 0, group_rate - 1, 'WITHSCORES')
  if #newest > 0 then at = math.max(at, tonumber(newest[2])) end
  if #newest >= 2 * group_rate then at = math.max(at, tonumber(newest[2 * group_rate]) + group_period) end
end
local rate, period = tonumber(ARGV[3]), tonumber(ARGV[4])
if ARGV[2] == '1' then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', math.floor(now * rate / period) - 1)
  local slot = math.ceil(at * rate / period)
  local taken = redis.call('ZRANGEBYSCORE', KEYS[2], slot, '+inf', 'WITHSCORES')
  for i = 2, #taken, 2 do
    local score = tonumber(taken[i])
    if score == slot then slot = slot + 1 elseif score > slot then break end
  end
  at = math.max(at, math.floor((slot * period + rate - 1) / rate))
  redis.call('ZADD', KEYS[2], slot, slot)
  redis.call('PEXPIRE', KEYS[2], at - now + period + 1000)
end
if ARGV[5] == '1' then
  redis.call('SET', KEYS[3], at, 'PX', at - now + chat_spacing + 1000)
end
if ARGV[7] == '1' then
  redis.call('ZADD', KEYS[4], at, ARGV[10])
  redis.call('PEXPIRE', KEYS[4], at - now + group_period + 1000)
end
return {at - now, at}
"""

# KEYS: 1 pause time. ARGV: 1 now in ms (negative: Redis TIME), 2 pause length ms. Returns the pause's end.
PAUSE = """
local now = tonumber(ARGV[1])
if now < 0 then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local till = now + tonumber(ARGV[2])
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if till > current then
  redis.call('SET', KEYS[1], till, 'PX', till - now + 1000)
  return till
end
return current
"""


@dataclass(frozen=True)
class Target:
    """What one request counts against: the chat (its id as a key), whether that chat is a group."""

    chat: str | None
    group: bool

    @classmethod
    def of(cls, data: dict[str, Any]) -> Target:
        """As AIORateLimiter reads `data`: any `chat_id` counts globally; a negative id or a `@name` is a group or
        channel."""
        chat_id = data.get("chat_id")
        if chat_id is None:
            return cls(None, False)
        with contextlib.suppress(ValueError, TypeError):
            chat_id = int(chat_id)
        return cls(str(chat_id), (isinstance(chat_id, int) and chat_id < 0) or isinstance(chat_id, str))


class RetryingLimiter(BaseRateLimiter[int]):
    """The request loop both of Majlis' limiters share: wait for a send time, send, and on a 429 hold every request
    back for the wait Telegram asks and retry, up to `max_retries` times. Subclasses keep the schedule."""

    max_retries: int

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, bool | dict[str, Any] | list[dict[str, Any]]]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> bool | dict[str, Any] | list[dict[str, Any]]:
        max_retries = rate_limit_args or self.max_retries
        target = Target.of(data)
        for attempt in range(max_retries + 1):
            await self._wait_turn(target)
            try:
                return await callback(*args, **kwargs)
            except RetryAfter as error:
                seconds = _seconds(error) + RETRY_MARGIN
                if attempt == max_retries:
                    # Not a failure yet: the caller retries on its own clock (a delivery) or says "busy" (a press).
                    log.warning("Telegram still asks %s to wait %.1f s after %d retries; passing the 429 on",
                                endpoint, _seconds(error), max_retries)
                    raise
                log.info("Rate limit hit (%s). Every request waits %.1f s", endpoint, seconds)
                await self._hold_everyone(seconds)
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def _wait_turn(self, target: Target) -> None:
        """Sleep until `target` may be sent to, its send counted."""
        raise NotImplementedError

    async def _hold_everyone(self, seconds: float) -> None:
        """Every request from now waits `seconds`."""
        raise NotImplementedError


class SharedRateLimiter(RetryingLimiter):
    """A `BaseRateLimiter` whose schedule is kept in Redis, so N workers together stay within Telegram's limits.

    `clock` (seconds) replaces Redis' `TIME` and `sleep` replaces `asyncio.sleep`: tests drive the schedule by hand.
    `rate_limit_args`, as in AIORateLimiter, overrides `max_retries` for one call.
    """

    def __init__(
        self,
        redis: Redis,
        *,
        prefix: str = "majlis:telegram:",
        overall_max_rate: int = constants.FloodLimit.MESSAGES_PER_SECOND,
        overall_time_period: float = 1.0,
        group_max_rate: int = constants.FloodLimit.MESSAGES_PER_MINUTE_PER_GROUP,
        group_time_period: float = 60.0,
        chat_max_rate: int = constants.FloodLimit.MESSAGES_PER_SECOND_PER_CHAT,
        chat_time_period: float = 1.0,
        max_retries: int = 0,
        clock: Callable[[], float] | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        owns_client: bool = False,
    ) -> None:
        for name, value in (("overall_max_rate", overall_max_rate), ("group_max_rate", group_max_rate),
                            ("chat_max_rate", chat_max_rate)):
            if value < 1:
                raise ValueError(f"{name} must be at least 1, got {value}")
        for name, period in (("overall_time_period", overall_time_period), ("group_time_period", group_time_period),
                             ("chat_time_period", chat_time_period)):
            if period < 0.001:
                raise ValueError(f"{name} must be at least a millisecond, got {period}")
        self.redis = redis
        self.prefix = prefix
        self.overall = (int(overall_max_rate), _ms(overall_time_period))
        self.group = (int(group_max_rate), _ms(group_time_period))
        self.chat_spacing_ms = _ms(chat_time_period / chat_max_rate)
        self.max_retries = max_retries
        self.clock = clock
        self.sleep = sleep
        self.owns_client = owns_client
        # Redis is imported by a shared limiter only: the in-process one (local_limiter.py, built on this module's
        # RetryingLimiter) runs every single-worker bot, which would otherwise carry the client's ~6 MiB.
        from redis.exceptions import RedisError

        self._unreachable: type[Exception] = RedisError
        self._reserve = redis.register_script(RESERVE)
        self._pause = redis.register_script(PAUSE)
        self._warned_at = -1e9

    @classmethod
    def from_url(cls, url: str, **options: Any) -> SharedRateLimiter:
        """A limiter with its own Redis client (closed by `shutdown`), e.g. from MAJLIS_REDIS_URL."""
        from redis.asyncio import Redis

        return cls(Redis.from_url(url), owns_client=True, **options)

    async def initialize(self) -> None:
        """Check Redis once at start, so a wrong URL is logged when the bot starts rather than at the first send."""
        try:
            await self.redis.ping()
        except self._unreachable:
            log.warning("Redis for the shared Telegram rate limiter is unreachable; sending unthrottled until it is",
                        exc_info=True)

    async def shutdown(self) -> None:
        if self.owns_client:
            await self.redis.aclose()

    # ------------------------------------------------------------------------------------------------ internals
    def _now_ms(self) -> int:
        return -1 if self.clock is None else _ms(self.clock())

    def _keys(self, target: Target) -> list[str]:
        chat = target.chat or "-"
        return [self.prefix + "pause", self.prefix + "slots", self.prefix + "chat:" + chat,
                self.prefix + "group:" + chat]

    async def _wait_turn(self, target: Target) -> None:
        """Take a send time from Redis and sleep until it; again if a pause began meanwhile and covers it."""
        counted = "1" if target.chat is not None else "0"
        group = "1" if target.group else "0"
        while True:
            try:
                wait_ms, at = await self._reserve(keys=self._keys(target), args=[
                    self._now_ms(), counted, self.overall[0], self.overall[1], counted, self.chat_spacing_ms,
                    group, self.group[0], self.group[1], uuid.uuid4().hex])
            except self._unreachable:
                self._warn_unreachable()
                return
            await self.sleep(int(wait_ms) / 1000)
            if int(wait_ms) == 0:
                return  # just checked: no pause covers now
            try:
                pause = await self.redis.get(self.prefix + "pause")
            except self._unreachable:
                self._warn_unreachable()
                return
            if pause is None or int(pause) <= int(at):
                return

    async def _hold_everyone(self, seconds: float) -> None:
        try:
            await self._pause(keys=[self.prefix + "pause"], args=[self._now_ms(), _ms(seconds)])
        except self._unreachable:
            self._warn_unreachable()
            await self.sleep(seconds)  # this worker at least waits, as AIORateLimiter would

    def _warn_unreachable(self) -> None:
        """Log at most once a minute: a Redis outage would otherwise log on every message."""
        now = time.monotonic()
        if now - self._warned_at >= 60:
            self._warned_at = now
            log.warning("Redis for the shared Telegram rate limiter is unreachable; sending unthrottled",
                        exc_info=True)


def _ms(seconds: float) -> int:
    return int(round(seconds * 1000))


def _seconds(error: RetryAfter) -> float:
    value = error.retry_after
    return float(value.total_seconds()) if hasattr(value, "total_seconds") else float(value)
