"""Konkan with cards: the rules file (../shared/rules/konkan-cards.md) and every worked example, through layouts."""

import pytest

import engine
from engine import IllegalMove
from engine.konkan_cards.melds import find_konkan, read_meld, tokens_of

GAME = engine.get("konkan_cards")


def start(hands, stock=(), discard=(), melds=(), round_no=1, scores=None, variant="konkan51", dealer=0):
    """A layout whose first (discard-only) turn belongs to the seat after `dealer`."""
    layout = {"hands": [list(hand) for hand in hands], "stock": list(stock), "discard": list(discard),
              "melds": [dict(meld) for meld in melds], "dealer": dealer, "round": round_no}
    if scores is not None:
        layout["scores"] = scores
    return GAME.new(len(hands), {"variant": variant}, layout=layout)


def play(state, *moves):
    for move in moves:
        state = GAME.apply(state, GAME.to_move(state), move)
    return state


def refused(state, move, words):
    with pytest.raises(IllegalMove) as error:
        GAME.apply(state, GAME.to_move(state), move)
    assert words in error.value.reason, error.value.reason


# ---- worked examples ------------------------------------------------------------------------------------------
OPEN_54 = ["KS", "KH", "KD", "7C", "8C", "9C", "4D", "JH"]
OPEN_45 = ["9H", "9S", "9D", "5C", "6C", "7C", "4D", "JH"]


def test_worked_opening_54_is_valid():
    state = start([OPEN_54, ["2C", "3D"]], stock=["QS"])
    state = play(state, "discard 2C", "draw")
    state = play(state, "meld ks kh kd | 7c 8c 9c")
    assert [meld["cards"] for meld in state["melds"]] == [["7C", "8C", "9C"], ["KS", "KH", "KD"]]
    assert GAME.view(state, 1)["opened"] == [True, False]


def test_worked_opening_45_is_refused():
    state = play(start([OPEN_45, ["2C", "3D"]], stock=["QS"]), "discard 2C", "draw")
    refused(state, "meld 9H 9S 9D | 5C 6C 7C", "needs 51 points; this is 45")


def test_worked_melds_suit_twice_and_wrap_around():
    with pytest.raises(IllegalMove, match="suit twice"):
        read_meld([("7H", None), ("7H", None), ("7S", None)])
    assert read_meld([("QD", None), ("KD", None), ("AD", None)]).cards == ("QD", "KD", "AD")
    with pytest.raises(IllegalMove, match="wrap-around"):
        read_meld([("KD", None), ("AD", None), ("2D", None)])


def test_worked_melds_through_the_engine():
    hand = ["7H", "7H", "7S", "QD", "KD", "AD", "2D", "KS", "KH", "KC", "5C"]
    state = play(start([hand, ["2C", "3D"]], stock=["9S"]), "discard 2C", "draw")
    state = play(state, "meld KS KH KC | QD KD AD")  # 30 + 31 = 61
    refused(state, "meld 7H 7H 7S", "suit twice")
    refused(state, "add 2D to 1", "wrap-around")
    assert "add 2D to 1" not in GAME.legal_moves(state, 0)


def test_worked_loser_who_opened_scores_31():
    melds = [{"seat": 0, "cards": ["5H", "6H", "7H"]}, {"seat": 1, "cards": ["8S", "8H", "8D"]}]
    state = start([["4H"], ["AS", "X", "5D", "2C"]], stock=["9C"], melds=melds)
    state = play(state, "discard 2C", "draw", "add 4H to 1", "discard 9C")
    assert state["history"][0] == [-30, 31]
    assert state["last_round"]["hand"] is False


def test_worked_loser_who_opened_scores_62_after_a_hand():
    melds = [{"seat": 1, "cards": ["8S", "8H", "8D"]}]
    hand = ["KS", "KH", "KD", "7C", "8C", "9C"]
    state = start([hand, ["AS", "X", "5D", "2C"]], stock=["4D"], melds=melds)
    state = play(state, "discard 2C", "draw", "meld KS KH KD | 7C 8C 9C", "discard 4D")
    assert state["last_round"]["hand"] is True
    assert state["history"][0] == [-60, 62]


