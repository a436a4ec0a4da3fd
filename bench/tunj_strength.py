"""Tunj bot strength: the normal and the strong bot each against the random bot over seeded hands, alternating
seats (bots get their attempts, so the casual levels make their slips as at a table).

    .venv/bin/python bench/tunj_strength.py [hands=100] [level ...]

Prints each level's win rate against random (target for normal: at least 80%), draws, the claims (slips) it
opened, moves per hand and time per hand.
`play_match(seed, levels)` plays one whole match and is reused by other benches and the tests.

`tunj_strength.py expert [N] [--vs normal|random]` measures the expert bot instead (bench/expert_strength.py).
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engine  # noqa: E402
from engine.bots import get as get_bot  # noqa: E402

MAX_APPLIES = 200_000  # far above any real hand; reaching it means a hand failed to end


def play_match(
    seed: int, levels: tuple[str, str] | list[str], options: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Play a seeded match, `levels[s]` being the bot at seat s; the result plus the number of moves."""
    game = engine.get("tunj")
    state = game.new(players=2, options=options, seed=seed)
    bots = [get_bot("tunj", level) for level in levels]
    rng = random.Random(seed)
    moves = 0
    claims = [0, 0]
    while (seat := game.to_move(state)) is not None:
        if moves >= MAX_APPLIES:
            raise RuntimeError(f"seed {seed}: match still running after {moves} moves")
        move = bots[seat].choose(game.view(state, seat), game.legal_moves(state, seat), rng,
                                 attempts=game.attempts(state, seat))
        state = game.apply(state, seat, move)
        moves += 1
        if state["claim"] is not None and state["claim"]["by"] == seat:
            claims[seat] += 1
    return {**game.result(state), "moves": moves, "claims": claims}


def measure(level: str, hands: int) -> None:
    wins = draws = moves = slips = 0
    started = time.perf_counter()
    for seed in range(hands):
        seat = seed % 2
        levels = (level, "random") if seat == 0 else ("random", level)
        result = play_match(seed, levels)
        moves += result["moves"]
        slips += result["claims"][seat]
        if result["draw"]:
            draws += 1
        elif seat in result["winners"]:
            wins += 1
    elapsed = time.perf_counter() - started
    print(f"tunj {level} vs random: {hands} hands, {level} won {wins} ({100 * wins / hands:.1f}%), "
          f"draws {draws}, {slips / hands:.1f} slips/hand by {level}, {moves / hands:.0f} moves/hand, "
          f"{1000 * elapsed / hands:.0f} ms/hand")


def main(hands: int = 100, levels: tuple[str, ...] = ("normal", "strong")) -> None:
    for level in levels:
        measure(level, hands)


if __name__ == "__main__":
    if sys.argv[1:2] == ["expert"]:  # the expert bot: expert [N] [--vs normal|random] [--players P]
        from bench.expert_strength import main as expert_main

        expert_main("tunj", sys.argv[2:])
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 100, tuple(sys.argv[2:]) or ("normal", "strong"))
