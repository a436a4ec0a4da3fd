"""Calling "Tunj" (rules/tunj.md; NOTATION.md contract): attempts open claims, both ways of closing them,
and the line between an attempt and an IllegalMove."""

from __future__ import annotations

import pytest

import engine
from engine.errors import IllegalMove
from tests.tunj_tables import table

GAME = engine.get("tunj")


def view(state):
    return GAME.view(state, None)


def two_of_clubs():
    """The worked example: 2C on a house while AC is on a foundation (priority 2)."""
    return table(reserves=(["9D", "8S"], ["9S"]), hands=(["5H", "4D"], ["5C"]),
                 houses={"H1": ["3D", "2C"], "H2": ["TC"]}, foundations={"F4": ["AC"]})


# ---- opening a claim ------------------------------------------------------------------------------------------
def test_building_break_opens_claim_for_opponent():
    state = two_of_clubs()
    attempt = GAME.apply(state, 0, "move R H1")  # 9D on 2C
    claim = view(attempt)["claim"]
    assert claim["open"] and claim["by"] == 0 and claim["caller"] == 1 and claim["attempt"] == "move R H1"
    assert any("9D cannot go on 2C" in reason for reason in claim["broke"])
    assert GAME.to_move(attempt) == 1 and view(attempt)["phase"] == "claim"
    assert GAME.legal_moves(attempt, 1) == ["tunj", "expire"]
    assert GAME.legal_moves(attempt, 0) == []
    assert attempt["piles"] == state["piles"]  # nothing was carried out
    assert view(attempt)["last_move"] == {"seat": 0, "move": "move R H1"}


def test_during_claim_only_the_caller_acts_and_only_by_tunj_or_expire():
    attempt = GAME.apply(two_of_clubs(), 0, "turn")
    with pytest.raises(IllegalMove, match="not your turn"):
        GAME.apply(attempt, 0, "move H1 F4")
    with pytest.raises(IllegalMove, match="claim is open"):
        GAME.apply(attempt, 1, "turn")


def test_call_without_open_claim_is_refused_for_both_seats():
    state = two_of_clubs()
    for seat in (0, 1):
        for text in ("tunj", "TUNJ", "expire"):
            with pytest.raises(IllegalMove, match="no claim"):
                GAME.apply(state, seat, text)


# ---- building break: call and expire ------------------------------------------------------------------------
def building_break():
    state = table(reserves=(["9D", "8S"], ["9S"]), hands=(["5H", "4D"], ["5C"]), houses={"H1": ["8C"]})
    return state, GAME.apply(state, 0, "move R H1")  # 9D on 8C: wrong rank


def test_call_on_building_break_cancels_attempt_and_passes_turn():
    state, attempt = building_break()
    called = GAME.apply(attempt, 1, "tunj")
    assert called["piles"] == state["piles"]
    assert GAME.to_move(called) == 1 and not view(called)["claim"]["open"]
    assert view(called)["phase"] == "play"
    assert view(called)["events"][0] == {"type": "called", "seat": 1, "attempt": "move R H1",
                                         "broke": ["9D cannot go on 8C in H1 (one rank down, other colour)"]}


def test_expire_on_building_break_refuses_attempt_and_same_player_goes_on():
    state, attempt = building_break()
    expired = GAME.apply(attempt, 1, "expire")
    assert expired["piles"] == state["piles"]
    assert GAME.to_move(expired) == 0
    assert GAME.legal_moves(expired, 0) == GAME.legal_moves(state, 0)


# ---- neglected priority: call and expire --------------------------------------------------------------------
def test_call_on_neglected_priority_makes_compulsory_move_then_caller_plays():
    attempt = GAME.apply(two_of_clubs(), 0, "turn")
    assert view(attempt)["claim"]["neglected"] == "move H1 F4"
    called = GAME.apply(attempt, 1, "tunj")
    v = view(called)
    assert v["foundations"][3] == ["AC", "2C"] and v["houses"][0] == ["3D"]
    assert v["hand_sizes"][0] == 2  # the turn attempt itself never happened
    assert GAME.to_move(called) == 1


