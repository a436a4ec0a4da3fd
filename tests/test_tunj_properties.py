"""Tunj invariants under random play (legal moves mixed with arbitrary attempts): 104 cards with each deck's
52 intact, foundations that only grow, lossless JSON, apply never mutating its input."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.bots import decide
from engine.cards import french_deck
from engine.errors import IllegalMove
from engine.tunj.deal import deck_contents
from tests.properties import examples

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


MAX_HAND_MOVES = 5000  # attempts included; a hand of bots takes 300-500 moves


@settings(max_examples=examples(6), deadline=None)
@given(seed=st.integers(0, 10_000), attempts=st.sampled_from([0.1, 0.4]), random_share=st.sampled_from([0.0, 0.3]))
def test_whole_hands_keep_invariants(seed, attempts, random_share):
    """A whole hand, into the next deal: the engine's normal bots play, mixed with random legal moves and with
    arbitrary attempts (most of them illegal, refused without a change). Random moves alone never empty a
    stock pile, so a few dozen of them never reached a hand's end and its scoring."""
    state = GAME.new(2, {"target": 60}, seed=seed)
    chooser = random.Random(seed)
    refused = 0
    for _ in range(MAX_HAND_MOVES):
        seat = GAME.to_move(state)
        if seat is None or state["round"] > 1:
            break
        legal = GAME.legal_moves(state, seat)
        assert legal, "the seat to move always has a move"
        roll = chooser.random()
        if roll < attempts:
            move = chooser.choice(ANY_MOVES)
        elif roll < attempts + random_share:
            move = chooser.choice(legal)
        else:
            move = decide("tunj", state, seat, "normal", chooser)
            assert move in GAME.attempts(state, seat), "legal, or a slip neglecting a priority (casual level)"
        frozen = json.dumps(state, sort_keys=True)
        try:
            after = GAME.apply(state, seat, move)
        except IllegalMove:
            assert move not in legal
            assert json.dumps(state, sort_keys=True) == frozen
            refused += 1
            continue
        assert json.dumps(state, sort_keys=True) == frozen
        check_invariants(state, after)
        state = after
    assert state["round"] == 2 or state["over"], "the hand was played to its end"
    assert refused, "arbitrary attempts were tried and refused"


@settings(max_examples=examples(30), deadline=None)
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


@settings(max_examples=examples(25), deadline=None)
@given(
    seed=st.integers(0, 10_000),
    picks=st.lists(st.tuples(st.booleans(), st.integers(0, 10_000)), min_size=10, max_size=120),
)
def test_no_legal_move_ever_opens_a_claim_and_every_other_attempt_does(seed, picks):
    """legal_moves is exactly the rule-abiding part of attempts (issue 9): the walk mixes in attempts, so
    claims, calls and expiries are met on the way."""
    state = GAME.new(2, seed=seed)
    checked = 0
    for attempt, pick in picks:
        seat = GAME.to_move(state)
        if seat is None:
            break
        legal = GAME.legal_moves(state, seat)
        offered = GAME.attempts(state, seat)
        assert legal and set(legal) <= set(offered)
        if state["claim"] is None:
            for move in offered:
                opened = GAME.apply(state, seat, move)["claim"] is not None
                assert opened == (move not in legal), move
                checked += 1
        pool = offered if attempt else legal
        state = GAME.apply(state, seat, pool[pick % len(pool)])
    assert checked or GAME.to_move(state) is None