# ---- deal and turn --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_deal_gives_fifteen_to_the_first_seat_and_fourteen_to_the_others(players):
    state = GAME.new(players, seed=11)
    first = (state["dealer"] + 1) % players
    assert GAME.to_move(state) == first
    sizes = [len(hand) for hand in state["hands"]]
    assert sizes[first] == 15 and all(size == 14 for seat, size in enumerate(sizes) if seat != first)
    assert len(state["stock"]) == 106 - 14 * players - 1 and state["discard"] == []
    moves = GAME.legal_moves(state, first)
    assert moves and all(move.startswith("discard") for move in moves)
    refused(state, "draw", "discard only")
    refused(state, "meld AS 2S 3S", "discard only")


def test_turns_pass_in_seat_order_and_the_deal_rotates():
    state = GAME.new(3, seed=5)
    first = GAME.to_move(state)
    state = play(state, GAME.legal_moves(state, first)[0])
    assert GAME.to_move(state) == (first + 1) % 3 and state["phase"] == "draw"
    melds = [{"seat": 0, "cards": ["5H", "6H", "7H"]}]
    done = play(start([["4H"], ["2C", "3D"]], stock=["9C"], melds=melds), "discard 2C", "draw", "add 4H to 1",
                "discard 9C")
    assert done["round"] == 2 and done["dealer"] == 1 and GAME.to_move(done) == 0


def test_taking_needs_a_meld_that_uses_the_card():
    state = start([["KS", "KH", "KD", "7C", "8C", "4D", "JH"], ["9C", "2C"]], stock=["QS", "3S"])
    state = play(state, "discard 2C")
    refused(state, "take", "no opening of 51")
    assert GAME.legal_moves(state, 0) == ["draw"]
    state = play(state, "draw", "discard QS", "draw", "discard 9C")
    assert "take" in GAME.legal_moves(state, 0)
    state = play(state, "take")
    assert GAME.view(state, 0)["must_use"] == "9C"
    refused(state, "discard JH", "took 9C")
    refused(state, "meld KS KH KD", "must use it")
    assert GAME.legal_moves(state, 0) == ["meld 7C 8C 9C | KS KH KD"]
    state = play(state, "meld KS KH KD | 7C 8C 9C")
    assert GAME.view(state, 0)["must_use"] is None
    assert "discard JH" in GAME.legal_moves(state, 0)


def test_an_opened_player_takes_to_lay_off():
    melds = [{"seat": 0, "cards": ["5H", "6H", "7H"]}]
    state = play(start([["JC", "QD", "2S"], ["8H", "3C"]], stock=["4S", "9D"], melds=melds), "discard 8H")
    state = play(state, "take")
    assert GAME.legal_moves(state, 0) == ["add 8H to 1"]


def test_a_joker_is_never_discarded_and_a_hand_keeps_a_card_to_discard():
    melds = [{"seat": 0, "cards": ["5H", "6H", "7H"]}]
    state = play(start([["X", "8H"], ["2C", "3D"]], stock=["9S"], melds=melds), "discard 2C", "draw")
    refused(state, "discard X", "never discarded")
    state = play(state, "discard 9S")
    state = play(state, "draw", "discard 3D", "draw")
    assert "discard X" not in GAME.legal_moves(state, 0)


def test_no_meld_leaves_only_a_joker():
    melds = [{"seat": 0, "cards": ["5H", "6H", "7H"]}]
    state = play(start([["X", "8H", "9H"], ["2C", "3D"]], stock=["TH"], melds=melds), "discard 2C", "draw")
    refused(state, "add 8H 9H TH to 1", "keep a card to discard")
    state = play(state, "add 8H 9H to 1")
    assert state["hands"][0].count("X") == 1 and "TH" in state["hands"][0]


def test_only_jokers_in_hand_may_discard_one():
    melds = [{"seat": 0, "cards": ["5H", "6H", "7H"]}]
    state = play(start([["X"], ["2C", "3D"]], stock=["X"], melds=melds), "discard 2C", "draw")
    assert GAME.legal_moves(state, 0)[-1] == "discard X"


