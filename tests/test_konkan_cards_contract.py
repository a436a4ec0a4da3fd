"""The engine contract for Konkan with cards (NOTATION.md): ids, parsing, IllegalMove reasons, purity, JSON, views."""

import json

import pytest

import engine
from engine import IllegalMove
from tests.contract import assert_registered_with_bots, refused_reason

GAME = engine.get("konkan_cards")


def layout_state():
    melds = [{"seat": 1, "cards": ["8S", "8H", "8D"]}, {"seat": 0, "cards": ["5C", "X:6C", "7C"]}]
    hands = [["KS", "KH", "KD", "TH", "6C", "4C", "9H"], ["QS", "QH", "4S", "2D"]]
    return GAME.new(2, {}, layout={"hands": hands, "stock": ["TD", "6D"], "discard": ["9D"], "melds": melds,
                                   "dealer": 0, "scores": [12, 40], "round": 2})


def test_registered_with_bots_and_names():
    assert_registered_with_bots("konkan_cards")
    assert GAME.info.min_players == 2 and GAME.info.max_players == 4 and not GAME.info.teams_at


def test_layout_sets_up_the_first_turn_as_a_discard_only():
    state = layout_state()
    assert GAME.to_move(state) == 1
    assert GAME.legal_moves(state, 1) == ["discard 2D", "discard 4S", "discard QS", "discard QH"]
    assert GAME.legal_moves(state, 0) == []
    view = GAME.view(state, 0)
    assert view["round"] == 2 and view["scores"] == [12, 40] and view["opened"] == [True, True]
    assert view["melds"][1] == {"number": 2, "seat": 0, "kind": "run", "cards": ["5C", "X:6C", "7C"]}


def test_parse_is_tolerant_and_prints_canonically():
    state = GAME.apply(GAME.apply(layout_state(), 1, "discard 2D"), 0, "draw")
    assert GAME.parse_move(state, 0, "  ADD   4c  to 2 ") == "add 4C to 2"
    assert GAME.parse_move(state, 0, "swap 6c for 2") == "swap 6C for 2"
    assert GAME.parse_move(state, 0, "Discard kS") == "discard KS"
    assert GAME.parse_move(state, 0, "meld  kd ks   kh") == "meld KS KH KD"
    opening = GAME.new(2, {}, layout={"hands": [["2C", "3D"], ["KS", "KH", "KD", "7C", "8C", "9C", "4D"]],
                                      "stock": ["5S"], "dealer": 1})
    opening = GAME.apply(GAME.apply(opening, 0, "discard 2C"), 1, "draw")
    assert GAME.parse_move(opening, 1, "meld ks kh kd|7c 9c 8c") == "meld 7C 8C 9C | KS KH KD"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "empty"),
        ("jump", "unknown move"),
        ("draw", "already drawn"),
        ("take", "already drawn"),
        ("discard QQ", "not a card"),
        ("discard QS", "not in your hand"),
        ("discard", "discard CARD"),
        ("add 4C to 9", "no meld 9"),
        ("add 4C", "add C"),
        ("add 4C to x", "not a meld number"),
        ("add 9C to 2", "follow each other"),
        ("add KS to 1", "one rank"),
        ("meld KS KH", "at least three"),
        ("meld KS KH KD |", "meld C C C"),
        ("meld TH 9H X:8H", "not in your hand"),
        ("swap KS for 1", "holds no joker"),
        ("swap X for 2", "real card"),
        ("commit", "final round"),
        ("discard X:7H", "plainly"),
        ("meld 7H:X 8H 9H", "only the joker"),
    ],
)
def test_illegal_moves_have_reasons(text, words):
    state = GAME.apply(GAME.apply(layout_state(), 1, "discard 2D"), 0, "draw")
    reason = refused_reason(GAME, state, 0, text)
    assert words in reason, reason


def test_out_of_turn_and_over():
    state = layout_state()
    with pytest.raises(IllegalMove, match="not your turn"):
        GAME.apply(state, 0, "discard KS")
    with pytest.raises(IllegalMove, match="not your turn"):
        GAME.parse_move(state, 0, "discard KS")
    over = GAME.from_json(GAME.to_json(state))
    over["over"] = True
    with pytest.raises(IllegalMove, match="over"):
        GAME.apply(over, 1, "discard 2D")
    assert GAME.to_move(over) is None and GAME.legal_moves(over, 1) == []


def test_apply_never_mutates_and_json_round_trips():
    state = layout_state()
    before = json.dumps(state, sort_keys=True)
    after = GAME.apply(state, 1, "discard 2D")
    assert json.dumps(state, sort_keys=True) == before
    data = json.loads(json.dumps(GAME.to_json(after)))
    again = GAME.from_json(data)
    assert again == after
    assert GAME.legal_moves(again, 0) == GAME.legal_moves(after, 0)
    with pytest.raises(ValueError):
        GAME.from_json({"game": "kenza"})


def test_views_hide_other_hands_and_the_stock():
    state = layout_state()
    mine = GAME.view(state, 0)
    public = GAME.view(state, None)
    assert mine["hand"] == ["4C", "6C", "9H", "TH", "KS", "KH", "KD"]
    assert public["hand"] is None and public["can_commit"] is False
    text = json.dumps(public)
    for card in ("QS", "QH", "4S", "TD", "6D"):
        assert f'"{card}"' not in text
    assert mine["hand_sizes"] == [7, 4] and mine["stock_size"] == 2 and mine["discard_top"] == "9D"
    assert mine["reshuffles_left"] == 3 and mine["rounds"] == 5 and mine["minimum"] == 51


def test_a_seat_number_not_at_the_table_is_shown_no_hand():
    """NOTATION.md: `view(state, seat)` is what that seat may see; a number that is no seat of this two-player table
    (2, or -1) sees no cards of anybody's hand, as the public view."""
    state = layout_state()
    public = GAME.view(state, None)
    for seat in (2, -1):
        view = GAME.view(state, seat)
        assert view["hand"] is None and view["can_commit"] is False
        assert {key: value for key, value in view.items() if key != "seat"} == \
            {key: value for key, value in public.items() if key != "seat"}


def test_result_shape():
    result = GAME.result(GAME.new(3, seed=4))
    assert result == {"over": False, "round": 1, "scores": [0, 0, 0], "history": [], "winners": [], "draw": False,
                      "konkan_winner": None}


def test_seeds_deal_the_same_and_differ():
    assert GAME.new(4, seed=9) == GAME.new(4, seed=9)
    assert GAME.new(4, seed=9)["hands"] != GAME.new(4, seed=10)["hands"]
    assert GAME.new(2, seed="abc") == GAME.new(2, seed="abc")


@pytest.mark.parametrize(
    "layout",
    [
        {"hands": [["X", "X", "X"], []]},
        {"hands": [["7H"], []], "melds": [{"seat": 0, "cards": ["7H", "7H", "7S"]}]},
        {"hands": [["7H"], []], "melds": [{"seat": 3, "cards": ["7H", "7D", "7S"]}]},
        {"hands": [["7H"]]},
        {"hands": [["ZZ"], []]},
        {"hands": [[], []], "colour": "red"},
        {"hands": [[], []], "scores": [1]},
    ],
)
def test_bad_layouts_are_refused(layout):
    with pytest.raises(ValueError):
        GAME.new(2, {}, layout=layout)
