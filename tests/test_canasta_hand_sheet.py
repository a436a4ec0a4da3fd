"""A Canasta hand's score sheet, item by item (rules/canasta.md, "Scoring (each team, each hand)"), for a hand
that the second team (seats 1 and 3) ends by going out: the sheet must credit each item to the right team."""

from __future__ import annotations

import pytest

import engine
from engine import rng
from engine.canasta.cards import DECK
from tests.contract import refused_reason

GAME = engine.get("canasta")


@pytest.mark.parametrize("out", [1, 3])
def test_the_second_team_going_out_scores_each_item_of_the_table(out):
    """Team 1: natural canasta of 8s 500, going out 100 (the team had melded before: not concealed), one red 3
    100, cards melded 7 × 10 (8s) + 4 × 10 (9s) + 3 × 5 (7s) = 125, the partner's 6S left in hand −5 → 820.
    The same whether seat 1 or seat 3 goes out: both are team 1.
    Team 0: mixed canasta of kings 300, one red 3 100 (it has melded), cards melded 5 × 10 + joker 50 + 2 20 =
    120, Q + 4 + 5 left in seats 0 and 2 → −20 → 500. The counts beside the points are the sheet's."""
    hands = [["QS"], ["6S"], ["4D", "5H"], ["6S"]]
    hands[out] = ["5C"]
    state = GAME.new(4, {}, layout={
        "hands": hands, "dealer": out - 1, "stock": ["9H", "7C"], "discard": ["4C"],
        "melds": [{"team": 0, "cards": ["KS", "KS", "KH", "KH", "KD", "X", "2C"]},
                  {"team": 1, "cards": ["8S", "8S", "8H", "8H", "8D", "8D", "8C"]},
                  {"team": 1, "cards": ["9S", "9D", "9C"]}, {"team": 1, "cards": ["7S", "7H", "7D"]}],
        "red3s": [[], [], ["3H"], ["3D"]],
    })
    assert GAME.to_move(state) == out  # the dealer's left
    for move in ("draw", "add 9H to 3", "discard 5C"):
        state = GAME.apply(state, GAME.to_move(state), move)
    assert state["last_hand"] == {
        "round": 1, "went_out": out, "concealed": False, "points": [500, 820],
        "detail": [{"canastas": 300, "red3s": 100, "going_out": 0, "melded": 120, "in_hand": -20},
                   {"canastas": 500, "red3s": 100, "going_out": 100, "melded": 125, "in_hand": -5}],
        "counts": [{"natural": 0, "mixed": 1, "red3s": 1, "melded": 7, "left": 3},
                   {"natural": 1, "mixed": 0, "red3s": 1, "melded": 14, "left": 1}],
        "totals": [500, 820],
    }
    assert state["history"] == [[500, 820]] and state["scores"] == [500, 820] and state["round"] == 2


def test_asking_the_partner_shows_in_the_view_until_the_answer():
    """"Before going out a player may ask their partner 'may I go out?'; the answer binds": after `ask` the
    partner (seat 3 for seat 1) is to move, in the answer phase, and the view says a question is pending."""
    state = GAME.new(4, {}, layout={
        "hands": [["QS"], ["5C"], ["4D", "5H"], ["6S"]], "dealer": 0, "stock": ["9H", "7C"], "discard": ["4C"],
        "melds": [{"team": 1, "cards": ["8S", "8S", "8H", "8H", "8D", "8D", "8C"]},
                  {"team": 1, "cards": ["9S", "9D", "9C"]}],
    })  # after drawing 9H, seat 1 could go out: add 9H to the 9s, discard 5C
    asked = GAME.apply(GAME.apply(state, 1, "draw"), 1, "ask")
    view = GAME.view(asked, 3)
    assert view["ask"] == "pending" and view["phase"] == "answer" and GAME.to_move(asked) == 3


def test_an_addition_may_not_bring_a_meld_past_three_wild_cards():
    """"At least 2 natural cards and at most 3 wild cards" holds for additions too."""
    state = GAME.new(4, {}, layout={
        "hands": [["X", "2D", "5D"], ["5C"], ["4D", "5H"], ["6S"]], "dealer": 3, "stock": ["9H", "7C"],
        "discard": ["4C"], "melds": [{"team": 0, "cards": ["KS", "KS", "KH", "KH", "X", "2C"]}],
    })
    drawn = GAME.apply(state, 0, "draw")
    assert refused_reason(GAME, drawn, 0, "add X 2D to 1") == "a meld may hold at most three wild cards"


def test_the_dealer_is_the_seat_that_draws_the_highest_card():
    """"Dealer chosen by drawing (highest deals)": each seat draws from the seeded shuffle (jokers skipped, the
    engine's decision), ace high, then spades > hearts > diamonds > clubs; identical cards draw again."""
    order, suits = "23456789TJQKA", "CDHS"
    for players, variant in ((4, "classic4"), (2, "duo")):
        for seed in range(40):  # enough seeds that some draw a joker first (skipped) or a tie
            source = rng.seed_state(seed)
            while True:
                source, deck = rng.shuffled(source, DECK)
                drawn = [card for card in deck if card != "X"][:players]
                keys = [(order.index(card[0]), suits.index(card[1])) for card in drawn]
                if keys.count(max(keys)) == 1:
                    break
            state = GAME.new(players, {"variant": variant}, seed=seed)
            assert state["dealer"] == keys.index(max(keys)), (players, seed, drawn)
