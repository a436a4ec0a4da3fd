"""Checks the rummy games' property tests share: a seat's view shows its own hand and nothing it cannot see."""

from __future__ import annotations

import os
import random
from collections import Counter
from typing import Any

from engine.bots import decide

MUTATING = "MUTANT_UNDER_TEST" in os.environ  # set by mutmut (scripts/mutate.py) in the processes running tests


def examples(full: int) -> int:
    """A property test's number of examples: `full` normally; a third of it (at least 2) under mutation testing,
    where every mutant that survives replays the test and the whole-hand examples dominate a run. There the
    examples are derandomized (tests/conftest.py), so each mutant meets the same ones and a verdict is repeatable."""
    return max(2, full // 3) if MUTATING else full


def hidden_shuffled(game: Any, state: dict[str, Any], seat: int, chooser: random.Random) -> dict[str, Any]:
    """The same position with what `seat` cannot see (other hands, the stock) dealt anew, sizes kept.

    The discard pile is not hidden: every card in it was seen face up when discarded."""
    other = [s for s in range(state["players"]) if s != seat]
    pool = [c for s in other for c in state["hands"][s]] + state["stock"]
    chooser.shuffle(pool)
    copy = game.from_json(game.to_json(state))
    for s in other:
        size = len(copy["hands"][s])
        copy["hands"][s], pool = pool[:size], pool[size:]
    copy["stock"] = pool
    return copy


def assert_view_private(game: Any, state: dict[str, Any], looker: int, chooser: random.Random) -> None:
    """`looker`'s view holds its own hand, and is the same when what it cannot see is dealt anew."""
    view = game.view(state, looker)
    assert Counter(view["hand"]) == Counter(state["hands"][looker])
    assert game.view(hidden_shuffled(game, state, looker, chooser), looker) == view


def listed_moves(game: Any, state: dict[str, Any], seat: int) -> list[str]:
    """The legal moves of the seat to move: at least one, none listed twice."""
    moves = game.legal_moves(state, seat)
    assert moves, "a seat to move always has a legal move"
    assert len(moves) == len(set(moves))
    return moves


def bot_or_random(game: Any, state: dict[str, Any], seat: int, moves: list[str], chooser: random.Random,
                  random_share: float) -> str:
    """A random listed move with probability `random_share`, else the normal bot's; it is listed and parses to
    itself."""
    move = chooser.choice(moves) if chooser.random() < random_share else decide(game.info.id, state, seat, "normal",
                                                                                chooser)
    assert move in moves and game.parse_move(state, seat, move) == move
    return move


def assert_totals(state: dict[str, Any]) -> None:
    """The rounds' scores add up to the match score."""
    assert sum(sum(row) for row in state["history"]) == sum(state["scores"])