# ---- melds and jokers -----------------------------------------------------------------------------------------
def opened_state(hand, stock=("9S",), melds=None):
    melds = melds or [{"seat": 0, "cards": ["TS", "JS", "QS"]}]
    return play(start([hand, ["2C", "3D"]], stock=list(stock), melds=melds), "discard 2C", "draw")


def test_joker_placement_must_be_named_when_ambiguous():
    state = opened_state(["5H", "6H", "X", "KC", "KD"])
    refused(state, "meld 5H 6H X", "X:4H or X:7H")
    assert GAME.parse_move(state, 0, "meld 5h x:7h 6h") == "meld 5H 6H X:7H"
    assert GAME.parse_move(state, 0, "meld KC KD X") == "meld KD KC X"


def test_a_set_joker_may_name_a_missing_suit_only():
    state = opened_state(["7H", "7S", "X", "KC"])
    assert GAME.parse_move(state, 0, "meld 7h x:7d 7s") == "meld 7S 7H X"
    refused(state, "meld 7H 7S X:7S", "only stand for a missing 7")
    refused(state, "meld 7H 7S X:8S", "only stand for a missing 7")


def test_a_joker_in_a_gap_is_placed_by_the_engine():
    state = opened_state(["5H", "7H", "X", "KC"])
    assert GAME.parse_move(state, 0, "meld 7H X 5H") == "meld 5H X:6H 7H"
    refused(state, "meld 5H 7H X:8H", "cannot stand for 8H")


def test_one_joker_per_meld():
    state = opened_state(["5H", "X", "X", "KC"], stock=["KD"])
    refused(state, "meld 5H X X", "at most one joker")
    state = play(state, "add X:9S to 1")
    refused(state, "add X:KS to 1", "already holds its one joker")


def test_ace_counts_one_low_and_eleven_high():
    assert read_meld(tokens_of(["AH", "2H", "3H"])).value == 6
    assert read_meld(tokens_of(["QH", "KH", "AH"])).value == 31
    assert read_meld(tokens_of(["AH", "AS", "AD"])).value == 33
    assert read_meld([("X", "AH"), ("2H", None), ("3H", None)]).value == 6
    hand = ["AH", "2H", "3H", "QC", "KC", "AC", "9D", "9S", "4S"]
    state = play(start([hand, ["2C", "3D"]], stock=["5D"]), "discard 2C", "draw")
    refused(state, "meld AH 2H 3H | QC KC AC", "this is 37")


def test_ace_high_run_opening_reaches_fifty_one():
    hand = ["QC", "KC", "AC", "TD", "TS", "TH", "4S"]
    state = play(start([hand, ["2C", "3D"]], stock=["5D"]), "discard 2C", "draw")
    state = play(state, "meld TS TH TD | QC KC AC")
    assert GAME.view(state, 1)["opened"][0]


def test_lay_off_only_after_opening_and_on_anyones_melds():
    melds = [{"seat": 1, "cards": ["5H", "6H", "7H"]}]
    state = play(start([["8H", "KS", "KH", "KD", "QS", "QH", "QD", "2S"], ["2C", "3D"]], stock=["9S"],
                       melds=melds), "discard 2C", "draw")
    refused(state, "add 8H to 1", "after you have opened")
    state = play(state, "meld KS KH KD | QS QH QD", "add 8H to 1")
    assert state["melds"][0]["cards"] == ["5H", "6H", "7H", "8H"]
    assert state["melds"][0]["seat"] == 1


def test_lay_off_extends_both_ends_and_fills_a_set():
    melds = [{"seat": 0, "cards": ["5H", "6H", "7H"]}, {"seat": 0, "cards": ["9S", "9H", "X"]}]
    state = opened_state(["4H", "8H", "9D", "KC"], melds=melds)
    assert "add 4H 8H to 1" in GAME.legal_moves(state, 0)
    state = play(state, "add 8h 4h to 1", "add 9D to 2")
    assert state["melds"][0]["cards"] == ["4H", "5H", "6H", "7H", "8H"]
    assert state["melds"][1]["cards"] == ["9S", "9H", "9D", "X"]
    refused(state, "add 9C to 2", "3 or 4 cards")


