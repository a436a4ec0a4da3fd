"""How often the `normal` Konkan (cards) bot beats three `random` ones: N seeded 4-player matches, its seat rotating.

    .venv/bin/python bench/konkan_cards_strength.py [N] [--variant konkan51|konkan71]

`play_match(seed, levels, options)` plays one whole match between bot levels (one per seat) and returns the final
state, for other benches and tests to reuse.

`konkan_cards_strength.py expert [N] [--vs normal|random]` measures the expert bot instead (bench/expert_strength.py).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine  # noqa: E402
from bench.bot_match import final_state, one_normal  # noqa: E402

GAME = engine.get("konkan_cards")


def play_match(seed: int, levels: list[str] | tuple[str, ...], options: dict[str, Any] | None = None) -> dict:
    """Play a whole match with one bot level per seat; the final state."""
    return final_state("konkan_cards", seed, levels, options)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("matches", nargs="?", type=int, default=100)
    parser.add_argument("--variant", default="konkan51", choices=("konkan51", "konkan71"))
    args = parser.parse_args()
    wins = rounds = konkans = 0
    started = time.perf_counter()
    for seed in range(args.matches):
        normal_seat = seed % 4
        state = play_match(seed, one_normal(normal_seat, 4), {"variant": args.variant})
        result = GAME.result(state)
        wins += result["winners"] == [normal_seat]
        rounds += len(result["history"])
        konkans += result["konkan_winner"] == normal_seat
    elapsed = time.perf_counter() - started
    print(f"normal vs 3 random, 4 players, {args.variant}: {wins}/{args.matches} won "
          f"({100 * wins / args.matches:.0f}%), {konkans} by committed Konkan")
    print(f"{rounds} rounds, {elapsed:.1f} s ({elapsed / args.matches:.2f} s a match)")


if __name__ == "__main__":
    if sys.argv[1:2] == ["expert"]:  # the expert bot: expert [N] [--vs normal|random] [--players P]
        from bench.expert_strength import main as expert_main

        expert_main("konkan_cards", sys.argv[2:])
    else:
        main()
