"""Property tests: bot and random play keep all 106 tiles, valid melds, private racks, a JSON round trip and
a legal move for every seat to move; whole matches always end."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.konkan_tiles import melds as M
from engine.konkan_tiles.tiles import DECK, bare
from tests.properties import assert_totals, assert_view_private, bot_or_random, listed_moves

GAME = engine.get("konkan_tiles")
FULL = Counter(DECK)
MAX_MOVES = 20_000  # far above any match seen (normal bots: ~1,500 moves; random play ends by void rounds)


def all_tiles(state):
    tiles = list(state["stock"]) + list(state["discard"]) + [state["indicator"]]
    for hand in state["hands"]:
        tiles += hand
    for meld in state["melds"]:
        tiles += [bare(cell) for cell in meld["cards"]]
    return Counter(tiles)


def check_melds(state):
    for meld in state["melds"]:
        shapes = M.read(M.table_entries(meld), state["joker"], konkan=len(meld["cards"]) == M.KONKAN_RUN)
        assert len(shapes) == 1 and list(shapes[0].cells) == meld["cards"], meld


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.sampled_from([2, 4]), random_share=st.sampled_from([0.0, 0.2, 0.6]),
       mode=st.sampled_from(["quick", "turbo", "sulaymaniyah"]))
def test_rounds_keep_every_invariant(seed, players, random_share, mode):
    options = {"mode": "private", "rules": "sulaymaniyah" if mode == "sulaymaniyah" else "erbil"} \
        if players == 2 else {"mode": mode}
    state = GAME.new(players, options, seed=seed)
    chooser = random.Random(seed)
    for _ in range(MAX_MOVES):
        seat = GAME.to_move(state)
        if seat is None or state["round"] > 1:
            break
        moves = listed_moves(GAME, state, seat)
        move = bot_or_random(GAME, state, seat, moves, chooser, random_share)
        if chooser.random() < 0.05:
            for other in moves:  # every listed move applies, not only the chosen one
                GAME.apply(state, seat, other)
        state = GAME.apply(state, seat, move)
        assert_totals(state)
        assert all_tiles(state) == FULL
        check_melds(state)
        looker = chooser.randrange(players)
        assert_view_private(GAME, state, looker, chooser)
        assert GAME.from_json(GAME.to_json(state)) == state
    assert state["round"] > 1 or state["over"], "the round was played to its end"


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.sampled_from([2, 4]))
def test_random_matches_always_end(seed, players):
    """Random play cannot loop: each draw shrinks the pile, reshuffles are counted, and a round is void after
    the third; so every match ends, with totals that add up."""
    options = {"mode": "turbo"} if players == 4 else {"mode": "private"}
    state = GAME.new(players, options, seed=seed)
    chooser = random.Random(seed)
    for _ in range(MAX_MOVES):
        seat = GAME.to_move(state)
        if seat is None:
            break
        state = GAME.apply(state, seat, chooser.choice(GAME.legal_moves(state, seat)))
    result = GAME.result(state)
    assert result["over"] and result["winners"]
    assert len(result["history"]) in (state["rounds"], state["rounds"] + 1)
    assert [sum(column) for column in zip(*result["history"], strict=True)] == result["scores"]
