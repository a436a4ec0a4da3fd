"""End-to-end speed of one process: N concurrent human-vs-bot Kenza matches through the platform adapter, the
service, SQLite storage (a temporary file) and the real renderer, with the platform's API recorded, not sent.

    .venv/bin/python bench/pipeline.py [--matches 50] [--moves 20] [--platform telegram|discord] [--tracemalloc]

The human side of every match presses the first move button of its rack, read from the recorded API calls (a
two-step "pick" is followed by the first choice); the bot answers inside the same update, as in production.
Prints per-press latency (press -> the press is answered, i.e. after commit, bot reply, renders and every edit),
API calls per human move, moves per second and peak memory. Goals: p50 <= 40 ms, <= 3 API calls per move.

A platform plugs in as a `PlatformDriver`: `telegram_driver` is the real python-telegram-bot Application on
tests/tg_harness.py's recording request; `discord_driver` is where the Discord adapter's author adds theirs.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import resource
import statistics
import sys
import tempfile
import time
import tracemalloc
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.service import Service  # noqa: E402
from storage import Store  # noqa: E402


@dataclass
class Sample:
    latency_ms: list[float] = field(default_factory=list)  # every press that played a move
    pick_ms: list[float] = field(default_factory=list)  # first steps of two-step moves
    move_calls: list[int] = field(default_factory=list)  # API calls per human move, pick step included
    one_step_calls: list[int] = field(default_factory=list)  # the same, for moves made with a single press
    moves: int = 0
    all_moves: int = 0  # human and bot moves committed during the timed part


class PlatformDriver(Protocol):
    """What the bench needs from a platform: open a table, make the human move once, count API calls."""

    name: str

    async def start(self, service: Service) -> None: ...

    async def open_match(self, index: int) -> int:
        """Open a human-vs-bot Kenza table number `index` in its own chat, start it; return the match id."""
        ...

    async def human_move(self, index: int, match_id: int, sample: Sample) -> bool:
        """Press the human's first move button (and the first choice after a pick); False when the match is over."""
        ...

    async def stop(self) -> None: ...


class TelegramDriver:
    name = "telegram"

    def __init__(self) -> None:
        from tests.tg_harness import FakeTelegram

        self.server = FakeTelegram()
        self.adapter = None

    def _chat(self, index: int) -> int:
        return -1_000_000_000 - index

    def _user(self, index: int) -> dict:
        return {"id": 10_000 + index, "is_bot": False, "first_name": f"Player {index}", "language_code": "en"}

    async def start(self, service: Service) -> None:
        from bot.telegram_adapter import TelegramAdapter
        from tests.tg_harness import RecordingRequest, make_settings

        request = RecordingRequest(self.server, poll_wait=0.5)
        self.adapter = TelegramAdapter.for_tests(service, make_settings(), request)
        await self.adapter.start(receive=False)  # updates are handed in directly, as a webhook would

    async def _press(self, index: int, chat_id: int, message_id: int, data: str) -> tuple[float, int]:
        bot = self.adapter.application.bot
        update = self.server.press(bot, self._user(index), chat_id, message_id, data)
        before = len(self.server.calls)
        started = time.perf_counter()
        await self.adapter.process(update)
        elapsed = (time.perf_counter() - started) * 1000
        # Other matches run meanwhile: count only this table's chats and this press's own answer.
        mine = {str(chat_id), str(self._chat(index)), str(self._user(index)["id"])}
        made = sum(1 for call in self.server.calls[before:] if call.chat_id in mine
                   or call.params.get("callback_query_id") == update.callback_query.id)
        return elapsed, made

    async def open_match(self, index: int) -> int:
        from tests.tg_harness import first_data

        bot = self.adapter.application.bot
        chat, who = self._chat(index), self._user(index)
        await self.adapter.process(self.server.command(bot, who, chat, "/new kenza"))
        for prefix in ("b:", "s:"):
            for call in reversed(self.server.calls_to(chat)):
                data = first_data((call.markup or {}).get("inline_keyboard", []), prefix)
                if data:
                    await self._press(index, chat, int(call.params.get("message_id") or call.sent_id), data)
                    break
        match = await self.adapter.service.store.lobby_or_active_match("telegram", str(chat))
        assert match is not None and match.status == "active", "the bench table did not start"
        return match.id

    async def human_move(self, index: int, match_id: int, sample: Sample) -> bool:
        from tests.tg_harness import first_data

        match = await self.adapter.service.store.get_match(match_id)
        if match is None or match.status != "active":
            return False
        user_id = self._user(index)["id"]
        message_id, keyboard = self.server.rack(user_id)
        data = first_data(keyboard, "m:", "p:")
        if data is None:
            raise AssertionError(f"match {match_id}: the human's rack has no move button")
        calls = 0
        if data.startswith("p:"):
            elapsed, made = await self._press(index, user_id, message_id, data)
            sample.pick_ms.append(elapsed)
            calls += made
            message_id, keyboard = self.server.rack(user_id)
            data = first_data(keyboard, "m:")
        elapsed, made = await self._press(index, user_id, message_id, data)
        sample.latency_ms.append(elapsed)
        sample.move_calls.append(calls + made)
        if not calls:
            sample.one_step_calls.append(made)
        sample.moves += 1
        return True

    async def stop(self) -> None:
        await self.adapter.stop()


