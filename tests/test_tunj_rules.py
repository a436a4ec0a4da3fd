"""Tunj rules (rules/tunj.md) checked on explicit layouts: deal, who starts, building, loading, runs,
priorities, turning, the waste, the no-repeat rule, deadlock, scoring and the worked examples."""

from __future__ import annotations

import json
from collections import Counter

import pytest

import engine
from engine.cards import french_deck
from engine.errors import IllegalMove
from engine.tunj.deal import deck_contents

GAME = engine.get("tunj")
KINGS = ["KS", "KH", "KD", "KC"]


def table(
    reserves=((), ()),
    hands=((), ()),
    wastes=((), ()),
    houses=None,
    foundations=None,
    to_move=0,
    options=None,
):
    """A state from a layout; houses and foundations given as {"H3": [...]} bottom first, piles top first."""
    houses = houses or {}
    foundations = foundations or {}
    layout = {
        "reserves": [list(pile) for pile in reserves],
        "hands": [list(pile) for pile in hands],
        "wastes": [list(pile) for pile in wastes],
        "houses": [list(houses.get(f"H{i}", [])) for i in range(1, 9)],
        "foundations": [list(foundations.get(f"F{i}", [])) for i in range(1, 9)],
    }
    if to_move is not None:
        layout["to_move"] = to_move
    return GAME.new(2, options, layout=layout)


def full_houses(**given):
    """Eight houses of lone kings (nothing moves onto them but a queen), with some replaced."""
    houses = {f"H{i}": [KINGS[(i - 1) % 4]] for i in range(1, 9)}
    houses.update(given)
    return houses


def claim_of(state):
    return GAME.view(state, None)["claim"]


# ---- deal and who starts ------------------------------------------------------------------------------------
def test_deal_gives_each_player_reserve_houses_hand_from_own_deck():
    state = GAME.new(2, seed=11)
    view = GAME.view(state, None)
    assert [r["count"] for r in view["reserves"]] == [13, 13]
    assert all(len(house) == 1 for house in view["houses"])
    assert view["foundations"] == [[]] * 8
    assert view["waste_sizes"] == [0, 0]
    assert sorted(view["hand_sizes"]) == [35, 35]
    full = Counter(french_deck())
    assert deck_contents(state) == [full, full]
    assert state["owners"]["H1"] == [0] and state["owners"]["H5"] == [1]


def test_dealt_starter_follows_reserve_tops():
    for seed in range(6):
        state = GAME.new(2, seed=seed)
        tops = [GAME.view(state, None)["reserves"][s]["top"] for s in (0, 1)]
        order = "23456789TJQKA"
        strength = [(order.index(t[0]), "CDHS".index(t[1])) for t in tops]
        assert GAME.to_move(state) == (0 if strength[0] > strength[1] else 1)


@pytest.mark.parametrize(
    ("tops", "first"),
    [(("AS", "KS"), 0), (("KH", "AC"), 1), (("9S", "9H"), 0), (("9C", "9D"), 1), (("2S", "3C"), 1)],
)
def test_who_starts_higher_reserve_top(tops, first):
    state = table(reserves=([tops[0]], [tops[1]]), to_move=None)
    assert GAME.to_move(state) == first


def test_who_starts_identical_tops_compares_houses_left_to_right():
    state = table(reserves=(["9S"], ["9S"]), houses={"H1": ["4C"], "H5": ["4C"], "H2": ["5D"], "H6": ["7D"]},
                  to_move=None)
    assert GAME.to_move(state) == 1


# ---- foundations --------------------------------------------------------------------------------------------
def test_empty_foundation_takes_only_an_ace():
    state = table(reserves=(["2S", "9C"], ["QD"]), hands=(["5H"], ["5C"]), houses=full_houses())
    after = GAME.apply(state, 0, "move R F1")
    assert claim_of(after)["open"] and "foundation" in " ".join(claim_of(after)["broke"])
    assert GAME.view(after, None)["foundations"][0] == []
    ace = table(reserves=(["AS", "9C"], ["QD"]), hands=(["5H"], ["5C"]), houses=full_houses())
    assert GAME.view(GAME.apply(ace, 0, "move R F1"), None)["foundations"][0] == ["AS"]


