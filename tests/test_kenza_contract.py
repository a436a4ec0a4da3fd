"""Kenza through the engine contract beyond the worked examples: what each view shows, the result dict, layouts,
a stock that runs short, typed moves that are refused, and the normal bot's stated policy."""

from __future__ import annotations

import random

import pytest

import engine
from engine import IllegalMove, bots
from engine.kenza.rules import capture_subsets, card_points, pile_points
from tests.test_kenza_rules import layout_state

GAME = engine.get("kenza")


# ---- views and result ---------------------------------------------------------------------------------------------
def test_a_seat_view_shows_its_own_hand_and_only_counts_of_the_rest():
    state = layout_state([["6O", "1C"], ["2C"], ["3B", "4B", "5B"]], ["4C", "5E"], stock=["7E", "7B"], players=3,
                         dealer=2, variant="rabaeen", target=301)
    state = GAME.apply(state, 0, "play 1C")
    view = GAME.view(state, 1)
    assert view == {
        "game": "kenza", "variant": "rabaeen", "target": 301, "capture_sum": 40, "players": 3, "teams": False,
        "seat": 1, "dealer": 2, "to_move": 1, "round": 1, "hand_sizes": [1, 1, 3], "table": ["4C", "5E", "1C"],
        "stock_size": 2, "captured_counts": [0, 0, 0], "sweeps": [0, 0, 0], "scores": [0, 0, 0], "history": [],
        "last_move": {"seat": 0, "move": "play 1C"}, "last_capturer": None, "over": False, "winners": [],
        "draw": False, "hand": ["2C"], "details": [],
    }
    public = GAME.view(state, None)
    assert "hand" not in public and public["seat"] is None
    assert {key: value for key, value in view.items() if key not in ("hand", "seat")} == \
        {key: value for key, value in public.items() if key != "seat"}
    assert GAME.view(state, 2)["hand"] == ["3B", "4B", "5B"]


def test_views_are_copies_and_count_captures():
    state = layout_state([["6O", "1C"], ["2C", "3C"]], ["4C", "5E", "12B"], players=2)
    state = GAME.apply(state, 0, "play 6O take 4C 5E")
    view = GAME.view(state, 0)
    assert view["captured_counts"] == [3, 0] and view["last_capturer"] == 0
    assert GAME.view(state, None)["teams"] is False and GAME.new(4, seed=1)["players"] == 4
    assert GAME.view(GAME.new(4, seed=1), None)["teams"] is True
    view["table"].append("1O")
    view["hand"].clear()
    view["hand_sizes"][0] = 9
    view["last_move"]["seat"] = 1
    assert state["table"] == ["12B"] and state["hands"][0] == ["1C"]
    assert state["last_move"] == {"seat": 0, "move": "play 6O take 4C 5E"}


def test_result_lists_totals_history_winners_and_sweeps_and_marks_only_a_draw():
    state = layout_state([["6O"], ["1C"]], ["4C", "5E"], target=101)
    state = GAME.apply(state, 0, "play 6O take 4C 5E")
    result = GAME.result(state)
    assert result == {"over": False, "round": 1, "scores": [0, 0], "history": [], "winners": [], "sweeps": [0, 0]}
    state = GAME.apply(state, 1, "play 1C")
    result = GAME.result(state)
    assert result["history"] == [[9, 0]] and result["sweeps"] == [1, 0] and "draw" not in result
    result["history"][0][0] = 0
    assert GAME.result(state)["history"] == [[9, 0]]


def test_a_new_deal_starts_fresh_piles_and_rotates_the_dealer():
    state = layout_state([["6O"], ["1C"]], ["4C", "5E"], dealer=1, target=301)
    state = GAME.apply(GAME.apply(state, 0, "play 6O take 4C 5E"), 1, "play 1C")
    assert state["round"] == 2 and state["dealer"] == 0 and GAME.to_move(state) == 1
    assert state["captured"] == [[], []] and state["sweeps"] == [0, 0] and state["last_capturer"] is None
    assert state["last_move"] is None
    assert [len(hand) for hand in state["hands"]] == [3, 3] and len(state["table"]) == 4
    assert len(state["stock"]) == 40 - 6 - 4


# ---- layouts and a short stock ---------------------------------------------------------------------------------
def test_layout_keys_hands_and_cards_are_checked():
    with pytest.raises(ValueError, match="unknown layout key.s. for kenza: deck, jokers"):
        GAME.new(2, {}, layout={"hands": [["1C"], ["2C"]], "deck": [], "jokers": 1})
    with pytest.raises(ValueError, match="layout has 3 hands for 2 players"):
        GAME.new(2, {}, layout={"hands": [["1C"], ["2C"], ["3C"]]})
    with pytest.raises(ValueError) as empty:
        GAME.new(2, {}, layout={"table": ["1C"]})
    assert str(empty.value) == "layout has no cards to play"
    with pytest.raises(ValueError, match="card 1C appears 2 times"):
        GAME.new(2, {}, layout={"hands": [["1C"]], "table": ["1c"]})
    with pytest.raises(IllegalMove, match="'8C' is not a card"):
        GAME.new(2, {}, layout={"hands": [["8C"]]})


