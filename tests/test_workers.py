"""Two worker processes on one PostgreSQL: many matches, every press sent to a random worker (some to both at once,
a double press), one worker SIGKILLed mid-way with presses in flight and started again, and turn timers brought
due on both workers at once. Afterwards: every match finished, no acknowledged move lost, no move doubled (each
log replays to its stored state), and each due timer fired exactly once.

Needs MAJLIS_TEST_DATABASE_URL (skipped without it). The issue asks for 100 matches; the suite runs
MAJLIS_WORKERS_TEST_MATCHES of them (default 20, about 700 presses, to fit the suite's time on a 2-core machine);
set it to 100 for the full run.
"""

from __future__ import annotations

import asyncio
import os
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import engine
import engine.bots
from bot import callbacks
from storage import Store
from storage.models import Match
from tests.engines import create_schema, drop_schema, fresh_schema_url
from tests.worker_pool import Worker, rack_presses

MATCHES = int(os.environ.get("MAJLIS_WORKERS_TEST_MATCHES", "20"))
GAME, OPTIONS = "kenza", ["target=101"]
START = 1_000_000.0
TIMER_EVERY = 6  # rounds of moves between two timer phases
PAST_ANY_TIMER = 3600.0


@dataclass
class Table:
    index: int
    match_id: int = 0
    seat: int = 0
    rng: random.Random = field(default_factory=random.Random)

    @property
    def user(self) -> str:
        return f"{700 + self.index}"

    @property
    def chat(self) -> str:
        return f"-{9000 + self.index}"


@dataclass
class Record:
    acknowledged: list[tuple[int, int, str]] = field(default_factory=list)  # (match, seq, move) answered "✓ You …"
    unanswered: int = 0  # presses whose worker was killed before answering
    doubles: int = 0
    timer_phases: int = 0


@pytest.mark.timeout(1800)  # a long run on purpose: each of its presses crosses a process boundary and PostgreSQL
async def test_two_workers_one_killed_lose_and_double_nothing(tmp_path: Path) -> None:
    base, schema = fresh_schema_url()
    url = await create_schema(base, schema)
    workers = [Worker(url, f"w{n}", tmp_path / f"w{n}.log") for n in range(2)]
    store = await Store.open(url)  # the test's own view of the database
    try:
        for worker in workers:
            await worker.start(START)
        await _run(store, workers, random.Random(16))
    finally:
        for worker in workers:
            await worker.stop()
        await store.close()
        await drop_schema(base, schema)


