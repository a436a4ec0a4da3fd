"""Konkan tiles rules (../shared/rules/konkan-tiles.md): every rule and worked example, driven through the engine
contract with explicit layouts."""

from __future__ import annotations

from collections import Counter

import pytest

import engine
from engine import IllegalMove
from engine.konkan_tiles import melds as M
from engine.konkan_tiles.game import _turn_indicator
from engine.konkan_tiles.scoring import hand_penalty
from engine.konkan_tiles.tiles import DECK, joker_of, tile_value

GAME = engine.get("konkan_tiles")
FILL = ["Y13", "B3", "R1", "K2"]  # loose tiles that make no meld with the examples


def lay(players=4, options=None, **layout):
    """A layout with seat 0 the captain by default; every seat needs a hand."""
    layout.setdefault("indicator", "Y5")  # joker Y4
    layout.setdefault("stock", ["B5", "B6", "R13", "K12", "Y1", "Y2"])
    return GAME.new(players, options if options is not None else ({"mode": "private"} if players == 2 else {}),
                    layout=layout)


def play(state, *moves):
    for move in moves:
        state = GAME.apply(state, GAME.to_move(state), move)
    return state


def read(*tiles, joker="Y4"):
    return M.read([M.table_entries({"cards": [t]})[0] for t in tiles], joker)


# ---- tiles, indicator, joker ----------------------------------------------------------------------------------
def test_106_tiles_two_of_each_and_two_false_jokers():
    counts = Counter(DECK)
    assert len(DECK) == 106 and counts["F"] == 2
    assert all(counts[f"{c}{n}"] == 2 for c in "RKBY" for n in range(1, 14))


def test_deal_captain_15_others_14_indicator_out_of_play():
    state = GAME.new(4, {}, seed=11)
    captain = state["captain"]
    sizes = [len(hand) for hand in state["hands"]]
    assert sizes[captain] == 15 and sorted(sizes) == [14, 14, 14, 15]
    assert state["indicator"] != "F" and len(state["stock"]) == 106 - 57 - 1
    assert GAME.to_move(state) == captain and GAME.legal_moves(state, captain)[0] != "draw"  # no draw first
    assert state["joker"] == joker_of(state["indicator"])


def test_joker_is_indicator_minus_one_and_wraps():
    assert joker_of("R9") == "R8"
    assert joker_of("K1") == "K13"


def test_false_joker_turned_as_indicator_is_shuffled_back():
    state = {"stock": ["F", "F", "B7", "R2"], "rng": 5}
    _turn_indicator(state)
    assert state["indicator"] in ("B7", "R2") and state["stock"].count("F") == 2 and len(state["stock"]) == 3


def test_tile_values():
    assert tile_value("B10", None) + tile_value("B11", None) + tile_value("B12", None) == 30
    assert tile_value("R3", None) + tile_value("K11", None) == 13
    assert tile_value("F", "R8") == 8 and tile_value("Y1", None) == 1


# ---- melds ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("tiles", "kind"),
    [
        (("R7", "K7", "B7"), "set"),
        (("R7", "K7", "B7", "Y7"), "set"),
        (("K5", "K6", "K7"), "run"),
        (("K1", "K2", "K3"), "run"),
        (("K12", "K13", "K1"), "run"),
        (("B9", "B10", "B11", "B12", "B13"), "run"),
        (("B5", "Y4", "B7"), "run"),  # joker = B6
        (("R7", "K7", "Y4"), "set"),  # joker = a missing colour
        (("B5", "Y4", "B7", "Y4", "B9"), "run"),  # two jokers, every position known
    ],
)
def test_valid_melds(tiles, kind):
    shapes = read(*tiles)
    assert len(shapes) == 1 and shapes[0].kind == kind


@pytest.mark.parametrize(
    ("tiles", "why"),
    [
        (("R7", "R7", "K7"), "colour twice"),
        (("R5", "B6", "R7"), "neither"),
        (("K13", "K1", "K2"), "not consecutive"),
        (("R4", "Y4", "Y4"), "two jokers"),
        (("K3", "K4", "K5", "K6", "K7", "K8"), "at most 5"),
        (("R7", "K7", "B7", "Y7", "Y4"), "3 or 4"),
    ],
)
def test_invalid_melds_say_why(tiles, why):
    entries = [(t, None) for t in tiles]
    with pytest.raises(IllegalMove, match=why):
        M.check(entries, "Y4")


def test_a_joker_with_two_placements_needs_the_colon_form():
    with pytest.raises(IllegalMove, match="ambiguous"):
        M.check([("K7", None), ("K8", None), ("Y4", None)], "Y4")
    shape = M.check([("K7", None), ("K8", None), ("Y4", "K9")], "Y4")
    assert shape.cells == ("K7", "K8", "Y4:K9") and shape.value == 24
    assert M.printed(shape, "Y4") == ["K7", "K8", "Y4:K9"]
    assert M.printed(M.check([("K7", None), ("Y4", None), ("K9", None)], "Y4"), "Y4") == ["K7", "Y4", "K9"]


