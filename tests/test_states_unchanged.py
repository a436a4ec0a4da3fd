"""Nothing the service hands a match's state to may change it.

The service reads a match's snapshot in place (bot.core.state.match_state) instead of copying it each time a
move, a delivery or a timer looks at it; that is only right while every engine call and every presenter builder
treats the state as read-only. These tests play bot matches of every game and, at each position, ask every
question the service asks of it (every seat's view, legal moves, result, bots' choices, the racks' keyboards
and messages, the table, the move descriptions, the score sheets), then check the state is as it was.
"""

from __future__ import annotations

import json
import random

import pytest

import engine
from bot import presenter
from bot.games import playable_games
from bot.i18n import You
from engine.bots import decide
from storage.models import Match, Seat

PLAYERS = {"kenza": 2, "canasta": 4, "tunj": 2, "konkan_cards": 4, "konkan_tiles": 2}
POSITIONS = 40  # positions checked per game: every move of the first rounds, where every kind of move comes up


def frozen(state: dict) -> str:
    return json.dumps(state, sort_keys=True)


def match_of(game_id: str, state: dict, version: int) -> Match:
    return Match(1, game_id, "", {}, "active", 5, state, version, "telegram", "-1", None, None, 0.0, 0.0, None, None)


@pytest.mark.parametrize("game_id", playable_games())
def test_no_question_the_service_asks_changes_a_state(game_id: str) -> None:
    game = engine.get(game_id)
    players = PLAYERS[game_id]
    seats = [Seat(1, index, 10 + index if index == 0 else None, None if index == 0 else "normal", 0, False,
                  f"P{index}") for index in range(players)]
    state = game.new(players, {}, seed=11)
    rng = random.Random(11)
    recent = presenter.Recent()
    for version in range(POSITIONS):
        seat = game.to_move(state)
        if seat is None:
            break
        before = frozen(state)
        match = match_of(game_id, state, version)
        for viewer in [None, *range(players)]:
            game.view(state, viewer)
        game.result(state)
        game.legal_moves(state, seat)
        for lang in ("en", "ar"):
            presenter.table_parts(match, state, seats, lang, recent, True)
            presenter.rack_parts(match, state, seats[0], seats, lang, None, True)
            presenter.round_ends_parts(match, state, seats, lang, 1, True)
        move = decide(game_id, state, seat, "normal", rng, slips=False)
        presenter.describe_move(game_id, move, "en", game.view(state, None), You(""))
        after = game.apply(state, seat, move)
        assert frozen(state) == before, f"{game_id}: asking about version {version} changed its state"
        recent.add((seat, move, game.view(after, None), game.result(state)["round"]),
                   lambda state=state: game.view(state, None), players, 50)
        state = after
    assert version == POSITIONS - 1, f"{game_id}: the match ended after {version} moves, too soon to check"


@pytest.mark.parametrize("game_id", playable_games())
def test_the_recap_log_shares_what_a_move_left_unchanged(game_id: str) -> None:
    """Each recap entry keeps the public view after its move; parts a move did not change are the previous
    entry's own objects (memory and collector work per live match), and every entry still equals its view."""
    from bot.summary import Log

    game = engine.get(game_id)
    players = PLAYERS[game_id]
    state = game.new(players, {}, seed=4)
    rng = random.Random(4)
    log, views = Log(), []
    for _ in range(12):
        seat = game.to_move(state)
        move = decide(game_id, state, seat, "normal", rng, slips=False)
        before, state = state, game.apply(state, seat, move)
        view = game.view(state, None)
        views.append(frozen(view))
        log.add((seat, move, view, 1), lambda before=before: game.view(before, None), players, 400)
    assert len(log.entries) >= 2, "the log kept moves to compare"
    kept_views = views[len(views) - len(log.entries):]
    assert [frozen(entry[2]) for entry in log.entries] == kept_views, "each entry still shows its own move's view"
    first, second = log.entries[-2][2], log.entries[-1][2]
    same = [key for key in second if isinstance(second[key], (tuple, dict)) and second[key] == first[key]]
    assert same, f"{game_id}: two moves in a row changed every part of the view"
    assert all(second[key] is first[key] for key in same), "an unchanged part is the previous entry's own object"


@pytest.mark.parametrize("game_id", playable_games())
def test_the_recap_log_leaves_the_garbage_collectors_sight(game_id: str) -> None:
    """A thousand live tables' recap logs were most of what a full pass of the collector walked, and its pauses
    were the latency's tail. The log keeps its views' piles as tuples of strings and numbers, which the collector
    stops tracking once it has seen them (a dict holding dicts stays tracked: CPython untracks only containers of
    untracked values)."""
    import gc

    from bot.summary import Log

    game = engine.get(game_id)
    players = PLAYERS[game_id]
    state = game.new(players, {}, seed=5)
    rng = random.Random(5)
    log = Log()
    for _ in range(12):
        seat = game.to_move(state)
        move = decide(game_id, state, seat, "normal", rng, slips=False)
        before, state = state, game.apply(state, seat, move)
        log.add((seat, move, game.view(state, None), 1), lambda before=before: game.view(before, None), players, 400)
    gc.collect()
    kept = [log.base, *(entry[2] for entry in log.entries)]
    parts = {id(part): part for view in kept for part in walk(view)}.values()
    lists = [part for part in parts if isinstance(part, list)]
    assert not lists, f"{game_id}: the log keeps lists, which the collector always walks: {lists[0]!r:.120}"
    flat = [part for part in parts if not any(isinstance(item, (dict, list, tuple)) for item in values(part))]
    walked = [part for part in flat if gc.is_tracked(part)]
    assert not walked, f"{game_id}: {len(walked)} of the log's piles still walked, e.g. {walked[0]!r:.120}"
    assert len(flat) > len(parts) / 2, "most of a view is piles of plain values"


def values(part: object) -> list[object]:
    return list(part.values()) if isinstance(part, dict) else list(part)  # type: ignore[call-overload]


def walk(part: object) -> list[object]:
    """`part` and every container inside it."""
    found = [part]
    if isinstance(part, dict):
        part = list(part.values())
    if isinstance(part, (list, tuple)):
        for item in part:
            if isinstance(item, (dict, list, tuple)):
                found += walk(item)
    return found
