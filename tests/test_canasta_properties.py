"""Property tests: random legal play keeps all 108 cards, valid melds and private hands at every step."""

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.canasta.cards import DECK
from engine.canasta.melds import meld_problem
from tests.properties import assert_totals, assert_view_private, bot_or_random, examples, listed_moves

GAME = engine.get("canasta")
FULL = Counter(DECK)


def all_cards(state):
    cards = list(state["stock"]) + list(state["discard"])
    for pile in state["hands"] + state["red3s"]:
        cards += pile
    for meld in state["melds"]:
        cards += meld["cards"]
    if state.get("pending"):
        cards += [state["pending"]["top"], *state["pending"]["rest"]]
    return Counter(cards)


def check_melds(state):
    for team in (0, 1):
        ranks = [meld["rank"] for meld in state["melds"] if meld["team"] == team]
        assert len(ranks) == len(set(ranks)), "a team melds each rank once"
    for meld in state["melds"]:
        assert meld_problem(meld["rank"], meld["cards"]) is None, meld


MAX_HAND_MOVES = 3000  # far above any hand seen (bots: 30-200 moves; random play ends too, see below)


@settings(max_examples=examples(12), deadline=None)
@given(seed=st.integers(0, 2**32), variant=st.sampled_from(["classic4", "duo"]),
       random_share=st.sampled_from([0.0, 0.3, 0.7]))
def test_whole_hands_keep_every_invariant(seed, variant, random_share):
    """The engine's normal bots, with a share of random legal moves mixed in, play a whole hand into the next
    deal: melds are built, the pile is taken, someone goes out or the stock runs dry, and the hand is scored.
    (Random moves alone seldom meld, so a few dozen of them never got past the first draws.)"""
    players = 4 if variant == "classic4" else 2
    state = GAME.new(players, {"variant": variant, "target": 2500}, seed=seed)
    chooser = random.Random(seed)
    for _ in range(MAX_HAND_MOVES):
        seat = GAME.to_move(state)
        if seat is None or state["round"] > 1:
            break
        move = bot_or_random(GAME, state, seat, listed_moves(GAME, state, seat), chooser, random_share)
        state = GAME.apply(state, seat, move)
        assert_totals(state)
        if state["over"]:
            break
        assert all_cards(state) == FULL
        check_melds(state)
        looker = chooser.randrange(players)
        assert_view_private(GAME, state, looker, chooser)
    assert state["round"] == 2 or state["over"], "the hand was played to its end"
    assert len(state["history"]) == 1 and any(state["history"][0]), "and scored"


@settings(max_examples=examples(15), deadline=None)
@given(seed=st.integers(0, 2**32))
def test_random_hands_always_end(seed):
    """Random play cannot loop: every take melds a card for good and every draw shrinks the stock."""
    state = GAME.new(2, {"variant": "duo", "target": 2500}, seed=seed)
    chooser = random.Random(seed)
    for _ in range(3000):
        seat = GAME.to_move(state)
        if seat is None or state["round"] > 1:
            break
        state = GAME.apply(state, seat, chooser.choice(GAME.legal_moves(state, seat)))
    assert state["round"] > 1 or state["over"]