def test_false_joker_is_the_jokers_tile_only():
    # joker Y4: a false joker is "Y4" and fits only there
    assert read("Y3", "F", "Y5")[0].cells == ("Y3", "F", "Y5")
    assert read("R7", "K7", "F") == []


def test_there_are_twenty_konkan_runs():
    runs = {(s.color, s.low) for c in "RKBY" for s in M.hand_melds(
        tuple(f"{c}{n}" for n in range(1, 14)), None, True)}
    assert len(runs) == 20 and {low for _, low in runs} == {1, 2, 3, 4, 5}


# ---- opening --------------------------------------------------------------------------------------------------
OPENING = ["R9", "K9", "Y9", "B10", "B11", "B12", "K7", "K8", "K9"]


def test_opening_example_81_in_one_move():
    state = lay(hands=[OPENING + FILL, ["R2"] * 1, ["R3"], ["R5"]])
    move = GAME.parse_move(state, 0, "meld r9 k9 y9 | b10 b11 b12 | k7 k8 k9")
    assert move == "meld R9 K9 Y9 | B10 B11 B12 | K7 K8 K9"  # melds keep the order given
    assert "meld R9 K9 Y9 | K7 K8 K9 | B10 B11 B12" in GAME.legal_moves(state, 0)  # the best combination
    state = play(state, move, "discard Y13")
    assert state["opened"][0] == 81 and len(state["melds"]) == 3 and not state["eliminated"][0]


def test_failed_opening_eliminates_and_returns_the_tiles():
    hand = ["R9", "K9", "Y9", "B10", "B11", "B12", "K6", "K7", "K8", *FILL]  # 27 + 30 + 21 = 78
    state = lay(hands=[hand, ["R2"], ["R3"], ["R5"]])
    state = play(state, "meld R9 K9 Y9", "meld B10 B11 B12", "meld K6 K7 K8")
    assert GAME.view(state, None)["opening"] == 78
    with pytest.raises(IllegalMove, match="complete your opening"):
        GAME.apply(state, 0, "add K9 to 3")
    state = play(state, "discard Y13")
    assert state["eliminated"][0] and state["melds"] == [] and state["opened"][0] is None
    assert len(state["hands"][0]) == 12
    assert state["last_discard"]["takeable"] is False and "take" not in GAME.legal_moves(state, 1)


def test_dynamic_minimum():
    state = lay(hands=[["R2"], ["R3"], ["R5"], ["R6"]], opened=[None, 90, None, None])
    assert GAME.view(state, None)["minimum"] == [81, 81, 81, 61]
    state = lay(hands=[["R2"], ["R3"], ["R5"], ["R6"]], opened=[None, 90, None, 84])
    assert GAME.view(state, None)["minimum"] == [91, 61, 91, 61]
    turbo = lay(options={"mode": "turbo"}, hands=[["R2"], ["R3"], ["R5"], ["R6"]], opened=[None, None, 70, None])
    assert GAME.view(turbo, None)["minimum"] == [41, 61, 61, 61]
    duel = lay(2, hands=[["R2"], ["R3"]], opened=[None, 95])
    assert GAME.view(duel, None)["minimum"] == [96, 81]


def test_both_opponents_opened_wins_over_the_partners_opening():
    """konkan-tiles.md, dynamic minimum: once both opponents have opened, the minimum "returns" to the higher of
    their openings + 1, even when the partner has opened too (the partner's 61 / Turbo's 41 no longer applies)."""
    state = lay(hands=[["R2"], ["R3"], ["R5"], ["R6"]], opened=[None, 90, 85, 84])
    assert GAME.view(state, None)["minimum"][0] == 91
    low = lay(hands=[["R2"], ["R3"], ["R5"], ["R6"]], opened=[None, 70, 85, 61])
    assert GAME.view(low, None)["minimum"][0] == 71  # above the partner's 61 or below the base 81: always max + 1
    turbo = lay(options={"mode": "turbo"}, hands=[["R2"], ["R3"], ["R5"], ["R6"]], opened=[None, 45, 70, 52])
    assert GAME.view(turbo, None)["minimum"] == [53, 41, 53, 41]  # seats 1, 3: one opponent unopened


def test_the_returned_minimum_is_what_an_opening_must_reach():
    """Played through: partner and both opponents have opened (opponents 90 and 84), so 81 is a failed opening
    that eliminates, and 91 opens."""
    hand = OPENING + FILL  # 81
    melds = [{"seat": 1, "cards": ["R10", "K10", "B10"]}, {"seat": 2, "cards": ["Y11", "Y12", "Y13"]},
             {"seat": 3, "cards": ["R12", "K12", "B12"]}]
    state = lay(hands=[hand, ["R2"], ["R3"], ["R5"]], melds=melds, opened=[None, 90, 61, 84])
    state = play(state, "meld R9 K9 Y9 | B10 B11 B12 | K7 K8 K9", "discard Y13")
    assert state["eliminated"][0] and state["opened"][0] is None
    richer = lay(hands=[[*OPENING, "B13", *FILL], ["R2"], ["R3"], ["R5"]], melds=melds, opened=[None, 90, 61, 84])
    richer = play(richer, "meld R9 K9 Y9 | B10 B11 B12 B13 | K7 K8 K9", "discard Y13")
    assert richer["opened"][0] == 91 and not richer["eliminated"][0]


