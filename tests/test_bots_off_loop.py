"""The Konkans' bots choose in the worker processes (bot.core.play.BOTS_OFF_LOOP): the move must be the one the
event loop would have chosen, and a worker that dies must cost no move."""

from __future__ import annotations

import os
import random
import signal

import pytest

import engine
from bot.core.pictures import Pictures
from engine.bots import decide, decide_seeded


def positions(game_id: str, count: int) -> list[tuple[dict, int, str]]:
    """(state, seat to move, seed) along a bot match: the arguments the service hands a bot."""
    game = engine.get(game_id)
    state = game.new(2, {}, seed=9)
    found = []
    for version in range(count):
        seat = game.to_move(state)
        if seat is None:
            break
        seed = f"9:{version}"
        found.append((state, seat, seed))
        state = game.apply(state, seat, decide(game_id, state, seat, "normal", random.Random(seed), slips=False))
    return found


@pytest.mark.parametrize("game_id", ["konkan_tiles", "konkan_cards"])
async def test_a_worker_chooses_the_move_the_event_loop_would(game_id):
    pictures = Pictures(1)
    try:
        for state, seat, seed in positions(game_id, 12):
            expected = decide(game_id, state, seat, "normal", random.Random(seed), slips=True)
            assert await pictures.off_loop(decide_seeded, game_id, state, seat, "normal", seed, True) == expected
        assert pictures._pool is not None and pictures._pool.pids, "the moves were chosen in a worker process"
    finally:
        pictures.close()


async def test_a_dead_worker_costs_no_move():
    pictures = Pictures(1)
    try:
        (state, seat, seed), *_ = positions("konkan_tiles", 1)
        expected = decide("konkan_tiles", state, seat, "normal", random.Random(seed), slips=False)
        assert await pictures.off_loop(decide_seeded, "konkan_tiles", state, seat, "normal", seed, False) == expected
        (pid,) = pictures._pool.pids
        os.kill(pid, signal.SIGKILL)
        assert await pictures.off_loop(decide_seeded, "konkan_tiles", state, seat, "normal", seed, False) == expected
    finally:
        pictures.close()


async def test_without_workers_the_move_is_chosen_right_here():
    pictures = Pictures(0)
    try:
        (state, seat, seed), *_ = positions("konkan_cards", 1)
        expected = decide("konkan_cards", state, seat, "normal", random.Random(seed), slips=True)
        assert await pictures.off_loop(decide_seeded, "konkan_cards", state, seat, "normal", seed, True) == expected
    finally:
        pictures.close()