def test_foundation_builds_up_by_suit():
    state = table(reserves=(["3S", "9C"], ["QD"]), hands=(["5H"], ["5C"]), houses=full_houses(),
                  foundations={"F1": ["AS", "2S"], "F2": ["AH", "2H"]})
    assert "move R F1" in GAME.legal_moves(state, 0)
    assert "move R F2" not in GAME.legal_moves(state, 0)
    assert claim_of(GAME.apply(state, 0, "move R F2"))["open"]
    assert GAME.view(GAME.apply(state, 0, "move R F1"), None)["foundations"][0] == ["AS", "2S", "3S"]


def test_foundation_cards_never_move():
    state = table(reserves=(["QC"], ["QD"]), hands=(["5H"], ["5C"]), houses=full_houses(H1=[]),
                  foundations={"F1": ["AS", "2S"]})
    assert not any(move.startswith("move F") for move in GAME.legal_moves(state, 0))
    with pytest.raises(IllegalMove):
        GAME.apply(state, 0, "move F1 H1")


# ---- houses and available cards -----------------------------------------------------------------------------
def test_houses_build_down_in_alternating_colours_and_empty_takes_any():
    state = table(reserves=(["7H"], ["QD"]), hands=(["5H"], ["5C"]),
                  houses=full_houses(H1=["8S"], H2=["8D"], H3=["9C"], H4=[]))
    legal = GAME.legal_moves(state, 0)
    assert "move R H1" in legal and "move R H4" in legal
    assert "move R H2" not in legal and "move R H3" not in legal
    assert GAME.view(GAME.apply(state, 0, "move R H1"), None)["houses"][0] == ["8S", "7H"]
    for wrong in ("move R H2", "move R H3"):
        assert claim_of(GAME.apply(state, 0, wrong))["open"]
    assert GAME.view(GAME.apply(state, 0, "move R H4"), None)["houses"][3] == ["7H"]


def test_waste_and_opponent_piles_are_never_sources():
    state = table(reserves=(["7H"], ["QD"]), hands=(["5H"], ["5C"]), wastes=(["6H"], ["8S"]),
                  houses=full_houses(H1=["8S"]))
    assert not any(move.split()[1] not in ("R", "T") and move.split()[1][0] != "H"
                   for move in GAME.legal_moves(state, 0) if move.startswith("move"))
    for text in ("move W H1", "move OW H1", "move OR H1", "move W0 H1"):
        with pytest.raises(IllegalMove):
            GAME.apply(state, 0, text)


def test_only_the_outer_house_card_moves_alone():
    state = table(reserves=(["QD"], ["QD"]), hands=(["5H"], ["5C"]),
                  houses=full_houses(H1=["9S", "4D"], H2=["TD"]))
    assert "move H1 H2" not in GAME.legal_moves(state, 0)  # 9S lies under 4D
    assert claim_of(GAME.apply(state, 0, "move H1 H2"))["open"]  # 4D on TD breaks the building rule


def test_unavailable_cards_cannot_be_attempted():
    state = table(reserves=([], ["QD"]), hands=(["5H"], ["5C"]), houses=full_houses(H3=[]))
    for text, reason in (("move R H3", "reserve is empty"), ("move T H3", "no turned card"),
                         ("move H3 H1", "empty")):
        with pytest.raises(IllegalMove, match=reason):
            GAME.apply(state, 0, text)


# ---- loading the opponent (worked example) -----------------------------------------------------------------
@pytest.mark.parametrize(("pile", "target"), [("reserve", "OR"), ("waste", "OW")])
def test_loading_same_suit_one_rank_either_way(pile, target):
    theirs = (["QD"], ["8C", "2D"]) if pile == "reserve" else (["QD"], ["2D"])
    wastes = ((), ()) if pile == "reserve" else ((), ["8C"])
    state = table(reserves=theirs, hands=(["5H"], ["5C"]), wastes=wastes,
                  houses=full_houses(H1=["7C"], H2=["9C"], H3=["8S"]))
    legal = GAME.legal_moves(state, 0)
    assert f"move H1 {target}" in legal and f"move H2 {target}" in legal
    assert f"move H3 {target}" not in legal
    loaded = GAME.apply(state, 0, f"move H1 {target}")
    view = GAME.view(loaded, None)
    top = view["reserves"][1]["top"] if pile == "reserve" else view["waste_tops"][1]
    assert top == "7C" and not view["claim"]["open"]
    refused = GAME.apply(state, 0, f"move H3 {target}")
    assert claim_of(refused)["open"]
    assert "8S cannot load 8C" in claim_of(refused)["broke"][0]


