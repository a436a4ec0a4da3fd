"""Canasta rules (../shared/rules/canasta.md), each checked through a layout, including every worked example."""

from collections import Counter

import pytest

import engine
from engine import IllegalMove
from engine.canasta.cards import DECK, is_red_three, is_wild
from engine.canasta.game import minimum_meld
from tests.contract import refused_reason

GAME = engine.get("canasta")


def four(hands, **layout):
    """A classic4 layout where seat 0 moves first (dealer 3); missing hands are empty."""
    hands = list(hands) + [[] for _ in range(4 - len(hands))]
    return GAME.new(4, {}, layout={"hands": hands, "dealer": 3, **layout})


def two(hands, **layout):
    return GAME.new(2, {"variant": "duo"}, layout={"hands": hands, "dealer": 1, **layout})


def play(state, *moves):
    for move in moves:
        state = GAME.apply(state, GAME.to_move(state), move)
    return state


def refused(state, move, *words):
    reason = refused_reason(GAME, state, GAME.to_move(state), move)
    for word in words:
        assert word in reason, reason
    return reason


# ---- set-up ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("variant", "players", "size"), [("classic4", 4, 11), ("duo", 2, 15)])
def test_deal_from_seed(variant, players, size):
    state = GAME.new(players, {"variant": variant}, seed=11)
    assert state == GAME.new(players, {"variant": variant}, seed=11)
    cards = list(state["stock"]) + state["discard"] + [c for h in state["hands"] for c in h]
    cards += [c for r in state["red3s"] for c in r]
    assert Counter(cards) == Counter(DECK) and len(cards) == 108
    assert all(len(hand) == size for hand in state["hands"])
    assert not any(is_red_three(card) for hand in state["hands"] for card in hand)
    top = state["discard"][0]
    assert not is_wild(top) and not is_red_three(top)
    assert GAME.to_move(state) == (state["dealer"] + 1) % players


def test_dealers_differ_by_seed_and_the_deal_rotates():
    dealers = {GAME.new(4, {}, seed=seed)["dealer"] for seed in range(12)}
    assert len(dealers) > 1
    state = four([["KS", "QS"]], stock=[], discard=["5H"])
    assert GAME.legal_moves(state, 0) == ["pass"]
    after = play(state, "pass")
    assert after["round"] == 2 and after["dealer"] == 0 and GAME.to_move(after) == 1


@pytest.mark.parametrize(
    ("players", "options"),
    [
        (2, {"variant": "classic4"}),
        (4, {"variant": "duo"}),
        (3, {"variant": "classic4"}),
        (4, {"target": 3000}),
        (4, {"speed": 1}),
    ],
)
def test_options_and_players_are_validated(players, options):
    with pytest.raises(ValueError):
        GAME.new(players, options, seed=1)


def test_target_2500_is_accepted():
    assert GAME.new(2, {"variant": "duo", "target": 2500}, seed=1)["options"]["target"] == 2500


def test_upcard_wild_is_covered_and_freezes():
    for seed in range(200):
        state = GAME.new(4, {}, seed=seed)
        if len(state["discard"]) > 1:
            assert any(is_wild(card) or is_red_three(card) for card in state["discard"][1:])
            assert GAME.view(state, None)["frozen"]
            return
    pytest.fail("no seed turned a wild upcard")


def test_red_threes_are_laid_and_replaced():
    state = four([["3H", "5S", "6S"], ["3D"]], stock=["7S", "8S", "9S"], discard=["KC"])
    assert state["red3s"][0] == ["3H"] and state["red3s"][1] == ["3D"]
    assert sorted(state["hands"][0]) == ["5S", "6S", "7S"] and state["hands"][1] == ["8S"]
    state = four([["5S"]], stock=["3H", "9D", "4C"], discard=["KC"])
    state = play(state, "draw")
    assert state["red3s"][0] == ["3H"] and "9D" in state["hands"][0]
    view = GAME.view(state, 1)
    assert view["team_red3s"][0] == ["3H"]


