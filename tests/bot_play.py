"""Whole matches between bots for the bot tests, checking on the way that every chosen move is a legal one."""

from __future__ import annotations

import random
from typing import Any

import pytest

import engine
from engine.bots import get


def play_out(game_id: str, levels: list[str], seed: int, options: dict[str, Any], limit: int) -> dict[str, Any]:
    """The final state of a seeded match with `levels[s]` the bot at seat s; the test fails if a bot picks a move
    that is not legal or the match has not ended after `limit` moves."""
    game = engine.get(game_id)
    state = game.new(len(levels), options, seed=seed)
    bots = [get(game_id, level) for level in levels]
    chooser = random.Random(seed)
    for _ in range(limit):
        seat = game.to_move(state)
        if seat is None:
            return state
        legal = game.legal_moves(state, seat)
        move = bots[seat].choose(game.view(state, seat), legal, chooser)
        assert move in legal
        state = game.apply(state, seat, move)
    pytest.fail("the match did not end")
