"""Canasta layouts (NOTATION.md, "layout"): each key sets up the first hand as given, omitted keys take the
defaults, and a layout the rules forbid is refused with a ValueError that names what is wrong."""

import pytest

import engine
from engine import IllegalMove

GAME = engine.get("canasta")


def four(**layout):
    hands = layout.pop("hands", [["5S", "9C"], ["6S", "9D"], ["7S", "9H"], ["8S", "9S"]])
    return GAME.new(4, {}, layout={"hands": hands, "stock": ["4C", "4D"], "discard": ["QC"], **layout})


def refused(match, players=4, **layout):
    with pytest.raises(ValueError, match=match):
        GAME.new(players, {}, layout=layout)


def test_omitted_keys_take_the_defaults():
    """No dealer: the last seat dealt, so seat 0 moves first; round 1; scores 0 to 0 (minimum 50 each)."""
    state = four()
    view = GAME.view(state, 0)
    assert view["dealer"] == 3 and GAME.to_move(state) == 0
    assert view["round"] == 1 and view["scores"] == [0, 0] and view["min_meld"] == [50, 50]
    duo = GAME.new(2, {"variant": "duo"}, layout={"hands": [["5S"], ["6S"]], "stock": ["4C"], "discard": ["QC"]})
    assert GAME.view(duo, 0)["dealer"] == 1 and GAME.to_move(duo) == 0


@pytest.mark.parametrize(("dealer", "first"), [(0, 1), (1, 2), (2, 3), (3, 0)])
def test_the_seat_after_the_dealer_moves_first(dealer, first):
    state = four(dealer=dealer)
    assert GAME.view(state, None)["dealer"] == dealer and GAME.to_move(state) == first


def test_round_and_scores_are_taken_as_given():
    state = four(round=3, scores=[1600, -20])
    view = GAME.view(state, 0)
    assert view["round"] == 3 and view["scores"] == [1600, -20]
    assert view["min_meld"] == [90, 15]
    assert GAME.result(state)["round"] == 3 and GAME.result(state)["scores"] == [1600, -20]


def test_a_layout_meld_belongs_to_its_team_and_a_wild_may_say_what_it_stands_for():
    melds = [{"team": 1, "cards": ["X:7H", "7S", "7D"]}, {"cards": ["8S", "8H", "8D"]}]
    view = GAME.view(four(melds=melds), 0)
    assert [(m["team"], m["rank"]) for m in view["melds"]] == [(1, "7"), (0, "8")]
    assert view["opened"] == [True, True]


@pytest.mark.parametrize(
    ("melds", "match"),
    [
        ([{"team": 0, "cards": ["X:8H", "7S", "7D"]}], r"^melds: .*one rank"),
        ([{"team": 0, "cards": ["7S", "X", "2C"]}], r"^melds: .*two natural"),
        ([{"team": 0, "cards": ["7S", "7H", "7D", "X", "X", "2C", "2D"]}], r"^melds: .*three wild"),
        ([{"team": 0, "cards": ["3S", "3S", "3C"]}], r"^melds: black 3s are melded only when going out$"),
        ([{"team": 0, "cards": ["7S", "7H", "7D"]}, {"team": 0, "cards": ["7C", "7C", "7H"]}],
         r"^melds: team 0 has two melds of 7s$"),
        ([{"team": 1, "cards": ["AS", "AH", "AD"]}, {"team": 1, "cards": ["AC", "AC", "AH"]}],
         r"^melds: team 1 has two melds of aces$"),
        ([{"team": 2, "cards": ["7S", "7H", "7D"]}], r"^a meld's team is 0 or 1$"),
    ],
)
def test_layout_melds_follow_the_meld_rules(melds, match):
    with pytest.raises(ValueError, match=match):
        four(melds=melds)


def test_both_teams_may_meld_the_same_rank():
    melds = [{"team": 0, "cards": ["7S", "7H", "7D"]}, {"team": 1, "cards": ["7C", "7C", "7H"]}]
    assert [m["team"] for m in GAME.view(four(melds=melds), 0)["melds"]] == [0, 1]


@pytest.mark.parametrize("key", ["hands", "red3s", "stock", "discard"])
def test_an_unreadable_card_is_refused_naming_its_key(key):
    layout = {"hands": [[], [], [], []], key: ["ZZ"] if key in ("stock", "discard") else [["ZZ"], [], [], []]}
    refused(rf"^{key}: ", **layout)


def test_an_unreadable_meld_card_is_refused_naming_melds():
    refused(r"^melds: ", hands=[[], [], [], []], melds=[{"team": 0, "cards": ["7S", "7H", "ZZ"]}])


def test_layout_shape_errors_say_what_is_wrong():
    refused(r"^unknown layout key\(s\) for canasta: colour, tableau$", colour=1, tableau=[])
    refused(r"^a 4-player layout needs 4 hands and red3s lists$", hands=[[], []])
    refused(r"^a 4-player layout needs 4 hands and red3s lists$", red3s=[[], []])
    refused(r"^red3s may hold only 3H and 3D$", red3s=[["3S"], [], [], []])
    refused(r"^scores: one total per team \(two numbers\)$", scores=[1, 2, 3])


def test_refusals_name_the_rank_as_the_cards_show_it():
    """The refusal's parameter is the rank as printed on the cards: 10, not the code's T."""
    state = GAME.new(4, {}, layout={"hands": [["TS", "5C", "6D"]], "stock": ["4C"], "discard": ["TH", "9S"],
                                    "dealer": 3} | {"hands": [["TS", "5C", "6D"], [], [], []]})
    with pytest.raises(IllegalMove) as caught:
        GAME.apply(state, 0, "take")
    assert caught.value.params["rank"] == "10" and "10s" in caught.value.reason
    state = GAME.new(4, {}, layout={"hands": [["KS", "5C", "6D"], [], [], []], "stock": ["4C"],
                                    "discard": ["KH", "9S"], "dealer": 3})
    with pytest.raises(IllegalMove) as caught:
        GAME.apply(state, 0, "take")
    assert caught.value.params["rank"] == "K" and "kings" in caught.value.reason


def test_the_partner_of_each_seat_answers_ask():
    """Partners sit opposite: seat 1 asks, seat 3 answers; seat 3 asks, seat 1 answers."""
    kings = ["KS"] * 2 + ["KH"] * 2 + ["KD"] * 2 + ["KC"]
    for asker, partner in ((1, 3), (3, 1)):
        hands = [[], [], [], []]
        hands[asker] = ["5S", "5H", "5D", "9C"]
        melds = [{"team": 1, "cards": kings}, {"team": 1, "cards": ["9S", "9H", "9D"]}]
        state = GAME.new(4, {}, layout={"hands": hands, "stock": ["4C", "8C"], "discard": ["QC"], "melds": melds,
                                        "dealer": asker - 1})
        state = GAME.apply(GAME.apply(state, asker, "draw"), asker, "ask")
        assert GAME.to_move(state) == partner
        assert GAME.legal_moves(state, partner) == ["answer yes", "answer no"]