# ---- drawing and taking ---------------------------------------------------------------------------------------
def test_take_only_the_previous_players_fresh_discard():
    state = lay(hands=[["R2", "R3"], ["K5", "K6"], ["B5", "B6"], ["Y7", "Y8"]], stock=["B1", "B2", "B3", "B4"])
    state = play(state, "discard R2")
    assert GAME.legal_moves(state, 1) == ["draw", "take"]
    state = play(state, "draw", "discard K5")
    assert "take" in GAME.legal_moves(state, 2)
    state = play(state, "take")
    assert state["hands"][2].count("K5") == 1 and state["discard"] == ["R2"]
    state = play(state, "discard B5")
    with pytest.raises(IllegalMove, match="not your turn"):
        GAME.apply(state, 1, "take")


def test_taking_before_opening_opens_with_it_or_enters_konkan():
    hand = ["R9", "K9", "B10", "B11", "B12", "K7", "K8", "K9", "R13", "K13", "Y13", *FILL]
    state = lay(hands=[["Y9", "R1"], hand, ["R5", "R6"], ["R2", "R3"]])
    state = play(state, "discard Y9", "take")
    assert "meld K7 K8 K9" in GAME.legal_moves(state, 1)  # Y9 may come in a later meld of the opening
    opened = play(state, "meld R9 K9 Y9 | B10 B11 B12 | K7 K8 K9", "discard R1")
    assert opened["opened"][1] == 81 and not opened["konkan"][1]
    konkan = play(state, "discard R1")
    assert konkan["konkan"][1] and GAME.view(konkan, 3)["konkan"][1]  # public


def taken_y9(hand, **more):
    """Seat 0 discards Y9; seat 1 (holding `hand`, unopened) takes it."""
    return play(lay(hands=[["Y9", "R1"], hand, ["R5", "R6"], ["R2", "R3"]], **more), "discard Y9", "take")


def refused_code(state, move, code):
    with pytest.raises(IllegalMove) as caught:
        GAME.apply(state, GAME.to_move(state), move)
    assert caught.value.code == code, caught.value
    return caught.value


def test_the_taken_tile_may_come_in_a_later_meld_of_the_same_opening():
    """konkan-tiles.md, turn 1 [decision]: take Y9, meld B10 B11 B12 B13, then meld R9 K9 Y9 | K6 K7 K8 is the same
    opening as the one-move form; the discard is refused while Y9 waits in the hand."""
    state = taken_y9(["R9", "K9", "B10", "B11", "B12", "B13", "K6", "K7", "K8", "Y13", "B3"])
    assert "meld B10 B11 B12 B13" in GAME.legal_moves(state, 1)
    state = play(state, "meld B10 B11 B12 B13")
    refused_code(state, "discard Y13", "konkan_tiles.taken_before_discard")
    moves = GAME.legal_moves(state, 1)
    assert not [move for move in moves if move.startswith("discard")] and "meld R9 K9 Y9 | K6 K7 K8" in moves
    state = play(state, "meld R9 K9 Y9 | K6 K7 K8", "discard Y13")
    assert state["opened"][1] == 88 and not state["konkan"][1] and not state["eliminated"][1]


def test_the_taken_tile_after_the_opening_reached_its_minimum_in_the_same_turn():
    state = taken_y9(["R9", "K9", "B10", "B11", "B12", "B13", "K11", "K12", "K13", "Y11", "Y12", "Y13", "R1", "B3"])
    state = play(state, "meld B10 B11 B12 B13 | K11 K12 K13 | Y11 Y12 Y13")
    assert state["opened"][1] == 100
    refused_code(state, "discard R1", "konkan_tiles.taken_before_discard")
    state = play(state, "meld R9 K9 Y9", "discard R1")
    assert state["opened"][1] == 127 and not state["konkan"][1]


