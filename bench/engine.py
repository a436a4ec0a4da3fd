"""Engine benchmark: complete bot-vs-bot matches per game; prints matches/s, moves/s and mean decision time per
bot level. Run: `.venv/bin/python -m bench.engine [--matches 50] [--games kenza canasta tunj]`.

Also `--strength kenza`: the normal bot against random over 200 seeded two-player matches (issue: >= 80%).
In a team game (Konkan tiles plays 2v2) "normal" is the team on seats 0 and 2 or 1 and 3, alternating.

A match that reaches the move cap (MAX_MOVES) without finishing is a bot or engine loop, not a figure: the bench
counts them and exits with code 1 and one line instead of printing rates for matches that never ended.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import defaultdict

import engine
from bench.checks import BrokenRun, refuse
from engine import bots

# Per game: (players, options) for the benchmark table.
SETUPS = {
    "kenza": (2, {"target": 151}),
    "canasta": (2, {"variant": "duo", "target": 2500}),
    "tunj": (2, {}),
    "konkan_cards": (2, {}),
    "konkan_tiles": (4, {"mode": "quick"}),
}
MAX_MOVES = 100_000


def play_match(game_id: str, seed: int, levels: list[str], players: int | None = None,
               options: dict | None = None, max_moves: int = MAX_MOVES) -> tuple[dict, int, dict[str, list[float]]]:
    """One whole match, or `max_moves` moves of it; returns (result, moves played, decision seconds per level).
    A capped match's result has "over" false: `capped` below tells the benches to refuse it."""
    game = engine.get(game_id)
    default_players, default_options = SETUPS.get(game_id, (2, {}))
    players = players or default_players
    state = game.new(players, options if options is not None else default_options, seed=seed)
    policies = [bots.get(game_id, level) for level in levels]
    chooser = random.Random(seed)
    timings: dict[str, list[float]] = defaultdict(list)
    moves = 0
    while (seat := game.to_move(state)) is not None and moves < max_moves:
        view = game.view(state, seat)
        legal = game.legal_moves(state, seat)
        started = time.perf_counter()
        move = policies[seat].choose(view, legal, chooser)
        timings[levels[seat]].append(time.perf_counter() - started)
        state = game.apply(state, seat, move)
        moves += 1
    return game.result(state), moves, timings


def seat_levels(game_id: str, normal_side: int) -> list[str]:
    """One level per seat: "normal" on `normal_side` (a seat, or in 2v2 the team of seats side and side + 2)."""
    players = SETUPS.get(game_id, (2, {}))[0]
    return ["normal" if seat % 2 == normal_side else "random" for seat in range(players)]


def capped(result: dict) -> bool:
    """The match stopped at the move cap, not at its end."""
    return not result.get("over")


def refuse_capped(game_id: str, cut: int, matches: int, max_moves: int) -> None:
    if cut:
        raise BrokenRun(f"{game_id}: {cut} of {matches} matches hit the {max_moves}-move cap without finishing")


def throughput(game_id: str, matches: int, max_moves: int = MAX_MOVES) -> None:
    total_moves = 0
    cut = 0
    timings: dict[str, list[float]] = defaultdict(list)
    started = time.perf_counter()
    for seed in range(matches):
        levels = seat_levels(game_id, seed % 2)
        result, moves, spent = play_match(game_id, seed, levels, max_moves=max_moves)
        cut += capped(result)
        total_moves += moves
        for level, values in spent.items():
            timings[level].extend(values)
    elapsed = time.perf_counter() - started
    refuse_capped(game_id, cut, matches, max_moves)
    decisions = " ".join(
        f"{level}={1000 * sum(values) / len(values):.3f}ms" for level, values in sorted(timings.items()) if values
    )
    print(f"{game_id:13s} {matches} matches in {elapsed:.2f}s: {matches / elapsed:.1f} matches/s, "
          f"{total_moves / elapsed:.0f} moves/s, mean decision {decisions}")


def strength(game_id: str, matches: int, max_moves: int = MAX_MOVES) -> float:
    wins = draws = cut = 0
    for seed in range(matches):
        normal_seat = seed % 2
        levels = seat_levels(game_id, normal_seat)
        result, _, _ = play_match(game_id, seed, levels, max_moves=max_moves)
        if capped(result):
            cut += 1
        elif result.get("draw"):
            draws += 1
        elif normal_seat in result["winners"]:
            wins += 1
    refuse_capped(game_id, cut, matches, max_moves)
    rate = wins / matches
    print(f"{game_id}: normal beat random in {wins}/{matches} matches ({100 * rate:.1f}%), "
          f"{draws} drawn")
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=50)
    parser.add_argument("--games", nargs="*", default=None)
    parser.add_argument("--strength", metavar="GAME")
    args = parser.parse_args()
    try:
        if args.strength:
            strength(args.strength, args.matches if args.matches != 50 else 200, max_moves=MAX_MOVES)
            return
        for game_id in args.games or engine.game_ids():
            throughput(game_id, args.matches, max_moves=MAX_MOVES)
    except BrokenRun as error:
        raise refuse(error) from None


if __name__ == "__main__":
    main()
