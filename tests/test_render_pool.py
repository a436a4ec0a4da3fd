"""The render pool (bot/core/render_pool.py): worker processes driven from the event loop. Answers reach the callers
that asked, a worker's exceptions reach them with their type, a killed worker fails its jobs in flight (and
`Pictures` draws them again) and is replaced, and closing ends every worker."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

import engine
import renderers
from bot.core.pictures import Pictures
from bot.core.render_pool import RenderPool
from renderers.picture import Picture

GAME = engine.get("kenza")


# ------------------------------------------------------------------------ jobs (module level: a worker imports them)
def _nothing() -> None:
    """A worker's initializer."""


def _echo(value: int) -> tuple[int, int]:
    return value, os.getpid()


class Refused(ValueError):
    pass


class Unpicklable(Exception):
    """Pickles, but cannot be unpickled: its constructor wants two arguments and `args` holds one."""

    def __init__(self, what: str, why: str) -> None:
        super().__init__(f"{what}: {why}")


def _refuse(why: str) -> None:
    raise Refused(why)


def _raise_unpicklable() -> None:
    raise Unpicklable("rack", "no")


def _explode() -> None:
    raise Refused("unpickled in the worker")


class Bomb:
    """An argument the main process pickles but the worker cannot unpickle: it raises there."""

    def __reduce__(self) -> tuple:
        return _explode, ()


def _stall() -> None:
    """Tell the main process this worker is busy with the job, then never finish it."""
    os.kill(os.getppid(), signal.SIGUSR1)
    threading.Event().wait()


def _alive(pid: int) -> bool:
    return pid in {child.pid for child in multiprocessing.active_children()}


# ------------------------------------------------------------------------------------------------------------- tests
async def test_many_concurrent_jobs_come_back_to_their_callers_from_both_workers():
    pool = RenderPool(2, _nothing)
    try:
        await asyncio.wait_for(pool.ready(), 60)
        answers = await asyncio.wait_for(asyncio.gather(*(pool.submit(_echo, n) for n in range(300))), 60)
        assert [value for value, _ in answers] == list(range(300))
        assert {pid for _, pid in answers} == set(pool.pids) and len(pool.pids) == 2, "both workers drew"
    finally:
        pool.close()


async def test_a_workers_exception_reaches_its_caller_with_its_type():
    pool = RenderPool(1, _nothing)
    try:
        with pytest.raises(Refused, match="no such seat") as raised:
            await asyncio.wait_for(pool.submit(_refuse, "no such seat"), 60)
        assert any("_refuse" in note for note in raised.value.__notes__), "the worker's traceback comes along"
        with pytest.raises(RuntimeError, match="Unpicklable"):
            await asyncio.wait_for(pool.submit(_raise_unpicklable), 60)
        # A job the worker cannot even unpickle fails its own caller, and the next job is answered rightly.
        failed, after = await asyncio.wait_for(
            asyncio.gather(pool.submit(_echo, Bomb()), pool.submit(_echo, 7), return_exceptions=True), 60)
        assert isinstance(failed, Refused) and after[0] == 7
    finally:
        pool.close()


async def test_a_killed_worker_fails_its_jobs_in_flight_and_is_replaced():
    busy = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGUSR1, busy.set)
    pool = RenderPool(1, _nothing)
    try:
        await asyncio.wait_for(pool.ready(), 60)
        (killed,) = pool.pids
        jobs = [asyncio.ensure_future(pool.submit(_stall)), asyncio.ensure_future(pool.submit(_echo, 1))]
        await asyncio.wait_for(busy.wait(), 60)  # the worker is inside the first job, the second waits for it
        assert pool.queued == 2 and pool.restarts == 0  # what /metrics reads (bot/metrics.py)
        os.kill(killed, signal.SIGKILL)
        for job in jobs:
            with pytest.raises(BrokenProcessPool):
                await asyncio.wait_for(job, 60)
        value, pid = await asyncio.wait_for(pool.submit(_echo, 2), 60)
        assert value == 2 and pid != killed and pool.pids == [pid], "a fresh worker took the dead one's place"
        assert not _alive(killed)
        assert pool.restarts == 1 and pool.queued == 0
    finally:
        loop.remove_signal_handler(signal.SIGUSR1)
        pool.close()


