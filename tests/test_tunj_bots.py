"""Tunj bots: whole hands end, the normal bot keeps the priorities and always calls, both bots call Tunj; the
casual-table levels slip now and then (SLIP_RATE), the strong level never."""

from __future__ import annotations

import random
from collections import Counter

import pytest

import engine
from engine.bots import get as get_bot
from engine.bots import levels
from engine.cards import french_deck
from engine.tunj.bots import SLIP_RATE, NormalBot, RandomBot, StrongBot
from engine.tunj.deal import deck_contents

GAME = engine.get("tunj")
KINGS = ["KS", "KH", "KD", "KC"]


def play(seed, levels, options=None, limit=50_000):
    """Play a match to its end; returns the final state and the claims each seat opened."""
    state = GAME.new(2, options, seed=seed)
    bots = [get_bot("tunj", level) for level in levels]
    rng = random.Random(seed)
    claims = [0, 0]
    for _ in range(limit):
        seat = GAME.to_move(state)
        if seat is None:
            return state, claims
        move = bots[seat].choose(GAME.view(state, seat), GAME.legal_moves(state, seat), rng,
                                 attempts=GAME.attempts(state, seat))
        state = GAME.apply(state, seat, move)
        if state["claim"] is not None and state["claim"]["by"] == seat:
            claims[seat] += 1
            assert state["claim"]["neglected"], "a bot's slip neglects a priority; it never breaks a building rule"
    raise AssertionError(f"seed {seed} {levels}: no end after {limit} moves")


@pytest.mark.parametrize(
    ("seed", "levels"),
    [(0, ("random", "random")), (1, ("random", "random")), (2, ("normal", "random")), (3, ("random", "normal")),
     (4, ("normal", "normal")), (6, ("strong", "normal")), (7, ("random", "strong"))],
)
def test_whole_bot_hands_end(seed, levels):
    state, claims = play(seed, levels)
    result = GAME.result(state)
    assert result["over"] and result["winners"] and len(result["history"]) == 1
    assert result["scores"] == result["history"][0]
    for seat, level in enumerate(levels):
        if level == "strong":
            assert claims[seat] == 0  # the strongest level never breaks a rule
    full = Counter(french_deck())
    assert deck_contents(state) == [full, full]


def test_bot_match_to_a_target_plays_several_hands():
    state, _ = play(5, ("normal", "random"), {"target": 150})
    result = GAME.result(state)
    assert result["over"] and max(result["scores"]) >= 150
    assert [sum(row[s] for row in result["history"]) for s in (0, 1)] == result["scores"]
    assert result["round"] == len(result["history"]) >= 2


def test_registry_and_levels():
    assert isinstance(get_bot("tunj", "normal"), NormalBot)
    assert isinstance(get_bot("tunj", "random"), RandomBot)
    assert isinstance(get_bot("tunj", "strong"), StrongBot)
    assert get_bot("tunj", "expert").level == "expert"  # strong's rules, plus a search (engine/tunj/expert.py)
    assert levels("tunj") == ("random", "normal", "strong", "expert")
    with pytest.raises(ValueError, match="random, normal, strong, expert"):
        get_bot("tunj", "hard")


def _slip_positions(count):
    """Positions met in play where the seat to move could neglect a priority (attempts beyond the legal)."""
    out = []
    for seed in range(40):
        state, rng = GAME.new(2, seed=seed), random.Random(seed)
        for _ in range(400):
            seat = GAME.to_move(state)
            if seat is None or len(out) >= count:
                break
            legal, offered = GAME.legal_moves(state, seat), GAME.attempts(state, seat)
            if len(offered) > len(legal):
                out.append((state, seat, legal, offered))
            state = GAME.apply(state, seat, StrongBot().choose(GAME.view(state, seat), legal, rng))
    return out


def test_casual_levels_slip_at_the_rate_and_strong_never():
    positions = _slip_positions(300)
    assert len(positions) == 300
    for bot in (NormalBot(), RandomBot(), StrongBot()):
        slips = 0
        for number, (state, seat, legal, offered) in enumerate(positions):
            move = bot.choose(GAME.view(state, seat), legal, random.Random(number), attempts=offered)
            assert move in offered
            slips += move not in legal
        if bot.level == "strong":
            assert slips == 0
        else:
            assert 0.5 * SLIP_RATE * len(positions) <= slips <= 2 * SLIP_RATE * len(positions), (bot.level, slips)
    state, seat, legal, offered = positions[0]
    assert all(NormalBot().choose(GAME.view(state, seat), legal, random.Random(i)) in legal for i in range(50)), \
        "without the attempts (a bot covering for an absent player) no level slips"