def test_a_move_that_would_strand_the_taken_tile_is_refused():
    """The discard waits for the taken tile, so a meld, lay-off or steal that leaves it no meld in the hand would
    leave no legal discard: refused (and never listed)."""
    hand = ["R9", "K9", "R10", "R11", "B10", "B11", "B12", "B13", "K11", "K12", "K13", "Y11", "Y12", "Y13", "R1"]
    table = [{"seat": 2, "cards": ["R6", "R7", "R8"]}, {"seat": 0, "cards": ["B5", "Y4:B6", "B7"]}]
    state = taken_y9(hand, melds=table, opened=[70, None, 61, None])
    refused_code(state, "meld R9 R10 R11", "konkan_tiles.open_with_taken")
    assert "meld R9 R10 R11" not in GAME.legal_moves(state, 1)
    state = play(state, "meld B10 B11 B12 B13 | K11 K12 K13 | Y11 Y12 Y13")  # 100: open, Y9 still waiting
    refused_code(state, "add R9 to 1", "konkan_tiles.open_with_taken")
    assert "add R9 to 1" not in GAME.legal_moves(state, 1)
    state = play(state, "meld R9 K9 Y9", "discard R1")
    assert state["opened"][1] == 127


def test_taking_and_not_opening_still_enters_konkan_without_a_discard_refusal():
    state = taken_y9(["R9", "K9", "B10", "B11", "B12", "B13", "K6", "K7", "K8", "Y13", "B3"])
    assert "discard Y13" in GAME.legal_moves(state, 1)
    state = play(state, "discard Y13")
    assert state["konkan"][1] and state["opened"][1] is None


def test_hidden_finish_after_a_take_needs_the_taken_tile_inside_the_melds():
    """konkan-tiles.md, hidden finish [decision]: after taking the last discard before opening, the taken tile must
    be inside the melds in hand, not the tile put on the indicator."""
    melds14 = ["R9", "K9", "Y9", "B10", "B11", "B12", "K7", "K8", "K9", "R2", "R3", "R4", "R5", "R6"]
    onto = play(lay(hands=[["Y13", "R1"], melds14, ["B1"], ["Y1"]]), "discard Y13", "take")
    refused_code(onto, "finish Y13", "konkan_tiles.hidden_finish_taken")
    assert not [move for move in GAME.legal_moves(onto, 1) if move.startswith("finish")]
    inside = play(lay(hands=[["R6", "R1"], [*melds14[:13], "Y13"], ["B1"], ["Y1"]]), "discard R6", "take")
    assert "finish Y13" in GAME.legal_moves(inside, 1)
    assert play(inside, "finish Y13")["last_round"]["kind"] == "hidden"
    twin = play(lay(hands=[["R6", "R1"], melds14, ["B1"], ["Y1"]]), "discard R6", "take")
    assert "finish R6" in GAME.legal_moves(twin, 1)  # the other R6 is inside the melds: the two are one tile


def test_konkan_trap_laying_off_before_opening():
    state = lay(hands=[["K10", "R1", "B2"], ["R2"], ["R3"], ["R5"]],
                melds=[{"seat": 1, "cards": ["K7", "K8", "K9"]}])
    state = play(state, "add K10 to 1")
    assert state["konkan"][0] and state["melds"][0]["cards"] == ["K7", "K8", "K9", "K10"]
    state = play(state, "discard R1")
    assert GAME.view(state, None)["konkan"][0]


# ---- hidden finish and penalties ------------------------------------------------------------------------------
def test_hidden_finish_and_the_worked_penalty_example():
    hand = ["R9", "K9", "Y9", "B10", "B11", "B12", "K7", "K8", "K9", "R2", "R3", "R4", "R5", "R6", "Y13"]
    state = lay(hands=[hand, ["R3", "K11"], ["B1"], ["Y1"] * 2],
                melds=[{"seat": 1, "cards": ["B5", "B6", "B7"]}], opened=[None, 81, None, None], stock=["K1"])
    assert GAME.legal_moves(state, 0).count("finish Y13") == 1
    with pytest.raises(IllegalMove, match="do not all form melds"):
        GAME.apply(state, 0, "finish R2")
    state = play(state, "finish Y13")
    last = state["last_round"]
    assert last["kind"] == "hidden" and last["points"] == [113, 0]  # 100 + (3 + 10)
    assert [d["penalty"] for d in last["detail"]] == [0, 13, 0, 100]
    assert state["captain"] == 0 and state["round"] == 2 and state["scores"] == [113, 0]


def test_joker_penalties_25_dealt_2_stolen():
    assert hand_penalty(["Y4", "Y4", "R3"], "Y4", 0) == 53
    assert hand_penalty(["Y4", "Y4", "R3"], "Y4", 1) == 30
    assert hand_penalty(["F", "K12"], "Y4", 0) == 14


