"""How a Tunj claim ends, and what the table says about it (rules/tunj.md, "Calling Tunj").

The rules: "an attempt is shown like any other move until its claim is resolved, and only then is the broken
rule named". So the event that closes a claim — "called" or "expired" — must carry the attempt and the rules it
broke, with the seat it concerns; the chat reads exactly these events to name the slip (bot/games/tunj.py).
"""

from __future__ import annotations

import engine
from tests.tunj_tables import table

GAME = engine.get("tunj")


def test_an_expired_claim_names_the_attempt_and_the_broken_rule_with_the_offenders_seat():
    """"If the window ends without a call, the illegal attempt stays refused … and play continues"; only then is
    the broken rule named — by the "expired" event, for the seat that made the attempt (seat 1 here)."""
    state = table(reserves=(["9S"], ["9D", "8S"]), hands=(["5C"], ["5H", "4D"]), houses={"H5": ["8C"]}, to_move=1)
    attempt = GAME.apply(state, 1, "move R H5")  # 9D on 8C: not one rank down
    assert GAME.view(attempt, None)["events"] == [
        {"type": "claim", "seat": 1, "attempt": "move R H5",
         "broke": ["9D cannot go on 8C in H5 (one rank down, other colour)"]}]
    expired = GAME.apply(attempt, 0, "expire")
    view = GAME.view(expired, None)
    assert view["events"] == [
        {"type": "expired", "seat": 1, "attempt": "move R H5",
         "broke": ["9D cannot go on 8C in H5 (one rank down, other colour)"]}]
    assert view["to_move"] == 1 and view["phase"] == "play" and not view["claim"]["open"]
    assert expired["piles"] == state["piles"]


def test_a_called_slip_whose_compulsory_move_empties_the_offender_wins_them_the_hand():
    """"A correct call: … where a compulsory move was neglected, that move is made and then the turn passes to the
    caller" — but when that move lays the offender's last card, "Normal win: your reserve, hand and waste are all
    empty. The winner scores 30 + (opponent's hand cards + opponent's waste cards) + 2 × (opponent's reserve
    cards)": 30 + 2 + 1 + 2 × 1 = 35 here, before the caller moves again."""
    state = table(reserves=(["AS"], ["9S"]), hands=([], ["5C", "4D"]), wastes=([], ["7H"]),
                  houses={"H1": ["5H"], "H2": ["6S"]})
    attempt = GAME.apply(state, 0, "move H1 H2")  # neglects priority 1: the reserve's AS must go up first
    assert GAME.view(attempt, None)["claim"]["neglected"] == "move R F1"
    called = GAME.apply(attempt, 1, "tunj")
    view = GAME.view(called, None)
    assert view["foundations"][0] == ["AS"] and view["houses"][0] == ["5H"]  # the attempt itself never happened
    assert view["over"] and view["winners"] == [0] and view["scores"] == [35, 0]
    assert view["hand_result"] == {"round": 1, "kind": "win", "winner": 0, "points": [35, 0], "burdens": [0, 5]}


def test_a_deadlock_won_by_the_second_seat_scores_the_difference_for_it():
    """"Deadlock: … each player's burden = hand cards + waste cards + 2 × reserve cards. The lower burden wins and
    scores the difference, without the 30 bonus" — here seat 1 (burden 2 against 6) wins 4. Nothing can move:
    kings on every house, no queen, no ace, no two cards of a suit one rank apart."""
    state = table(reserves=(["3S", "5S", "7S"], ["3C"]))
    view = GAME.view(state, None)
    assert view["over"] and view["winners"] == [1] and not view["draw"]
    assert view["hand_result"] == {"round": 1, "kind": "deadlock", "winner": 1, "points": [0, 4], "burdens": [6, 2]}
    assert view["scores"] == [0, 4]


def test_the_views_details_break_down_the_finished_hand():
    """tunj.md, worked example: "Opponent left with reserve 5, hand 10, waste 4 → the winner scores 30 + 10 + 4 +
    2×5 = 54". Every view lists each finished hand's breakdown (NOTATION.md's history, item by item): its kind,
    winner, points, each seat's burden and the piles it was counted from, and the totals after it."""
    opponent = {"reserve": ["2H", "3D", "4C", "5S", "6H"], "hand": ["7H", "8D", "9C", "TS", "2D", "3C", "4S", "5H",
                                                                  "6D", "7C"],
                "waste": ["8S", "9H", "TD", "JC"]}
    state = table(reserves=(["AS"], opponent["reserve"]), hands=((), opponent["hand"]),
                  wastes=((), opponent["waste"]))
    assert GAME.view(state, None)["details"] == []
    won = GAME.apply(state, 0, "move R F1")
    expected = [{"round": 1, "kind": "win", "winner": 0, "points": [54, 0], "burdens": [0, 24],
                 "parts": [{"hand": 0, "waste": 0, "reserve": 0}, {"hand": 10, "waste": 4, "reserve": 5}],
                 "totals": [54, 0]}]
    for seat in (None, 0, 1):
        assert GAME.view(won, seat)["details"] == expected


def test_only_a_correct_outer_sequence_is_offered_as_a_run():
    """tunj.md, Building: "Moving several cards between houses: allowed when they form a correct sequence and enough
    empty houses exist" (k ≤ 2^e, e = empty houses other than the destination). H1's outer 9D 8C go down by one in
    alternating colours, so both may move onto the black 10 with H3 empty; H4's outer 9H 5S are no sequence."""
    state = table(reserves=(["7S", "6S"], ["9S"]), hands=(["3C", "4D"], ["5C"]),
                  houses={"H1": ["5H", "9D", "8C"], "H2": ["TS"], "H3": [], "H4": ["TC", "9H", "5S"]})
    assert [move for move in GAME.legal_moves(state, 0) if ":" in move] == ["move H1:2 H2"]