def test_last_stock_card_red_three_ends_the_hand():
    state = four([["5S", "6S"]], stock=["3H"], discard=["KC"])
    after = play(state, "draw")
    assert after["round"] == 2 and after["last_hand"]["went_out"] is None
    assert after["last_hand"]["detail"][0]["red3s"] == -100  # team 0 melded nothing


# ---- melds ----------------------------------------------------------------------------------------------------
def test_meld_limits():
    hand = ["7S", "7H", "7D", "8S", "X", "X", "2S", "2H", "9C", "9D", "KS", "KH"]
    state = play(
        four([hand], stock=["4C"], discard=["QC"], melds=[{"team": 0, "cards": ["JS", "JH", "JD"]}]), "draw"
    )
    refused(state, "meld 7S 7H X X X", "more wild")
    refused(state, "meld 7S 7H 7D X X 2S 2H", "at most three")
    refused(state, "meld 7S X 2S", "two natural")
    refused(state, "meld X 2S 2H", "wild cards only")
    refused(state, "meld 7S 8S 9C", "one rank")
    refused(state, "meld 7S 7H", "three cards")
    assert "meld 7S 7H 7D 2S 2H X" in GAME.legal_moves(state, 0)
    assert "meld 7S 7H X" in GAME.legal_moves(state, 0)
    play(state, "meld 7S 7H X:7C")  # a wild may say what it stands for


def test_one_meld_per_rank_per_team_and_numbering():
    melds = [{"team": 1, "cards": ["7C", "7C", "7S"]}, {"team": 0, "cards": ["7D", "7H", "X:7S"]}]
    state = play(four([["7S", "7H", "5D", "9C", "9S"]], stock=["4C"], discard=["QC"], melds=melds), "draw")
    refused(state, "meld 7S 7H 2C", "already has a meld")
    refused(state, "add 7S to 1", "other team")
    after = play(state, "add 7S 7H to 2")
    assert after["melds"][1]["cards"] == ["7S", "7H", "7H", "7D", "X"]
    assert GAME.view(after, 0)["melds"][1]["number"] == 2


def test_canasta_kinds_and_a_natural_canasta_turned_mixed():
    melds = [{"team": 0, "cards": ["9S"] * 2 + ["9H"] * 2 + ["9D"] * 2 + ["9C"]}]
    state = play(four([["2S", "5D", "5C", "KS"]], stock=["4C"], discard=["QC"], melds=melds), "draw")
    assert GAME.view(state, 0)["melds"][0]["canasta"] == "natural"
    after = play(state, "add 2S to 1")
    assert GAME.view(after, 0)["melds"][0]["canasta"] == "mixed"


def test_black_threes_only_when_going_out():
    melds = [{"team": 0, "cards": ["KS", "KS", "KH", "KH", "KD", "KC", "X"]}]
    state = play(four([["3S", "3S", "3C", "5H", "5D"]], stock=["4C"], discard=["QC"], melds=melds), "draw")
    refused(state, "meld 3S 3S 3C", "only when going out")
    state = four([["3S", "3S", "3C"]], stock=["4C"], discard=["QC"], melds=melds)
    state = play(state, "draw", "meld 3S 3S 3C", "discard 4C")
    assert state["last_hand"]["went_out"] == 0
    assert state["last_hand"]["detail"][0]["melded"] == 15 + 110


# ---- the first meld -------------------------------------------------------------------------------------------
def test_minimum_table():
    assert [minimum_meld(score) for score in (-5, 0, 1495, 1500, 2995, 3000)] == [15, 50, 50, 90, 90, 120]


def test_worked_example_minimum_at_1600():
    hand = ["6S", "6H", "6D", "KS", "KH", "KD", "2C", "AS", "AH", "AD", "2D", "9S", "8S"]
    state = play(four([hand], stock=["4C"], discard=["QC"], scores=[1600, 0]), "draw")
    refused(state, "meld 6S 6H 6D | KS KH KD 2C", "90", "65")
    after = play(state, "meld 6S 6H 6D | AS AH AD 2D")
    assert len(after["melds"]) == 2 and GAME.view(after, 0)["opened"] == [True, False]


