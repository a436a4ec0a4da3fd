"""The normal Tunj bot's house-to-house moves (engine/tunj/bots.py, NormalBot): they "only score when they expose
something useful (an empty house the reserve can fill, a card for a foundation, a place for the reserve top)"."""

from __future__ import annotations

import random

import engine
from engine.tunj.bots import NormalBot
from tests.tunj_tables import table

GAME = engine.get("tunj")


def choices(state):
    return {NormalBot().choose(GAME.view(state, 0), GAME.legal_moves(state, 0), random.Random(seed))
            for seed in range(8)}


def test_emptying_a_house_the_reserve_can_then_fill_beats_turning():
    """5H from H1 onto 6S in H2 leaves H1 empty for the reserve's 9D (which fits nowhere now): worth a move,
    rather than turning a card. Rules, priority 3: "If a house is empty and your reserve is not empty, fill the
    house from the reserve" — the bot makes that room."""
    state = table((["9D"], ["2C"]), (["3C"], ["4S"]), {"H1": ["5H"], "H2": ["6S"]})
    assert sorted(GAME.legal_moves(state, 0)) == ["move H1 H2", "turn"]
    assert choices(state) == {"move H1 H2"}


def test_emptying_a_house_is_worth_nothing_once_the_reserve_is_empty():
    """The same move with an empty reserve exposes nothing the bot can use: it turns instead."""
    state = table(([], ["2C"]), (["3C"], ["4S"]), {"H1": ["5H"], "H2": ["6S"]})
    assert sorted(GAME.legal_moves(state, 0)) == ["move H1 H2", "turn"]
    assert choices(state) == {"turn"}
