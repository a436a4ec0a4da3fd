"""What every rack keyboard promises, checked over many rack states of seeded bot-played matches: a move button
never offers a move the engine would refuse (issue 25, defect 4: "Discard 🃏" after a joker swap, a discard while a
taken card waits), no two controls of one keyboard share a callback code (Discord keeps only the first component
of a custom_id: defect 11), and after "📌 Set aside" every card of the rack still has its own control."""

from __future__ import annotations

import random
from typing import Any

import pytest

import engine
from bot import presenter
from bot.i18n import t
from engine.bots import get
from engine.errors import IllegalMove
from storage.models import Match, Seat
from tests.chat import TOGGLE

RUMMY = {"konkan_cards": 3, "konkan_tiles": 4, "canasta": 4}
EVERY_GAME = {**RUMMY, "kenza": 2, "tunj": 2}
WALK = 8  # random presses of pick buttons per rack state


def _match(game_id: str, state: dict[str, Any]) -> Match:
    return Match(id=7, game=game_id, mode="casual", options={}, status="active", seed=1, snapshot=None, version=3,
                 platform="fake", chat_id="-1", creator_id=None, deadline=None, created=0.0, updated=0.0,
                 finished=None, result=None)


def _seats(players: int) -> list[Seat]:
    return [Seat(7, seat, None, "normal", 0, False) for seat in range(players)]


def _positions(hand: list[str], cells: list[str], used: set[int]) -> list[int] | None:
    """Rack positions of a meld's cells (a placed joker `X:7H` / tile `R8:B6` is the hand's part before `:`)."""
    out = []
    for cell in cells:
        code = cell.split(":", 1)[0]
        position = next((p for p, held in enumerate(hand) if held == code and p not in used and p not in out), None)
        if position is None:
            return None
        out.append(position)
    return out


def _rack_states(game_id: str, seed: int):
    """(state, seat, pick) for the seat to move at each position of a seeded bot match: no selection, a random
    walk over the pick buttons, and (rummy games) the first listed meld's cards set aside."""
    game = engine.get(game_id)
    players = EVERY_GAME[game_id]
    state = game.new(players, {}, seed=seed)
    bots = [get(game_id, "normal") for _ in range(players)]
    rnd = random.Random(seed)
    match = _match(game_id, state)
    for _ in range(4000):
        seat = game.to_move(state)
        if seat is None:
            return
        view, legal = game.view(state, seat), game.legal_moves(state, seat)
        yield state, seat, None
        pick = None
        for _ in range(WALK):
            keyboard = presenter.rack_buttons(match, state, seat, "en", pick)
            picks = [b for row in keyboard for b in row if b.kind == "pick"]
            if not picks:
                break
            pick = rnd.choice(picks).arg
            yield state, seat, pick
        meld = next((m for m in legal if m.startswith("meld ")), None)
        hand = view.get("hand") or []
        if game_id in RUMMY and meld is not None:
            positions = _positions(hand, meld[5:].split(" | ")[0].split(), set())
            if positions is not None:
                pick = None
                for position in positions:
                    keyboard = presenter.rack_buttons(match, state, seat, "en", pick)
                    pick = next(b.arg for row in keyboard for b in row if b.kind == "pick"
                                and (found := TOGGLE.match(b.label)) and int(found.group(1)) == position + 1)
                stage = next((b for row in presenter.rack_buttons(match, state, seat, "en", pick) for b in row
                              if b.label == t("en", "rummy.stage")), None)
                if stage is not None:
                    yield state, seat, stage.arg
        state = game.apply(state, seat, bots[seat].choose(view, legal, rnd))
    pytest.fail("the match did not end")


@pytest.mark.parametrize("game_id", sorted(RUMMY))
def test_every_move_a_button_sends_is_legal(game_id):
    game = engine.get(game_id)
    checked = 0
    for seed in range(3):
        for state, seat, pick in _rack_states(game_id, seed):
            for row in presenter.rack_buttons(_match(game_id, state), state, seat, "en", pick):
                for button in row:
                    if button.kind != "move":
                        continue
                    checked += 1
                    try:
                        game.parse_move(state, seat, button.move)
                    except IllegalMove as refusal:
                        pytest.fail(f"{button.label!r} sends {button.move!r}, refused: {refusal.reason}")
    assert checked > 500


@pytest.mark.parametrize("game_id", sorted(EVERY_GAME))
def test_no_keyboard_repeats_a_callback_code_and_set_aside_cards_keep_their_controls(game_id):
    game = engine.get(game_id)
    staged_seen = 0
    for state, seat, pick in _rack_states(game_id, 1):
        match = _match(game_id, state)
        message, _ = presenter.rack_parts(match, state, _seats(EVERY_GAME[game_id])[seat],
                                          _seats(EVERY_GAME[game_id]), "en", pick, images=False)
        codes = [button.data for row in message.keyboard for button in row if button.data]
        assert len(codes) == len(set(codes)), [b.label for row in message.keyboard for b in row]
        assert all(len(code.encode()) <= 64 for code in codes), codes  # Telegram's callback data limit
        if game_id in RUMMY and pick and [part for part in pick.split(".")[1:] if part != "~"]:  # a meld set aside
            staged_seen += 1
            hand = game.view(state, seat)["hand"]
            numbers = {int(found.group(1)) for row in message.keyboard for b in row if (found := TOGGLE.match(b.label))}
            assert numbers == set(range(1, len(hand) + 1)), [b.label for row in message.keyboard for b in row]
    assert staged_seen > 0 or game_id not in RUMMY