def test_a_combination_is_listed_when_only_several_melds_open():
    hand = ["6S", "6H", "6D", "AS", "AH", "AD", "2D", "9S", "8S", "7C"]
    state = play(four([hand], stock=["4C"], discard=["QC"], scores=[1600, 0]), "draw")
    melds = [move for move in GAME.legal_moves(state, 0) if move.startswith("meld")]
    assert melds == ["meld 6S 6H 6D 2D | AS AH AD"]
    assert GAME.parse_move(state, 0, "meld ad ah as 2d | 6h 6s 6d") == "meld 6S 6H 6D | AS AH AD 2D"


def test_worked_example_minimum_below_zero():
    state = play(
        four([["4S", "4H", "4D", "9C", "KD"]], stock=["4C"], discard=["QC"], scores=[-200, 0]), "draw"
    )
    assert GAME.view(state, 0)["min_meld"] == [15, 50]
    assert "meld 4S 4H 4D" in GAME.legal_moves(state, 0)


# ---- taking the pile ------------------------------------------------------------------------------------------
def test_seed_example_take_a_frozen_pile_with_a_natural_pair():
    hand = ["9H", "9D", "X", "5S", "KC"]
    pile = ["9S", "4D", "5D", "6D", "7D", "8D", "JD"]
    state = four([hand], stock=["4C"], discard=pile)
    assert GAME.legal_moves(state, 0) == ["draw", "take"]
    state = play(state, "take")
    assert GAME.view(state, 0)["must_use"] == "9S"
    refused(state, "discard 5S", "top card 9S")
    refused(state, "meld 5S 5S X", "not in your hand")
    assert all("9S" in move for move in GAME.legal_moves(state, 0))
    state = play(state, "meld 9S 9H 9D X")
    assert sorted(state["hands"][0]) == sorted(["5S", "KC"] + pile[1:])
    assert state["melds"][0]["cards"] == ["9S", "9H", "9D", "X"]


def test_frozen_pile_needs_a_natural_pair_and_minimum_counts_only_top_and_hand():
    state = four([["9H", "X", "5S", "KC"]], stock=["4C"], discard=["9S", "4D"])
    assert GAME.legal_moves(state, 0) == ["draw"]
    refused(state, "take", "two natural 9s")
    # K K + top K = 30 < 50: the aces in the pile may not count toward the minimum
    state = four([["KH", "KD", "5S", "6C"]], stock=["4C"], discard=["KS", "AS", "AH", "AD", "X"])
    refused(state, "take", "50")


def test_unfrozen_pile_natural_and_wild_or_adding_to_a_meld():
    melds = [{"team": 0, "cards": ["QS", "QH", "QD"]}]
    state = four([["9H", "X", "5S", "KC"]], stock=["4C"], discard=["9S", "4D"], melds=melds)
    assert "take" in GAME.legal_moves(state, 0)
    state = play(state, "take")
    assert GAME.legal_moves(state, 0) == ["meld 9S 9H X"]
    state = four([["6H", "5S", "KC"]], stock=["4C"], discard=["QC", "4D"], melds=melds)
    state = play(state, "take")
    assert GAME.legal_moves(state, 0) == ["add QC to 1"]


def test_wild_in_pile_freezes_it_for_everybody():
    melds = [{"team": 0, "cards": ["QS", "QH", "QD"]}]
    state = four([["9H", "X", "5S", "KC"]], stock=["4C"], discard=["9S", "2D", "4D"], melds=melds)
    assert GAME.view(state, 0)["frozen"]
    refused(state, "take", "frozen")
    state = four([["6H", "5S", "KC"]], stock=["4C"], discard=["QC", "2D"], melds=melds)
    refused(state, "take")


NINES_HAND = ["9H", "9D", "X", "5C", "KC"]
QUEENS = [{"team": 0, "cards": ["QS", "QH", "QD"]}]


def natural_nines(move: str) -> int:
    return sum(1 for card in move.split() if card in ("9H", "9D"))


