"""One whole seeded match between bot levels, the loop the strength benches (and the tests that reuse them) share.

The chooser is seeded with the match's seed, so a seed names one match: a figure can be reproduced and a failing
match replayed.
"""

from __future__ import annotations

import random
from typing import Any

import engine
from engine.bots import get as get_bot


def final_state(game_id: str, seed: int, levels: list[str] | tuple[str, ...],
                options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Play a whole match with `levels[s]` the bot at seat s (as many seats as levels); the final state."""
    game = engine.get(game_id)
    state = game.new(len(levels), options or {}, seed=seed)
    bots = [get_bot(game_id, level) for level in levels]
    chooser = random.Random(seed)
    while (seat := game.to_move(state)) is not None:
        move = bots[seat].choose(game.view(state, seat), game.legal_moves(state, seat), chooser)
        state = game.apply(state, seat, move)
    return state


def one_normal(seat: int, players: int) -> list[str]:
    """Bot levels for a match of `players` seats: "normal" at `seat`, "random" everywhere else."""
    return ["normal" if s == seat else "random" for s in range(players)]