# ---- stealing jokers ------------------------------------------------------------------------------------------
def test_steal_from_a_run_and_a_set_and_the_dead_joker():
    dead = lay(hands=[["Y5", "R1"], ["R2"], ["R3"], ["R6"]], melds=[{"seat": 3, "cards": ["R5", "K5", "B5", "Y4"]}],
               opened=[90, None, None, None])
    with pytest.raises(IllegalMove, match="dead joker"):
        GAME.apply(dead, 0, "swap Y5 for 1")
    assert not [move for move in GAME.legal_moves(dead, 0) if move.startswith("swap")]
    melds = [{"seat": 1, "cards": ["K7", "Y4:K8", "K9"]}, {"seat": 2, "cards": ["R11", "K11", "Y4"]}]
    state = lay(hands=[["K8", "B11", "Y11", "Y5", "R1"], ["R2"], ["R3"], ["R6"]], melds=melds,
                opened=[90, None, None, None])
    moves = GAME.legal_moves(state, 0)
    assert {"swap K8 for 1", "swap B11 for 2", "swap Y11 for 2"} <= set(moves)
    state = play(state, "swap K8 for 1")
    assert state["melds"][0]["cards"] == ["K7", "K8", "K9"] and state["hands"][0].count("Y4") == 1
    assert state["stolen"][0] == 1
    state = play(state, "swap b11 for 2")
    assert state["melds"][1]["cards"] == ["R11", "K11", "B11"] and state["stolen"][0] == 2


def test_stealing_needs_an_opening_or_konkan_mode():
    melds = [{"seat": 1, "cards": ["K7", "Y4:K8", "K9"]}]
    state = lay(hands=[["K8", "R1"], ["R2"], ["R3"], ["R6"]], melds=melds)
    with pytest.raises(IllegalMove, match="only after opening"):
        GAME.apply(state, 0, "swap K8 for 1")
    konkan = lay(hands=[["K8", "R1"], ["R2"], ["R3"], ["R6"]], melds=melds, konkan=[True, False, False, False])
    assert "swap K8 for 1" in GAME.legal_moves(konkan, 0)


def test_locked_end_cannot_be_extended():
    melds = [{"seat": 1, "cards": ["K7", "K8", "K9"], "locked": [True, False]}]
    state = lay(hands=[["K6", "K10", "R1"], ["R2"], ["R3"], ["R6"]], melds=melds, opened=[90, None, None, None])
    with pytest.raises(IllegalMove, match="locked"):
        GAME.apply(state, 0, "add K6 to 1")
    assert "add K10 to 1" in GAME.legal_moves(state, 0)


# ---- Konkan finish --------------------------------------------------------------------------------------------
RUN10 = ["B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9", "B10", "B11"]


def konkan_state(extra, table=None, rules=None, **more):
    options = {"mode": "private", "rules": rules} if rules else {}
    players = 4
    hands = [RUN10 + extra, ["R2", "K3"], ["R3", "K4"], ["R6", "K6"]]
    return lay(players, options, hands=hands, konkan=[True, False, False, False],
               melds=table or [{"seat": 1, "cards": ["K7", "K8", "K9"]}], **more)


def test_konkan_finish_with_a_four_tile_meld_doubles_the_unopened_penalty():
    state = konkan_state(["R12", "K12", "B12", "Y12", "Y1"], opened=[None, 60, None, None])
    typed = "meld B2 B3 B4 B5 B6 B7 B8 B9 B10 B11 | R12 K12 B12 Y12"
    move = GAME.parse_move(state, 0, typed)
    assert move == typed and move in GAME.legal_moves(state, 0)
    state = play(state, move, "discard Y1")
    last = state["last_round"]
    assert last["kind"] == "konkan" and [d["penalty"] for d in last["detail"]] == [0, 5, 0, 200]


def test_konkan_finish_with_three_tiles_needs_one_lock_and_a_second_lock_eliminates():
    state = konkan_state(["R12", "K12", "B12", "K10", "Y1"])
    with pytest.raises(IllegalMove, match="needs a meld"):
        GAME.apply(state, 0, "meld " + " ".join(RUN10))
    state = play(state, "meld B2 B3 B4 B5 B6 B7 B8 B9 B10 B11 | R12 K12 B12")
    with pytest.raises(IllegalMove, match="lock 1 more"):
        GAME.apply(state, 0, "discard Y1")
    with pytest.raises(IllegalMove, match="does not fit"):
        GAME.apply(state, 0, "lock K10 to 1 left")
    locked = play(state, "lock K10 to 1 right")
    assert locked["melds"][0]["locked"] == [False, True] and locked["melds"][0]["cards"][-1] == "K10"
    assert GAME.legal_moves(locked, 0) == ["discard Y1"]  # Y1 fits nowhere, so no second lock is listed
    won = play(locked, "discard Y1")
    assert won["last_round"]["kind"] == "konkan" and won["scores"] == [200 + 5, 0]  # seat 1 opened: R2 K3
    again = konkan_state(["R12", "K12", "B12", "K10", "K6"])
    again = play(again, "meld B2 B3 B4 B5 B6 B7 B8 B9 B10 B11 | R12 K12 B12", "lock K10 to 1 right")
    assert "lock K6 to 1 left" in GAME.legal_moves(again, 0)
    out = play(again, "lock K6 to 1 left")
    assert out["eliminated"][0] and not out["konkan"][0] and len(out["hands"][0]) == 14
    assert out["melds"] == [{**out["melds"][0], "cards": ["K7", "K8", "K9"], "locked": [False, False]}]
    assert out["discard"][0] == "K6" and out["last_discard"]["takeable"] is False


