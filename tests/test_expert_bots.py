"""The expert bots: a legal move, the same one for the same seed, decided from the seat's view alone (its worlds
agree with that view; hidden cards it cannot see do not change its move), and worked out off the event loop, the
normal bot standing in for a move whose worker died."""

from __future__ import annotations

import dataclasses
import importlib
import random
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import pytest

import engine
from bot.core.thinking import Thinkers, bot_move
from engine.base import clone
from engine.bots import decide, decide_seeded, get, levels

GAMES: dict[str, dict[str, Any]] = {
    "kenza": {}, "canasta": {"variant": "duo"}, "konkan_cards": {}, "konkan_tiles": {}, "tunj": {},
}


def _expert_module(game_id: str) -> Any:
    return importlib.import_module(f"engine.{game_id}.expert")


KENZA_WORLDS = _expert_module("kenza").WORLDS


@pytest.fixture(autouse=True)
def small_budget(monkeypatch):
    """Every property here holds at any budget: a few rollouts keep the tests quick (the bench measures the real
    budget's strength and time)."""
    for game_id in GAMES:
        module = _expert_module(game_id)
        if hasattr(module, "PLAN"):
            monkeypatch.setattr(module, "PLAN", dataclasses.replace(module.PLAN, rollouts=4, max_worlds=2,
                                                                    horizon=12))
    monkeypatch.setattr(_expert_module("kenza"), "WORLDS", 4)


def _positions(game_id: str, seed: int, moves: int) -> list[tuple[dict[str, Any], int]]:
    """Positions of a normal-bot match (2 seats) where the seat to move has a choice, up to `moves` moves in."""
    game = engine.get(game_id)
    state = game.new(2, GAMES[game_id], seed=seed)
    bot, rng = get(game_id, "normal"), random.Random(seed)
    found = []
    for _ in range(moves):
        seat = game.to_move(state)
        if seat is None:
            break
        legal = game.legal_moves(state, seat)
        if len(legal) > 1:
            found.append((state, seat))
        state = game.apply(state, seat, bot.choose(game.view(state, seat), legal, rng))
    return found


def test_every_game_offers_the_expert_level():
    for game_id in GAMES:
        assert "expert" in levels(game_id)


@pytest.mark.parametrize("game_id", GAMES)
def test_expert_plays_a_legal_move_and_the_same_one_for_the_same_seed(game_id):
    game = engine.get(game_id)
    state, seat = _positions(game_id, 5, 40)[-1]
    legal = game.legal_moves(state, seat)
    move = decide(game_id, state, seat, "expert", random.Random("5:40"))
    assert move in legal
    assert decide(game_id, clone(state), seat, "expert", random.Random("5:40")) == move


@pytest.mark.parametrize("game_id", GAMES)
def test_a_world_agrees_with_the_view_it_was_dealt_from(game_id):
    """A world is a whole state built from the view alone; seen from the seat it must be the same position (the
    score sheet's past rounds and Tunj's event log excepted, which a world does not carry), and its hidden cards
    are dealt anew."""
    game = engine.get(game_id)
    sample = _expert_module(game_id).sample
    checked = 0
    for state, seat in _positions(game_id, 9, 120)[::9]:
        view = game.view(state, seat)
        world = sample(view, random.Random(checked))
        seen = game.view(world, seat)
        for key in set(view) - {"details", "events"}:
            assert seen[key] == view[key], (key, seen[key], view[key])
        checked += 1
    assert checked >= 3


def _kenza_swap(state: dict[str, Any], seat: int) -> dict[str, Any] | None:
    """The same Kenza position with one card of the opponent's hand swapped with one of the stock."""
    other = (seat + 1) % state["players"]
    if not state["hands"][other] or not state["stock"]:
        return None
    changed = clone(state)
    hand, stock = changed["hands"][other], changed["stock"]
    hand[0], stock[-1] = stock[-1], hand[0]
    return changed


def _konkan_swap(state: dict[str, Any], seat: int) -> dict[str, Any] | None:
    """The same Konkan (cards) position with the opponent's hand and the stock's top cards exchanged."""
    other = (seat + 1) % state["players"]
    if len(state["hands"][other]) < 2 or len(state["stock"]) < 2:
        return None
    changed = clone(state)
    hand, stock = changed["hands"][other], changed["stock"]
    hand[0], hand[1], stock[0], stock[1] = stock[0], stock[1], hand[0], hand[1]
    return changed


