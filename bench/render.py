"""Render speed and size for the Kenza pictures: K racks and K tables from varied synthetic views.

    .venv/bin/python bench/render.py [K] [--lang ar|en] [--no-raqm]

Views are synthetic (random hands, table sizes, scores, last moves, players 2-4, some finished matches) so the
figures do not depend on the engine; the face caches are warm after the first few images, as in a running bot.
Prints median and p95 milliseconds per rack and per table, and mean PNG bytes per image.
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

import renderers  # noqa: E402
from renderers.cards_spanish import CODES  # noqa: E402

NAMES = ["أحمد", "Sarah", "محمد بن عبد الله", "ليلى", "Omar", "فاطمة الزهراء", "Yusuf", "نور"]


def synthetic_view(rng: random.Random) -> dict[str, Any]:
    players = rng.choice((2, 3, 4))
    teams = players == 4
    deck = list(CODES)
    rng.shuffle(deck)
    table_n = rng.choice((0, 1, 3, 4, 6, 8, 12))
    hand_sizes = [rng.randint(0, 3) for _ in range(players)]
    seat = rng.randrange(players)
    hand_sizes[seat] = rng.randint(1, 3)
    hand = [deck.pop() for _ in range(hand_sizes[seat])]
    table = [deck.pop() for _ in range(table_n)]
    sides = 2 if teams else players
    over = rng.random() < 0.1
    scores = [rng.randint(0, 200) for _ in range(sides)]
    captured = rng.sample(deck, 3)
    last = rng.choice(
        (None, {"seat": 0, "move": f"play {captured[0]}"},
         {"seat": 1, "move": f"play {captured[0]} take {captured[1]} {captured[2]}"})
    )
    return {
        "game": "kenza", "variant": rng.choice(("kenza", "rabaeen")), "target": rng.choice((101, 151, 301)),
        "players": players, "teams": teams, "seat": seat, "dealer": rng.randrange(players),
        "to_move": None if over else rng.randrange(players), "round": rng.randint(1, 9), "hand": hand,
        "hand_sizes": hand_sizes, "table": table, "stock_size": rng.randint(0, 30),
        "captured_counts": [rng.randint(0, 20) for _ in range(players)],
        "sweeps": [rng.randint(0, 3) for _ in range(players)], "scores": scores, "last_move": last,
        "last_capturer": None, "over": over, "winners": [max(range(sides), key=scores.__getitem__)] if over else [],
    }


def measure(k: int, lang: str, raqm: bool | None, seed: int = 1) -> None:
    rng = random.Random(seed)
    rack_ms, table_ms, sizes = [], [], []
    for _ in range(k):
        view = synthetic_view(rng)
        names = rng.sample(NAMES, view["players"])
        selected = tuple(i for i in range(len(view["hand"])) if rng.random() < 0.3)
        t0 = time.perf_counter()
        rack = renderers.render_rack("kenza", view, lang, names, selected, raqm=raqm)
        t1 = time.perf_counter()
        table = renderers.render_table("kenza", dict(view, seat=None, hand=None), lang, names, raqm=raqm)
        t2 = time.perf_counter()
        rack_ms.append((t1 - t0) * 1000)
        table_ms.append((t2 - t1) * 1000)
        sizes += [len(rack), len(table)]

    def p95(xs: list[float]) -> float:
        return sorted(xs)[max(0, round(0.95 * len(xs)) - 1)]

    print(f"kenza render, K={k}, lang={lang}, raqm={'auto' if raqm is None else raqm}")
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
