"""Property tests: random legal play keeps all 106 cards, valid melds, a JSON round trip and private hands."""

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.cards import JOKER
from engine.konkan_cards.cards import DECK, is_joker
from engine.konkan_cards.melds import meld_problem
from tests.properties import assert_totals, assert_view_private, hidden_shuffled, listed_moves

GAME = engine.get("konkan_cards")
FULL = Counter(DECK)


def all_cards(state):
    cards = list(state["stock"]) + list(state["discard"])
    for hand in state["hands"]:
        cards += hand
    for meld in state["melds"]:
        cards += [JOKER if is_joker(card) else card for card in meld["cards"]]
    return Counter(cards)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 4), variant=st.sampled_from(["konkan51", "konkan71"]),
       steps=st.integers(20, 160))
def test_random_play_keeps_every_invariant(seed, players, variant, steps):
    state = GAME.new(players, {"variant": variant}, seed=seed)
    chooser = random.Random(seed)
    for _ in range(steps):
        seat = GAME.to_move(state)
        if seat is None:
            break
        moves = listed_moves(GAME, state, seat)
        for other in range(players):
            if other != seat:
                assert GAME.legal_moves(state, other) == []
        move = chooser.choice(moves)
        assert GAME.parse_move(state, seat, move) == move
        state = GAME.apply(state, seat, move)
        assert_totals(state)
        if state["over"]:
            break
        assert all_cards(state) == FULL
        for meld in state["melds"]:
            assert meld_problem(meld["cards"]) is None, meld
        assert GAME.from_json(GAME.to_json(state)) == state
        looker = chooser.randrange(players)
        assert_view_private(GAME, state, looker, chooser)
        assert GAME.view(hidden_shuffled(GAME, state, looker, chooser), None) == GAME.view(state, None)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 4), steps=st.integers(0, 120))
def test_every_listed_move_applies(seed, players, steps):
    """Each move legal_moves lists applies, to a state that again has a seat to move or is over."""
    state = GAME.new(players, {}, seed=seed)
    chooser = random.Random(seed)
    for _ in range(steps):
        seat = GAME.to_move(state)
        if seat is None:
            return
        state = GAME.apply(state, seat, chooser.choice(GAME.legal_moves(state, seat)))
    seat = GAME.to_move(state)
    if seat is None:
        return
    for move in GAME.legal_moves(state, seat):
        after = GAME.apply(state, seat, move)
        assert after["over"] or GAME.legal_moves(after, GAME.to_move(after))


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 4))
def test_random_matches_end_with_five_rounds_or_more(seed, players):
    state = GAME.new(players, {}, seed=seed)
    chooser = random.Random(seed)
    moves = 0
    while (seat := GAME.to_move(state)) is not None:
        state = GAME.apply(state, seat, chooser.choice(GAME.legal_moves(state, seat)))
        moves += 1
        assert moves < 50_000
    result = GAME.result(state)
    assert len(result["history"]) >= 5 and len(result["history"]) == result["round"]
    low = min(result["scores"])
    if result["konkan_winner"] is None:
        assert result["winners"] == [result["scores"].index(low)] and result["scores"].count(low) == 1
    else:
        assert result["winners"] == [result["konkan_winner"]]
    for row in result["history"]:
        assert all(points in (-30, -60, 100, 200) or points > 0 for points in row)
