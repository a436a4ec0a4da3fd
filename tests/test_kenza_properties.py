"""Property tests over random seeds and random legal move sequences (issue 2, item 6)."""

import json
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.cards import spanish_deck
from tests.properties import examples

GAME = engine.get("kenza")
FULL = Counter(spanish_deck())


def all_cards(state):
    cards = list(state["table"]) + list(state["stock"])
    for hand in state["hands"]:
        cards += hand
    for pile in state["captured"]:
        cards += pile
    return cards


@settings(max_examples=examples(30), deadline=None)
@given(
    seed=st.integers(0, 2**32),
    players=st.sampled_from([2, 3, 4]),
    variant=st.sampled_from(["kenza", "rabaeen"]),
    target=st.sampled_from([101, 151]),
)
def test_random_matches_keep_every_invariant(seed, players, variant, target):
    state = GAME.new(players, {"variant": variant, "target": target}, seed=seed)
    chooser = random.Random(seed)
    steps = 0
    while GAME.to_move(state) is not None:
        seat = GAME.to_move(state)
        moves = GAME.legal_moves(state, seat)
        assert moves, "a seat to move always has a legal move"
        for other in range(players):
            if other != seat:
                assert GAME.legal_moves(state, other) == []
        if GAME.result(state)["round"] == 1 or steps % 7 == 0:
            assert Counter(all_cards(state)) == FULL, "40 cards conserved during a deal"
            before = json.dumps(state, sort_keys=True)
            assert GAME.from_json(json.loads(json.dumps(GAME.to_json(state)))) == state
            for look in range(players):
                view = GAME.view(state, look)
                hidden = {c for s, hand in enumerate(state["hands"]) if s != look for c in hand}
                assert not hidden & set(json.dumps(view).replace('"', " ").replace(",", " ").split())
                assert view["hand"] == state["hands"][look]
            public = json.dumps(GAME.view(state, None))
            assert "hand\"" not in public
        move = chooser.choice(moves)
        before = json.dumps(state, sort_keys=True)
        new_state = GAME.apply(state, seat, move)
        assert json.dumps(state, sort_keys=True) == before, "apply never mutates its input"
        state = new_state
        steps += 1
        assert steps < 2000, "every match ends"
    result = GAME.result(state)
    assert result["over"] and result["winners"]
    assert all(sum(row) <= 100 for row in result["history"])
    assert max(result["scores"]) >= target


def test_same_seed_same_match():
    def play(seed):
        state = GAME.new(3, seed=seed)
        moves = []
        while GAME.to_move(state) is not None:
            seat = GAME.to_move(state)
            move = GAME.legal_moves(state, seat)[-1]
            moves.append(move)
            state = GAME.apply(state, seat, move)
        return moves, GAME.result(state)

    assert play(42) == play(42)
    assert play(42) != play(43)
