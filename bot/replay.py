"""Replays: a finished match rebuilt from what was stored — its seed, options and seat count, then every logged
move applied in order (NOTATION.md, "The engine contract").

Nothing is read from the stored snapshots along the way: the replay proves the move log, so a replay whose last
state differs from the match's stored final state is refused rather than shown (`ReplayMismatch`). A match stored
by an older engine is played again by today's and compared at its snapshot's state version (`Game.as_of`), so the
parts of the state added since (e.g. the round breakdowns) do not refuse it; its frames show today's views.

Privacy (decision; the rules are silent): every frame is the *public* view (`game.view(state, None)`, disguised
like the group's table), i.e. exactly what the group saw while the match was played, also after the end. No game's
rules reveal the hands of a finished match, so a replay never shows a hand, in a group or a private chat.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import engine
from bot.games import ui_for
from storage.models import Match, MoveRecord

MAX_FRAMES = 60  # frames of an animated replay at most: a 7-round Konkan has hundreds of moves


class ReplayMismatch(Exception):
    """The move log does not lead to the stored final state (an engine changed since, or a deal forced by hand)."""


@dataclass(frozen=True)
class Step:
    """One point of the replay: the public view after `number` moves (0: the deal) and the move that led there."""

    number: int
    seat: int | None
    move: str | None
    view: dict[str, Any]
    round: int
    round_over: bool  # this move ended a round (or the match): a frame the animation always keeps


def states(match: Match, seat_count: int, moves: Sequence[MoveRecord]) -> list[dict[str, Any]]:
    """Every engine state of the match, from the deal to the last logged move; ReplayMismatch if the last one is
    not the stored final state."""
    game = engine.get(match.game)
    try:
        state = game.new(seat_count, match.options, seed=match.seed)
        out = [state]
        for record in moves:
            state = game.apply(state, record.seat, record.move)
            out.append(state)
    except (engine.IllegalMove, ValueError) as error:
        raise ReplayMismatch(f"match {match.id}: the log does not replay ({error})") from error
    if match.snapshot is not None and not same_position(game, state, match.snapshot):
        raise ReplayMismatch(f"match {match.id}: the replayed final state differs from the stored one")
    return out


def same_position(game: engine.Game, replayed: dict[str, Any], stored: dict[str, Any]) -> bool:
    """Whether a state played again from the log today is the stored one. A match finished before an engine's state
    gained a part (e.g. the round breakdowns of state version 2) has a snapshot without it, while the replay,
    played by today's engine, has it: both are compared as the stored snapshot's version held them."""
    version = game.version_of(stored)
    return game.as_of(game.to_json(replayed), version) == game.as_of(stored, version)


def steps(match: Match, seat_count: int, moves: Sequence[MoveRecord]) -> list[Step]:
    """The public view after every move (the deal first)."""
    game = engine.get(match.game)
    ui = ui_for(match.game)
    all_states = states(match, seat_count, moves)
    out = []
    finished = 0
    for number, state in enumerate(all_states):
        result = game.result(state)
        ended = len(result["history"]) > finished or (result["over"] and number == len(all_states) - 1)
        finished = len(result["history"])
        record = moves[number - 1] if number else None
        out.append(Step(number, record.seat if record else None, record.move if record else None,
                        ui.disguise(game.view(state, None)), int(result["round"]), ended))
    return out


def pick_frames(all_steps: Sequence[Step], limit: int = MAX_FRAMES) -> list[Step]:
    """At most `limit` steps for an animation: the deal, the last move and every round's end always, the rest
    spread evenly over the match (a long match is shown in strides rather than cut short)."""
    if len(all_steps) <= limit:
        return list(all_steps)
    keep = {0, len(all_steps) - 1} | {step.number for step in all_steps if step.round_over}
    if len(keep) >= limit:  # more round ends than frames: keep them evenly spread, the first and last always
        ends = sorted(keep)
        stride = (len(ends) - 1) / (limit - 1)
        keep = {ends[round(i * stride)] for i in range(limit)}
    else:
        rest = [step.number for step in all_steps if step.number not in keep]
        free = limit - len(keep)
        stride = len(rest) / free
        keep |= {rest[int(i * stride + stride / 2)] for i in range(free)}
    return [step for step in all_steps if step.number in keep]
