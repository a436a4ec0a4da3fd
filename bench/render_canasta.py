"""Render speed and size for the Canasta pictures: racks and tables from views reached by real play.

    .venv/bin/python bench/render_canasta.py [K] [--lang ar|en] [--no-raqm]

Views come from normal bots playing seeded duo and classic4 matches (melds, canastas, red 3s, frozen and taken
piles, long hands after a take), sampled every few moves; the states are made before timing starts, and the face
caches warm up in the first images as in a running bot. Prints median and p95 milliseconds per rack and per
table, the longest hand seen, and mean PNG bytes per image.
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

NAMES = ["أحمد", "Sarah", "محمد بن عبد الله", "ليلى"]


def sample_views(k: int, seed: int = 1) -> list[tuple[dict[str, Any], dict[str, Any], list[str]]]:
    """(seat view, public view, names) pairs from bot play, every 7th state of alternating duo/classic4 matches."""
    game = engine.get("canasta")
    rng = random.Random(seed)
    out: list[tuple[dict[str, Any], dict[str, Any], list[str]]] = []
    match = 0
    while len(out) < k:
        players = 2 if match % 2 == 0 else 4
        state = game.new(players, {"variant": "duo" if players == 2 else "classic4"}, seed=rng.getrandbits(32))
        match += 1
        step = 0
        while game.to_move(state) is not None and len(out) < k:
            seat = game.to_move(state)
            if step % 7 == 0:
                out.append((game.view(state, seat), game.view(state, None), NAMES[:players]))
            state = game.apply(state, seat, decide("canasta", state, seat, "normal", random.Random(step)))
            step += 1
    return out


def measure(k: int, lang: str, raqm: bool | None) -> None:
    views = sample_views(k)
    rng = random.Random(2)
    rack_ms, table_ms, sizes = [], [], []
    for view, public, names in views:
        selected = tuple(i for i in range(len(view["hand"])) if rng.random() < 0.2)
        t0 = time.perf_counter()
        rack = renderers.render_rack("canasta", view, lang, names, selected, raqm=raqm)
        t1 = time.perf_counter()
        table = renderers.render_table("canasta", public, lang, names, raqm=raqm)
        t2 = time.perf_counter()
        rack_ms.append((t1 - t0) * 1000)
        table_ms.append((t2 - t1) * 1000)
        sizes += [len(rack), len(table)]

    def p95(xs: list[float]) -> float:
        return sorted(xs)[max(0, round(0.95 * len(xs)) - 1)]

    longest = max(len(view["hand"]) for view, _, _ in views)
    print(f"canasta render, K={k}, lang={lang}, raqm={'auto' if raqm is None else raqm}, longest hand {longest}")
    print(f"  rack : median {statistics.median(rack_ms):6.2f} ms  p95 {p95(rack_ms):6.2f} ms")
    print(f"  table: median {statistics.median(table_ms):6.2f} ms  p95 {p95(table_ms):6.2f} ms")
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