def test_swap_a_run_joker_with_one_card():
    melds = [{"seat": 1, "cards": ["5H", "X:6H", "7H"]}, {"seat": 0, "cards": ["KS", "KH", "KD"]}]
    state = opened_state(["6H", "4C", "5C"], melds=melds)
    refused(state, "swap 4C for 1", "stands for 6H")
    refused(state, "swap 6H for 2", "holds no joker")
    assert "swap 6H for 1" in GAME.legal_moves(state, 0)
    state = play(state, "swap 6H for 1")
    assert state["melds"][0]["cards"] == ["5H", "6H", "7H"] and "X" in state["hands"][0]
    assert "meld 4C 5C X:6C" in GAME.legal_moves(state, 0)


def test_swap_a_set_joker_needs_both_missing_cards():
    melds = [{"seat": 1, "cards": ["8S", "8H", "X"]}, {"seat": 0, "cards": ["KS", "KH", "KD"]}]
    state = opened_state(["8D", "8C", "4C"], melds=melds)
    refused(state, "swap 8D for 1", "both missing cards: 8D 8C")
    state = play(state, "swap 8c 8d for 1")
    assert state["last_move"]["move"] == "swap 8D 8C for 1"
    assert state["melds"][0]["cards"] == ["8S", "8H", "8D", "8C"]


def test_a_swap_while_a_taken_discard_waits_keeps_the_obligation():
    """konkan-cards.md, joker swap [decision]: a swap is allowed while the taken discard waits; the next meld or
    lay-off must still include it, and the discard is refused until it is used."""
    melds = [{"seat": 0, "cards": ["TS", "JS", "QS"]}, {"seat": 1, "cards": ["5H", "X:6H", "7H"]}]
    state = play(start([["6H", "4C", "5C", "KD", "9D"], ["3C", "3D", "8S"]], stock=["9S", "2S"], melds=melds),
                 "discard 3C", "take")
    assert GAME.view(state, 0)["must_use"] == "3C" and "swap 6H for 2" in GAME.legal_moves(state, 0)
    state = play(state, "swap 6H for 2")
    assert state["melds"][1]["cards"] == ["5H", "6H", "7H"] and "X" in state["hands"][0]
    assert GAME.view(state, 0)["must_use"] == "3C"
    refused(state, "discard KD", "meld it before you discard")
    refused(state, "meld 4C 5C X:6C", "must use it")
    assert not [move for move in GAME.legal_moves(state, 0) if move.startswith("discard")]
    state = play(state, "meld 3C 4C 5C X:6C")
    assert GAME.view(state, 0)["must_use"] is None and "discard KD" in GAME.legal_moves(state, 0)


def test_a_swap_that_would_leave_the_taken_card_unusable_is_refused():
    """Giving the taken card itself for the joker is no meld or lay-off: it would leave the card unusable and the
    discard refused for good, so the swap is refused (and not listed)."""
    melds = [{"seat": 0, "cards": ["TS", "JS", "QS"]}, {"seat": 1, "cards": ["5H", "X:6H", "7H"]}]
    state = play(start([["6S", "6D", "KD", "9D"], ["6H", "3D", "8S"]], stock=["9S", "2S"], melds=melds),
                 "discard 6H", "take")
    with pytest.raises(IllegalMove) as error:
        GAME.apply(state, 0, "swap 6H for 2")
    assert error.value.code == "konkan.must_use_first" and error.value.params == {"card": "6H"}
    assert GAME.legal_moves(state, 0) == ["meld 6S 6H 6D"]


def test_swap_needs_an_opened_player():
    melds = [{"seat": 1, "cards": ["5H", "X:6H", "7H"]}]
    state = opened_state(["6H", "4C", "5C"], melds=melds)
    refused(state, "swap 6H for 1", "after you have opened")