def test_a_frozen_pile_taken_with_a_pair_is_melded_with_the_pair_not_a_wild():
    """Holding 9H 9D and a joker: the take is legal (a natural pair), but only the pair may carry the top 9."""
    state = four([NINES_HAND], stock=["4C"], discard=["9S", "2D", "4D"], melds=QUEENS)
    assert GAME.view(state, 0)["frozen"] and "take" in GAME.legal_moves(state, 0)
    state = play(state, "take")
    legal = GAME.legal_moves(state, 0)
    assert legal and all(natural_nines(move) == 2 for move in legal), legal
    refused(state, "meld 9S 9H X", "frozen", "two natural 9s")
    refused(state, "meld 9S 9D X", "frozen")
    after = play(state, "meld 9S 9H 9D")
    assert after["melds"][-1]["cards"] == ["9S", "9H", "9D"]
    assert not GAME.view(play(after, "discard 5C"), 1)["frozen"]  # taking the pile unfroze it


def test_an_unopened_team_takes_as_from_a_frozen_pile():
    """No wild or red 3 in the pile: frozen for the side that has not melded only, and its take needs the pair."""
    pile = ["9S", "4D"]
    unopened = four([NINES_HAND], stock=["4C"], discard=pile)
    view = GAME.view(unopened, 0)
    assert not view["frozen"] and view["frozen_for"] == [True, True]
    state = play(unopened, "take")
    assert GAME.legal_moves(state, 0) == ["meld 9S 9H 9D X"]  # 9S 9H 9D alone is 30 < 50
    refused(state, "meld 9S 9H X", "frozen", "two natural 9s")  # 70 points: only the pair rule refuses it
    assert play(state, "meld 9S 9H 9D X")["melds"][0]["cards"] == ["9S", "9H", "9D", "X"]
    # The same hand and pile for a side that has melded: a natural and a wild carry the 9.
    opened = four([NINES_HAND], stock=["4C"], discard=pile, melds=QUEENS)
    assert GAME.view(opened, 0)["frozen_for"] == [False, True]
    state = play(opened, "take")
    assert {"meld 9S 9H X", "meld 9S 9D X", "meld 9S 9H 9D"} <= set(GAME.legal_moves(state, 0))
    assert play(state, "meld 9S 9H X")["melds"][-1]["cards"] == ["9S", "9H", "X"]
    # Unopened with one natural 9 and a wild: no take at all, whatever the points.
    refused(four([["9H", "X", "X", "5C"]], stock=["4C"], discard=pile), "take", "not melded", "two natural 9s")


def test_a_frozen_pile_is_not_taken_onto_a_meld_without_a_natural_pair():
    nines = [{"team": 0, "cards": ["9C", "9C", "9D"]}]
    state = four([["9H", "5C", "KC"]], stock=["4C"], discard=["9S", "2D"], melds=nines)
    assert GAME.legal_moves(state, 0) == ["draw"]
    refused(state, "take", "frozen", "two natural 9s")
    state = play(four([["9H", "9H", "5C", "KC"]], stock=["4C"], discard=["9S", "2D"], melds=nines), "take")
    assert GAME.legal_moves(state, 0) == ["add 9S 9H 9H to 1"]
    refused(state, "add 9S to 1", "frozen")
    refused(state, "add 9S 9H to 1", "frozen")
    # Unfrozen, the top card alone goes onto the meld.
    state = play(four([["9H", "5C", "KC"]], stock=["4C"], discard=["9S", "4D"], melds=nines), "take")
    assert "add 9S to 1" in GAME.legal_moves(state, 0)


def test_a_red_three_in_the_pile_freezes_it_and_goes_to_the_taker():
    pile = ["9S", "3H", "4D"]
    state = four([["9H", "X", "5C", "KC"]], stock=["4C"], discard=pile, melds=QUEENS)
    assert GAME.view(state, 0)["frozen"] and GAME.legal_moves(state, 0) == ["draw"]
    refused(state, "take", "frozen")
    state = play(four([["9H", "9D", "5C", "KC"]], stock=["4C"], discard=pile, melds=QUEENS), "take")
    assert GAME.legal_moves(state, 0) == ["meld 9S 9H 9D"] and state["red3s"][0] == ["3H"]
    state = play(state, "meld 9S 9H 9D")
    assert sorted(state["hands"][0]) == ["4D", "5C", "KC"]  # the red 3 went face up, not into the hand