async def _run(store: Store, workers: list[Worker], rng: random.Random) -> None:
    game = engine.get(GAME)
    bot = engine.bots.get(GAME, "normal")
    now = START
    record = Record()

    async def anyone(request: dict[str, Any]) -> dict[str, Any] | None:
        return await rng.choice(workers).ask({"now": now, **request})

    # ---- lobbies, through random workers -------------------------------------------------------------------
    tables = [Table(i, rng=random.Random(i)) for i in range(MATCHES)]

    async def open_table(table: Table) -> None:
        await anyone({"op": "command", "user": table.user, "chat": table.user, "private": True, "name": "start"})
        await anyone({"op": "command", "user": table.user, "chat": table.chat, "name": "new",
                      "args": [GAME, *OPTIONS]})
        match = await store.lobby_or_active_match("fake", table.chat)
        assert match is not None and match.status == "lobby"
        table.match_id = match.id
        await anyone({"op": "press", "user": table.user, "chat": table.chat,
                      "data": callbacks.encode("b", match.id, "normal")})
        # Both workers get the start press at once: one starts the table, the other answers that it has started.
        answers = await asyncio.gather(*(worker.ask({
            "now": now, "op": "press", "user": table.user, "chat": table.chat,
            "data": callbacks.encode("s", match.id)}) for worker in workers))
        assert sorted(answer["text"] for answer in answers) == ["The game has already started.",
                                                                 "The game has started."], answers
        started = await store.get_match(match.id)
        assert started is not None and started.status == "active" and started.version >= 0
        table.seat = next(seat.seat for seat in await store.seats(match.id) if seat.is_human)

    await asyncio.gather(*(open_table(table) for table in tables))
    # ---- rounds of moves, with a kill in the middle and timer phases between ----------------------------------
    presses = 0
    kill_at = MATCHES * 12  # about a third of the way through
    killed = False

    async def human_turn(table: Table) -> tuple[Match, dict[str, Any]] | None:
        """(match, state) once the human is to move; None when the match is over."""
        for _ in range(400):
            match = await store.get_match(table.match_id)
            assert match is not None
            if match.status != "active":
                return None
            state = game.from_json(match.snapshot)
            if game.to_move(state) == table.seat:
                return match, state
            await asyncio.sleep(0.05)  # a restarted worker's resume is playing the bot's owed turn
        raise AssertionError(f"match {table.match_id}: the human's turn never came back")

    async def move(table: Table) -> None:
        nonlocal presses, killed
        turn = await human_turn(table)
        if turn is None:
            return
        match, state = turn
        version = match.version
        # A button of the human's rack as drawn now (its code carries the version: a second press of it, on any
        # worker, is out of date); a move only reachable through a pick is typed instead, and never doubled.
        buttons = rack_presses(match, state, table.seat)
        if buttons:
            code, shown = table.rng.choice(buttons)
            chosen = str(game.parse_move(state, table.seat, shown))
            request = {"now": now, "op": "press", "user": table.user, "chat": table.user, "private": True,
                       "data": code}
        else:
            chosen = bot.choose(game.view(state, table.seat), game.legal_moves(state, table.seat), table.rng)
            request = {"now": now, "op": "command", "user": table.user, "chat": table.chat, "name": "m",
                       "args": [chosen]}
        double = bool(buttons) and table.rng.random() < 0.15
        targets = workers if double else [rng.choice(workers)]
        presses += 1
        if presses == kill_at and not killed:
            killed = True
            pending = asyncio.gather(*(worker.ask(request) for worker in targets))
            await asyncio.sleep(0)  # the press is on its way...
            await workers[1].kill()  # ...and worker 1 dies, with whatever it was doing
            answers = await pending
        else:
            answers = await asyncio.gather(*(worker.ask(request) for worker in targets))
        played = [answer for answer in answers if answer is not None and answer["text"].startswith("✓ You ")]
        record.unanswered += sum(answer is None for answer in answers)
        assert len(played) <= 1, f"match {table.match_id}: one move applied twice: {answers}"
        if double:
            record.doubles += 1
            if None not in answers:  # both answered: one played it, the other found its button out of date
                assert len(played) == 1, answers
                assert [a["text"] for a in answers if a is not played[0]] == ["That button is out of date."], answers
        if played:
            record.acknowledged.append((table.match_id, version + 1, chosen))

    rounds = 0
    while True:
        active = [t for t in tables if (await store.get_match(t.match_id)).status == "active"]
        if not active:
            break
        rounds += 1
        assert rounds < 400, "the matches never finished"
        await asyncio.gather(*(move(table) for table in active))
        if killed and workers[1].process is not None and workers[1].process.returncode is not None:
            await workers[1].start(now)  # restarted: its resume plays any bot turn the killed process owed
        if rounds % TIMER_EVERY == 0:
            now = await _timer_phase(store, workers, tables, now, record)

    assert killed and workers[1].starts == 2
    # ---- what the database holds ---------------------------------------------------------------------------
    for table in tables:
        match = await store.get_match(table.match_id)
        assert match is not None and match.status == "finished", table
        log = await store.moves(table.match_id)
        assert [m.seq for m in log] == list(range(1, match.version + 1)), f"match {table.match_id}: gaps or doubles"
        state = game.new(len(await store.seats(match.id)), match.options, seed=match.seed)
        for record_ in log:
            state = game.apply(state, record_.seat, record_.move)
        assert game.to_json(state) == match.snapshot, f"match {table.match_id}: the log does not replay to it"
    stored = {(m.match_id, m.seq): (m.actor, m.move) for t in tables for m in await store.moves(t.match_id)}
    for match_id, seq, chosen in record.acknowledged:
        assert stored[(match_id, seq)] == ("human", chosen), f"acknowledged move lost: {match_id} #{seq}"
    assert record.timer_phases >= 2 and record.doubles > 0
    print(f"{MATCHES} matches, {presses} presses ({record.doubles} doubled, {record.unanswered} unanswered when "
          f"a worker was killed), {len(record.acknowledged)} acknowledged, {record.timer_phases} timer phases, "
          f"{sum(actor == 'timer' for actor, _ in stored.values())} timer moves")


async def _timer_phase(store: Store, workers: list[Worker], tables: list[Table], now: float,
                       record: Record) -> float:
    """Bring every running turn timer due and tick both workers at once: each due match gets exactly one timer
    move, whichever worker fires it."""
    due: dict[int, int] = {}
    for table in tables:
        match = await store.get_match(table.match_id)
        if match.status == "active" and match.deadline is not None:
            due[match.id] = match.version
    now += PAST_ANY_TIMER
    fired = await asyncio.gather(*(worker.ask({"now": now, "op": "tick"}) for worker in workers))
    assert sum(answer["fired"] for answer in fired if answer) == len(due), (fired, len(due))
    for match_id, version in due.items():
        log = [m for m in await store.moves(match_id) if m.seq > version]
        timers = [m for m in log if m.actor == "timer"]
        assert log and log[0].actor == "timer" and len(timers) == 1, f"match {match_id}: {log}"
    record.timer_phases += 1
    return now