# ---- opening ----------------------------------------------------------------------------------------------------
def test_konkan71_needs_seventy_one():
    hand = OPEN_54 + ["AS", "AH", "AD"]
    state = play(start([hand, ["2C", "3D"]], stock=["QS"], variant="konkan71"), "discard 2C", "draw")
    refused(state, "meld KS KH KD | 7C 8C 9C", "needs 71 points; this is 54")
    state = play(state, "meld KS KH KD | 7C 8C 9C | AS AH AD")
    assert GAME.view(state, 0)["minimum"] == 71


def test_later_melds_need_no_minimum():
    hand = OPEN_54 + ["2S", "3S", "4S"]
    state = play(start([hand, ["2C", "3D"]], stock=["QS"]), "discard 2C", "draw")
    state = play(state, "meld KS KH KD | 7C 8C 9C", "meld 2S 3S 4S")
    assert len(state["melds"]) == 3


def test_a_single_meld_below_the_minimum_is_not_listed_but_the_best_combination_is():
    state = play(start([OPEN_54, ["2C", "3D"]], stock=["QS"]), "discard 2C", "draw")
    melds = [move for move in GAME.legal_moves(state, 0) if move.startswith("meld")]
    assert melds == ["meld 7C 8C 9C | KS KH KD"]


def test_a_konkan_needs_no_table_minimum_but_a_hand_does():
    """konkan-cards.md, Opening [decision]: a Konkan is a finish of its own and needs no minimum (a 63-point Konkan
    closes a Konkan 71 table); a Hand is an opening like any other and needs it."""
    low_run = ["AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH"]  # the ace low counts 1: 55
    hand = [*low_run, "2S", "2H", "2D", "2C", "KD"]  # + 8 = 63
    state = play(start([hand[:-1], ["KD", "3D"]], stock=["QS"], variant="konkan71"), "discard KD", "draw")
    move = "meld AH 2H 3H 4H 5H 6H 7H 8H 9H TH | 2S 2H 2D 2C"
    assert move in GAME.legal_moves(state, 0)
    state = play(state, move, "discard QS")
    assert state["last_round"]["konkan"] and state["last_round"]["went_out"] == 0
    hand45 = ["9H", "9S", "9D", "5C", "6C", "7C", "2S", "3S", "4S"]  # 27 + 18 + 9 = 54 on a 71 table: a Hand
    state = play(start([hand45, ["KD", "3D"]], stock=["QS"], variant="konkan71"), "discard KD", "draw")
    refused(state, "meld 9H 9S 9D | 5C 6C 7C | 2S 3S 4S", "needs 71 points; this is 54")


# ---- reshuffles and the void round -----------------------------------------------------------------------------
def test_three_reshuffles_then_a_void_round():
    melds = [{"seat": 0, "cards": ["5H", "6H", "7H"]}]
    hands = [["AS", "KD"], ["2C", "3C", "QD"]]
    state = start(hands, stock=[], discard=["4D", "9C"], melds=melds)
    state = play(state, "discard 2C")
    assert state["reshuffles_left"] == 2 and len(state["stock"]) == 2 and state["discard"] == ["2C"]
    seen = [state["reshuffles_left"]]
    while state["round"] == 1:
        seat = GAME.to_move(state)
        moves = GAME.legal_moves(state, seat)
        move = "draw" if "draw" in moves else next(m for m in moves if m.startswith("discard"))
        state = play(state, move)
        if state["round"] == 1:
            seen.append(state["reshuffles_left"])
    assert sorted(set(seen), reverse=True) == [2, 1, 0]
    last = state["last_round"]
    assert last["void"] and last["went_out"] is None and not last["hand"]
    left = last["left"]
    from engine.konkan_cards.cards import hand_points
    assert last["points"] == [hand_points(left[0]), 100]


def test_a_pile_too_small_for_a_new_stock_ends_the_round_void():
    state = start([["AS", "KD"], ["2C", "3C", "QD"]], stock=[], discard=[])
    state = play(state, "discard 2C")  # seat 0 must draw: no stock, and one card cannot make one
    last = state["last_round"]
    assert last["void"] and last["points"] == [100, 100] and state["round"] == 2
    assert state["history"] == [[100, 100]]