def test_a_layout_with_missing_hands_deals_from_its_stock_after_the_dealer():
    state = GAME.new(3, {}, layout={"stock": ["1C", "2C", "3C", "4C", "5C"], "dealer": 0})
    # fewer than three each: one at a time, starting after the dealer
    assert state["hands"] == [["3C"], ["1C", "4C"], ["2C", "5C"]]
    assert state["stock"] == [] and GAME.to_move(state) == 1
    short = GAME.new(2, {}, layout={"hands": [["1C"]], "dealer": 5})
    assert short["dealer"] == 1 and short["hands"] == [["1C"], []]
    assert GAME.to_move(short) == 0, "a seat with no cards is skipped"
    default = GAME.new(3, {}, layout={"hands": [["1C"], ["2C"], ["3C"]]})
    assert default["dealer"] == 2 and GAME.to_move(default) == 0


def test_a_player_without_cards_is_skipped_until_everybody_is_out():
    state = layout_state([["1C", "2C"], ["3C"], ["4C"]], [], players=3, dealer=2)
    state = GAME.apply(state, 0, "play 1C")
    state = GAME.apply(state, 1, "play 3C")
    state = GAME.apply(state, 2, "play 4C")
    assert GAME.to_move(state) == 0
    assert GAME.legal_moves(state, 1) == [] and GAME.legal_moves(state, 0) == ["play 2C"]
    with pytest.raises(IllegalMove, match="it is not your turn"):
        GAME.apply(state, 1, "play 3C")


def test_when_the_stock_runs_short_cards_go_round_one_at_a_time():
    state = layout_state([["1C"], ["2C"]], [], stock=["3C", "4C", "5C", "6C"], dealer=1)
    state = GAME.apply(GAME.apply(state, 0, "play 1C"), 1, "play 2C")
    assert state["hands"] == [["3C", "5C"], ["4C", "6C"]] and state["stock"] == []


def test_a_seed_deals_the_same_match_and_a_string_seed_works():
    assert GAME.new(2, seed="table-7") == GAME.new(2, seed="table-7")
    assert GAME.new(2, seed=1)["hands"] != GAME.new(2, seed=2)["hands"]
    first = GAME.new(2, seed=9)
    assert first["dealer"] in (0, 1) and GAME.to_move(first) == 1 - first["dealer"]
    dealt = first["hands"][0] + first["hands"][1] + first["table"] + first["stock"]
    assert sorted(dealt) == sorted(engine.cards.spanish_deck())
    assert {GAME.new(3, seed=n)["dealer"] for n in range(30)} == {0, 1, 2}, "the first dealer is drawn by lot"


# ---- typed moves -------------------------------------------------------------------------------------------------
def test_typed_moves_are_read_case_insensitively_and_printed_in_table_order():
    state = layout_state([["6O", "1C"], ["2C"]], ["5E", "4C", "3B"])
    assert GAME.parse_move(state, 0, "  PLAY 6o TAKE 4c 5e ") == "play 6O take 5E 4C"
    assert GAME.parse_move(state, 0, "Play 1c") == "play 1C"


@pytest.mark.parametrize(("text", "reason"), [
    ("", "write a move as: play CARD [take CARD CARD ...], e.g. play 6O take 4C 5E"),
    ("play", "write a move as: play CARD [take CARD CARD ...], e.g. play 6O take 4C 5E"),
    ("draw 6O", "write a move as: play CARD [take CARD CARD ...], e.g. play 6O take 4C 5E"),
    ("play 6O with 4C", "after the card write 'take' and the table cards, e.g. play 6O take 4C 5E"),
    ("play 6O take", "name the table cards to take after 'take'"),
    ("play 6O take 5E 5E", "a table card is named twice"),
    ("play 6O take 4C 3B", "6O with 4C 3B makes 13, not 15"),
    ("play 6O", "6O can capture (e.g. take 5E 4C): capture is mandatory for it"),
    ("play 7O", "7O is not in your hand"),
    ("play 6O take 7E", "7E is not on the table"),
])
def test_a_malformed_or_wrong_move_is_refused_with_its_reason(text, reason):
    """The reason is what the player reads, word for word."""
    state = layout_state([["6O", "1C"], ["2C"]], ["5E", "4C", "3B"])
    with pytest.raises(IllegalMove) as refused:
        GAME.parse_move(state, 0, text)
    assert refused.value.reason == reason


