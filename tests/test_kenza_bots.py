"""Kenza bots decide from their seat's view only, and the normal bot is clearly stronger than random."""

import random

import engine
from bench.engine import play_match
from engine import bots


def test_bots_choose_only_legal_moves_from_a_view_without_other_hands():
    game = engine.get("kenza")
    state = game.new(4, seed=3)
    chooser = random.Random(3)
    for _ in range(30):
        seat = game.to_move(state)
        view = game.view(state, seat)
        assert "hands" not in view
        legal = game.legal_moves(state, seat)
        for level in ("random", "normal"):
            assert bots.get("kenza", level).choose(view, legal, chooser) in legal
        state = game.apply(state, seat, bots.get("kenza", "normal").choose(view, legal, chooser))


def test_normal_beats_random_most_of_the_time():
    wins = 0
    for seed in range(40):
        levels = ["normal", "random"] if seed % 2 == 0 else ["random", "normal"]
        result, _, _ = play_match("kenza", 1000 + seed, levels)
        if not result.get("draw") and levels.index("normal") in result["winners"]:
            wins += 1
    assert wins >= 28, f"normal won only {wins}/40"