def test_a_covered_black_three_neither_blocks_nor_freezes_the_pile():
    state = four([["9H", "X", "5C", "KC"]], stock=["4C"], discard=["9S", "3S"], melds=QUEENS)
    assert not GAME.view(state, 0)["frozen"] and "take" in GAME.legal_moves(state, 0)
    state = play(state, "take")
    assert GAME.legal_moves(state, 0) == ["meld 9S 9H X"]
    assert "3S" in play(state, "meld 9S 9H X")["hands"][0]


def test_opening_with_the_taken_top_card_may_add_melds_from_the_hand():
    """K K + the top K is 30 < 50; with the aces from the hand in the same move the opening reaches 90."""
    state = play(four([["KH", "KD", "AS", "AH", "AD", "5C"]], stock=["4C"], discard=["KS", "7D"]), "take")
    assert GAME.legal_moves(state, 0) == ["meld KS KH KD | AS AH AD"]
    refused(state, "meld KS KH KD", "50", "30")
    state = play(state, "meld KS KH KD | AS AH AD")
    assert sorted(state["hands"][0]) == ["5C", "7D"]
    # At 1500 (90) with two cards to keep: K K + the top K with the aces and a joker (120) opens; K + the top K
    # with the joker and three aces would be worth more (130) but is no natural pair, so it is never the choice.
    state = four([["KH", "KD", "AS", "AH", "AD", "X", "5C"]], stock=["4C"], discard=["KS"], scores=[1500, 0])
    state = play(state, "take")
    assert GAME.legal_moves(state, 0) == ["meld KS KH KD | AS AH X"]
    refused(state, "meld KS KH X | AS AH AD", "frozen")


def test_black_three_or_wild_on_top_blocks_the_pile():
    state = four([["3S", "3C", "5S"]], stock=["4C"], discard=["3S", "9D"])
    refused(state, "take", "black 3")
    state = four([["X", "2S", "5S"]], stock=["4C"], discard=["2H", "9D"])
    refused(state, "take")


def test_one_card_may_not_take_a_one_card_pile():
    melds = [{"team": 0, "cards": ["QS", "QH", "QD"]}]
    state = four([["5S"]], stock=["4C"], discard=["QC"], melds=melds)
    refused(state, "take", "one card")
    state = four([["5S"]], stock=["4C"], discard=["QC", "7H"], melds=melds)
    assert "take" in GAME.legal_moves(state, 0)


# ---- going out and scoring ------------------------------------------------------------------------------------
ACES6 = ["AS", "AS", "AH", "AH", "AD", "AD"]


def test_worked_example_concealed_seven_aces():
    state = four([ACES6 + ["AC"]], stock=["4C"], discard=["QC"])
    state = play(state, "draw", "meld AS AS AH AH AD AD AC", "discard 4C")
    assert state["last_hand"]["concealed"] and state["history"] == [[840, 0]]


def test_worked_example_going_out_normally_and_with_red_threes():
    melds = [{"team": 0, "cards": ACES6}]
    state = play(
        four([["AC"]], stock=["4C"], discard=["QC"], melds=melds), "draw", "add AC to 1", "discard 4C"
    )
    assert state["history"] == [[740, 0]]
    red = [["3H"], [], ["3D"], []]
    state = four([["AC"]], stock=["4C"], discard=["QC"], melds=melds, red3s=red)
    state = play(state, "draw", "add AC to 1", "discard 4C")
    assert state["history"] == [[940, 0]]


def test_worked_example_team_that_melded_nothing():
    melds = [{"team": 0, "cards": ACES6}]
    state = four(
        [["AC"], ["KS"], [], ["5H"]],
        stock=["4C"],
        discard=["QC"],
        melds=melds,
        red3s=[[], ["3H", "3D"], [], []],
    )
    state = play(state, "draw", "add AC to 1", "discard 4C")
    assert state["history"][0][1] == -215