def test_expire_on_neglected_priority_corrects_it_and_same_player_goes_on():
    attempt = GAME.apply(two_of_clubs(), 0, "move R H2")  # 9D on TC is fine as building, but 2C must go up
    assert len(view(attempt)["claim"]["broke"]) == 1
    assert view(attempt)["claim"]["broke"][0].startswith("priority 2")
    expired = GAME.apply(attempt, 1, "expire")
    v = view(expired)
    assert v["foundations"][3] == ["AC", "2C"]
    assert v["houses"][1] == ["TC"] and v["reserves"][0]["top"] == "9D"  # the attempt stays refused
    assert GAME.to_move(expired) == 0
    assert {"type": "corrected", "seat": 0, "move": "move H1 F4"} in v["events"]


def test_priority_one_neglect_expire_sends_reserve_top_up():
    state = table(reserves=(["AS", "7D"], ["9S"]), hands=(["5H"], ["5C"]), houses={"H1": ["AH"]})
    expired = GAME.apply(GAME.apply(state, 0, "move H1 F2"), 1, "expire")
    v = view(expired)
    assert v["foundations"][0] == ["AS"] and v["foundations"][1] == [] and v["houses"][0] == ["AH"]
    assert GAME.to_move(expired) == 0


def test_priority_three_neglect_call_fills_house_then_caller_plays():
    state = table(reserves=(["7S", "7D"], ["9S"]), hands=(["5H"], ["5C"]), houses={"H3": [], "H6": []})
    called = GAME.apply(GAME.apply(state, 0, "turn"), 1, "tunj")
    v = view(called)
    assert v["houses"][2] == ["7S"] and v["hand_sizes"][0] == 1
    assert GAME.to_move(called) == 1


def test_priority_three_neglect_expire_fills_house_without_turning():
    state = table(reserves=(["7S", "7D"], ["9S"]), hands=(["5H"], ["5C"]), houses={"H3": []})
    expired = GAME.apply(GAME.apply(state, 0, "turn"), 1, "expire")
    v = view(expired)
    assert v["houses"][2] == ["7S"] and v["hand_sizes"][0] == 1 and v["turned"] is None
    assert GAME.to_move(expired) == 0 and "turn" in GAME.legal_moves(expired, 0)


# ---- the turned card ----------------------------------------------------------------------------------------
def turned_seven():
    state = table(reserves=([], ["9S"]), hands=(["7H", "4S"], ["5C"]), houses={"H1": ["8S"]})
    return GAME.apply(state, 0, "turn")


def test_call_while_card_turned_sends_it_to_offenders_waste():
    attempt = GAME.apply(turned_seven(), 0, "turn")
    assert "turned card" in view(attempt)["claim"]["broke"][0]
    called = GAME.apply(attempt, 1, "tunj")
    v = view(called)
    assert v["turned"] is None and v["waste_tops"][0] == "7H" and v["hand_sizes"][0] == 1
    assert GAME.to_move(called) == 1


def test_turned_card_placed_wrongly_then_expire_keeps_it_in_play():
    attempt = GAME.apply(turned_seven(), 0, "move T H2")  # 7H on KH
    expired = GAME.apply(attempt, 1, "expire")
    assert view(expired)["turned"] == "7H" and GAME.legal_moves(expired, 0) == ["move T H1"]


# ---- what cannot be attempted at all ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    ["move H9 F1", "move R F0", "move R F9", "move X H1", "move R", "play 7H", "move H1 H1", "move R OR OW",
     "move T H1", "", "move H1:1 H2", "turn 2"],
)
def test_unattemptable_moves_raise(text):
    with pytest.raises(IllegalMove):
        GAME.apply(two_of_clubs(), 0, text)


def test_not_your_turn_raises():
    with pytest.raises(IllegalMove, match="not your turn"):
        GAME.apply(two_of_clubs(), 1, "turn")


def test_parse_is_case_and_space_tolerant():
    state = two_of_clubs()
    assert GAME.parse_move(state, 0, "  MOVE  h1   f4 ") == "move H1 F4"
    assert GAME.parse_move(state, 0, "move h1 : 2 h2") == "move H1:2 H2"
    assert GAME.parse_move(state, 0, "Turn") == "turn"