def test_a_capture_moves_the_cards_and_a_lay_adds_to_the_table():
    state = layout_state([["6O", "1C"], ["2C", "3E"]], ["4C", "12B", "5E"])
    after = GAME.apply(state, 0, "play 6O take 5E 4C")
    assert after["table"] == ["12B"] and after["captured"][0] == ["4C", "5E", "6O"]
    assert after["hands"][0] == ["1C"] and after["sweeps"] == [0, 0] and after["last_capturer"] == 0
    assert after["last_move"] == {"seat": 0, "move": "play 6O take 4C 5E"} and GAME.to_move(after) == 1
    laid = GAME.apply(after, 1, "play 2C")
    assert laid["table"] == ["12B", "2C"] and laid["captured"][1] == [] and laid["last_capturer"] == 0


# ---- arithmetic --------------------------------------------------------------------------------------------------
def test_card_points_follow_the_gold_table():
    assert [card_points(f"{v}O") for v in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)] == [10, 2, 3, 4, 5, 6, 7, 10, 11, 12]
    assert {card_points(f"{v}{s}") for s in "CEB" for v in (1, 7, 12)} == {1}
    assert pile_points([]) == 0 and pile_points(engine.cards.spanish_deck()) == 100


def test_capture_subsets_find_every_exact_sum_in_table_order():
    table = ["5C", "4E", "2B", "3O", "1C"]
    assert capture_subsets(table, "6O", 15) == [(0, 1), (0, 3, 4), (1, 2, 3)]
    assert capture_subsets(table, "12C", 15) == [(2, 4), (3,)]
    assert capture_subsets(["12C"], "3O", 15) == [(0,)]
    assert capture_subsets(["7C"], "7O", 15) == []
    assert capture_subsets([], "1O", 15) == []
    assert capture_subsets(["12C", "12O"], "12B", 15) == [], "a card worth the whole sum alone takes nothing"
    assert capture_subsets(["12C"], "12B", 12) == []
    assert capture_subsets(["10E", "11B", "7O", "12C"], "12O", 40) == [(0, 1, 2)]


# ---- the normal bot's policy (engine/kenza/bots.py docstring) ---------------------------------------------------
def normal(state, seat=0):
    return bots.get("kenza", "normal").choose(GAME.view(state, seat), GAME.legal_moves(state, seat),
                                               random.Random(0))


def test_normal_bot_banks_the_gold_capture():
    state = layout_state([["12O", "12C"], ["1C", "2C"]], ["3O", "3C"], stock=["1B", "2B", "4B", "5B"])
    assert normal(state) == "play 12O take 3O"


def test_normal_bot_takes_more_cards_for_equal_points():
    state = layout_state([["6C"], ["1C"]], ["4C", "5E", "1E", "3B", "2B", "12O"], stock=["7B", "7E"])
    # 6C + 4C 5E (3 cards) or 6C + 1E 3B 5E / 1E 2B ... : the longest plain capture banks most
    choice = normal(state)
    taken = choice.split()[3:]
    options = [move.split()[3:] for move in GAME.legal_moves(state, 0)]
    assert len(taken) == max(len(option) for option in options), choice


def test_normal_bot_does_not_lay_a_card_that_hands_the_opponent_gold():
    # Laying 7C leaves 7C + 1O (table) for any 7 to take; laying 1B keeps the table at 1O + 1B, safer.
    state = layout_state([["7C", "1B"], ["2C", "3C"]], ["1O"], stock=["4B", "5B", "6B", "4E", "5E", "6E"])
    assert GAME.legal_moves(state, 0) == ["play 7C", "play 1B"]
    assert normal(state) == "play 1B"


def test_normal_bot_with_the_last_card_values_the_leftovers():
    # Last card of the deal: capturing also wins the leftovers (the rey of gold) for the last capturer.
    state = layout_state([["5C"], []], ["10E", "12O", "4C"], players=2)
    assert normal(state) == "play 5C take 10E"


def test_normal_bot_refuses_an_empty_choice():
    with pytest.raises(ValueError) as refused:
        bots.get("kenza", "normal").choose(GAME.view(layout_state([["1C"], []], []), 0), [], random.Random(0))
    assert str(refused.value) == "no legal move to choose from"


def test_normal_bot_lays_the_card_worth_least_when_it_cannot_capture():
    # Nothing on the table can be completed by either card; laying gives the card away: lay the plain one.
    state = layout_state([["1O", "1C"], ["2C", "3C"]], [], stock=["4B", "5B", "6B", "4E", "5E", "6E"])
    assert sorted(GAME.legal_moves(state, 0)) == ["play 1C", "play 1O"]
    assert normal(state) == "play 1C"


