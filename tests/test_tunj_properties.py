"""Tunj invariants under random play (legal moves mixed with arbitrary attempts): 104 cards with each deck's
52 intact, foundations that only grow, lossless JSON, apply never mutating its input."""

from __future__ import annotations

import copy
import json
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.cards import french_deck
from engine.errors import IllegalMove
from engine.tunj.deal import deck_contents

GAME = engine.get("tunj")
FULL = Counter(french_deck())
SOURCES = ["R", "T", *(f"H{i}" for i in range(1, 9))]
TARGETS = [*(f"F{i}" for i in range(1, 9)), *(f"H{i}" for i in range(1, 9)), "OR", "OW"]
ANY_MOVES = (
    [f"move {s} {t}" for s in SOURCES for t in TARGETS]
    + [f"move H{i}:{k} H{j}" for i in range(1, 9) for j in range(1, 9) for k in (2, 3) if i != j]
    + ["turn", "tunj", "expire"]
)


def check_invariants(before, after):
    assert sum(len(pile) for pile in after["piles"].values()) == 104
    assert deck_contents(after) == [FULL, FULL]
    assert all(len(after["piles"][name]) == len(after["owners"][name]) for name in after["piles"])
    if after["round"] == before["round"]:
        for i in range(1, 9):
            old, new = before["piles"][f"F{i}"], after["piles"][f"F{i}"]
            assert new[: len(old)] == old
    assert GAME.from_json(json.loads(json.dumps(GAME.to_json(after)))) == after
    for seat in (0, 1, None):
        json.dumps(GAME.view(after, seat))
    if after["claim"] is not None and not after["over"]:
        assert GAME.to_move(after) == after["claim"]["caller"]
        assert GAME.legal_moves(after, GAME.to_move(after)) == ["tunj", "expire"]


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    picks=st.lists(st.tuples(st.booleans(), st.integers(0, 10_000)), min_size=20, max_size=150),
)
def test_random_play_keeps_invariants(seed, picks):
    state = GAME.new(2, {"target": 60}, seed=seed)
    for arbitrary, pick in picks:
        seat = GAME.to_move(state)
        if seat is None:
            break
        legal = GAME.legal_moves(state, seat)
        assert legal, "the seat to move always has a move"
        move = ANY_MOVES[pick % len(ANY_MOVES)] if arbitrary else legal[pick % len(legal)]
        frozen = copy.deepcopy(state)
        try:
            after = GAME.apply(state, seat, move)
        except IllegalMove:
            assert move not in legal
            assert state == frozen
            continue
        assert state == frozen
        check_invariants(state, after)
        state = after


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), other=st.integers(0, 1))
def test_out_of_turn_and_uncalled_moves_never_change_state(seed, other):
    state = GAME.new(2, seed=seed)
    frozen = copy.deepcopy(state)
    off_turn = 1 - GAME.to_move(state)
    for seat, move in ((off_turn, "turn"), (other, "tunj"), (other, "expire")):
        try:
            GAME.apply(state, seat, move)
        except IllegalMove:
            pass
        else:
            raise AssertionError(f"{move} by seat {seat} should have been refused")
    assert state == frozen
