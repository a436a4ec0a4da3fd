"""Engine-contract checks (NOTATION.md) that read the same for every game, so each game's contract test states
only what is its own: its layouts, move texts and reasons."""

from __future__ import annotations

import json
from typing import Any

import pytest

import engine
from engine import IllegalMove
from engine.bots import get as get_bot


def refused_reason(game: Any, state: dict[str, Any], seat: int, move: str) -> str:
    """The reason `game` gives for refusing `move` by `seat` (the test fails if the move is accepted)."""
    with pytest.raises(IllegalMove) as caught:
        game.apply(state, seat, move)
    return caught.value.reason


def assert_registered_with_bots(game_id: str) -> None:
    """The game is listed and has the random and normal bots."""
    assert game_id in engine.game_ids()
    assert get_bot(game_id, "random").level == "random" and get_bot(game_id, "normal").level == "normal"


def assert_pure_and_json_round_trips(game: Any, players: int, steps: int, seed: int = 5) -> None:
    """Along `steps` moves of a seeded match (each seat's last legal move): apply leaves its input untouched, the
    state survives to_json / from_json with the same legal moves, `new` is deterministic, and another game's
    state is refused."""
    state = game.new(players, {}, seed=seed)
    frozen = json.dumps(state, sort_keys=True)
    for _ in range(steps):
        seat = game.to_move(state)
        move = game.legal_moves(state, seat)[-1]
        before = json.dumps(state, sort_keys=True)
        after = game.apply(state, seat, move)
        assert json.dumps(state, sort_keys=True) == before
        restored = game.from_json(json.dumps(game.to_json(after)))
        assert restored == after
        assert game.legal_moves(restored, game.to_move(restored)) == game.legal_moves(after, game.to_move(after))
        state = after
    assert json.dumps(game.new(players, {}, seed=seed), sort_keys=True) == frozen
    with pytest.raises(ValueError):
        game.from_json({"game": "kenza" if game.info.id != "kenza" else "tunj"})


def assert_legal_moves_parse_and_apply(game: Any, state: dict[str, Any], seat: int) -> list[str]:
    """Every legal move of `seat` parses to itself and applies; returns the moves."""
    moves = game.legal_moves(state, seat)
    for move in moves:
        assert game.parse_move(state, seat, move) == move
        game.apply(state, seat, move)
    return moves
