"""Matchmaking (issue 28): how long four strangers wait from the last `/play konkan_tiles ranked` until every one of
them has their first rack, through the real python-telegram-bot Application on tests/tg_harness.py's fake Telegram;
and (`--shots DIR`) one matched table as a Telegram player and a Discord player each saw it, saved as PNGs.

    .venv/bin/python bench/matchmaking.py [--runs 5] [--limits] [--shots /work/wt/i28-shots]

The time runs from the fourth player's `/play` update entering the adapter until the adapter has finished with it:
the queue seated in one transaction, the answer sent, and all four tables and racks drawn and sent (the adapter
delivers them after answering, inside the same update). Wall-clock and this process's CPU time are printed; both are
noisy on a shared machine. Without `--limits` NOTHING IS PACED: the harness's rate limiter lets every call through at
once, so the figure is the bot's own work. With `--limits` PTB's AIORateLimiter runs with its defaults (30 messages a
second overall, Telegram's documented bot limit), which is what a real deployment adds; there is still no network.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.checks import BrokenRun  # noqa: E402
from storage import Store  # noqa: E402
from tests.clock import Clock  # noqa: E402
from tests.tg_harness import Bot, FakeTelegram, user  # noqa: E402

PLAYERS = [user(801 + n, name) for n, name in enumerate(["Alia", "Basim", "Cala", "Dunya"])]


async def one_run(seed: int, limits: bool) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds, API calls) from the last /play to every seat's first rack."""
    from telegram.ext import AIORateLimiter

    with tempfile.TemporaryDirectory() as folder:
        store = await Store.open(str(Path(folder) / "bench.db"))
        server = FakeTelegram()
        limiter = AIORateLimiter() if limits else None
        try:
            async with Bot(server, store, seed=seed, clock=Clock(1_700_000_000.0), limiter=limiter) as bot:
                for who in PLAYERS:
                    await bot.command(who, who["id"], "/start")
                for who in PLAYERS[:3]:
                    await bot.command(who, who["id"], "/play konkan_tiles ranked")
                last = PLAYERS[3]
                calls = len(server.api_calls())
                wall, cpu = time.perf_counter(), time.process_time()
                await bot.command(last, last["id"], "/play konkan_tiles ranked")
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
                player = await store.find_player("telegram", str(last["id"]))
                match = await store.player_active_match("telegram", player.id)
                if match is None:
                    raise BrokenRun("the fourth /play seated nobody")
                for seat in await store.seats(match.id):
                    rack = await store.get_message("telegram", "rack", match_id=match.id, seat=seat.seat)
                    table = await store.get_message("telegram", "table", match_id=match.id, seat=seat.seat)
                    if rack is None or table is None:
                        raise BrokenRun(f"seat {seat.seat} has no rack or no table after the last /play")
                return wall, cpu, len(server.api_calls()) - calls
        finally:
            await store.close()


async def shots(folder: Path) -> list[Path]:
    """Two Telegram players and a Discord player seated at one Konkan (cards) table (a bot takes the fourth seat
    after the wait); the table and the rack pictures each one's private chat (her DM) received."""
    from tests.dc_harness import AMINA, FakeDiscord, start_adapter

    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        store = await Store.open(str(Path(scratch) / "shots.db"))
        server, fake, clock = FakeTelegram(), FakeDiscord(), Clock(1_700_000_000.0)
        try:
            async with Bot(server, store, seed=11, clock=clock) as bot:
                adapter = await start_adapter(store, fake, service=bot.service)
                try:
                    for who in PLAYERS[:2]:
                        await bot.command(who, who["id"], "/start")
                        await bot.command(who, who["id"], "/play konkan_cards")
                    await fake.feed(adapter.client, fake.command(AMINA, "play", {"game": "konkan_cards"}))
                    clock.advance(31)
                    await bot.service.tick()
                    player = await store.find_player("discord", AMINA["id"])
                    match = await store.player_active_match("discord", player.id)
                    if match is None:
                        raise BrokenRun("the queue seated no table")
                    saved = []
                    for seat in await store.seats(match.id):
                        if not seat.is_human:
                            continue
                        for kind in ("table", "rack"):
                            shown = await store.get_message(seat.platform, kind, match_id=match.id, seat=seat.seat)
                            image = _telegram_picture(server, shown) if seat.platform == "telegram" else \
                                _discord_picture(fake, shown)
                            path = folder / f"matched-{kind}-{seat.platform}-seat{seat.seat}.png"
                            path.write_bytes(image)
                            saved.append(path)
                    return saved
                finally:
                    await adapter.client.close()
        finally:
            await store.close()


def _telegram_picture(server: FakeTelegram, message: Any) -> bytes:
    for call in reversed(server.calls_to(message.chat_id)):
        if str(call.sent_id or call.params.get("message_id")) == message.message_id:
            picture = server.picture(call)
            if picture is not None:
                return picture
    raise BrokenRun(f"no picture in Telegram chat {message.chat_id}")


def _discord_picture(fake: Any, message: Any) -> bytes:
    for call in reversed(fake.calls):
        if call.message is not None and call.message["id"] == message.message_id and call.files:
            return call.files[0]["data"]
    raise BrokenRun(f"no picture in Discord channel {message.chat_id}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--limits", action="store_true", help="PTB's AIORateLimiter with its default limits")
    parser.add_argument("--shots", type=Path, help="save a matched table's pictures (Telegram and Discord) here")
    args = parser.parse_args()
    try:
        results = [asyncio.run(one_run(seed, args.limits)) for seed in range(1, args.runs + 1)]
        saved = asyncio.run(shots(args.shots)) if args.shots else []
    except BrokenRun as broken:
        sys.exit(f"bench refused the run: {broken}")
    walls = [wall for wall, _, _ in results]
    cpus = [cpu for _, cpu, _ in results]
    print(f"last /play -> every seat's first rack, 4 Telegram players, konkan_tiles ranked, {len(results)} runs"
          f" ({'PTB AIORateLimiter defaults' if args.limits else 'NOT PACED: no rate limits'}; no network):")
    print(f"  wall  median {statistics.median(walls) * 1000:.0f} ms  max {max(walls) * 1000:.0f} ms")
    print(f"  CPU   median {statistics.median(cpus) * 1000:.0f} ms  max {max(cpus) * 1000:.0f} ms")
    print(f"  Bot API calls in that update: {results[0][2]}")
    for path in saved:
        print(f"  saved {path}")


if __name__ == "__main__":
    main()
