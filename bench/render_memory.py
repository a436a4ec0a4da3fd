"""What a render worker process holds: its RSS after start (palettes in hand) and after drawing many pictures,
and the renderers' caches in it (entries; bytes of all live images).

    .venv/bin/python bench/render_memory.py [K] [--game tunj|canasta|...|all]

Starts the production render pool (bot/core/pictures.py, one worker) warmed for every playable game as the bot's
start does, then draws K racks and K tables per chosen game in Arabic and in English through it, and prints the
worker's RSS and peak RSS (VmHWM) at each step, plus each renderer cache's entries and the bytes of all live images
(most of them cached faces and text masks). The pipeline bench (bench/pipeline.py) counts a worker's VmHWM in
its peak RSS.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.render import CASES  # noqa: E402
from bench.usage import workers  # noqa: E402
from bot.core.pictures import Pictures  # noqa: E402
from bot.games import playable_games  # noqa: E402
from renderers.picture import Picture  # noqa: E402


def _kib(pid: int, key: str) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def cache_report() -> list[tuple[str, int, int]]:
    """In the worker: (cache, entries, bytes of the images it holds) for every lru cache of the renderers."""
    import functools
    import gc

    from PIL import Image

    out = [(f"{thing.__module__}.{thing.__qualname__}", thing.cache_info().currsize, 0) for thing in gc.get_objects()
           if isinstance(thing, functools._lru_cache_wrapper) and thing.__module__.startswith("renderers")]
    images = [im for im in gc.get_objects() if isinstance(im, Image.Image)]
    out.append(("live PIL images (bytes: pixels x bands)", len(images),
                sum(im.width * im.height * len(im.getbands()) for im in images)))
    return out


def worker_figures(label: str) -> None:
    for pid in workers():
        print(f"  {label}: worker {pid} RSS {_kib(pid, 'VmRSS') / 1024:.1f} MiB,"
              f" peak {_kib(pid, 'VmHWM') / 1024:.1f} MiB")


async def run(k: int, games: list[str]) -> None:
    pictures = Pictures(1)
    try:
        await pictures.warm(playable_games())
        worker_figures("after start (warm for every playable game)")
        for game in games:
            cases = CASES[game](k)
            for lang in ("ar", "en"):
                for own, public, names, selected in cases:
                    args: dict[str, Any] = {"view": own, "lang": lang, "names": names, "selected": list(selected)}
                    await pictures.draw(Picture("rack", game, args))
                    await pictures.draw(Picture("table", game, {"view": public, "lang": lang, "names": names}))
            worker_figures(f"after {4 * len(cases)} {game} pictures")
        # by its module's name, not __main__'s (a worker does not import the main module); read after the figures
        from bench.render_memory import cache_report as report

        for name, entries, size in await pictures.call(report):
            print(f"    {name}: {entries} entries" + (f", {size / 2**20:.1f} MiB" if size else ""))
    finally:
        pictures.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("k", nargs="?", type=int, default=300)
    parser.add_argument("--game", choices=[*CASES, "all"], default="all")
    args = parser.parse_args()
    asyncio.run(run(args.k, list(CASES) if args.game == "all" else [args.game]))


if __name__ == "__main__":
    main()
