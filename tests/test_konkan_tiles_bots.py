"""Konkan tiles bots: they decide from the seat's view and legal moves, the normal bot opens in one move (never a
half opening that would eliminate it) and finishes when it can, and a normal team beats a random team."""

from __future__ import annotations

import random

import engine
from engine.bots import get
from engine.konkan_tiles.bots import NormalBot, konkan_window, meld_value

GAME = engine.get("konkan_tiles")


def lay(**layout):
    layout.setdefault("indicator", "Y5")
    layout.setdefault("stock", ["B5", "B6", "R13", "K12"])
    return GAME.new(4, {}, layout=layout)


def test_normal_opens_with_the_whole_opening_at_once():
    hand = ["R9", "K9", "Y9", "B10", "B11", "B12", "K7", "K8", "K9", "Y13", "B3", "R1", "K2"]
    state = lay(hands=[hand, ["R2"], ["R3"], ["R5"]])
    move = NormalBot().choose(GAME.view(state, 0), GAME.legal_moves(state, 0), random.Random(1))
    assert move == "meld R9 K9 Y9 | K7 K8 K9 | B10 B11 B12" and meld_value(move, "Y4") == (81, 9)


def test_normal_does_not_lay_an_opening_below_the_minimum():
    hand = ["R9", "K9", "Y9", "B10", "B11", "B12", "K6", "K7", "K8", "Y13", "B3", "R1", "K2"]  # 78
    state = lay(hands=[hand, ["R2"], ["R3"], ["R5"]])
    move = NormalBot().choose(GAME.view(state, 0), GAME.legal_moves(state, 0), random.Random(1))
    assert move.startswith("discard") and move.split()[1] not in ("R9", "K9", "Y9", "B10", "B11", "B12")


def test_normal_takes_a_discard_that_opens_and_finishes_when_it_can():
    hand = ["R9", "K9", "B10", "B11", "B12", "K7", "K8", "K9", "R13", "K13", "Y13", "B3", "R1", "K2"]
    state = lay(hands=[["Y9", "R2"], hand, ["R5", "R6"], ["R3", "R4"]])
    state = GAME.apply(state, 0, "discard Y9")
    assert NormalBot().choose(GAME.view(state, 1), GAME.legal_moves(state, 1), random.Random(1)) == "take"
    finisher = ["R9", "K9", "Y9", "B10", "B11", "B12", "K7", "K8", "K9", "R2", "R3", "R4", "R5", "R6", "Y13"]
    state = lay(hands=[finisher, ["R3"], ["B1"], ["Y1"]])
    assert NormalBot().choose(GAME.view(state, 0), GAME.legal_moves(state, 0), random.Random(1)) == "finish Y13"


def test_normal_steals_a_joker_once_open():
    state = lay(hands=[["K8", "R1", "B3"], ["R2"], ["R3"], ["R6"]], opened=[90, None, None, None],
                melds=[{"seat": 1, "cards": ["K7", "Y4:K8", "K9"]}])
    assert NormalBot().choose(GAME.view(state, 0), GAME.legal_moves(state, 0), random.Random(1)) == "swap K8 for 1"


def test_konkan_window_counts_a_long_run():
    hand = ["B2", "B3", "B4", "B5", "B7", "B8", "B9", "Y4", "R1"]
    assert konkan_window(hand, "Y4") == (8, "B", 1)


def test_bots_decide_from_the_view_only():
    state = GAME.new(4, {}, seed=4)
    for level in ("random", "normal"):
        bot = get("konkan_tiles", level)
        seat = GAME.to_move(state)
        move = bot.choose(GAME.view(state, seat), GAME.legal_moves(state, seat), random.Random(0))
        assert move in GAME.legal_moves(state, seat)


def test_a_normal_team_beats_a_random_team():
    """Four seeded turbo matches, the normal team on each side in turn (bench/konkan_tiles_strength.py measures
    100 quick matches)."""
    won = 0
    for seed in range(4):
        team = seed % 2
        bots = [get("konkan_tiles", "normal" if seat % 2 == team else "random") for seat in range(4)]
        state = GAME.new(4, {"mode": "turbo"}, seed=seed)
        chooser = random.Random(seed)
        while (seat := GAME.to_move(state)) is not None:
            state = GAME.apply(state, seat, bots[seat].choose(GAME.view(state, seat), GAME.legal_moves(state, seat),
                                                               chooser))
        won += GAME.result(state)["winners"] == [team]
    assert won >= 3