def test_locks_go_on_runs_only():
    """konkan-tiles.md [decision]: a set has no ends, so a lock goes on a run; with only a set to lock onto, a
    finish that needs a lock cannot close and is refused."""
    table = [{"seat": 1, "cards": ["K7", "K8", "K9"]}, {"seat": 2, "cards": ["R13", "K13", "Y13"]}]
    state = play(konkan_state(["R12", "K12", "B12", "K10", "B13"], table=table),
                 "meld B2 B3 B4 B5 B6 B7 B8 B9 B10 B11 | R12 K12 B12")
    with pytest.raises(IllegalMove) as caught:
        GAME.apply(state, 0, "lock B13 to 2 left")
    assert caught.value.code == "konkan_tiles.lock_run_only"
    assert not [move for move in GAME.legal_moves(state, 0) if move.startswith("lock") and " to 2 " in move]
    only_set = konkan_state(["R12", "K12", "B12", "Y1", "B13"], table=table[1:])
    with pytest.raises(IllegalMove, match="cannot be locked"):
        GAME.apply(only_set, 0, "meld B2 B3 B4 B5 B6 B7 B8 B9 B10 B11 | R12 K12 B12")


def test_in_konkan_mode_nothing_is_laid_before_the_finish():
    state = konkan_state(["R12", "K12", "B12", "K10", "Y1"])
    with pytest.raises(IllegalMove, match="Konkan finish"):
        GAME.apply(state, 0, "meld R12 K12 B12")
    with pytest.raises(IllegalMove, match="Konkan mode"):
        GAME.apply(state, 0, "add K10 to 1")
    with pytest.raises(IllegalMove, match="finish only by Konkan"):
        GAME.apply(state, 0, "finish Y1")


def test_a_finish_that_cannot_close_is_refused():
    state = konkan_state(["R12", "K12", "B12", "Y1", "Y3"])
    with pytest.raises(IllegalMove, match="cannot be locked"):
        GAME.apply(state, 0, "meld B2 B3 B4 B5 B6 B7 B8 B9 B10 B11 | R12 K12 B12")


def test_sulaymaniyah_konkan_10_four_locks_and_400():
    table = [{"seat": 1, "cards": ["K7", "K8", "K9"]}, {"seat": 2, "cards": ["R4", "R5", "R6"]}]
    state = konkan_state(["K6", "K10", "R3", "R7", "Y1"], table=table, rules="sulaymaniyah")
    assert GAME.view(state, None)["locks_left"] == 4
    state = play(state, "meld " + " ".join(RUN10), "lock K6 to 1 left", "lock K10 to 1 right",
                 "lock R3 to 2 left", "lock R7 to 2 right", "discard Y1")
    last = state["last_round"]
    assert last["kind"] == "konkan10" and last["points"] == [5 + 200 + 400, 0]
    erbil = konkan_state(["K6", "K10", "R3", "R7", "Y1"], table=table)
    with pytest.raises(IllegalMove, match="needs a meld"):
        GAME.apply(erbil, 0, "meld " + " ".join(RUN10))


def test_sulaymaniyah_400_is_for_konkan_10_only():
    """konkan-tiles.md [decision]: under Sulaymaniyah rules the +400 goes with the Konkan-10 finish only; an
    ordinary Konkan or a hidden finish scores as under the standard rules (100 not opened, 200 on a Konkan)."""
    state = konkan_state(["R12", "K12", "B12", "Y12", "Y1"], rules="sulaymaniyah", opened=[None, 60, None, None])
    state = play(state, "meld B2 B3 B4 B5 B6 B7 B8 B9 B10 B11 | R12 K12 B12 Y12", "discard Y1")
    assert state["last_round"]["kind"] == "konkan" and state["last_round"]["points"] == [5 + 200, 0]
    hand = ["R9", "K9", "Y9", "B10", "B11", "B12", "K7", "K8", "K9", "R2", "R3", "R4", "R5", "R6", "Y13"]
    hidden = lay(4, {"mode": "sulaymaniyah"}, hands=[hand, ["R3"], ["B1"], ["Y1"]])
    hidden = play(hidden, "finish Y13")
    assert hidden["last_round"]["kind"] == "hidden" and hidden["last_round"]["points"] == [200, 0]


# ---- draws from a Konkan player's discards --------------------------------------------------------------------
def test_first_take_from_a_konkan_player_is_free_the_second_must_finish():
    hands = [["R2", "R3", "R4"], ["K5", "K6", "Y12", "Y11"], ["B9"], ["Y7"]]
    state = lay(hands=hands, konkan=[True, False, False, False], opened=[None, 70, None, None],
                melds=[{"seat": 1, "cards": ["B1", "B2", "B3"]}], stock=["B12"] * 2 + ["R9"] * 2 + ["K1"] * 2)
    state = play(state, "discard R2", "take")
    assert state["konkan_takes"][1] == 1 and not state["turn"]["must_finish"]
    state = play(state, "discard Y12", "draw", "discard B9", "draw", "discard Y7", "draw", "discard R3", "take")
    assert state["turn"]["must_finish"] and GAME.view(state, 1)["must_finish"]
    state = play(state, "discard Y11")
    assert state["eliminated"][1]


