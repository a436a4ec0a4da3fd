"""The in-process Telegram limiter hands the bot's slots out by priority when more is asked than it may send
(issue 27): the rack of the player to move first, then replies and the mover's rack, then tables, pings last; and
it keeps one send a second per private chat."""

from __future__ import annotations

import asyncio
from typing import Any

from telegram.ext import ExtBot

from bot.messages import Priority, sending
from bot.telegram_adapter.local_limiter import LocalRateLimiter
from tests.clock import Clock
from tests.tg_harness import FakeTelegram, RecordingRequest

TOKEN = "123456:TEST-TOKEN"


async def limited(clock: Clock, **limits: Any) -> tuple[ExtBot[Any], list[tuple[float, str]]]:
    async def advance(seconds: float) -> None:
        for _ in range(20):  # the request let go before this wait reaches the server at the time it was let go
            await asyncio.sleep(0)
        clock.advance(seconds)

    server = FakeTelegram()
    sent: list[tuple[float, str]] = []

    async def record(call: Any) -> None:
        if call.method == "sendMessage":
            sent.append((clock(), call.params["text"]))

    server.on_call = record
    bot: ExtBot[Any] = ExtBot(TOKEN, request=RecordingRequest(server), get_updates_request=RecordingRequest(server),
                              rate_limiter=LocalRateLimiter(clock=clock, sleep=advance, **limits))
    await bot.initialize()
    return bot, sent


async def test_past_the_budget_the_slots_go_by_priority_each_first_come_first_served() -> None:
    clock = Clock()
    bot, sent = await limited(clock, overall_max_rate=1)  # one send a second: every request below waits

    async def send(chat: int, text: str, priority: Priority) -> None:
        with sending(priority):
            await bot.send_message(chat_id=chat, text=text)

    await send(1, "first", Priority.REPLY)
    asks = [(2, "ping a", Priority.PING), (3, "table a", Priority.TABLE), (4, "mover", Priority.REPLY),
            (5, "ping b", Priority.PING), (6, "next rack", Priority.NEXT_RACK), (-100, "table b", Priority.TABLE)]
    await asyncio.gather(*(send(*ask) for ask in asks))
    order = [text for _, text in sent]
    assert order == ["first", "next rack", "mover", "table a", "table b", "ping a", "ping b"]
    times = [at for at, _ in sent]
    assert all(later - earlier >= 1.0 - 1e-9 for earlier, later in zip(times, times[1:], strict=False))
    await bot.shutdown()


async def test_one_send_a_second_per_private_chat_and_a_blocked_chat_holds_up_no_other() -> None:
    clock = Clock()
    bot, sent = await limited(clock)
    start = clock()

    async def send(chat: int, text: str, priority: Priority = Priority.REPLY) -> None:
        with sending(priority):
            await bot.send_message(chat_id=chat, text=text)

    await send(7, "rack")
    # The same chat again at once (a ping after its rack): it waits its second, while another chat's lower
    # priority send goes meanwhile.
    await asyncio.gather(send(7, "again", Priority.NEXT_RACK), send(8, "other", Priority.PING))
    at = {text: when for when, text in sent}
    assert at["again"] - at["rack"] >= 1.0 - 1e-9
    assert at["other"] - start < 0.1
    await bot.shutdown()
