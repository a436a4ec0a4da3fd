"""The engine contract for Konkan tiles (NOTATION.md): ids, options, parsing, IllegalMove reasons, purity, JSON,
views and the result shape."""

from __future__ import annotations

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

GAME = engine.get("konkan_tiles")


def layout_state():
    hands = [["R9", "K9", "Y9", "B10", "B11", "B12", "K7", "K8", "K9", "Y13", "B3", "R1", "Y4"],
             ["R2", "R3"], ["B1", "B2"], ["Y1", "Y2"]]
    melds = [{"seat": 1, "cards": ["K3", "Y4:K4", "K5"]}]
    return GAME.new(4, {"mode": "quick"}, layout={"hands": hands, "stock": ["B5", "B6"], "indicator": "Y5",
                                                  "captain": 0, "melds": melds})


def test_registered_with_bots():
    assert_registered_with_bots("konkan_tiles")


def test_parse_is_tolerant_and_prints_canonically():
    state = layout_state()
    assert GAME.parse_move(state, 0, "  MELD  y9 r9   k9 ") == "meld R9 K9 Y9"
    assert GAME.parse_move(state, 0, "meld b12 b10 b11|k9 k8 k7") == "meld B10 B11 B12 | K7 K8 K9"
    assert GAME.parse_move(state, 0, "meld K7 K8 y4:k9") == "meld K7 K8 Y4:K9"
    assert GAME.parse_move(state, 0, "meld k7 y4 k9") == "meld K7 Y4 K9"
    assert GAME.parse_move(state, 0, "Discard y13") == "discard Y13"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "empty"),
        ("jump", "unknown move"),
        ("draw", "already drawn"),
        ("discard QQ", "not a tile"),
        ("discard R13", "not in your hand"),
        ("add K9 to 7", "no meld 7"),
        ("add K9", "add T"),
        ("meld K7 K8 Y4", "ambiguous"),
        ("meld R9 K9 |", "write melds"),
        ("meld R9 K9 B10", "neither"),
        ("meld R9:K9 K9 Y9", "only a joker"),
        ("swap K4 for 1", "only after opening"),
        ("lock Y13 to 1 left", "part of a Konkan finish"),
        ("lock Y13 to 1 up", "lock T to N"),
        ("finish Y13", "do not all form melds"),
        ("option none", "no option"),
    ],
)
def test_illegal_moves_say_why(text, words):
    assert words in refused_reason(GAME, layout_state(), 0, text)


def test_turn_order_and_phase_errors():
    state = layout_state()
    with pytest.raises(IllegalMove, match="not your turn"):
        GAME.apply(state, 1, "draw")
    assert GAME.legal_moves(state, 1) == []
    state = GAME.apply(state, 0, "discard Y13")
    with pytest.raises(IllegalMove, match="first draw"):
        GAME.apply(state, 1, "discard R2")
    with pytest.raises(IllegalMove, match="start your turn"):
        GAME.apply(state, 1, "hello")


def test_apply_never_mutates_and_json_round_trips():
    assert_pure_and_json_round_trips(GAME, 4, 60)


def test_same_seed_same_match():
    assert GAME.new(4, {}, seed="abc") == GAME.new(4, {}, seed="abc")
    assert GAME.new(4, {}, seed=1)["hands"] != GAME.new(4, {}, seed=2)["hands"]


def test_every_legal_move_parses_to_itself_and_applies():
    state = layout_state()
    moves = assert_legal_moves_parse_and_apply(GAME, state, 0)
    assert "meld R9 K9 Y9 | K7 K8 K9 | B10 B11 B12 Y4:B13" in moves and "discard Y13" in moves  # the best
    assert GAME.parse_move(state, 0, "meld R9 K9 Y9 | K7 K8 K9 | B10 B11 B12") not in moves  # also legal


def test_view_shape_and_privacy():
    state = layout_state()
    public = GAME.view(state, None)
    assert public["hand"] is None and public["hand_sizes"] == [13, 2, 2, 2]
    json.dumps(public)
    view = GAME.view(state, 1)
    assert view["hand"] == ["R2", "R3"] and view["phase"] == "play" and view["to_move"] == 0
    assert view["indicator"] == "Y5" and view["joker"] == "Y4" and view["team"] == 1
    assert view["melds"] == [{"number": 1, "seat": 1, "kind": "run", "cards": ["K3", "Y4:K4", "K5"],
                              "locked": [False, False], "value": 12}]
    assert view["opened"] == [None, 12, None, None] and view["reshuffles_left"] == 3
    for key in ("konkan", "eliminated", "minimum", "stock_size", "discard_top", "scores", "history", "rounds",
                "captain", "mode", "rules", "last_move", "last_round", "over", "winners"):
        assert key in view
    assert "B1" not in json.dumps(view) and "Y13" not in json.dumps(view)


def test_result_shape_by_team():
    state = GAME.new(4, {}, seed=3)
    assert GAME.result(state) == {"over": False, "round": 1, "scores": [0, 0], "history": [], "winners": [],
                                  "draw": False}
    assert GAME.to_move(GAME.new(2, {"mode": "private"}, seed=3)) in (0, 1)


def test_a_layout_with_a_word_that_is_no_tile_names_the_pile():
    """NOTATION.md: layout piles are given "as card codes" under the keys `hands`, `stock`, `discard`, …; a pile
    holding something that is no tile is refused (ValueError) naming the key it was found under."""
    for key in ("hands", "stock", "discard"):
        layout = {"hands": [[], [], [], []], "indicator": "Y5"}
        layout[key] = [["Z9"], [], [], []] if key == "hands" else ["Z9"]
        with pytest.raises(ValueError) as caught:
            GAME.new(4, {}, layout=layout)
        assert str(caught.value) == f"{key}: 'Z9' is not a tile (e.g. R9, K13, B1, F)"


def test_layout_checks():
    with pytest.raises(ValueError, match="appears 3 times"):
        GAME.new(4, {}, layout={"hands": [["R1", "R1"], ["R1"], [], []], "indicator": "Y5"})
    with pytest.raises(ValueError, match="unknown layout"):
        GAME.new(4, {}, layout={"dealer": 1})
    with pytest.raises(ValueError, match="melds"):
        GAME.new(4, {}, layout={"hands": [[], [], [], []], "melds": [{"seat": 0, "cards": ["R1", "K2", "B3"]}]})