def test_an_unopened_taker_from_a_konkan_player_enters_konkan_mode():
    """konkan-tiles.md [decision]: the first take from a Konkan player's discards is free of elimination, but an
    unopened taker who does not open with the tile enters Konkan mode like any pre-opening take."""
    hands = [["R2", "R3", "R4"], ["K5", "K6", "Y12", "Y11"], ["B9"], ["Y7"]]
    state = lay(hands=hands, konkan=[True, False, False, False], stock=["B12"] * 2 + ["R9"] * 2)
    state = play(state, "discard R2", "take", "discard Y12")
    assert state["konkan"][1] and not state["eliminated"][1] and state["konkan_takes"][1] == 1


def test_konkan_players_take_konkan_discards_without_limit():
    hands = [["R2", "R3", "R4"], ["K5", "K6", "K7"], ["B9", "B8"], ["Y7", "Y8"]]
    state = lay(hands=hands, konkan=[True, True, False, False], stock=["B12"] * 2 + ["R9"] * 2 + ["K1"] * 2)
    state = play(state, "discard R2", "take", "discard K5", "draw", "discard B9", "draw", "discard Y7",
                 "draw", "discard R3", "take")
    assert state["konkan_takes"][1] == 0 and not state["turn"]["must_finish"]


# ---- elimination, ghosts, reshuffles --------------------------------------------------------------------------
def test_ghost_turns_draw_and_discard_the_same_tile():
    hands = [["R2", "R3"], ["K5", "K6"], ["B5", "B6"], ["Y7", "Y8"]]
    state = lay(hands=hands, eliminated=[False, True, False, False], stock=["B1", "R11", "K4"])
    state = play(state, "discard R2")
    assert GAME.to_move(state) == 2 and state["ghosts"] == [{"seat": 1, "tile": "B1"}]
    assert state["hands"][1] == ["K5", "K6"] and state["discard"][:2] == ["B1", "R2"]
    assert "take" in GAME.legal_moves(state, 2)  # a ghost's discard triggers nothing and may be taken


def test_every_view_shows_the_ghost_turns_since_the_last_move():
    """konkan-tiles.md, Elimination: an eliminated player "each turn draws a tile and immediately discards the same
    tile" — a discard on the open pile, so every seat and the public view are told which tile that seat threw."""
    hands = [["R2", "R3"], ["K5", "K6"], ["B5", "B6"], ["Y7", "Y8"]]
    state = play(lay(hands=hands, eliminated=[False, True, False, False], stock=["B1", "R11", "K4"]), "discard R2")
    for seat in (None, 0, 1, 2, 3):
        assert GAME.view(state, seat)["ghosts"] == [{"seat": 1, "tile": "B1"}]
    assert GAME.view(play(state, "draw"), None)["ghosts"] == []


def test_three_reshuffles_then_a_void_round_with_the_same_captain():
    hands = [["R2", "R3"], ["K5", "K6"], ["B5", "B6"], ["Y7", "Y8"]]
    state = lay(hands=hands, stock=[], discard=["R9", "R10"], captain=0)
    state = play(state, "discard R2")
    assert state["reshuffles"] == 1 and state["stock"] in (["R9", "R10"], ["R10", "R9"])
    state = lay(hands=hands, stock=[], discard=["R9", "R10"], reshuffles=3, captain=2,
                scores=[10, 20])
    state = play(state, "discard B5")
    assert state["history"] == [[0, 0]] and state["round"] == 2 and state["captain"] == 2
    assert state["last_round"]["kind"] == "void" and state["scores"] == [10, 20]


# ---- modes, rounds, decider ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("mode", "rounds"), [("quick", 5), ("ranked", 7), ("sulaymaniyah", 7), ("turbo", 3),
                                              ("tournament", 7), ("private", 7)])
def test_rounds_per_mode(mode, rounds):
    assert GAME.new(4, {"mode": mode}, seed=1)["rounds"] == rounds


def test_timers_per_mode():
    timers = {mode: GAME.view(GAME.new(4, {"mode": mode}, seed=1), None)["timers"]
              for mode in ("quick", "ranked", "sulaymaniyah", "turbo", "tournament", "private")}
    assert timers["quick"] == timers["ranked"] == timers["tournament"] == {"discard": 30, "draw": 15}
    assert timers["turbo"] == {"discard": 25, "draw": 10} and timers["private"] is None
    assert GAME.view(GAME.new(4, {"mode": "turbo"}, seed=1), None)["minimum"] == [61] * 4