def test_the_round_is_void_when_a_turn_starts_without_stock_even_if_the_discard_could_be_taken():
    """konkan-cards.md [decision]: the round ends when a turn starts with an empty stock and no reshuffle left,
    even if that player could have taken the discard (here 8H would lay off on seat 0's 5H 6H 7H)."""
    melds = [{"seat": 0, "cards": ["5H", "6H", "7H"]}]
    state = start([["4C", "KD", "9S"], ["8H", "3C", "QD"]], stock=[], discard=[], melds=melds)
    state = play(state, "discard 8H")
    last = state["last_round"]
    assert last["void"] and last["went_out"] is None and state["round"] == 2


# ---- Hand and Konkan --------------------------------------------------------------------------------------------
def test_never_opened_loser_scores_100_and_200_after_a_hand():
    melds = [{"seat": 1, "cards": ["2S", "3S", "4S"]}]
    hands = [["KS", "KH", "KD", "7C", "8C", "9C", "5C"], ["AS", "X", "5D"], ["6S", "9D"]]
    stock = ["JC", "2H", "4D"]
    state = play(start(hands, stock=stock, melds=melds, dealer=2), "discard 5C", "draw", "discard JC", "draw",
                 "discard 2H", "draw", "meld KS KH KD | 7C 8C 9C", "discard 4D")
    assert state["last_round"]["hand"] and state["history"] == [[-60, 62, 200]]
    melds = [{"seat": 0, "cards": ["5H", "6H", "7H"]}, {"seat": 1, "cards": ["2S", "3S", "4S"]}]
    hands = [["4H", "5C"], ["AS", "X", "5D"], ["6S", "9D"]]
    state = play(start(hands, stock=stock, melds=melds, dealer=2), "discard 5C", "draw", "discard JC", "draw",
                 "discard 2H", "draw", "add 4H to 1", "discard 4D")
    assert not state["last_round"]["hand"] and state["history"] == [[-30, 31, 100]]


def test_a_hand_is_one_meld_move_not_two():
    melds = [{"seat": 1, "cards": ["2S", "3S", "4S"]}]
    hand = ["KS", "KH", "KD", "7C", "8C", "9C", "2H", "3H", "4H"]
    state = play(start([hand, ["AS", "2C"]], stock=["QD"], melds=melds), "discard 2C", "draw",
                 "meld KS KH KD | 7C 8C 9C", "meld 2H 3H 4H", "discard QD")
    assert not state["last_round"]["hand"] and state["history"] == [[-30, 11]]


def test_a_konkan_keeps_its_fifteenth_card_to_discard():
    run = ["3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH"]
    melds = [{"seat": 1, "cards": ["2S", "3S", "4S"]}]
    state = start([run + ["KS", "KH", "KD"], ["6S", "5D", "2C"]], stock=["KC", "8C"], melds=melds, round_no=2)
    state = play(state, "discard 2C", "draw")
    assert find_konkan(state["hands"][0]) is None
    refused(state, "meld 3H 4H 5H 6H 7H 8H 9H TH JH QH | KS KH KD KC", "keep a card to discard")
    refused(state, "commit", "only in the final round")


def test_konkan_laid_with_the_fifteenth_card_discarded():
    run = ["3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH"]
    hand = run + ["KS", "KH", "KD", "2D"]
    melds = [{"seat": 1, "cards": ["2S", "3S", "4S"]}]
    state = start([hand, ["6S", "5D", "2C"]], stock=["KC", "8C"], melds=melds, round_no=2, scores=[50, 10])
    state = play(state, "discard 2C", "draw", "meld 3H 4H 5H 6H 7H 8H 9H TH JH QH | KS KH KD KC", "discard 2D")
    last = state["last_round"]
    assert last["konkan"] and last["hand"] and not last["committed_konkan"]
    assert last["points"] == [-60, 2 * (6 + 5)]
    assert state["round"] == 3 and not state["over"]


