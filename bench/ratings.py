"""The ranked ladder's costs: finishing a rated match (the openskill update written with the result), a leaderboard
page with many rated players, and rebuilding every rating from the stored results.

    .venv/bin/python -m bench.ratings [--players 2000] [--matches 5000]

Refuses the run (exit 1) when the rebuild does not reach exactly the stored numbers or a board page is not in
rating order: figures of a ladder that is wrong are worth nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from pathlib import Path

from bench.checks import BrokenRun, refuse
from storage import Store
from storage.ladder import sides_and_places


async def run(players: int, matches: int, seed: int) -> None:
    chooser = random.Random(seed)
    with tempfile.TemporaryDirectory() as folder:
        store = await Store.open(str(Path(folder) / "bench.db"))
        try:
            ids = [(await store.upsert_player("bench", str(n), f"P{n}")).id for n in range(players)]
            finish_times = []
            for number in range(matches):
                seats = chooser.sample(ids, 4)
                match = await store.create_match("konkan_tiles", "ranked", {}, "bench", f"-{number % 50}",
                                                 seats[0], number, rated=True)
                for player in seats:
                    await store.add_seat(match.id, player_id=player)
                await store.start_match(match.id, {}, None)
                winner = chooser.randrange(2)
                result = {"over": True, "scores": [300, 100] if winner == 0 else [100, 300], "winners": [winner],
                          "draw": False}
                started = time.perf_counter()
                await store.apply_move(match.id, 0, 0, "human", "x", {}, None, result,
                                       sides=sides_and_places(result, 4, False))
                finish_times.append(time.perf_counter() - started)
            finish_times.sort()
            print(f"finish a rated 2v2 match (result + 4 ratings, one transaction): median "
                  f"{1000 * finish_times[len(finish_times) // 2]:.2f} ms, p95 "
                  f"{1000 * finish_times[int(len(finish_times) * 0.95)]:.2f} ms over {matches} matches")
            started = time.perf_counter()
            pages = 0
            previous = None
            board = await store.ladder("konkan_tiles", "ranked", "bench")
            for page in range(board.pages):
                board = await store.ladder("konkan_tiles", "ranked", "bench", page=page)
                pages += 1
                for row in board.rows:
                    key = (row.standing.rating, row.standing.mu)
                    if previous is not None and key > previous:
                        raise BrokenRun(f"page {page + 1} is out of rating order")
                    previous = key
            elapsed = time.perf_counter() - started
            started = time.perf_counter()
            here = await store.ladder("konkan_tiles", "ranked", "bench", chat_id="-7")
            chat_elapsed = time.perf_counter() - started
            print(f"leaderboard: {board.placed} placed players in {pages} pages, {1000 * elapsed / pages:.2f} ms a "
                  f"page; one chat's board ({here.placed} players): {1000 * chat_elapsed:.2f} ms")
            started = time.perf_counter()
            report = await store.rebuild_ratings()
            elapsed = time.perf_counter() - started
            if report.differences:
                raise BrokenRun(f"the rebuild differs: {report.differences[0]}")
            print(f"rebuild: {report.matches} rated matches into {report.ratings} ratings in {elapsed:.2f} s "
                  f"({1e6 * elapsed / report.matches:.0f} µs a match), identical to the stored numbers")
        finally:
            await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2000)
    parser.add_argument("--matches", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    try:
        asyncio.run(run(args.players, args.matches, args.seed))
    except BrokenRun as error:
        raise refuse(error) from None


if __name__ == "__main__":
    main()