def discord_driver() -> PlatformDriver:
    """The discord.py client and DiscordAdapter on tests/dc_harness.py's fake Discord (bench/pipeline_discord.py)."""
    from bench.pipeline_discord import DiscordDriver

    return DiscordDriver()


DRIVERS = {"telegram": TelegramDriver, "discord": discord_driver}


async def run(matches: int, moves: int, platform: str) -> tuple[Sample, float]:
    with tempfile.TemporaryDirectory() as folder:
        store = await Store.open(str(Path(folder) / "bench.sqlite"))
        service = Service(store, seed_source=random.Random(2024))
        driver = DRIVERS[platform]()
        await driver.start(service)
        try:
            ids = [await driver.open_match(index) for index in range(matches)]
            sample = Sample()

            async def play(index: int, match_id: int) -> None:
                for _ in range(moves):
                    if not await driver.human_move(index, match_id, sample):
                        return

            versions = [(await store.get_match(match_id)).version for match_id in ids]
            started = time.perf_counter()
            await asyncio.gather(*(play(index, match_id) for index, match_id in enumerate(ids)))
            wall = time.perf_counter() - started
            after = [(await store.get_match(match_id)).version for match_id in ids]
            sample.all_moves = sum(after) - sum(versions)
        finally:
            await driver.stop()
            await store.close()
    return sample, wall


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", "-n", type=int, default=50)
    parser.add_argument("--moves", type=int, default=20, help="human moves per match at most")
    parser.add_argument("--platform", choices=sorted(DRIVERS), default="telegram")
    parser.add_argument("--tracemalloc", action="store_true", help="peak Python heap (slower) instead of max RSS")
    args = parser.parse_args()
    if args.tracemalloc:
        tracemalloc.start()
    sample, wall = asyncio.run(run(args.matches, args.moves, args.platform))
    print(f"{args.platform}: {args.matches} concurrent human-vs-bot Kenza matches, {sample.moves} human moves")
    if not sample.moves:
        return
    lat = sample.latency_ms
    print(f"  per move press -> answered: p50 {statistics.median(lat):.1f} ms  p99 {percentile(lat, 0.99):.1f} ms"
          f"  (mean {statistics.fmean(lat):.1f})")
    if sample.pick_ms:
        print(f"  pick step ({len(sample.pick_ms)}x): p50 {statistics.median(sample.pick_ms):.1f} ms")
    plain = sample.move_calls
    one = sample.one_step_calls or [0]
    print(f"  Bot API calls per human move: {statistics.fmean(plain):.2f} (max {max(plain)}); one-press moves "
          f"{statistics.fmean(one):.2f}, a two-step pick adds an edit and an answer")
    print(f"  throughput: {sample.moves / wall:.1f} human moves/s, {sample.all_moves / wall:.1f} moves/s with the "
          f"bot's; wall {wall:.1f} s")
    note = (f"; with {args.matches} presses in flight, latency is mostly queueing behind the others' renders"
            if args.matches > 1 else "")
    print(f"  service time per human move (wall / moves, one event loop): {1000 * wall / sample.moves:.1f} ms{note}")
    if args.tracemalloc:
        print(f"  peak Python heap: {tracemalloc.get_traced_memory()[1] / 2**20:.1f} MiB")
    print(f"  peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.1f} MiB")


if __name__ == "__main__":
    main()