@pytest.mark.parametrize(("round_no", "points"), [(2, [-60, 22]), (5, [-30, 11])])
def test_konkan_in_two_meld_moves_of_one_turn(round_no, points):
    run = ["3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH"]
    melds = [{"seat": 1, "cards": ["2S", "3S", "4S"]}]
    state = start([run + ["KS", "KH", "KD", "2D"], ["6S", "5D", "2C"]], stock=["KC"], melds=melds,
                  round_no=round_no, scores=[0, 100])
    state = play(state, "discard 2C", "draw", "meld 3H 4H 5H 6H 7H 8H 9H TH JH QH", "meld KS KH KD KC",
                 "discard 2D")
    last = state["last_round"]
    assert last["konkan"] and not last["hand"] and not last["committed_konkan"]
    assert last["points"] == points


def test_laying_off_on_others_melds_is_no_konkan():
    run = ["3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH"]
    melds = [{"seat": 1, "cards": ["2S", "3S", "4S"]}]
    state = start([run + ["KS", "KH", "KD", "5S", "2D"], ["6S", "5D", "2C"]], stock=["KC"], melds=melds,
                  round_no=2)
    state = play(state, "discard 2C", "draw", "meld 3H 4H 5H 6H 7H 8H 9H TH JH QH", "add 5S to 1",
                 "meld KS KH KD KC", "discard 2D")
    last = state["last_round"]
    assert not last["konkan"] and not last["hand"] and last["points"] == [-30, 11]


# ---- committed Konkan ---------------------------------------------------------------------------------------------
KONKAN_HAND = ["3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH", "KS", "KH", "KD", "2D"]


def test_commit_only_in_the_final_round_before_drawing():
    state = start([KONKAN_HAND, ["6S", "5D", "2C"]], stock=["KC", "8C", "4C"], round_no=5, scores=[300, 0])
    assert GAME.legal_moves(state, 1)[0] == "commit"  # the first seat may commit before its discard
    assert GAME.view(state, 1)["can_commit"] and not GAME.view(state, 0)["can_commit"]
    state = play(state, "discard 2C")
    assert GAME.view(state, 0)["can_commit"]
    assert GAME.legal_moves(state, 0)[:2] == ["commit", "draw"]
    state = play(state, "commit")
    refused(state, "commit", "already committed")
    assert GAME.view(state, 1)["committed"] == [True, False]
    state = play(state, "draw")
    refused(state, "commit", "already committed")
    state = play(state, "discard 2D", "draw", "discard 8C")
    assert GAME.legal_moves(state, 0)[0] == "draw"


def test_commit_refused_after_the_first_turn():
    state = start([KONKAN_HAND, ["6S", "5D", "2C"]], stock=["KC", "8C", "4C"], round_no=5)
    state = play(state, "discard 2C", "draw", "discard 2D", "draw", "discard 8C")
    refused(state, "commit", "first turn of the round")


def test_committed_player_takes_without_melding_and_wins_the_match_at_once():
    hand = KONKAN_HAND[:-1] + ["2D"]
    state = start([hand, ["6S", "5D", "KC", "9S"]], stock=["4C", "8C"], round_no=5, scores=[300, 0])
    state = play(state, "discard KC", "commit")
    assert "take" in GAME.legal_moves(state, 0)
    state = play(state, "take")
    assert GAME.view(state, 0)["must_use"] is None
    refused(state, "meld KS KH KD KC", "committed to Konkan")
    state = play(state, "meld 3H 4H 5H 6H 7H 8H 9H TH JH QH | KS KH KD KC", "discard 2D")
    result = GAME.result(state)
    assert result["over"] and result["winners"] == [0] and result["konkan_winner"] == 0
    assert result["history"] == [[-60, 200]] and result["scores"] == [240, 200]
    assert GAME.to_move(state) is None


def test_committed_player_may_not_lay_off_or_meld_a_part():
    melds = [{"seat": 1, "cards": ["2S", "3S", "4S"]}]
    state = start([KONKAN_HAND, ["6S", "5D", "2C"]], stock=["5S", "8C"], round_no=5, melds=melds)
    state = play(state, "discard 2C", "commit", "draw")
    refused(state, "add 5S to 1", "may not lay off")
    refused(state, "meld KS KH KD", "committed to Konkan")
    assert all(move.startswith("discard") for move in GAME.legal_moves(state, 0))


