"""Seeded matches between bot levels: whole matches for the strength benches (and the tests that reuse them), and
the positions met on the way for the render benches' cases.

The chooser is seeded with the match's seed, so a seed names one match: a figure can be reproduced and a failing
match replayed.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import engine
from engine.bots import decide
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


class Position(NamedTuple):
    """A state met in bot play, before the move of `seat` (the seat to move); `step` counts the moves made."""

    step: int
    seat: int
    state: dict[str, Any]
    players: int


def positions(game_id: str, seeds: random.Random, setup: Callable[[int], tuple[int, dict[str, Any]]],
              level: Callable[[int], str] = lambda seat: "normal", count_per_match: bool = True) -> Iterator[Position]:
    """Every position of an endless run of matches between bots: match n is `setup(n)` (players, options) dealt
    from `seeds`; each move is the bot's at `level(seat)`, choosing with random.Random(step). `step` starts again
    at 0 with each match, or (count_per_match False) runs on across matches."""
    game = engine.get(game_id)
    step = 0
    for match in itertools.count():
        players, options = setup(match)
        state = game.new(players, options, seed=seeds.getrandbits(32))
        if count_per_match:
            step = 0
        while (seat := game.to_move(state)) is not None:
            yield Position(step, seat, state, players)
            state = game.apply(state, seat, decide(game_id, state, seat, level(seat), random.Random(step)))
            step += 1