def test_empty_opponent_waste_cannot_be_loaded():
    state = table(reserves=(["QD"], ["2D"]), hands=(["5H"], ["5C"]), houses=full_houses(H1=["7C"]))
    assert "move H1 OW" not in GAME.legal_moves(state, 0)
    assert "empty" in claim_of(GAME.apply(state, 0, "move H1 OW"))["broke"][0]


# ---- runs between houses -----------------------------------------------------------------------------------
RUN = ["KS", "QH", "JC", "TD"]


def test_run_needs_enough_empty_houses():
    two_spare = table(reserves=(["5S"], ["5S"]), hands=(["5H"], ["5C"]),
                      houses=full_houses(H1=RUN, H2=["KC"], H7=[], H8=[]))
    assert "move H1:3 H2" in GAME.legal_moves(two_spare, 0)
    moved = GAME.apply(two_spare, 0, "move H1:3 H2")
    assert GAME.view(moved, None)["houses"][:2] == [["KS"], ["KC", "QH", "JC", "TD"]]
    one_spare = table(reserves=(["5S"], ["5S"]), hands=(["5H"], ["5C"]),
                      houses=full_houses(H1=RUN, H2=["KC"], H3=["QD"], H8=[]))
    legal = GAME.legal_moves(one_spare, 0)
    assert "move H1:3 H2" not in legal and "move H1:2 H3" in legal
    assert "move H1:2 H8" not in legal  # the target house itself is no spare house
    refused = GAME.apply(one_spare, 0, "move H1:3 H2")
    assert "empty houses" in claim_of(refused)["broke"][0]


def test_run_must_be_a_correct_sequence_and_go_to_a_house():
    state = table(reserves=(["5S"], ["5S"]), hands=(["5H"], ["5C"]),
                  houses=full_houses(H1=["9H", "8H"], H2=RUN, H8=[]), foundations={"F1": ["AD"]})
    assert "not a run" in claim_of(GAME.apply(state, 0, "move H1:2 H8"))["broke"][0]
    assert "only move to a house" in claim_of(GAME.apply(state, 0, "move H2:2 F1"))["broke"][0]


def test_malformed_runs_cannot_be_attempted():
    state = table(reserves=(["5S"], ["5S"]), hands=(["5H"], ["5C"]), houses=full_houses(H1=RUN, H8=[]))
    for text in ("move H1:1 H8", "move H1:5 H8", "move R:2 H8", "move H1:0 H8"):
        with pytest.raises(IllegalMove):
            GAME.apply(state, 0, text)


# ---- priorities ---------------------------------------------------------------------------------------------
def test_priority_one_reserve_to_foundation_first():
    state = table(reserves=(["AS", "9C"], ["QD"]), hands=(["5H"], ["5C"]), houses=full_houses(H1=["AH"]))
    legal = GAME.legal_moves(state, 0)
    assert "move R F1" in legal and "move H1 F1" not in legal  # neglecting a priority is not a legal move ...
    assert "move H1 F1" in GAME.attempts(state, 0)  # ... but an attempt the chat offers (it opens a claim)
    claim = claim_of(GAME.apply(state, 0, "move H1 F1"))
    assert claim["open"] and claim["neglected"] == "move R F1" and "priority 1" in claim["broke"][-1]
    assert not claim_of(GAME.apply(state, 0, "move R F3"))["open"]


def test_priority_two_worked_example_two_of_clubs_to_foundation():
    state = table(reserves=(["9D"], ["QD"]), hands=(["5H"], ["5C"]),
                  houses=full_houses(H1=["3D", "2C"], H6=[]), foundations={"F4": ["AC"]})
    for other in ("turn", "move R H6", "move H1 H6"):
        claim = claim_of(GAME.apply(state, 0, other))
        assert claim["open"] and claim["neglected"] == "move H1 F4" and "priority 2" in claim["broke"][-1]
    played = GAME.apply(state, 0, "move H1 F4")
    assert not claim_of(played)["open"]
    assert GAME.view(played, None)["foundations"][3] == ["AC", "2C"]