def test_options():
    assert GAME.new(4, {}, seed=1)["options"] == {"mode": "quick", "rules": "erbil"}
    assert GAME.new(4, {"mode": "sulaymaniyah"}, seed=1)["options"]["rules"] == "sulaymaniyah"
    assert GAME.new(2, {"mode": "private", "rules": "sulaymaniyah"}, seed=1)["options"]["rules"] == "sulaymaniyah"
    assert GAME.new(2, {}, seed=1)["options"] == {"mode": "private", "rules": "erbil"}
    with pytest.raises(ValueError, match="coming soon"):
        GAME.new(4, {"mode": "kirkuk"}, seed=1)
    refused = ((2, {"mode": "quick"}), (3, {}), (4, {"colour": 1}), (4, {"mode": "blitz"}),
               (4, {"mode": "private", "rules": "kirkuk"}), (4, {"mode": "quick", "rules": "sulaymaniyah"}))
    for players, options in refused:
        with pytest.raises(ValueError):
            GAME.new(players, options, seed=1)


def last_round_finish(scores, round_=5):
    """The last regular quick round, seat 0 about to make a hidden finish worth 200 (two unopened opponents)."""
    hand = ["R9", "K9", "Y9", "B10", "B11", "B12", "K7", "K8", "K9", "R2", "R3", "R4", "R5", "R6", "Y13"]
    return lay(hands=[hand, ["R3"], ["B1"], ["Y1"]], round=round_, scores=scores)


def test_match_ends_after_the_regular_rounds_when_out_of_reach():
    state = play(last_round_finish([0, 700]), "finish Y13")
    assert GAME.result(state) == {"over": True, "round": 5, "scores": [200, 700],
                                  "history": [[200, 0]], "winners": [1], "draw": False}


def test_tied_totals_play_a_normal_decider():
    state = play(last_round_finish([0, 200]), "finish Y13")
    assert not state["over"] and state["decider"] and state["forced"] == [] and state["round"] == 6
    assert state["phase"] == "play"


def test_trailing_team_within_400_plays_forced_konkan_with_its_option():
    state = play(last_round_finish([0, 500]), "finish Y13")  # 200 - 500: team 0 trails by 300
    assert state["decider"] and state["forced"] == [0, 2] and state["phase"] == "option"
    assert GAME.to_move(state) == 0 and GAME.legal_moves(state, 0) == ["option reshuffle", "option joker",
                                                                         "option none"]
    assert state["konkan"] == [True, False, True, False]
    old = state["indicator"]
    changed = play(state, "option joker")
    assert changed["phase"] == "play" and changed["joker"] == joker_of(changed["indicator"])
    assert Counter(changed["stock"] + [changed["indicator"]]) == Counter(state["stock"] + [old])
    redealt = play(state, "option reshuffle")
    assert redealt["hands"] != state["hands"] and redealt["konkan"] == [True, False, True, False]
    assert play(state, "option none")["hands"] == state["hands"]


def test_decider_ends_the_match_even_when_void():
    hands = [["R2", "R3"], ["K5", "K6"], ["B5", "B6"], ["Y7", "Y8"]]
    state = lay(hands=hands, stock=[], discard=["R9", "R10"], reshuffles=3, round=6, scores=[300, 300])
    state = play(state, "discard R2")
    result = GAME.result(state)
    assert result["over"] and result["draw"] and result["winners"] == [0, 1] and result["round"] == 6


def test_the_colon_form_from_notation():
    state = lay(indicator="R9", hands=[["B5", "R8", "B7", "K1", "K2", "K5", "K6", "Y9"], ["R2"], ["R3"], ["R5"]],
                opened=[90, None, None, None])
    assert GAME.parse_move(state, 0, "meld B5 R8:B6 B7") == "meld B5 R8 B7"  # unique: printed plainly
    assert GAME.parse_move(state, 0, "meld k1 k2 r8") == "meld K1 K2 R8"  # only K3: 13-1-2 does not wrap
    assert GAME.parse_move(state, 0, "meld k1 r8:k3 k2") == "meld K1 K2 R8"
    assert GAME.parse_move(state, 0, "meld k6 r8:k7 k5") == "meld K5 K6 R8:K7"  # K4 or K7: the colon stays
    state = play(state, "meld B5 R8:B6 B7")
    assert state["melds"][0]["cards"] == ["B5", "R8:B6", "B7"]


def test_the_round_winner_becomes_captain():
    hand = ["R9", "K9", "Y9", "B10", "B11", "B12", "K7", "K8", "K9", "R2", "R3", "R4", "R5", "R6"]
    state = lay(hands=[hand, ["R3"], ["B1"], ["Y1", "K1"]], captain=3, stock=["Y13", "B2"])
    state = play(state, "discard K1", "draw", "finish Y13")
    assert state["last_round"]["finisher"] == 0 and state["captain"] == 0 and GAME.to_move(state) == 0
    assert len(state["hands"][0]) == 15 and [len(h) for h in state["hands"]].count(14) == 3
