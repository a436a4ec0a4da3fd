"""Throughput and latency of N worker processes sharing one database (`bench/pipeline.py --workers N --database URL`).

Each worker is a full Service (tests/mp_worker.py: storage, bots, delivery to a recording transport, no pictures)
answering requests on a pipe; M matches (one simulated human against one normal bot, Kenza) press the first-drawn
keyboard's moves as fast as they are answered, each press sent to a random worker. Latency is press -> answer
(commit, the bot's reply, the screens' delivery); throughput is human moves per second over the run.

On PostgreSQL the run gets a schema of its own in the named database, dropped afterwards; on SQLite
(`--database sqlite:///path` or nothing) a temporary file. Every press must be answered "Played": otherwise the
bench exits with code 1 and the reason instead of figures.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine  # noqa: E402
from bench.checks import BrokenRun, refuse  # noqa: E402
from bot import callbacks  # noqa: E402
from storage import Store  # noqa: E402
from storage.url import is_postgres  # noqa: E402
from tests.engines import create_schema, drop_schema  # noqa: E402
from tests.worker_pool import Worker, rack_presses  # noqa: E402

START = 1_000_000.0


async def bench(workers: int, url: str, matches: int, moves: int, folder: Path) -> tuple[list[float], float, int]:
    """(latencies in ms, seconds, human moves) of one run."""
    pool = [Worker(url, f"w{n}", folder / f"w{n}.log") for n in range(workers)]
    store = await Store.open(url)
    rng = random.Random(7)
    game = engine.get("kenza")
    latencies: list[float] = []
    try:
        for worker in pool:
            await worker.start(START)

        async def ask(request: dict) -> dict:
            answer = await rng.choice(pool).ask({"now": START, **request})
            if answer is None:
                raise BrokenRun("a worker died")
            return answer

        async def table(index: int) -> None:
            user, chat = str(500 + index), str(-5000 - index)
            await ask({"op": "command", "user": user, "chat": user, "private": True, "name": "start"})
            await ask({"op": "command", "user": user, "chat": chat, "name": "new", "args": ["kenza"]})
            match = await store.lobby_or_active_match("fake", chat)
            if match is None:
                raise BrokenRun(f"table {index} did not open")
            await ask({"op": "press", "user": user, "chat": chat, "data": callbacks.encode("b", match.id, "normal")})
            await ask({"op": "press", "user": user, "chat": chat, "data": callbacks.encode("s", match.id)})
            seat = next(s.seat for s in await store.seats(match.id) if s.is_human)
            for _ in range(moves):
                match = await store.get_match(match.id)
                if match is None or match.status != "active":
                    return
                state = game.from_json(match.snapshot)
                presses = rack_presses(match, state, seat)
                if game.to_move(state) != seat or not presses:
                    raise BrokenRun(f"match {match.id}: no move button for the human at version {match.version}")
                started = time.perf_counter()
                answer = await ask({"op": "press", "user": user, "chat": user, "private": True,
                                    "data": presses[0][0]})
                latencies.append((time.perf_counter() - started) * 1000)
                if not answer["text"].startswith("✓ You "):
                    raise BrokenRun(f"match {match.id}: a press was answered {answer['text']!r}")

        began = time.perf_counter()
        await asyncio.gather(*(table(i) for i in range(matches)))
        seconds = time.perf_counter() - began
    finally:
        for worker in pool:
            await worker.stop()
        await store.close()
    return latencies, seconds, len(latencies)


async def run(workers: int, database: str | None, matches: int, moves: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        if database and is_postgres(database):
            schema = f"majlis_bench_{os.getpid()}_{uuid.uuid4().hex[:6]}"
            url = await create_schema(database, schema)
            try:
                result = await bench(workers, url, matches, moves, Path(folder))
            finally:
                await drop_schema(database, schema)
        else:
            url = database or f"sqlite:///{Path(folder) / 'bench.db'}"
            result = await bench(workers, url, matches, moves, Path(folder))
    latencies, seconds, done = result
    if not done:
        raise BrokenRun("no human move was played")
    cuts = statistics.quantiles(latencies, n=100)
    where = "PostgreSQL" if database and is_postgres(database) else "SQLite"
    print(f"{workers} worker(s) on {where}: {matches} matches, {done} human moves in {seconds:.1f} s = "
          f"{done / seconds:.1f} moves/s; latency p50 {statistics.median(latencies):.1f} ms, "
          f"p95 {cuts[94]:.1f} ms, p99 {cuts[98]:.1f} ms")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--database", help="postgresql://... (a schema is made and dropped) or sqlite:///path")
    parser.add_argument("--matches", "-n", type=int, default=20)
    parser.add_argument("--moves", type=int, default=20, help="human moves per match at most")
    args = parser.parse_args(argv)
    try:
        asyncio.run(run(args.workers, args.database, args.matches, args.moves))
    except BrokenRun as error:
        raise refuse(error) from None


if __name__ == "__main__":
    main()
