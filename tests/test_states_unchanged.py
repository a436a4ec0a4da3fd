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
