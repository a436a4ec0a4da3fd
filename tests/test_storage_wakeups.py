"""A store tells every watcher of its database when a turn deadline is written (storage/wakeups.py), so each
worker's timer loop is woken for a deadline another worker wrote: the deadlines of a match started, of a move, of
a set timer; nothing for a timer switched off or a write that rolled back. Two stores on one database, as two
workers: a SQLite file (stores of one process) and PostgreSQL (LISTEN/NOTIFY, when MAJLIS_TEST_DATABASE_URL is
set)."""

from __future__ import annotations

import asyncio

import pytest

from storage import Store

GUARD = 10.0  # seconds: only a guard against a hang


async def _told(told: list[float], count: int) -> list[float]:
    """The deadlines told so far, once there are `count` of them (notifications arrive on the event loop)."""
    async def arrived() -> None:
        while len(told) < count:
            await asyncio.sleep(0.01)

    await asyncio.wait_for(arrived(), GUARD)
    await asyncio.sleep(0.1)  # and no more than those
    return list(told)


async def test_a_watcher_is_told_each_deadline_another_store_writes(any_database: str) -> None:
    writer, watcher = await Store.open(any_database), await Store.open(any_database)
    told: list[float] = []
    watch = await watcher.watch_deadlines(told.append)
    try:
        player = await writer.upsert_player("tg", "1", "Ali")
        match = await writer.create_match("kenza", "classic", {}, "tg", "-1", player.id, 1)
        await writer.add_seat(match.id, player_id=player.id)
        await writer.add_seat(match.id, bot_level="normal")
        await writer.start_match(match.id, {"n": 0}, 1000.25)
        await writer.apply_move(match.id, 0, 0, "human", "a", {"n": 1}, 2000.5)
        await writer.apply_move(match.id, 1, 1, "bot", "b", {"n": 2}, None)  # an untimed turn: nothing to tell
        await writer.set_deadline(match.id, 3000.125)
        await writer.set_deadline(match.id, None)
        with pytest.raises(RuntimeError):
            async with writer.transaction():
                await writer.set_deadline(match.id, 4000.0)
                raise RuntimeError("rolled back")
        expected = [1000.25, 2000.5, 3000.125]
        if writer.dialect == "sqlite":  # told in the process as the write ends, a savepoint's too (only a wake)
            expected.append(4000.0)
        assert await _told(told, len(expected)) == expected
        await watch.close()
        await writer.set_deadline(match.id, 5000.0)
        await asyncio.sleep(0.2)
        assert told == expected, "a closed watch is told nothing"
    finally:
        await watch.close()
        await writer.close()
        await watcher.close()
