"""How often the `normal` Canasta bot beats `random`: N seeded `duo` matches to 2500, seats alternating.

    .venv/bin/python bench/canasta_strength.py [N]

`play_match(seed, levels)` plays one whole match between bot levels (one per seat) and returns the final state,
for other benches to reuse.

`canasta_strength.py expert [N] [--vs normal|random]` measures the expert bot instead (bench/expert_strength.py).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine  # noqa: E402
from bench.bot_match import final_state, one_normal  # noqa: E402

GAME = engine.get("canasta")


def play_match(
    seed: int, levels: list[str] | tuple[str, ...], options: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Play a whole match with one bot level per seat (2 seats: duo, 4: classic4); the final state."""
    players = len(levels)
    opts = {"variant": "duo" if players == 2 else "classic4", "target": 2500, **(options or {})}
    return final_state("canasta", seed, levels, opts)


def main(matches: int = 100) -> None:
    wins = 0
    hands = 0
    started = time.perf_counter()
    for seed in range(matches):
        normal_seat = seed % 2
        state = play_match(seed, one_normal(normal_seat, 2))
        wins += GAME.result(state)["winners"] == [normal_seat]
        hands += len(state["history"])
    elapsed = time.perf_counter() - started
    print(f"normal vs random, duo to 2500: {wins}/{matches} won ({100 * wins / matches:.0f}%)")
    print(f"{hands} hands, {elapsed:.1f} s ({elapsed / matches:.2f} s a match)")


if __name__ == "__main__":
    if sys.argv[1:2] == ["expert"]:  # the expert bot: expert [N] [--vs normal|random] [--players P]
        from bench.expert_strength import main as expert_main

        expert_main("canasta", sys.argv[2:])
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