def test_all_four_red_threes_score_800():
    melds = [{"team": 0, "cards": ACES6}, {"team": 1, "cards": ["5S", "5H", "5D"]}]
    red = [["3H", "3H"], [], ["3D", "3D"], []]
    state = play(
        four([["AC"]], stock=["4C"], discard=["QC"], melds=melds, red3s=red),
        "draw",
        "add AC to 1",
        "discard 4C",
    )
    assert state["last_hand"]["detail"][0]["red3s"] == 800


def test_going_out_needs_canastas():
    melds = [{"team": 0, "cards": ["AS", "AH", "AD"]}]
    state = play(four([["AC"]], stock=["4C"], discard=["QC"], melds=melds), "draw")
    refused(state, "add AC to 1", "needs 1 canasta")
    melds = [{"team": 0, "cards": ACES6 + ["AC"]}]
    state = play(two([["5S", "5H", "5D"], ["9S"]], stock=["4C"], discard=["QC"], melds=melds), "draw")
    refused(state, "meld 5S 5H 5D", "2 canastas")
    assert "discard 4C" in GAME.legal_moves(state, 0)


# ---- concealed going out and the opening minimum --------------------------------------------------------------
FIVES = ["5S", "5H", "5D"]
EIGHTS6 = ["8S", "8S", "8H", "8H", "8D", "8D"]
CONCEALED_OUT = "meld 5S 5H 5D | 8S 8S 8H 8H 8D 8D 8C"


def test_worked_example_concealed_going_out_after_a_stock_draw_needs_no_minimum():
    """Team score 3000 (minimum 120): 5-5-5 + seven 8s is 85 points, yet a concealed going out after drawing."""
    state = four([FIVES + EIGHTS6 + ["8C"], [], ["KS", "4H"]], stock=["9C"], discard=["QC"], scores=[3000, 0])
    state = play(state, "draw")
    assert GAME.view(state, 0)["min_meld"][0] == 120
    legal = GAME.legal_moves(state, 0)
    assert CONCEALED_OUT in legal and "ask" in legal  # the partner may be asked: this hand can go out
    assert GAME.parse_move(state, 0, "meld 8c 8d 8d 8h 8h 8s 8s | 5d 5h 5s") == CONCEALED_OUT
    # Below the minimum a meld that does not go out stays refused, even in the same turn.
    refused(state, "meld 5S 5H 5D", "120", "15")
    refused(state, "meld 8S 8S 8H 8H 8D 8D 8C", "120", "70")
    out = play(state, CONCEALED_OUT, "discard 9C")
    assert out["last_hand"]["went_out"] == 0 and out["last_hand"]["concealed"]
    assert out["last_hand"]["detail"][0] == {"canastas": 500, "red3s": 0, "going_out": 200, "melded": 85,
                                             "in_hand": -15}
    assert out["history"] == [[785 - 15, 0]]


def test_concealed_going_out_after_asking_the_partner():
    state = four([FIVES + EIGHTS6 + ["8C"]], stock=["9C", "4C"], discard=["QC"], scores=[3000, 0])
    state = play(state, "draw", "ask", "answer yes")
    assert CONCEALED_OUT in GAME.legal_moves(state, 0)
    out = play(state, CONCEALED_OUT, "discard 9C")
    assert out["last_hand"]["concealed"] and out["history"] == [[785, 0]]
    # "No" forbids going out, so the exemption is gone too.
    state = play(four([FIVES + EIGHTS6 + ["8C"]], stock=["9C", "4C"], discard=["QC"], scores=[3000, 0]),
                 "draw", "ask", "answer no")
    assert not [move for move in GAME.legal_moves(state, 0) if move.startswith("meld")]
    refused(state, CONCEALED_OUT, "120")