def test_priority_two_player_chooses_which_card():
    state = table(reserves=(["9D"], ["QD"]), hands=(["5H"], ["5C"]),
                  houses=full_houses(H1=["2C"], H2=["2D"]), foundations={"F1": ["AC"], "F2": ["AD"]})
    assert not claim_of(GAME.apply(state, 0, "move H2 F2"))["open"]
    assert not claim_of(GAME.apply(state, 0, "move H1 F1"))["open"]


def test_priority_three_fill_empty_house_before_turning():
    state = table(reserves=(["9S", "3C"], ["QD"]), hands=(["5H"], ["5C"]), houses=full_houses(H3=[], H6=[]))
    claim = claim_of(GAME.apply(state, 0, "turn"))
    assert claim["open"] and claim["neglected"] == "move R H3" and "priority 3" in claim["broke"][-1]
    assert not claim_of(GAME.apply(state, 0, "move H1 H6"))["open"]  # other moves are free
    filled = GAME.apply(state, 0, "move R H6")
    assert not claim_of(filled)["open"]
    assert "turn" not in GAME.legal_moves(filled, 0), "H3 is still empty and the reserve still has 3C"
    assert "turn" in GAME.attempts(filled, 0)
    assert "turn" in GAME.legal_moves(GAME.apply(filled, 0, "move R H3"), 0)


# ---- turning, the turned card, the waste ------------------------------------------------------------------
def test_turned_card_must_be_played_first():
    state = table(reserves=([], ["QD"]), hands=(["7H", "4S"], ["5C"]), houses=full_houses(H1=["8S"], H2=["9C"]))
    turned = GAME.apply(state, 0, "turn")
    assert GAME.view(turned, None)["turned"] == "7H"
    assert GAME.legal_moves(turned, 0) == ["move T H1"]
    claim = claim_of(GAME.apply(turned, 0, "move H2 H5"))
    assert claim["open"] and "turned card" in claim["broke"][0]
    played = GAME.apply(turned, 0, "move T H1")
    assert GAME.view(played, None)["turned"] is None and GAME.to_move(played) == 0


def test_unplayable_turned_card_goes_to_waste_and_ends_turn():
    state = table(reserves=([], ["QD"]), hands=(["4S", "7H"], ["5C"]), houses=full_houses())
    after = GAME.apply(state, 0, "turn")
    view = GAME.view(after, None)
    assert view["waste_tops"][0] == "4S" and view["waste_sizes"][0] == 1 and view["hand_sizes"][0] == 1
    assert GAME.to_move(after) == 1
    assert {"type": "to_waste", "seat": 0, "card": "4S"} in view["events"]


def test_waste_becomes_hand_without_shuffling_when_a_card_must_be_turned():
    state = table(reserves=([], ["QD"]), wastes=(["5C", "9D", "3S"], ["5C"]), houses=full_houses())
    view = GAME.view(state, None)
    assert view["hand_sizes"][0] == 0 and view["waste_sizes"][0] == 3, "not turned over before it is needed"
    turned = []
    for _ in range(3):
        state = GAME.apply(state, 0, "turn")  # none of them fits: each goes to the waste, seat 1 turns 5C
        events = GAME.view(state, None)["events"]
        turned.append(next(event["card"] for event in events if event["type"] == "turned"))
        if GAME.to_move(state) == 1:
            state = GAME.apply(state, 1, "turn")
    assert turned == ["3S", "9D", "5C"]  # the first card wasted comes back first


def test_waste_becomes_hand_mid_turn():
    state = table(reserves=([], ["QD"]), hands=(["8D"], ["5C"]), wastes=(["4C", "QS"], ["5C"]),
                  houses=full_houses(H5=[]))
    state = GAME.apply(GAME.apply(state, 0, "turn"), 0, "move T H5")
    assert GAME.view(state, None)["hand_sizes"][0] == 0
    state = GAME.apply(state, 0, "turn")
    events = GAME.view(state, None)["events"]
    assert events[0] == {"type": "flip", "seat": 0}
    assert events[1] == {"type": "turned", "seat": 0, "card": "QS"}


def test_no_position_repeats_within_a_turn():
    state = table(reserves=(["5D"], ["QD"]), hands=(["5H"], ["5C"]),
                  houses=full_houses(H1=["9S", "8H"], H2=["9C"]))
    state = GAME.apply(state, 0, "move H1 H2")
    assert "move H2 H1" not in GAME.legal_moves(state, 0)
    with pytest.raises(IllegalMove, match="already seen"):
        GAME.apply(state, 0, "move H2 H1")


