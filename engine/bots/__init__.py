"""Computer players. A bot sees exactly what its seat sees: `game.view(state, seat)` and that seat's legal
moves (which follow from its own view), never the full state.

Each game module exposes `BOTS = {"random": cls, "normal": cls}`; `engine.bots.get(game_id, level)` finds them.
"""

from __future__ import annotations

import importlib
import random
from typing import Any, Protocol

LEVELS = ("random", "normal")


class Bot(Protocol):
    """A policy: from a seat's view and its legal moves, the move to play."""

    level: str

    def choose(self, view: dict[str, Any], legal: list[str], rng: random.Random) -> str: ...


class RandomBot:
    """Uniform over the legal moves: the baseline every heuristic bot is measured against."""

    level = "random"

    def choose(self, view: dict[str, Any], legal: list[str], rng: random.Random) -> str:
        if not legal:
            raise ValueError("no legal move to choose from")
        return legal[rng.randrange(len(legal))]


def get(game_id: str, level: str) -> Bot:
    """A bot of `level` for `game_id`; ValueError for an unknown level."""
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}; choose one of {', '.join(LEVELS)}")
    import engine

    game = engine.get(game_id)
    module = importlib.import_module(type(game).__module__.rsplit(".", 1)[0] + ".bots")
    return module.BOTS[level]()


def decide(game_id: str, state: dict[str, Any], seat: int, level: str, rng: random.Random) -> str:
    """Convenience for the service: build the seat's view and legal moves, then ask the bot."""
    import engine

    game = engine.get(game_id)
    return get(game_id, level).choose(game.view(state, seat), game.legal_moves(state, seat), rng)
