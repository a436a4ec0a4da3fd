"""Two Telegram workers writing to one group through the Redis-backed rate limiter keep Telegram's limits together.

Each worker is a real python-telegram-bot `ExtBot` with its own `SharedRateLimiter` and its own `RecordingRequest`,
both talking to one `FakeTelegram`; only the Redis between the limiters is shared, as between two processes. Time is
the hand-moved `Clock`: the limiters read it instead of Redis' clock, and their `sleep` does not wait but notes when
the request it holds back may go. The server stamps every call with that moment, so the checks read exactly the
times at which the two workers' requests would have reached Telegram.

Needs a Redis: MAJLIS_TEST_REDIS_URL (e.g. redis://127.0.0.1:6379/0; .ci/run sets it); each test uses keys of its
own and deletes them.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import os
import random
import uuid
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any

import pytest
from redis.asyncio import Redis
from telegram.ext import ExtBot

from bot.telegram_adapter import TelegramAdapter
from bot.telegram_adapter.limiter import SharedRateLimiter
from bot.telegram_adapter.local_limiter import LocalRateLimiter
from tests.clock import Clock
from tests.tg_harness import GROUP_ID, Call, FakeTelegram, RecordingRequest, make_settings

ENV = "MAJLIS_TEST_REDIS_URL"
SKIP_REASON = f"shared rate limiter tests need a Redis: {ENV}=redis://127.0.0.1:6379/0 (.ci/run sets it)"
TOKEN = "123456:TEST-TOKEN"

released_at: contextvars.ContextVar[float | None] = contextvars.ContextVar("released_at", default=None)
worker_name: contextvars.ContextVar[str] = contextvars.ContextVar("worker_name", default="?")


class Sent:
    """What the server saw: (time, worker, chat) of every call that named a chat."""

    def __init__(self, server: FakeTelegram, clock: Clock) -> None:
        self.rows: list[tuple[float, str, str]] = []
        self.clock = clock
        server.on_call = self._record

    async def _record(self, call: Call) -> None:
        if call.chat_id is not None:
            moment = released_at.get()
            self.rows.append((self.clock() if moment is None else moment, worker_name.get(), call.chat_id))

    def times(self, chat: str | int | None = None) -> list[float]:
        return sorted(t for t, _, c in self.rows if chat is None or c == str(chat))


def most_within(times: Iterable[float], window: float) -> int:
    """The largest number of `times` inside any half-open interval [s, s + window)."""
    ordered = sorted(times)
    best, start = 0, 0
    for end, moment in enumerate(ordered):
        while moment - ordered[start] >= window - 1e-9:
            start += 1
        best = max(best, end - start + 1)
    return best


def limiter(redis: Redis, prefix: str, clock: Clock, **options: Any) -> SharedRateLimiter:
    async def note_release(seconds: float) -> None:
        # Not a wait: the moment this request may go is noted for the server (same task: same context).
        released_at.set(clock() + seconds)

    return SharedRateLimiter(redis, prefix=prefix, clock=clock, sleep=note_release, **options)


async def worker(server: FakeTelegram, rate_limiter: Any) -> ExtBot[Any]:
    bot: ExtBot[Any] = ExtBot(TOKEN, request=RecordingRequest(server), get_updates_request=RecordingRequest(server),
                              rate_limiter=rate_limiter)
    await bot.initialize()
    return bot


async def send_all(jobs: list[tuple[str, ExtBot[Any], int | str]]) -> None:
    """Every send in a task of its own, all at once, as concurrent updates on two workers would send them."""

    async def one(name: str, bot: ExtBot[Any], chat: int | str, number: int) -> None:
        worker_name.set(name)
        await bot.send_message(chat_id=chat, text=f"message {number}")

    await asyncio.gather(*(one(name, bot, chat, n) for n, (name, bot, chat) in enumerate(jobs)))


@pytest.fixture
async def redis() -> AsyncIterator[Redis]:
    url = os.environ.get(ENV)
    if not url:
        pytest.skip(SKIP_REASON)
    client = Redis.from_url(url)
    try:
        yield client
    finally:
        await client.aclose()


@pytest.fixture
async def prefix(redis: Redis) -> AsyncIterator[str]:
    name = f"majlis-test:{uuid.uuid4().hex}:"
    yield name
    keys = [key async for key in redis.scan_iter(match=name + "*")]
    if keys:
        await redis.delete(*keys)


async def two_workers(server: FakeTelegram, redis: Redis, clock: Clock,
                      prefixes: tuple[str, str], **options: Any) -> tuple[ExtBot[Any], ExtBot[Any]]:
    first = await worker(server, limiter(redis, prefixes[0], clock, **options))
    second = await worker(server, limiter(redis, prefixes[1], clock, **options))
    return first, second


async def test_two_workers_keep_the_chat_group_and_global_limits_together(redis, prefix):
    clock = Clock()
    server = FakeTelegram()
    sent = Sent(server, clock)
    a, b = await two_workers(server, redis, clock, (prefix, prefix))
    users = [1000 + n for n in range(45)]
    # A burst: 30 messages to the group from both workers, 5 to each of two players, one to each of 45 others.
    workers = [("A", a), ("B", b)]
    jobs = [(*workers[n % 2], GROUP_ID) for n in range(30)]
    jobs += [(*workers[n % 2], user) for user in users[:2] for n in range(5)]
    jobs += [(*workers[n % 2], user) for n, user in enumerate(users[2:])]
    await send_all(jobs)
    assert len(sent.rows) == len(jobs) == 30 + 10 + 43
    group = sent.times(GROUP_ID)
    assert {w for _, w, c in sent.rows if c == str(GROUP_ID)} == {"A", "B"}, "both workers wrote to the group"
    assert most_within(group, 60.0) == 20, "20 a minute in the group, across both workers"
    assert most_within(group, 1.0) == 1, "one a second in the group"
    assert group[20] >= group[0] + 60.0, "the 21st group message waited for the minute"
    for user in users[:2]:
        assert len(sent.times(user)) == 5 and most_within(sent.times(user), 1.0) == 1, "one a second per chat"
    assert most_within(sent.times(), 1.0) == 30, "30 a second for the whole bot"
    assert sent.times()[0] == clock(), "nothing is held back that need not be"

    # Two minutes on, the windows have emptied: a message goes at once from either worker.
    clock.advance(120.0)
    mark = len(sent.rows)
    await send_all([("B", b, GROUP_ID)])
    await send_all([("A", a, users[5])])
    now_group, now_player = (t for t, _, _ in sent.rows[mark:])
    assert now_group == clock() and now_player - clock() < 0.05, "at once (the next thirtieth of a second)"
    await a.shutdown()
    await b.shutdown()


async def test_the_checks_catch_workers_that_do_not_share_their_counts(redis, prefix):
    """The same burst with a limiter each (separate keys, as two in-process limiters would be): the group gets two
    messages in a second and more than 20 in a minute, which the checks above would refuse."""
    clock = Clock()
    server = FakeTelegram()
    sent = Sent(server, clock)
    a, b = await two_workers(server, redis, clock, (prefix + "a:", prefix + "b:"))
    await send_all([("A" if n % 2 else "B", a if n % 2 else b, GROUP_ID) for n in range(30)])
    group = sent.times(GROUP_ID)
    assert most_within(group, 1.0) == 2
    assert most_within(group, 60.0) > 20
    await a.shutdown()
    await b.shutdown()


async def test_a_429_on_one_worker_holds_every_worker_then_is_retried(redis, prefix):
    clock = Clock()
    server = FakeTelegram()
    sent = Sent(server, clock)
    a, b = await two_workers(server, redis, clock, (prefix, prefix), max_retries=1)
    server.retry_once["sendMessage"] = 3
    start = clock()
    await send_all([("A", a, GROUP_ID)])
    clock.advance(1.5)  # into the pause: a free moment, were it not for the pause
    await send_all([("B", b, 4242)])  # another chat, another worker, after A's 429
    statuses = [(call.chat_id, call.status) for call in server.api_calls("sendMessage")]
    assert statuses == [(str(GROUP_ID), 429), (str(GROUP_ID), 200), ("4242", 200)]
    first, retry, other = (t for t, _, _ in sent.rows)
    assert first == start
    assert retry >= start + 3.1, "A's retry waited out retry_after + 0.1 s"
    assert other >= start + 3.1, "B, told nothing by Telegram, waited too"
    await a.shutdown()
    await b.shutdown()


async def test_a_429_beyond_the_retries_reaches_the_caller(redis, prefix, caplog):
    clock = Clock()
    server = FakeTelegram()
    Sent(server, clock)
    a = await worker(server, limiter(redis, prefix, clock, max_retries=0))
    server.retry_once["sendMessage"] = 5
    from telegram.error import RetryAfter

    with caplog.at_level(logging.INFO), pytest.raises(RetryAfter):
        await a.send_message(chat_id=GROUP_ID, text="hello")
    # The caller retries on its own clock (issue 26): a WARNING naming the method and the wait, no ERROR.
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info], caplog.text
    assert any("sendMessage" in r.getMessage() and "5.0 s" in r.getMessage() for r in caplog.records
               if r.levelno == logging.WARNING), caplog.text
    await a.shutdown()


async def test_a_send_scheduled_before_a_pause_that_covers_it_is_rescheduled(redis, prefix):
    """A request already told to wait until t, when another worker's 429 pauses everyone past t, takes a new time
    after the pause instead of going out during it."""
    clock = Clock()
    server = FakeTelegram()
    sent = Sent(server, clock)
    holds: list[Callable[[], None]] = []

    async def held_sleep(seconds: float) -> None:
        released_at.set(clock() + seconds)
        if seconds > 0:  # the second message waits its second; meanwhile the other worker is told 429
            gate = asyncio.Event()
            holds.append(gate.set)
            await gate.wait()

    a = await worker(server, SharedRateLimiter(redis, prefix=prefix, clock=clock, sleep=held_sleep))
    b = await worker(server, limiter(redis, prefix, clock, max_retries=1))
    await send_all([("A", a, 77)])
    second = asyncio.ensure_future(send_all([("A", a, 77)]))
    while not holds:  # A's second message is waiting for its second
        await asyncio.sleep(0)
    server.retry_once["sendMessage"] = 10
    await send_all([("B", b, 88)])  # told 429: everyone pauses for 10.1 s
    while not second.done():  # let A's waits end (each one at once)
        while holds:
            holds.pop()()
        await asyncio.sleep(0)
    await second
    times = sent.times(77)
    assert times[1] >= clock() + 10.1, f"the held message went during the pause: {times}"
    await a.shutdown()
    await b.shutdown()


async def test_redis_clock_gives_waits_of_the_configured_spacing(redis, prefix):
    """Without a test clock the schedule runs on Redis' TIME: the second message to a chat is told to wait (nearly)
    the whole spacing (a minute here, so however slow the machine, the bounds hold)."""
    waits: list[float] = []

    async def note(seconds: float) -> None:
        waits.append(seconds)

    server = FakeTelegram()
    a = await worker(server, SharedRateLimiter(redis, prefix=prefix, chat_time_period=60.0, sleep=note))
    waits.clear()  # getMe's
    await a.send_message(chat_id=55, text="one")
    await a.send_message(chat_id=55, text="two")
    assert waits[0] <= 1 / 30 + 0.001, "at most until the next global slot"
    assert 50.0 < waits[1] <= 60.0 + 2 / 30 + 0.001, "a minute after the first (each rounded up to a slot)"
    await a.shutdown()


def test_rates_and_periods_that_would_divide_by_zero_are_refused():
    dead = Redis.from_url("redis://127.0.0.1:1/0")
    with pytest.raises(ValueError, match="group_max_rate"):
        SharedRateLimiter(dead, group_max_rate=0)
    with pytest.raises(ValueError, match="overall_time_period"):
        SharedRateLimiter(dead, overall_time_period=0)


async def test_an_unreachable_redis_lets_messages_through():
    """No Redis (a closed port): the bot keeps sending, unthrottled, rather than stopping."""
    server = FakeTelegram()
    dead = Redis.from_url("redis://127.0.0.1:1/0", socket_connect_timeout=1)
    a = await worker(server, SharedRateLimiter(dead, owns_client=True))
    await a.send_message(chat_id=GROUP_ID, text="one")
    await a.send_message(chat_id=GROUP_ID, text="two")
    assert [c.status for c in server.api_calls("sendMessage")] == [200, 200]
    await a.shutdown()


async def test_the_adapter_shares_its_limiter_when_a_redis_is_configured(store):
    from dataclasses import replace

    from bot.config import Settings
    from bot.service import Service

    assert Settings.from_env({"MAJLIS_REDIS_URL": " redis://r:6379/1 "}).redis_url == "redis://r:6379/1"
    assert Settings.from_env({}).redis_url is None
    service = Service(store, seed_source=random.Random(1))
    shared = TelegramAdapter(service, replace(make_settings(), redis_url="redis://127.0.0.1:1/0"))
    used = shared.application.bot.rate_limiter
    assert isinstance(used, SharedRateLimiter) and used.prefix == "majlis:telegram:123456:"
    await used.shutdown()
    alone = TelegramAdapter(service, make_settings())
    # One worker: the in-process limiter, its group sends kept in the service's store (issue 26).
    assert isinstance(alone.application.bot.rate_limiter, LocalRateLimiter)
    assert alone.application.bot.rate_limiter.sends is store


async def test_two_whole_workers_playing_one_match_keep_the_limits_together(redis, prefix, store):
    """Two Telegram workers (adapter and service each) on one database and one Bot API: a table opened on the
    first, its moves pressed on each in turn. Every call of both, the deliveries included, went through the shared
    limiter: the group, both private chats and the bot stay within their limits."""
    from tests.tg_harness import Bot, open_table, play_one, user

    alice, badr = user(111, "Alice"), user(222, "Badr")
    clock = Clock(1_700_000_000.0)
    server = FakeTelegram()
    sent = Sent(server, clock)
    async with Bot(server, store, clock=clock, limiter=limiter(redis, prefix, clock)) as a, \
            Bot(server, store, clock=clock, limiter=limiter(redis, prefix, clock)) as b:
        worker_name.set("A")
        match_id = await open_table(a, alice, [badr])
        for number in range(16):
            worker_name.set("AB"[number % 2])
            await play_one((a, b)[number % 2], match_id, {0: alice, 1: badr})
    group = sent.times(GROUP_ID)
    assert {w for _, w, c in sent.rows if c == str(GROUP_ID)} == {"A", "B"}, "both workers wrote to the group"
    assert len(group) > 20, "enough group messages for the minute's limit to matter"
    assert most_within(group, 1.0) == 1 and most_within(group, 60.0) == 20
    for chat in (alice["id"], badr["id"]):
        assert most_within(sent.times(chat), 1.0) == 1
    assert most_within(sent.times(), 1.0) <= 30
