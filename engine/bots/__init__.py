"""Computer players. A bot sees exactly what its seat sees: `game.view(state, seat)` and that seat's legal
moves (which follow from its own view), never the full state.

Each game module exposes `BOTS = {"random": cls, "normal": cls, "expert": cls, ...}` (a game may add levels,
e.g. Tunj's "strong"); `engine.bots.get(game_id, level)` finds them. "expert" searches from the view
(engine.bots.search and each game's `expert` module). A game whose engine offers `attempts(state, seat)` (moves
that break a rule on purpose, Tunj) hands them to its bots as `attempts=`, for the levels that sometimes slip.
"""

from __future__ import annotations

import importlib
import random
from typing import Any, Protocol

LEVELS = ("random", "normal", "expert")  # the levels every game has, weakest first


class Bot(Protocol):
    """A policy: from a seat's view and its legal moves, the move to play."""

    level: str

    def choose(self, view: dict[str, Any], legal: list[str], rng: random.Random) -> str: ...


def _module(game_id: str) -> Any:
    import engine

    game = engine.get(game_id)
    return importlib.import_module(type(game).__module__.rsplit(".", 1)[0] + ".bots")


def levels(game_id: str) -> tuple[str, ...]:
    """The bot levels `game_id` has, weakest first."""
    return tuple(_module(game_id).BOTS)


class RandomBot:
    """Uniform over the legal moves: the baseline every heuristic bot is measured against."""

    level = "random"

    def choose(self, view: dict[str, Any], legal: list[str], rng: random.Random) -> str:
        if not legal:
            raise ValueError("no legal move to choose from")
        return legal[rng.randrange(len(legal))]


def get(game_id: str, level: str) -> Bot:
    """A bot of `level` for `game_id`; ValueError for an unknown level."""
    bots = _module(game_id).BOTS
    if level not in bots:
        raise ValueError(f"unknown bot level {level!r}; choose one of {', '.join(bots)}")
    return bots[level]()


def decide(game_id: str, state: dict[str, Any], seat: int, level: str, rng: random.Random, *,
           slips: bool = True) -> str:
    """Convenience for the service: build the seat's view and legal moves, then ask the bot.

    `slips=False` withholds the attempts, so even a level that sometimes breaks a rule plays only legal moves
    (a bot covering for an absent player must not make slips in their name)."""
    import engine

    game = engine.get(game_id)
    bot = get(game_id, level)
    view, legal = game.view(state, seat), game.legal_moves(state, seat)
    attempts = getattr(game, "attempts", None)
    if slips and attempts is not None:
        return bot.choose(view, legal, rng, attempts=attempts(state, seat))  # type: ignore[call-arg]
    return bot.choose(view, legal, rng)


def decide_seeded(game_id: str, state: dict[str, Any], seat: int, level: str, seed: str, slips: bool = True) -> str:
    """`decide` with its generator made from `seed` (the service's "match seed:version"): a plain function of plain
    data, so a worker process can run it and a replay or a restarted worker gets the same move."""
    return decide(game_id, state, seat, level, random.Random(seed), slips=slips)