def test_concealed_going_out_with_no_discard_and_the_minimum_table():
    """Seven 8s completed by the drawn card, nothing left to discard: 70 points go out at every minimum."""
    for score in (-100, 0, 1500, 3000):
        state = play(four([EIGHTS6], stock=["8C"], discard=["QC"], scores=[score, 0]), "draw")
        assert "meld 8S 8S 8H 8H 8D 8D 8C" in GAME.legal_moves(state, 0)
        out = play(state, "meld 8S 8S 8H 8H 8D 8D 8C")
        assert out["history"] == [[70 + 500 + 200, 0]] and out["last_hand"]["concealed"]
    # Two cards left is no going out: below the minimum, refused.
    state = play(four([EIGHTS6 + ["9C", "KD"]], stock=["8C"], discard=["QC"], scores=[3000, 0]), "draw")
    refused(state, "meld 8S 8S 8H 8H 8D 8D 8C", "120", "70")
    # duo needs two canastas: one canasta does not go out, so it is an opening like any other.
    state = play(two([EIGHTS6 + ["9C"], ["9S"]], stock=["8C"], discard=["QC"], scores=[3000, 0]), "draw")
    refused(state, "meld 8S 8S 8H 8H 8D 8D 8C")
    assert not [move for move in GAME.legal_moves(state, 0) if move.startswith("meld")]
    # Two canastas of 4s and 5s (70 points) go out concealed in duo at 3000.
    fours, fives = ["4S", "4S", "4H", "4H", "4D", "4D", "4C"], ["5S", "5S", "5H", "5H", "5D", "5D"]
    state = play(two([fours + fives + ["KC"], ["9S"]], stock=["5C"], discard=["QC"], scores=[3000, 0]), "draw")
    both = "meld 4S 4S 4H 4H 4D 4D 4C | 5S 5S 5H 5H 5D 5D 5C"
    assert both in GAME.legal_moves(state, 0)
    out = play(state, both, "discard KC")
    assert out["history"] == [[70 + 1000 + 200, -10]] and out["last_hand"]["concealed"]


def test_concealed_going_out_with_the_taken_pile_still_needs_the_minimum():
    """The same cards as after a stock draw, but the 8 comes from the discard pile: 70 < 120, so no take."""
    hand = EIGHTS6 + ["9C"]
    by_stock = play(four([hand], stock=["8C"], discard=["8C"], scores=[3000, 0]), "draw")
    assert "meld 8S 8S 8H 8H 8D 8D 8C" in GAME.legal_moves(by_stock, 0)
    by_pile = four([hand], stock=["4C"], discard=["8C"], scores=[3000, 0])
    assert GAME.legal_moves(by_pile, 0) == ["draw"]
    refused(by_pile, "take", "two natural 8s", "120")
    # Where 70 reaches the minimum the same take goes out concealed.
    state = play(four([hand], stock=["4C"], discard=["8C"], scores=[0, 0]), "take")
    assert "meld 8S 8S 8H 8H 8D 8D 8C" in GAME.legal_moves(state, 0)
    out = play(state, "meld 8S 8S 8H 8H 8D 8D 8C", "discard 9C")
    assert out["last_hand"]["concealed"] and out["history"] == [[70 + 500 + 200, 0]]


def test_concealed_going_out_from_a_bigger_pile_still_needs_the_minimum():
    """With a pile of several cards the opening meld holds the top card; its worth decides, going out or not."""
    hand = FIVES + EIGHTS6
    state = four([hand], stock=["4C"], discard=["8C", "9C"], scores=[3000, 0])
    refused(state, "take", "120")
    state = play(four([hand], stock=["4C"], discard=["8C", "9C"], scores=[0, 0]), "take")
    assert GAME.parse_move(state, 0, CONCEALED_OUT) == CONCEALED_OUT
    out = play(state, CONCEALED_OUT, "discard 9C")
    assert out["last_hand"]["concealed"] and out["history"] == [[785, 0]]


# ---- asking the partner ---------------------------------------------------------------------------------------
def asking_layout():
    melds = [
        {"team": 0, "cards": ["KS"] * 2 + ["KH"] * 2 + ["KD"] * 2 + ["KC"]},
        {"team": 0, "cards": ["9S", "9H", "9D"]},
    ]
    return four([["5S", "5H", "5D", "9C"]], stock=["4C", "8C"], discard=["QC"], melds=melds)


