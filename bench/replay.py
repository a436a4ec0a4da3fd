"""How long a replay takes to build and how big it is: per game, one seeded bot match, rebuilt from its move log
(bot.replay) and drawn as the GIF `/replay` posts (renderers.animation).

    .venv/bin/python -m bench.replay [--seed S] [--lang ar|en]

Prints per game the moves, the frames kept, the seconds to replay the log, the seconds to draw and encode, the
GIF's size (the platforms' limit it must stay under: renderers.animation.MAX_BYTES). Refuses the run when a match
does not end, a replay does not reach the match's final state, or the GIF does not decode to its frames.
"""

from __future__ import annotations

import argparse
import io
import random
import time
from dataclasses import replace

from PIL import Image

import engine
from bench.checks import BrokenRun, refuse
from bot import replay
from bot.core.replays import replay_message
from bot.games import playable_games
from engine.bots import decide
from renderers.animation import MAX_BYTES
from storage.models import Match, MoveRecord, Seat

MOVE_CAP = 5000
PLAYERS = {"kenza": 2, "canasta": 4, "tunj": 2, "konkan_cards": 4, "konkan_tiles": 4}


def bot_match(game_id: str, seed: int) -> tuple[Match, list[Seat], list[MoveRecord]]:
    """A finished match as the store would hold it: seed, options, seats, move log and final snapshot."""
    game = engine.get(game_id)
    players = PLAYERS.get(game_id, game.info.min_players)
    state = game.new(players, {}, seed=seed)
    rng = random.Random(seed)
    moves: list[MoveRecord] = []
    for number in range(1, MOVE_CAP + 1):
        seat = game.to_move(state)
        if seat is None:
            break
        move = decide(game_id, state, seat, "normal", rng, slips=False)
        state = game.apply(state, seat, move)
        moves.append(MoveRecord(1, number, seat, "bot", move, 0.0))
    else:
        raise BrokenRun(f"{game_id}: the bot match did not end in {MOVE_CAP} moves")
    match = Match(1, game_id, "", {}, "finished", seed, game.to_json(state), len(moves), "bench", "0", None, None,
                  0.0, 0.0, 0.0, game.result(state))
    seats = [Seat(1, index, None, "normal", 0, False) for index in range(players)]
    return match, seats, moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--lang", default="ar")
    args = parser.parse_args()
    print(f"{'game':<14}{'moves':>7}{'frames':>8}{'replay s':>10}{'draw s':>9}{'bytes':>11}   limit {MAX_BYTES}")
    try:
        for game_id in playable_games():
            match, seats, moves = bot_match(game_id, args.seed)
            started = time.perf_counter()
            steps = replay.steps(match, len(seats), moves)
            replayed = time.perf_counter() - started
            if len(steps) != len(moves) + 1:
                raise BrokenRun(f"{game_id}: {len(steps)} steps for {len(moves)} moves")
            try:  # a changed seed must be caught: the check the figures rest on
                replay.states(replace(match, seed=match.seed + 1), len(seats), moves)
                raise BrokenRun(f"{game_id}: a wrong seed replayed to the stored final state")
            except replay.ReplayMismatch:
                pass
            started = time.perf_counter()
            message = replay_message(match, seats, moves, args.lang, True)
            drawn = time.perf_counter() - started
            data = message.image or b""
            gif = Image.open(io.BytesIO(data))
            frames = len(replay.pick_frames(steps))
            if gif.format != "GIF" or gif.n_frames != frames or len(data) > MAX_BYTES:
                raise BrokenRun(f"{game_id}: the GIF has {gif.n_frames} frames, {frames} were chosen")
            print(f"{game_id:<14}{len(moves):>7}{frames:>8}{replayed:>10.3f}{drawn:>9.2f}{len(data):>11}")
    except BrokenRun as error:
        raise refuse(error) from None


if __name__ == "__main__":
    main()
