"""A Canasta hand's score sheet, item by item (rules/canasta.md, "Scoring (each team, each hand)"), for a hand
that the second team (seats 1 and 3) ends by going out: the sheet must credit each item to the right team."""

from __future__ import annotations

import engine

GAME = engine.get("canasta")


def test_the_second_team_going_out_scores_each_item_of_the_table():
    """Team 1: natural canasta of 8s 500, going out 100 (the team had melded before: not concealed), one red 3
    100, cards melded 7 × 10 (8s) + 4 × 10 (9s) = 110, seat 3's 6S left in hand −5 → 805.
    Team 0: mixed canasta of kings 300, one red 3 100 (it has melded), cards melded 5 × 10 + joker 50 + 2 20 =
    120, Q + 4 + 5 left in seats 0 and 2 → −20 → 500. The counts beside the points are the sheet's."""
    state = GAME.new(4, {}, layout={
        "hands": [["QS"], ["5C"], ["4D", "5H"], ["6S"]], "dealer": 0, "stock": ["9H", "7C"], "discard": ["4C"],
        "melds": [{"team": 0, "cards": ["KS", "KS", "KH", "KH", "KD", "X", "2C"]},
                  {"team": 1, "cards": ["8S", "8S", "8H", "8H", "8D", "8D", "8C"]},
                  {"team": 1, "cards": ["9S", "9D", "9C"]}],
        "red3s": [[], [], ["3H"], ["3D"]],
    })
    assert GAME.to_move(state) == 1  # the dealer's left
    for move in ("draw", "add 9H to 3", "discard 5C"):
        state = GAME.apply(state, GAME.to_move(state), move)
    assert state["last_hand"] == {
        "round": 1, "went_out": 1, "concealed": False, "points": [500, 805],
        "detail": [{"canastas": 300, "red3s": 100, "going_out": 0, "melded": 120, "in_hand": -20},
                   {"canastas": 500, "red3s": 100, "going_out": 100, "melded": 110, "in_hand": -5}],
        "counts": [{"natural": 0, "mixed": 1, "red3s": 1, "melded": 7, "left": 3},
                   {"natural": 1, "mixed": 0, "red3s": 1, "melded": 11, "left": 1}],
        "totals": [500, 805],
    }
    assert state["history"] == [[500, 805]] and state["scores"] == [500, 805] and state["round"] == 2