@pytest.mark.parametrize(("game_id", "swap"), [("kenza", _kenza_swap), ("konkan_cards", _konkan_swap)])
def test_hidden_cards_the_seat_cannot_see_do_not_change_its_move(game_id, swap):
    game = engine.get(game_id)
    compared = 0
    for state, seat in _positions(game_id, 21, 40)[1::4]:
        changed = swap(state, seat)
        if changed is None or changed["hands"] == state["hands"]:
            continue
        assert game.view(changed, seat) == game.view(state, seat)  # the seat cannot tell the two apart...
        # ...while the opponent's hand really differs (its view of the two does)
        assert game.view(changed, (seat + 1) % 2) != game.view(state, (seat + 1) % 2)
        seed = f"21:{compared}"
        assert decide(game_id, changed, seat, "expert", random.Random(seed)) == \
            decide(game_id, state, seat, "expert", random.Random(seed))
        compared += 1
    assert compared >= 2


def test_tunj_expert_never_slips_and_always_calls():
    game = engine.get("tunj")
    bot = get("tunj", "expert")
    for state, seat in _positions("tunj", 3, 60)[:6]:
        legal = game.legal_moves(state, seat)
        move = bot.choose(game.view(state, seat), legal, random.Random(1), attempts=game.attempts(state, seat))
        assert move in legal
    assert bot.choose({"seat": 0}, ["tunj", "expire"], random.Random(1)) == "tunj"


class _Workers:
    """Stands for the thinking workers: records the jobs, runs them here, or fails them as a dead worker does."""

    def __init__(self, dead: bool = False) -> None:
        self.dead = dead
        self.jobs: list[tuple[Any, ...]] = []

    async def compute(self, function: Any, *args: Any) -> Any:
        self.jobs.append(args)
        if self.dead:
            raise BrokenProcessPool("the worker was killed")
        return function(*args)


async def test_expert_thinks_in_the_workers_and_the_quick_levels_on_the_loop():
    state, seat = _positions("kenza", 4, 20)[-1]
    workers = _Workers()
    move = await bot_move(workers, "kenza", state, seat, "expert", "4:20", slips=True)  # type: ignore[arg-type]
    assert move == decide_seeded("kenza", state, seat, "expert", "4:20")
    assert len(workers.jobs) == 1
    await bot_move(workers, "kenza", state, seat, "normal", "4:20", slips=True)  # type: ignore[arg-type]
    assert len(workers.jobs) == 1


async def test_a_dead_workers_move_is_the_normal_bots():
    state, seat = _positions("konkan_cards", 8, 30)[-1]
    workers = _Workers(dead=True)
    move = await bot_move(workers, "konkan_cards", state, seat, "expert", "8:30", slips=False)  # type: ignore[arg-type]
    assert workers.jobs
    assert move == decide_seeded("konkan_cards", state, seat, "normal", "8:30", False)


async def test_a_real_worker_process_picks_the_move_this_process_picks(monkeypatch):
    state, seat = _positions("kenza", 6, 30)[-1]
    thinkers = Thinkers(1)  # a spawned worker: the full budget there, as in production
    try:
        move = await bot_move(thinkers, "kenza", state, seat, "expert", "6:30", slips=True)
        assert len(thinkers.pids) == 1
    finally:
        thinkers.close()
    monkeypatch.setattr(_expert_module("kenza"), "WORLDS", KENZA_WORLDS)  # the worker's budget is the real one
    assert move == decide_seeded("kenza", state, seat, "expert", "6:30")


async def test_majlis_play_with_expert_bots_seats_them_and_they_play():
    from bot.console import play
    from tests.chat import console_service, typed_lines

    store, service, transport, out = await console_service(4)
    await play(service, transport, "kenza", 2, {"target": "101"}, "en", read=typed_lines(["1"] * 6 + ["q"]),
               bots="expert")
    match = await store.get_match(1)
    seats = await store.seats(match.id)
    records = await store.moves(match.id)
    await store.close()
    assert [seat.bot_level for seat in seats if not seat.is_human] == ["expert"]
    assert any(record.actor == "bot" for record in records)