def test_ask_passes_the_move_to_the_partner():
    state = play(asking_layout(), "draw")
    assert "ask" in GAME.legal_moves(state, 0)
    state = play(state, "ask")
    assert GAME.to_move(state) == 2 and GAME.view(state, 2)["phase"] == "answer"
    assert GAME.legal_moves(state, 2) == ["answer yes", "answer no"]
    refused(state, "answer maybe", "answer yes")
    with pytest.raises(IllegalMove):
        GAME.apply(state, 0, "discard 4C")


def test_answer_no_forbids_going_out():
    state = play(asking_layout(), "draw", "ask", "answer no")
    assert GAME.to_move(state) == 0
    refused(state, "ask", "already asked")
    state = play(state, "meld 5S 5H 5D")
    refused(state, "add 9C to 2", "partner said no")
    state = play(state, "discard 4C")
    assert state["round"] == 1 and GAME.to_move(state) == 1


def test_answer_yes_binds_to_go_out():
    state = play(asking_layout(), "draw", "ask", "answer yes")
    refused(state, "discard 9C", "partner said yes")
    while state["round"] == 1:
        state = play(state, GAME.legal_moves(state, 0)[0])
    assert state["last_hand"]["went_out"] == 0


def test_duo_has_no_ask():
    state = play(two([["5S", "5H", "5D", "9C"], ["9S"]], stock=["4C"], discard=["QC"]), "draw")
    refused(state, "ask", "partner")


# ---- stock exhausted ------------------------------------------------------------------------------------------
def test_exhausted_stock_must_take_a_card_that_fits_a_meld():
    melds = [{"team": 0, "cards": ["7S", "7H", "7D"]}]
    state = four([["5S", "6S", "9H"]], stock=[], discard=["7C"], melds=melds)
    assert GAME.legal_moves(state, 0) == ["take"]
    refused(state, "pass", "must take")
    refused(state, "draw", "stock is empty")


def test_exhausted_stock_may_decline_and_that_ends_the_hand_without_bonus():
    melds = [{"team": 0, "cards": ACES6 + ["AC"]}]
    state = four([["5S", "5H", "9H"]], stock=[], discard=["5C"], melds=melds)
    assert GAME.legal_moves(state, 0) == ["take", "pass"]
    state = play(state, "pass")
    assert state["last_hand"]["went_out"] is None and state["last_hand"]["detail"][0]["going_out"] == 0
    assert state["history"] == [[500 + 140 - 20, 0]]


# ---- the match ------------------------------------------------------------------------------------------------
def test_match_ends_at_target_with_team_scores():
    melds = [{"team": 0, "cards": ACES6}]
    state = four([["AC"]], stock=["4C"], discard=["QC"], melds=melds, scores=[4300, 100])
    state = play(state, "draw", "add AC to 1", "discard 4C")
    result = GAME.result(state)
    assert result["over"] and result["winners"] == [0] and result["scores"] == [5040, 100]
    assert GAME.to_move(state) is None and GAME.legal_moves(state, 0) == []


def test_exact_tie_above_target_plays_another_hand():
    melds = [{"team": 0, "cards": ACES6}]
    state = four([["AC"]], stock=["4C"], discard=["QC"], melds=melds, scores=[4300, 5040])
    state = play(state, "draw", "add AC to 1", "discard 4C")
    assert not state["over"] and state["scores"] == [5040, 5040] and state["round"] == 2


def test_higher_total_wins_when_both_pass_the_target():
    melds = [{"team": 0, "cards": ACES6}, {"team": 1, "cards": ["5S", "5H", "5D"]}]
    state = four([["AC"]], stock=["4C"], discard=["QC"], melds=melds, scores=[4300, 5000])
    state = play(state, "draw", "add AC to 1", "discard 4C")
    assert state["over"] and GAME.result(state)["winners"] == [0]