# ---- decisions on layouts ----------------------------------------------------------------------------------
def table(reserves, hands, houses=None, foundations=None, wastes=((), ())):
    houses = {f"H{i}": [KINGS[(i - 1) % 4]] for i in range(1, 9)} | (houses or {})
    return GAME.new(2, layout={
        "reserves": [list(p) for p in reserves], "hands": [list(p) for p in hands],
        "wastes": [list(p) for p in wastes],
        "houses": [houses[f"H{i}"] for i in range(1, 9)],
        "foundations": [(foundations or {}).get(f"F{i}", []) for i in range(1, 9)], "to_move": 0,
    })


def normal_choice(state, seat=0):
    return NormalBot().choose(GAME.view(state, seat), GAME.legal_moves(state, seat), random.Random(0))


def test_both_bots_call_on_open_claims():
    attempt = GAME.apply(table((["9D"], ["9S"]), (["5H"], ["5C"]), {"H1": ["2C"]}, {"F4": ["AC"]}), 0, "turn")
    assert normal_choice(attempt, 1) == "tunj"
    picks = {RandomBot().choose(GAME.view(attempt, 1), GAME.legal_moves(attempt, 1), random.Random(i))
             for i in range(20)}
    assert picks == {"tunj", "expire"}


def test_normal_bot_plays_priorities_first():
    two_clubs = table((["9D"], ["9S"]), (["5H"], ["5C"]), {"H1": ["3D", "2C"], "H2": ["TC"]}, {"F4": ["AC"]})
    assert normal_choice(two_clubs) == "move H1 F4"
    reserve_ace = table((["AS", "9D"], ["9S"]), (["5H"], ["5C"]), {"H1": ["AH"]})
    assert normal_choice(reserve_ace).startswith("move R F")
    empty_house = table((["7S", "9D"], ["9S"]), (["5H"], ["5C"]), {"H3": []})
    assert normal_choice(empty_house) == "move R H3"


def test_normal_bot_loads_opponent_from_reserve_and_skips_pointless_moves():
    state = table((["8C", "9D"], ["9C"]), (["5H"], ["5C"]), {"H1": ["9H"], "H2": ["QS", "JD"], "H3": ["QC"]})
    assert normal_choice(state) == "move R OR"  # 8C could also go on 9H, but loading the opponent is better
    idle = table(([], ["9S"]), (["5H"], ["5C"]), {"H2": ["QS", "JD"], "H3": ["QC"]})
    assert "move H2 H3" in GAME.legal_moves(idle, 0)  # exposes nothing new: the bot turns instead
    assert normal_choice(idle) == "turn"


def test_normal_bot_plays_turned_card():
    state = GAME.apply(table(([], ["9S"]), (["7H", "4S"], ["5C"]), {"H1": ["8S"]}), 0, "turn")
    assert normal_choice(state) == "move T H1"


@pytest.mark.parametrize("bot", [RandomBot(), NormalBot(), StrongBot()])
def test_no_legal_move_is_an_error(bot):
    state = table((["9D"], ["9S"]), (["5H"], ["5C"]))
    with pytest.raises(ValueError, match="^no legal move to choose from$"):
        bot.choose(GAME.view(state, 0), [], random.Random(0))


def test_normal_bot_prefers_loading_the_reserve_then_the_waste_then_building_on_a_card():
    """The normal bot's order for its reserve card: opponent's reserve, opponent's waste, a built house, and an
    empty house last (engine/tunj/bots.py)."""
    def picks(their_reserve, their_waste, houses):
        state = table((["8C", "2D"], their_reserve), (["5H"], ["5C"]), houses, wastes=((), their_waste))
        return {NormalBot().choose(GAME.view(state, 0), GAME.legal_moves(state, 0), random.Random(seed))
                for seed in range(8)}

    assert picks(["9C"], ["7C"], {"H1": ["9H"], "H3": []}) == {"move R OR"}
    assert picks(["QD"], ["7C"], {"H1": ["9H"], "H3": []}) == {"move R OW"}
    assert picks(["QD"], ["KD"], {"H1": ["9H"], "H3": []}) == {"move R H1"}


def test_normal_bot_moves_between_houses_to_expose_a_card_for_a_foundation():
    """QH onto a black king (H5 KS or H8 KC) uncovers 2C for the AC on a foundation: worth a move; JD onto QS
    uncovers nothing and is not."""
    state = table(([], ["9S"]), (["5H"], ["5C"]), {"H1": ["5S", "2C", "QH"], "H3": ["9S", "JD"], "H4": ["QS"]},
                  {"F1": ["AC"]})
    assert {"move H1 H5", "move H1 H8", "move H3 H4", "turn"} <= set(GAME.legal_moves(state, 0))
    assert {NormalBot().choose(GAME.view(state, 0), GAME.legal_moves(state, 0), random.Random(seed))
            for seed in range(8)} <= {"move H1 H5", "move H1 H8"}
