"""Whole Canasta matches between bots end, and the bots only ever pick legal moves."""


import pytest

import engine
from tests import bot_play

GAME = engine.get("canasta")


def play_out(players, levels, seed):
    variant = "duo" if players == 2 else "classic4"
    return bot_play.play_out("canasta", levels, seed, {"variant": variant, "target": 2500}, 20000)


@pytest.mark.parametrize("seed", [1, 2])
def test_duo_normal_against_random_ends(seed):
    state = play_out(2, ["normal", "random"], seed)
    result = GAME.result(state)
    assert result["over"] and len(result["winners"]) == 1
    assert max(result["scores"]) >= 2500 and len(result["history"]) == result["round"]


def test_classic4_mixed_bots_end():
    state = play_out(4, ["normal", "random", "normal", "random"], 3)
    assert GAME.result(state)["over"]


def test_classic4_normal_bots_end():
    state = play_out(4, ["normal"] * 4, 4)
    assert GAME.result(state)["over"]


def test_normal_usually_beats_random():
    wins = sum(GAME.result(play_out(2, ["normal", "random"], seed))["winners"] == [0] for seed in range(10, 16))
    assert wins >= 4
