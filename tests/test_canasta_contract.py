"""The engine contract for Canasta (NOTATION.md): parsing, IllegalMove reasons, purity, JSON, views, results."""

import json

import pytest

import engine
from engine import IllegalMove
from tests.contract import (
    assert_legal_moves_parse_and_apply,
    assert_pure_and_json_round_trips,
    assert_registered_with_bots,
    refused_reason,
)

GAME = engine.get("canasta")


def layout_state():
    melds = [{"team": 1, "cards": ["8S", "8H", "8D"]}, {"team": 0, "cards": ["7S", "7H", "X:7D"]}]
    hands = [["7C", "9S", "9H", "TD", "KS", "5C", "X"], ["QS", "QH", "4S"], ["AS", "AH"], ["JS", "JD"]]
    return GAME.new(
        4,
        {},
        layout={"hands": hands, "stock": ["TH", "6C"], "discard": ["9D", "4H"], "melds": melds, "dealer": 3},
    )


def test_registered_with_bots():
    assert_registered_with_bots("canasta")


def test_parse_is_tolerant_and_prints_canonically():
    state = GAME.apply(layout_state(), 0, "draw")
    assert GAME.parse_move(state, 0, "  ADD   7c  to 2 ") == "add 7C to 2"
    assert GAME.parse_move(state, 0, "meld x 10h td") == "meld TH TD X"
    assert GAME.parse_move(state, 0, "meld 9h 9s x:9c") == "meld 9S 9H X"
    assert GAME.parse_move(state, 0, "Discard kS") == "discard KS"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "empty"),
        ("jump", "unknown move"),
        ("draw", "already drawn"),
        ("discard QQ", "not a card"),
        ("discard QS", "not in your hand"),
        ("add 7C to 9", "no meld 9"),
        ("add 7C to 1", "other team"),
        ("add 9S to 2", "does not fit"),
        ("add 7C", "add C"),
        ("add X:9S to 2", "meld of 7s"),
        ("meld 9S 9H |", "write melds"),
        ("meld 7C 7C X", "already has a meld"),
        ("answer yes", "nobody is waiting"),
    ],
)
def test_illegal_moves_say_why(text, words):
    assert words in refused_reason(GAME, GAME.apply(layout_state(), 0, "draw"), 0, text)


def test_turn_order_and_phase_errors():
    state = layout_state()
    with pytest.raises(IllegalMove, match="not your turn"):
        GAME.apply(state, 1, "draw")
    assert GAME.legal_moves(state, 1) == []
    with pytest.raises(IllegalMove, match="first draw"):
        GAME.apply(state, 0, "discard KS")
    with pytest.raises(IllegalMove, match="start your turn"):
        GAME.apply(state, 0, "hello")
    with pytest.raises(IllegalMove, match="only for the end of the stock"):
        GAME.apply(state, 0, "pass")


def test_apply_never_mutates_and_json_round_trips():
    assert_pure_and_json_round_trips(GAME, 4, 40)


def test_every_legal_move_parses_to_itself_and_applies():
    assert_legal_moves_parse_and_apply(GAME, GAME.apply(layout_state(), 0, "draw"), 0)


def test_view_shape_and_privacy():
    state = layout_state()
    public = GAME.view(state, None)
    assert public["hand"] is None and public["hand_sizes"] == [7, 3, 2, 2]
    json.dumps(public)
    view = GAME.view(state, 1)
    assert view["hand"] == ["4S", "QS", "QH"] and view["phase"] == "draw" and view["to_move"] == 0
    for key in (
        "melds",
        "red3s",
        "discard_top",
        "pile_size",
        "frozen",
        "stock_size",
        "min_meld",
        "scores",
        "last_move",
        "over",
        "winners",
        "round",
        "team",
    ):
        assert key in view
    assert view["discard_top"] == "9D" and view["pile_size"] == 2 and view["stock_size"] == 2
    assert view["melds"][1] == {
        "number": 2,
        "team": 0,
        "rank": "7",
        "cards": ["7S", "7H", "X"],
        "canasta": None,
    }
    assert "AS" not in json.dumps(view)  # seat 2's hand


def test_result_shape():
    state = GAME.new(2, {"variant": "duo"}, seed=3)
    assert GAME.result(state) == {
        "over": False,
        "round": 1,
        "scores": [0, 0],
        "history": [],
        "winners": [],
        "draw": False,
    }


@pytest.mark.parametrize(
    "bad",
    [
        {"hands": [[], []]},
        {"hands": [["ZZ"], [], [], []]},
        {"colour": 1},
        {"melds": [{"team": 0, "cards": ["7S", "8S", "9S"]}]},
        {"melds": [{"team": 0, "cards": ["3S", "3S", "3C"]}]},
        {"stock": ["X"] * 5},
    ],
)
def test_bad_layouts_are_refused(bad):
    with pytest.raises(ValueError):
        GAME.new(4, {}, layout=bad)


def test_two_players_without_a_variant_play_duo_and_a_named_variant_must_fit():
    import pytest

    import engine

    game = engine.get("canasta")
    assert game.new(2, seed=3)["options"]["variant"] == "duo"
    assert game.new(4, seed=3)["options"]["variant"] == "classic4"
    with pytest.raises(ValueError):
        game.new(2, {"variant": "classic4"}, seed=3)
    with pytest.raises(ValueError):
        game.new(3, seed=3)