def test_same_moves_allowed_again_next_turn():
    state = table(reserves=([], ["QD"]), hands=(["5H", "5D"], ["5C", "5S"]),
                  houses=full_houses(H1=["9S", "8H"], H2=["9C"]))
    state = GAME.apply(GAME.apply(state, 0, "move H1 H2"), 0, "turn")  # 5H fits nowhere: turn over
    state = GAME.apply(state, 1, "turn")
    assert "move H2 H1" in GAME.legal_moves(state, 0)


def test_player_without_any_move_passes_automatically():
    state = table(reserves=(["5D"], ["9S"]), hands=((), ["5C"]), houses=full_houses(), to_move=0)
    assert GAME.to_move(state) == 1
    assert GAME.view(state, None)["events"] == [{"type": "pass", "seat": 0}]


# ---- end of hand and scoring -------------------------------------------------------------------------------
def opponent_with_5_10_4(options=None):
    """Seat 0 has only AS left; seat 1 keeps reserve 5, hand 10, waste 4 (worked example)."""
    return table(
        reserves=(["AS"], ["5C", "6C", "7C", "8C", "9C"]),
        hands=((), ["2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD"]),
        wastes=((), ["2H", "3H", "4H", "5H"]),
        houses=full_houses(),
        options=options,
    )


def test_normal_win_worked_example_scores_54():
    state = GAME.apply(opponent_with_5_10_4(), 0, "move R F1")
    result = GAME.result(state)
    assert result == {"over": True, "round": 1, "scores": [54, 0], "history": [[54, 0]], "winners": [0],
                      "draw": False}
    assert GAME.to_move(state) is None and GAME.legal_moves(state, 0) == []


def test_target_plays_more_hands_until_reached():
    state = GAME.apply(opponent_with_5_10_4({"target": 100}), 0, "move R F1")
    assert not GAME.result(state)["over"] and GAME.result(state)["round"] == 2
    assert GAME.result(state)["scores"] == [54, 0]
    view = GAME.view(state, None)
    assert [r["count"] for r in view["reserves"]] == [13, 13] and view["foundations"] == [[]] * 8
    full = Counter(french_deck())
    assert deck_contents(state) == [full, full]
    done = GAME.apply(opponent_with_5_10_4({"target": 50}), 0, "move R F1")
    assert GAME.result(done)["over"] and GAME.result(done)["winners"] == [0]


def test_deadlock_worked_example_lower_burden_scores_difference():
    # Nothing can ever move: kings on every house, no queen, no ace, ranks never one apart.
    state = table(
        reserves=(["3S", "5S"], ["3C", "5C", "7C", "9C", "JC"]),
        hands=(["3H", "5H", "7H", "9H", "JH", "3D", "5D", "7D"],
               ["7S", "9S", "JS", "9D", "JD", "3H", "5H", "7H", "9H", "JH"]),
        houses=full_houses(),
    )
    assert GAME.view(state, None)["burdens"] == [12, 20]
    applied = 0
    while GAME.to_move(state) is not None:
        seat = GAME.to_move(state)
        assert GAME.legal_moves(state, seat) == ["turn"]
        state = GAME.apply(state, seat, "turn")
        applied += 1
        assert applied < 500
    assert GAME.result(state)["history"] == [[8, 0]]
    assert GAME.result(state)["winners"] == [0]
    assert GAME.view(state, None)["hand_result"]["kind"] == "deadlock"


def test_deadlock_equal_burdens_ties_the_hand():
    state = table(reserves=(["3S", "5S"], ["3C", "5C"]), houses=full_houses())
    result = GAME.result(state)  # neither can move at all: the passes repeat the position at once
    assert result["over"] and result["draw"] and result["winners"] == [0, 1]
    assert result["history"] == [[0, 0]]


def test_foundation_card_restarts_the_deadlock_count():
    state = table(reserves=(["3S"], ["3C"]), hands=(["5H", "AD"], ["7C"]), houses=full_houses())
    state = GAME.apply(state, 0, "turn")  # 5H goes to waste
    state = GAME.apply(state, 1, "turn")
    assert state["start_seen"]
    state = GAME.apply(state, 0, "turn")  # AD is turned and must go up
    state = GAME.apply(state, 0, "move T F1")
    assert state["start_seen"] == {}