def test_normal_bot_keeps_a_seven_rather_than_lay_it():
    # A seven never captures alone (no card is eight), so it is worth keeping; lay the six instead.
    state = layout_state([["7C", "6C"], ["2C", "3C"]], [], stock=["4B", "5B", "6B", "4E", "5E", "6E"])
    assert normal(state) == "play 6C"


def finish(state):
    """Play the first legal move until the deal (or the match) changes."""
    start = (state["round"], state["over"])
    while (state["round"], state["over"]) == start:
        seat = GAME.to_move(state)
        state = GAME.apply(state, seat, GAME.legal_moves(state, seat)[0])
    return state


def test_three_players_each_score_their_own_pile():
    state = layout_state([["1C"], ["2C"], ["6O"]], ["4O", "5O"], players=3, dealer=2)
    for seat, move in enumerate(["play 1C", "play 2C", "play 6O take 4O 5O"]):
        state = GAME.apply(state, seat, move)
    assert GAME.result(state)["history"][0] == [0, 0, 15 + 2]


def test_reaching_the_target_exactly_wins_and_a_single_leader_is_no_draw():
    state = layout_state([["6O"], ["1C"]], ["4O", "5O"], target=101)
    state["scores"] = [85, 0]
    state = GAME.apply(GAME.apply(state, 0, "play 6O take 4O 5O"), 1, "play 1C")
    assert state["scores"] == [101, 0]
    result = GAME.result(state)
    assert result["over"] and result["winners"] == [0] and "draw" not in result
    assert GAME.to_move(state) is None and GAME.legal_moves(state, 0) == [] and GAME.legal_moves(state, 1) == []
    assert GAME.view(state, None)["table"] == [], "the leftovers went to the last capturer"
    assert GAME.view(state, 0)["draw"] is False


def test_after_a_new_three_cards_the_turn_passes_on():
    state = layout_state([["1C"], ["2C"]], [], stock=["3C", "4C", "5C", "6C", "1E", "2E"], dealer=1)
    state = GAME.apply(GAME.apply(state, 0, "play 1C"), 1, "play 2C")
    assert GAME.to_move(state) == 0


def test_a_layout_starts_with_the_first_seat_after_the_dealer_that_holds_cards():
    state = GAME.new(3, {}, layout={"hands": [["1C"], [], ["2C"]], "dealer": 0})
    assert GAME.to_move(state) == 2


def test_sweeps_count_every_time_and_add_up_over_deals():
    state = layout_state([["6O", "12C"], ["1C", "3C"]], ["4O", "5O"], stock=[], target=301)
    state = GAME.apply(state, 0, "play 6O take 4O 5O")
    state = GAME.apply(state, 1, "play 3C")
    state = GAME.apply(state, 0, "play 12C take 3C")
    assert state["sweeps"] == [2, 0]
    state = GAME.apply(state, 1, "play 1C")
    assert GAME.result(state)["sweeps"] == [2, 0]
    state["sweeps"] = [1, 3]
    state["hands"], state["stock"] = [[], ["7B"]], []
    state["to_move"] = 1
    state = GAME.apply(state, 1, "play 7B")
    assert GAME.result(state)["sweeps"] == [3, 3]


def test_every_deal_is_shuffled_anew():
    state = GAME.new(2, {"target": 301}, seed=4)
    first = state["hands"][0] + state["table"] + state["stock"]
    state = finish(state)
    assert state["round"] == 2
    second = [*state["hands"][state["dealer"]], *state["hands"][1 - state["dealer"]], *state["table"], *state["stock"]]
    assert sorted(second) == sorted(engine.cards.spanish_deck())
    assert state["table"] + state["stock"] != first[3:3 + 4] + first[7:], "the second deal is not the first again"
    assert state["table"] != GAME.new(2, {"target": 301}, seed=4)["table"]


def test_capture_subsets_for_any_sum():
    assert capture_subsets(["1C", "2E"], "11O", 12) == [(0,)]
    assert capture_subsets(["1C"], "12O", 12) == []


def test_normal_bot_lays_the_card_that_leaves_the_opponent_least():
    # Neither card captures. Laying 3C lets any ace take 11O + 3C (1 + 11 + 3 = 15, the gold ace worth 10 more);
    # laying 5C leaves only a four taking the caballo alone. Both cost one point: the threat decides, every time.
    state = layout_state([["3C", "5C"], ["2C", "6C"]], ["11O"], stock=["4B", "5B", "6B", "4E", "5E", "6E"])
    assert sorted(GAME.legal_moves(state, 0)) == ["play 3C", "play 5C"]
    view, legal = GAME.view(state, 0), GAME.legal_moves(state, 0)
    bot = bots.get("kenza", "normal")
    assert {bot.choose(view, legal, random.Random(seed)) for seed in range(12)} == {"play 5C"}