async def test_pictures_draws_again_when_its_worker_was_killed():
    state = GAME.new(2, {}, seed=5)
    picture = Picture("rack", "kenza", {"view": GAME.view(state, 0), "lang": "en", "names": ["Ali", "Mona"],
                                        "selected": []})
    pictures = Pictures(1, games=("kenza",))
    try:
        await asyncio.wait_for(pictures.warm(("kenza",)), 120)
        assert pictures._pool is not None
        (killed,) = pictures._pool.pids
        os.kill(killed, signal.SIGKILL)  # dead before the job is written: it can only fail, then be drawn again
        drawn = await asyncio.wait_for(pictures.draw(picture), 120)
        assert drawn == renderers.render_rack("kenza", GAME.view(state, 0), "en", ["Ali", "Mona"])
        assert pictures.drawn == 1 and pictures._pool.pids != [killed]
        assert pictures.restarts == 1 and pictures.queued == 0
    finally:
        pictures.close()


async def test_close_ends_every_worker():
    pool = RenderPool(2, _nothing)
    await asyncio.wait_for(pool.ready(), 60)
    pids = pool.pids
    assert len(pids) == 2 and all(_alive(pid) for pid in pids)
    pool.close()
    assert not [pid for pid in pids if _alive(pid)]
    with pytest.raises(RuntimeError, match="closed"):
        await pool.submit(_echo, 1)


async def test_a_worker_that_cannot_start_says_why_and_is_not_started_again_on_its_own():
    pool = RenderPool(1, _refuse, ("no palettes",))
    try:
        await pool._fill()
        (worker,) = pool._workers
        with pytest.raises(Refused, match="no palettes"):
            await asyncio.wait_for(pool.ready(), 60)
        assert worker.task is not None
        await asyncio.wait_for(worker.task, 60)  # its reader saw it end
        assert pool._workers == [] and not worker.process.is_alive(), "not started again on its own"
    finally:
        pool.close()


def test_close_from_sync_code_after_the_loop_ended():
    pool = RenderPool(1, _nothing)

    async def use() -> list[int]:
        assert (await pool.submit(_echo, 3))[0] == 3
        return pool.pids

    pids = asyncio.run(use())
    pool.close()
    assert pids and not [pid for pid in pids if _alive(pid)]


# A bot process that draws one picture and is SIGKILLed with the worker's answer still unread in its socket: the
# worker's next read is a reset (ECONNRESET), not EOF. Run as its own process, so the test sees the worker's stderr.
KILLED_PARENT = """
import multiprocessing, os, pickle, signal, sys
from bot.core.render_pool import _serve
context = multiprocessing.get_context("spawn")
ours, theirs = context.Pipe()
worker = context.Process(target=_serve, args=(theirs, int, ()), daemon=True)
worker.start()
theirs.close()
print(worker.pid, flush=True)
assert pickle.loads(ours.recv_bytes())[1], "the worker started"
ours.send_bytes(pickle.dumps((1, abs, (-3,))))
assert ours.poll(30), "the worker answered"
os.kill(os.getpid(), signal.SIGKILL)  # with the answer unread, as a bot killed mid-delivery
"""


def test_a_worker_whose_bot_was_killed_ends_without_a_traceback():
    root = Path(__file__).resolve().parent.parent
    # stderr is a pipe both processes hold: `run` returns once the worker has ended too (or the timeout fails it).
    done = subprocess.run([sys.executable, "-c", KILLED_PARENT], cwd=root, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == -signal.SIGKILL
    assert _ended(int(done.stdout.split()[0]))
    assert done.stderr == "", done.stderr


def _ended(pid: int) -> bool:
    """Gone, or a zombie nobody reaps (its parent was killed; a container's first process may not reap)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return any(line.startswith("State:") and "Z" in line.split()[1] for line in status.splitlines())