# ---- layouts and options -------------------------------------------------------------------------------------
def test_layout_owners_keep_each_deck_free_of_duplicates():
    state = table(reserves=(["AS", "AS"], ["QD"]), hands=(["5H"], ["5C"]), houses=full_houses())
    assert sorted(state["owners"]["R0"]) == [0, 1]


def test_layout_refuses_three_copies_and_bad_foundations():
    with pytest.raises(ValueError):
        table(reserves=(["AS", "AS"], ["AS"]))
    with pytest.raises(ValueError):
        table(reserves=(["5S"], ["QD"]), foundations={"F1": ["2S"]})
    with pytest.raises(ValueError):
        GAME.new(2, layout={"tableau": []})


def test_options_validated():
    assert GAME.new(2, {"target": None}, seed=1)["options"] == {"target": None, "claim_seconds": 10}
    assert GAME.new(2, {"claim_seconds": 5, "target": 200}, seed=1)["options"] == {"target": 200,
                                                                                     "claim_seconds": 5}
    for bad in ({"claim_seconds": 0}, {"claim_seconds": "soon"}, {"target": -3}, {"speed": 2}):
        with pytest.raises(ValueError):
            GAME.new(2, bad, seed=1)
    with pytest.raises(ValueError):
        GAME.new(3, seed=1)


def test_view_is_json_and_shows_no_hand_order():
    state = GAME.new(2, seed=5)
    for seat in (0, 1, None):
        view = GAME.view(state, seat)
        json.dumps(view)
        assert "hand" not in view and view["hand_sizes"] == [35, 35]
        assert {"reserves", "houses", "foundations", "waste_tops", "turned", "claim", "scores", "last_move",
                "to_move", "phase"} <= set(view)


# ---- issue 9: legal moves are exactly the rule-abiding ones; the waste turns over only when needed ----------
def test_a_house_move_while_a_card_fits_a_foundation_is_an_attempt_not_a_legal_move():
    state = table(reserves=(["9D"], ["QD"]), hands=(["5H"], ["5C"]),
                  houses=full_houses(H1=["3D", "2C"], H4=["8C"], H7=["7D"]), foundations={"F4": ["AC"]})
    assert "move H7 H4" not in GAME.legal_moves(state, 0)
    assert "move H7 H4" in GAME.attempts(state, 0)
    assert GAME.legal_moves(state, 0) == ["move H1 F4"]
    claim = claim_of(GAME.apply(state, 0, "move H7 H4"))
    assert claim["open"] and claim["neglected"] == "move H1 F4"


def test_turning_with_an_empty_house_and_a_reserve_is_an_attempt_not_a_legal_move():
    state = table(reserves=(["9S", "3C"], ["QD"]), hands=(["5H"], ["5C"]), houses=full_houses(H6=[]))
    assert "turn" not in GAME.legal_moves(state, 0)
    assert "turn" in GAME.attempts(state, 0) and "move R H6" in GAME.legal_moves(state, 0)
    assert claim_of(GAME.apply(state, 0, "turn"))["neglected"] == "move R H6"


def test_waste_stays_loadable_until_a_card_must_be_turned():
    """Issue 9's example: seat 0 has an empty hand and waste [9C, 5D]; its attempt is called; on seat 1's turn
    9C is still on seat 0's waste and seat 1 may load 8C or TC on it."""
    state = table(reserves=(["7S"], ["QD"]), wastes=(["9C", "5D"], ["5C"]),
                  houses=full_houses(H2=["8C"], H7=["TC"]))
    assert GAME.view(state, None)["waste_tops"][0] == "9C"
    attempt = GAME.apply(state, 0, "move R F1")  # 7S on an empty foundation: a building break
    called = GAME.apply(attempt, 1, "tunj")
    view = GAME.view(called, None)
    assert GAME.to_move(called) == 1
    assert view["waste_tops"][0] == "9C" and view["waste_sizes"][0] == 2 and view["hand_sizes"][0] == 0
    legal = GAME.legal_moves(called, 1)
    assert "move H2 OW" in legal and "move H7 OW" in legal
    loaded = GAME.apply(called, 1, "move H2 OW")
    assert GAME.view(loaded, None)["waste_tops"][0] == "8C"
