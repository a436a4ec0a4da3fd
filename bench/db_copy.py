"""How long `majlis db copy` takes to move a SQLite database of many finished matches to PostgreSQL and back, and
how long its checks take (the ratings fold, a replay of every finished match).

    .venv/bin/python -m bench.db_copy --database postgresql://postgres@127.0.0.1:5432/test [--matches 200]

The SQLite source is made in a temporary folder: `--matches` bot matches per game (bench/replay.py's `bot_match`,
each a finished match with its seats and whole move log), written as rows in one transaction. A throw-away schema
is made in the PostgreSQL database and dropped afterwards. Prints rows, seconds and rows a second per step, and the
process's CPU seconds (the machine may be shared: CPU seconds say more than wall-clock). Refuses the run when a
copy's counts or its checks do not agree.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
import uuid
from pathlib import Path

from sqlalchemy import insert

from bench.checks import BrokenRun, refuse
from bench.replay import bot_match
from bot.dbtools import check_meaning
from bot.games import playable_games
from storage import Store
from storage.schema import matches, moves, players, seats
from storage.transfer import copy_database
from tests.engines import create_schema, drop_schema


async def source(path: Path, per_game: int) -> int:
    """The SQLite database of bot matches (two human players sit at every table, so seats name players)."""
    store = await Store.open(str(path))
    rows = 0
    try:
        async with store.transaction() as db:
            await db.execute(insert(players), [{"id": n, "platform": "bench", "user_id": str(n),
                                                "display_name": f"P{n}", "created": 0.0} for n in (1, 2, 3, 4)])
            match_id = 0
            for game_id in playable_games():
                for seed in range(per_game):
                    match, seated, logged = bot_match(game_id, seed)
                    match_id += 1
                    await db.execute(insert(matches).values(
                        id=match_id, game=game_id, mode="", options=json.dumps(match.options), status="finished",
                        seed=match.seed, snapshot=json.dumps(match.snapshot), version=len(logged),
                        platform="bench", chat_id=str(match_id), creator_id=1, created=0.0, updated=0.0,
                        finished=0.0, result=json.dumps(match.result), delivered_version=len(logged), stake=0,
                        rated=0, lobby_version=1, lobby_shown=1))
                    await db.execute(insert(seats), [{"match_id": match_id, "seat": seat.seat,
                                                      "player_id": seat.seat + 1, "timeouts_in_a_row": 0, "away": 0}
                                                     for seat in seated])
                    await db.execute(insert(moves), [{"match_id": match_id, "seq": record.seq, "seat": record.seat,
                                                      "actor": "bot", "move": record.move, "at": 0.0}
                                                     for record in logged])
                    rows += 1 + len(seated) + len(logged)
    finally:
        await store.close()
    return rows + 4


async def checked(url: str, finished: int) -> tuple[float, float]:
    started, cpu = time.perf_counter(), time.process_time()
    store = await Store.open(url)
    try:
        meaning = await check_meaning(store)
    finally:
        await store.close()
    if not meaning.ok or meaning.replayed != finished:
        raise BrokenRun(f"{url}: {meaning.replayed} of {finished} replayed, {meaning.replay_failures[:1]}")
    return time.perf_counter() - started, time.process_time() - cpu


async def run(base: str, per_game: int) -> None:
    schema = f"majlis_bench_copy_{uuid.uuid4().hex[:8]}"
    pg = await create_schema(base, schema)
    try:
        with tempfile.TemporaryDirectory() as folder:
            sqlite, back = Path(folder) / "source.db", Path(folder) / "back.db"
            cpu = time.process_time()
            started = time.perf_counter()
            rows = await source(sqlite, per_game)
            print(f"made the SQLite source: {rows} rows in {time.perf_counter() - started:.1f} s")
            finished = per_game * len(playable_games())
            print(f"{'step':<28}{'rows':>9}{'seconds':>9}{'CPU s':>9}{'rows/s':>9}")
            for name, frm, to in (("SQLite -> PostgreSQL", str(sqlite), pg), ("PostgreSQL -> SQLite", pg, str(back))):
                started, cpu_step = time.perf_counter(), time.process_time()
                report = await copy_database(frm, to)
                took, used = time.perf_counter() - started, time.process_time() - cpu_step
                copied = sum(report.target.values())
                if report.mismatched or copied != rows:
                    raise BrokenRun(f"{name}: {copied} rows of {rows}, mismatched {report.mismatched}")
                print(f"{name:<28}{copied:>9}{took:>9.2f}{used:>9.2f}{copied / took:>9.0f}")
                took, used = await checked(to, finished)
                print(f"{'  checks (' + str(finished) + ' replays)':<28}{'':>9}{took:>9.2f}{used:>9.2f}")
            print(f"CPU seconds of this process: {time.process_time() - cpu:.1f}")
    finally:
        await drop_schema(base, schema)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", required=True, help="a PostgreSQL URL (a throw-away schema is made in it)")
    parser.add_argument("--matches", type=int, default=40, help="finished bot matches per game (default 40)")
    args = parser.parse_args()
    try:
        asyncio.run(run(args.database, args.matches))
    except BrokenRun as error:
        raise refuse(error) from None


if __name__ == "__main__":
    main()