def test_failed_commitment_scores_100_or_200():
    melds = [{"seat": 1, "cards": ["2S", "3S", "4S"]}]
    state = start([KONKAN_HAND, ["5S", "2C"]], stock=["9C", "8C"], round_no=5, melds=melds, scores=[0, 0])
    state = play(state, "discard 2C", "commit", "draw", "discard 9C", "draw", "add 5S to 1", "discard 8C")
    assert state["history"][0] == [100, -30]
    assert state["over"] and state["winners"] == [1]


def test_failed_commitment_after_a_hand_scores_200():
    hand = ["KS", "KH", "KD", "7C", "8C", "9C", "5H"]
    state = start([hand, KONKAN_HAND], stock=["9D", "JD"], round_no=5, dealer=1, scores=[0, 0])
    # seat 0 starts (discard only), seat 1 commits at its first turn, seat 0 goes out by Hand
    state = play(state, "discard 5H", "commit", "draw", "discard 9D", "draw",
                 "meld KS KH KD | 7C 8C 9C", "discard JD")
    assert state["last_round"]["hand"]
    assert state["history"][0] == [-60, 200]


# ---- match ------------------------------------------------------------------------------------------------------
def test_five_rounds_lowest_total_wins():
    melds = [{"seat": 0, "cards": ["5H", "6H", "7H"]}, {"seat": 1, "cards": ["8S", "8H", "8D"]}]
    state = start([["4H"], ["AS", "5D", "2C"]], stock=["9C"], melds=melds, round_no=5, scores=[40, 30])
    state = play(state, "discard 2C", "draw", "add 4H to 1", "discard 9C")
    assert state["history"] == [[-30, 16]]
    result = GAME.result(state)
    assert result["over"] and result["scores"] == [10, 46] and result["winners"] == [0]
    assert result["round"] == 5 and result["draw"] is False


def test_a_tie_after_five_plays_an_extra_round():
    melds = [{"seat": 0, "cards": ["5H", "6H", "7H"]}, {"seat": 1, "cards": ["8S", "8H", "8D"]}]
    state = start([["4H"], ["5D", "2C"]], stock=["9C"], melds=melds, round_no=5, scores=[35, 0])
    state = play(state, "discard 2C", "draw", "add 4H to 1", "discard 9C")
    result = GAME.result(state)
    assert result["scores"] == [5, 5] and not result["over"] and result["round"] == 6
    view = GAME.view(state, 0)
    assert view["final_round"] and view["can_commit"] == (GAME.to_move(state) == 0)
    assert len(state["stock"]) == 106 - 29


def test_options_are_checked():
    with pytest.raises(ValueError):
        GAME.new(2, {"variant": "konkan61"})
    with pytest.raises(ValueError):
        GAME.new(2, {"target": 5})
    with pytest.raises(ValueError):
        GAME.new(5)
    with pytest.raises(ValueError):
        GAME.new(1)
    assert GAME.new(3)["options"] == {"variant": "konkan51"}
    assert GAME.new(2, {"variant": "konkan71"})["options"]["variant"] == "konkan71"


def test_a_joker_alone_may_be_laid_off_on_a_set_and_is_listed():
    """konkan-cards.md: "After opening you may lay off on any open meld"; "A joker stands for any card … At most one
    joker per meld" — a set of three 7s takes the joker as its fourth card. NOTATION.md: `legal_moves` lists every
    legal single lay-off, so `add X to 1` is among them."""
    melds = [{"seat": 0, "cards": ["7H", "7S", "7D"]}]
    state = play(start([["X", "5C", "9D"], ["AS", "2C", "5D"]], stock=["QS", "6D"], melds=melds), "discard 2C", "draw")
    assert "add X to 1" in GAME.legal_moves(state, 0)
    assert play(state, "add X to 1")["melds"][0]["cards"] == ["7S", "7H", "7D", "X"]
