"""What handing a picture to a render worker costs the main process: its CPU per job, without the bot around it.

    .venv/bin/python bench/render_ipc.py [N] [--in-flight K]

Draws one Tunj table N times through `Pictures.call` (not cached) in one render worker, K jobs in flight, and prints
the main process's CPU per job (user and system), its context switches per job and the wall time per job. The
main process only pickles each job, moves the bytes and unpickles each ~24 KiB answer, so its CPU here is the
render pool's own overhead (bot/core/render_pool.py), steadier than the pipeline bench's CPU per move on a shared
machine.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine  # noqa: E402
from bot.core.pictures import Pictures  # noqa: E402
from renderers.picture import Picture, draw  # noqa: E402


async def run(jobs: int, in_flight: int) -> None:
    game = engine.get("tunj")
    view = game.view(game.new(2, {}, seed=5), None)
    picture = Picture("table", "tunj", {"view": view, "lang": "en", "names": ["Ali", "Mona"]})
    pictures = Pictures(1)
    try:
        await pictures.warm(("tunj",))
        size = len(await pictures.call(draw, picture))
        slots = asyncio.Semaphore(in_flight)

        async def one() -> None:
            async with slots:
                await pictures.call(draw, picture)

        before, cpu, wall = resource.getrusage(resource.RUSAGE_SELF), time.process_time(), time.perf_counter()
        await asyncio.gather(*(one() for _ in range(jobs)))
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        after = resource.getrusage(resource.RUSAGE_SELF)
    finally:
        pictures.close()
    print(f"{jobs} jobs of a {size / 1024:.1f} KiB picture, {in_flight} in flight: main process CPU "
          f"{1000 * cpu / jobs:.3f} ms per job (user {1000 * (after.ru_utime - before.ru_utime) / jobs:.3f},"
          f" system {1000 * (after.ru_stime - before.ru_stime) / jobs:.3f}); context switches per job"
          f" {(after.ru_nvcsw - before.ru_nvcsw) / jobs:.1f} voluntary,"
          f" {(after.ru_nivcsw - before.ru_nivcsw) / jobs:.1f} involuntary; wall {1000 * wall / jobs:.2f} ms per job")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("jobs", nargs="?", type=int, default=1500)
    parser.add_argument("--in-flight", type=int, default=50)
    args = parser.parse_args()
    asyncio.run(run(args.jobs, args.in_flight))


if __name__ == "__main__":
    main()
