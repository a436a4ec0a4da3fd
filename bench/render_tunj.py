"""Render speed and size for the Tunj board: K tables and K racks from views met in real bot games.

    .venv/bin/python bench/render_tunj.py [K] [--lang ar|en] [--no-raqm]

Views come from random-vs-normal bot play (so houses grow, foundations fill, claims open and hands end as in a
real match), sampled evenly over several games; face caches warm up over the first images, as in a running bot.
Prints median and p95 milliseconds per table and per rack, and mean PNG bytes per image.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine  # noqa: E402
import renderers  # noqa: E402
from engine.bots import decide  # noqa: E402

NAMES = ["أحمد", "Sarah"]


def game_views(count: int, seed: int = 1) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(public view, view of the seat to move) pairs, `count` of them, spread over whole bot games."""
    game = engine.get("tunj")
    every: list[tuple[dict[str, Any], dict[str, Any]]] = []
    number = 0
    while len(every) < 4 * count:
        state = game.new(2, {}, seed=seed + number)
        chooser = random.Random(number)
        while not game.result(state)["over"] and len(every) < 4 * (count + 1):
            seat = game.to_move(state)
            level = "random" if seat == number % 2 else "normal"
            state = game.apply(state, seat, decide("tunj", state, seat, level, chooser))
            mover = game.to_move(state)
            every.append((game.view(state, None), game.view(state, mover if mover is not None else 0)))
        number += 1
    return every[:: max(1, len(every) // count)][:count]


def measure(k: int, lang: str, raqm: bool | None) -> None:
    views = game_views(k)
    table_ms, rack_ms, sizes = [], [], []
    picks = [(), (0,), (3,), (4, 102)]
    for index, (public, own) in enumerate(views):
        t0 = time.perf_counter()
        table = renderers.render_table("tunj", public, lang, NAMES, raqm=raqm)
        t1 = time.perf_counter()
        rack = renderers.render_rack("tunj", own, lang, NAMES, picks[index % len(picks)], raqm=raqm)
        t2 = time.perf_counter()
        table_ms.append((t1 - t0) * 1000)
        rack_ms.append((t2 - t1) * 1000)
        sizes += [len(table), len(rack)]

    def p95(xs: list[float]) -> float:
        return sorted(xs)[max(0, round(0.95 * len(xs)) - 1)]

    claims = sum(1 for public, _ in views if public["claim"]["open"])
    print(f"tunj render, K={len(views)} ({claims} with an open claim), lang={lang}, "
          f"raqm={'auto' if raqm is None else raqm}")
    print(f"  table: median {statistics.median(table_ms):6.2f} ms  p95 {p95(table_ms):6.2f} ms")
    print(f"  rack : median {statistics.median(rack_ms):6.2f} ms  p95 {p95(rack_ms):6.2f} ms")
    print(f"  mean PNG bytes per image: {statistics.mean(sizes):,.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("k", nargs="?", type=int, default=200)
    parser.add_argument("--lang", default="ar")
    parser.add_argument("--no-raqm", action="store_true", help="force the arabic-reshaper + python-bidi path")
    args = parser.parse_args()
    measure(args.k, args.lang, False if args.no_raqm else None)


if __name__ == "__main__":
    main()
