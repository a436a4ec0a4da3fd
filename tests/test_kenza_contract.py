"""Kenza through the engine contract beyond the worked examples: what each view shows, the result dict, layouts,
a stock that runs short, typed moves that are refused, and the normal bot's stated policy."""

from __future__ import annotations

import random

import pytest

import engine
from engine import IllegalMove, bots
from engine.kenza.rules import capture_subsets, card_points, pile_points

GAME = engine.get("kenza")


def layout_state(hands, table, stock=(), dealer=None, players=2, variant="kenza", target=151):
    layout = {"hands": [list(h) for h in hands], "table": list(table), "stock": list(stock)}
    if dealer is not None:
        layout["dealer"] = dealer
    return GAME.new(players, {"variant": variant, "target": target}, layout=layout)


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
        "draw": False, "hand": ["2C"],
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
    with pytest.raises(ValueError, match="layout has no cards to play"):
        GAME.new(2, {}, layout={"table": ["1C"]})
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
    ("", "write a move as: play CARD"),
    ("play", "write a move as: play CARD"),
    ("draw 6O", "write a move as: play CARD"),
    ("play 6O with 4C", "after the card write 'take'"),
    ("play 6O take", "name the table cards to take after 'take'"),
    ("play 6O take 5E 5E", "a table card is named twice"),
    ("play 6O take 4C 3B", "6O with 4C 3B makes 13, not 15"),
    ("play 6O", "6O can capture .e.g. take 5E 4C.: capture is mandatory for it"),
])
def test_a_malformed_or_wrong_move_is_refused_with_its_reason(text, reason):
    state = layout_state([["6O", "1C"], ["2C"]], ["5E", "4C", "3B"])
    with pytest.raises(IllegalMove, match=reason):
        GAME.parse_move(state, 0, text)


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
    with pytest.raises(ValueError, match="no legal move to choose from"):
        bots.get("kenza", "normal").choose(GAME.view(layout_state([["1C"], []], []), 0), [], random.Random(0))
