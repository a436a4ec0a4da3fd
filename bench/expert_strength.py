"""The `expert` bot against `normal` (or `random`) in one game: seeded matches, seats alternated, decision times.

    .venv/bin/python bench/expert_strength.py GAME [N=40] [--vs normal|random] [--players P] [--first SEED]

Each match `seed` in range(first, first + N) is dealt from its seed; the expert takes seat `seed % P` (in a team
game, P = 4, it takes the team `seed % 2`, both of its seats) and the other seats are the opponent level. Printed:
the expert's wins, losses and draws, and its decision time per decision in CPU milliseconds of this process
(p50 / p95 / mean / max, trivial decisions with one legal move included, as at a table). The budget is a count of
rollouts, so the win rates do not depend on the machine's load; the times do, a little, even in CPU time (cache).
The per-game `*_strength.py` benches call `main` with their game.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine  # noqa: E402
from engine.bots import get as get_bot  # noqa: E402

DEFAULT_OPTIONS: dict[str, dict[str, Any]] = {
    "canasta": {"target": 2500},
}


def expert_seats(seed: int, players: int, teams: bool) -> set[int]:
    if teams:
        return {seat for seat in range(players) if seat % 2 == seed % 2}
    return {seed % players}


def peak_memory(game_id: str, decisions: int = 30, seed: int = 0) -> float:
    """The most memory (MiB, tracemalloc's peak above the position) one expert decision allocated, over the first
    `decisions` expert decisions of a match against normal."""
    import tracemalloc

    game = engine.get(game_id)
    options = {**DEFAULT_OPTIONS.get(game_id, {})}
    if game_id == "canasta":
        options["variant"] = "duo"
    state = game.new(2, options, seed=seed)
    bots = [get_bot(game_id, "expert"), get_bot(game_id, "normal")]
    chooser = random.Random(seed)
    peak = 0.0
    tracemalloc.start()
    try:
        while decisions and (seat := game.to_move(state)) is not None:
            view, legal = game.view(state, seat), game.legal_moves(state, seat)
            tracemalloc.reset_peak()
            base = tracemalloc.get_traced_memory()[0]
            move = bots[seat].choose(view, legal, chooser)
            if seat == 0:
                peak = max(peak, (tracemalloc.get_traced_memory()[1] - base) / 2**20)
                decisions -= 1
            state = game.apply(state, seat, move)
    finally:
        tracemalloc.stop()
    return peak


def play_match(game_id: str, seed: int, levels: list[str], options: dict[str, Any],
               times: list[float] | None = None) -> dict[str, Any]:
    """One whole match, `levels[s]` at seat s; the engine's result. CPU seconds of expert decisions go to `times`."""
    game = engine.get(game_id)
    state = game.new(len(levels), options, seed=seed)
    bots = [get_bot(game_id, level) for level in levels]
    attempts = getattr(game, "attempts", None)
    chooser = random.Random(seed)
    while (seat := game.to_move(state)) is not None:
        view, legal = game.view(state, seat), game.legal_moves(state, seat)
        started = time.process_time()
        if attempts is not None:
            move = bots[seat].choose(view, legal, chooser, attempts=attempts(state, seat))
        else:
            move = bots[seat].choose(view, legal, chooser)
        if times is not None and levels[seat] == "expert":
            times.append(time.process_time() - started)
        state = game.apply(state, seat, move)
    return game.result(state)


def measure(game_id: str, matches: int, opponent: str = "normal", players: int = 2,
            options: dict[str, Any] | None = None, first: int = 0) -> dict[str, Any]:
    game = engine.get(game_id)
    opts = {**DEFAULT_OPTIONS.get(game_id, {}), **(options or {})}
    if game_id == "canasta":
        opts.setdefault("variant", "duo" if players == 2 else "classic4")
    teams = players in game.info.teams_at
    wins = losses = draws = 0
    times: list[float] = []
    started = time.perf_counter()
    for seed in range(first, first + matches):
        mine = expert_seats(seed, players, teams)
        levels = ["expert" if seat in mine else opponent for seat in range(players)]
        result = play_match(game_id, seed, levels, opts, times)
        sides = {seat % 2 for seat in mine} if teams else mine
        won = bool(sides & set(result["winners"]))
        if result.get("draw") and won:
            draws += 1
        elif won:
            wins += 1
        else:
            losses += 1
        played = seed - first + 1
        # a running tally: a long run cut short still says something
        if (played % 10 == 0 or matches <= 20) and played < matches:
            print(f"  ...{played} matches: won {wins}, lost {losses}, drawn {draws}", file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - started
    ms = sorted(1000 * t for t in times)
    p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))] if ms else 0.0
    figures = {"wins": wins, "losses": losses, "draws": draws, "matches": matches,
               "p50": statistics.median(ms) if ms else 0.0, "p95": p95,
               "mean": statistics.fmean(ms) if ms else 0.0, "max": ms[-1] if ms else 0.0, "decisions": len(ms)}
    label = f"{players} players" + (", teams" if teams else "")
    print(f"{game_id} expert vs {opponent} ({label}, {opts or 'default options'}): {matches} matches, "
          f"won {wins} ({100 * wins / matches:.1f}%), lost {losses}, drawn {draws}")
    print(f"  expert decision CPU ms: p50 {figures['p50']:.1f}, p95 {p95:.1f}, mean {figures['mean']:.1f}, "
          f"max {figures['max']:.1f} over {len(ms)} decisions; {elapsed:.0f} s wall")
    return figures


def main(game_id: str | None = None, argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    if game_id is None:
        parser.add_argument("game", choices=engine.game_ids())
    parser.add_argument("matches", nargs="?", type=int, default=40)
    parser.add_argument("--vs", default="normal", choices=("normal", "random"))
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--rollouts", type=int,
                        help="the search budget instead of the game's (rollouts; Kenza: worlds), to measure it")
    parser.add_argument("--memory", action="store_true", help="also the peak memory of one decision (tracemalloc)")
    args = parser.parse_args(argv)
    if args.rollouts:
        import dataclasses
        import importlib

        module = importlib.import_module(f"engine.{game_id or args.game}.expert")
        if hasattr(module, "PLAN"):
            module.PLAN = dataclasses.replace(module.PLAN, rollouts=args.rollouts)
        else:  # Kenza's exact search counts worlds
            module.WORLDS = args.rollouts
    measure(game_id or args.game, args.matches, args.vs, args.players, first=args.first)
    if args.memory:
        print(f"  peak memory of one expert decision (first 30): {peak_memory(game_id or args.game):.2f} MiB")


if __name__ == "__main__":
    main()
