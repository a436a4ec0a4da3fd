"""Stopping without cutting a match off (a deploy, a rolling restart): SIGTERM, or `majlis drain`, which sends it.

The drain, in order, within `MAJLIS_DRAIN_SECONDS` (default 20):
1. no new tables: `/new`, the game and mode pickers answer the presser that the bot restarts in a moment (their
   group's open table, if any, goes on as before: joins, starts and moves are served to the end);
2. the turn-timer loop ends between two passes (the deliveries it started finish their pass);
3. the updates being handled finish: every move pressed before the stop is committed and answered;
4. the platforms stop receiving (python-telegram-bot handles the updates it already fetched; a webhook worker's
   port closes, so its load balancer sends the next request to another worker);
5. the screens owed by those moves are delivered.
A step still running at the end of the time is left: what it had stored stays (a stored move is a fact), and its
screens are owed in the database (the pending-delivery marks), so the next start, or another worker, shows them
(`Service.resume`). Turn timers that fall due meanwhile fire on another worker (their leases) or at the next start.

How `majlis drain` reaches the process: the pid file `majlis run` writes (MAJLIS_PID_FILE, default
./data/majlis.pid), and a SIGTERM. Not a flag in the database that every worker polls: a rolling restart drains one
worker at a time (a flag would drain them all), a flag outlives the process it was meant for (the next start would
have to clear it), and SIGTERM is what systemd, Docker and Kubernetes send anyway, so a drain by hand and one by an
orchestrator are the same path. Workers on one machine each get their own MAJLIS_PID_FILE.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import signal
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

log = logging.getLogger(__name__)

DRAIN_SECONDS = 20.0  # within docker's and systemd's stop time-outs as shipped (compose.yaml, deploy/majlis.service)
PID_FILE = "./data/majlis.pid"


def drain_seconds(environ: Any = None) -> float:
    """MAJLIS_DRAIN_SECONDS when it is a positive number, else DRAIN_SECONDS."""
    written = (environ if environ is not None else os.environ).get("MAJLIS_DRAIN_SECONDS", "").strip()
    try:
        seconds = float(written) if written else DRAIN_SECONDS
    except ValueError:
        seconds = -1.0
    if not 0 < seconds < math.inf:  # nan and inf too: the drain must end
        log.warning("MAJLIS_DRAIN_SECONDS=%r is not a positive number of seconds: %g s instead", written,
                    DRAIN_SECONDS)
        return DRAIN_SECONDS
    return seconds


def pid_file(environ: Any = None) -> Path:
    return Path((environ if environ is not None else os.environ).get("MAJLIS_PID_FILE") or PID_FILE).expanduser()


class Closing:
    """The service's side of a drain: whether it is draining (no new tables), and the updates it is handling now
    (each a task: a command or a press, up to its answer)."""

    def __init__(self) -> None:
        self.draining = False
        self._handling: dict[asyncio.Future[None], asyncio.Task[Any] | None] = {}  # until answered -> its task

    @contextlib.contextmanager
    def handling(self) -> Iterator[None]:
        answered = asyncio.get_running_loop().create_future()
        self._handling[answered] = asyncio.current_task()
        try:
            yield
        finally:
            del self._handling[answered]
            answered.set_result(None)

    async def handled(self) -> None:
        """Until every update being handled now (but one of the caller's own task) has been answered. Waits for the
        answers, not for the tasks: a task may go on to other work (its deliveries, a test's next step)."""
        while pending := [answered for answered, task in self._handling.items()
                          if task is not asyncio.current_task()]:
            await asyncio.wait(pending)


class Drainable(Protocol):
    closing: Closing

    def stop_timers(self) -> None: ...

    async def settle(self) -> None: ...


class Stoppable(Protocol):
    async def stop(self) -> None: ...


async def drain(service: Drainable, adapters: Sequence[Stoppable], timers: asyncio.Task[None] | None = None,
                seconds: float = DRAIN_SECONDS) -> bool:
    """Steps 1-5 of the module's docstring. True when all finished within `seconds`; False when the time ran out
    (the caller then closes what is left as it is). The adapters are stopped here either way, once each."""
    started = time.monotonic()
    service.closing.draining = True
    log.info("draining: no new tables; finishing the moves under way and their screens (at most %.0f s)", seconds)
    service.stop_timers()
    stopped: list[Stoppable] = []

    async def steps() -> None:
        if timers is not None:
            await asyncio.wait({timers})
        await service.closing.handled()
        log.info("draining: the updates under way are answered")
        for adapter in adapters:
            stopped.append(adapter)
            await adapter.stop()
        log.info("draining: no more updates are received")
        await service.settle()

    try:
        await asyncio.wait_for(steps(), seconds)
    except TimeoutError:
        log.warning("the drain took longer than %.0f s: stopping now; the screens still owed are shown after the "
                    "restart", seconds)
        for adapter in adapters:
            if adapter not in stopped:
                try:
                    await asyncio.wait_for(adapter.stop(), 5)
                except Exception:
                    log.exception("stopping %s failed", type(adapter).__name__)
        return False
    log.info("drained in %.1f s", time.monotonic() - started)
    return True


# ---- the pid file and `majlis drain` ------------------------------------------------------------------------------
def write_pid_file(path: Path) -> None:
    """This process's pid, for `majlis drain`; a live process named in the file already is only warned about (two
    workers sharing a path: the drain reaches the last one started)."""
    previous = read_pid(path)
    if previous is not None and previous != os.getpid() and alive(previous):
        log.warning("%s named running process %d; it now names this one (%d): give each worker on this machine "
                    "its own MAJLIS_PID_FILE", path, previous, os.getpid())
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{os.getpid()}\n")
    except OSError as error:  # a read-only folder: the bot runs, only `majlis drain` cannot find it (SIGTERM can)
        log.warning("cannot write the pid file %s (%s): majlis drain will not find this process", path,
                    error.strerror or error)


def remove_pid_file(path: Path) -> None:
    if read_pid(path) == os.getpid():
        path.unlink(missing_ok=True)


def read_pid(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: it exists
        return True
    return True


async def drain_process(path: Path, wait: float, poll: float = 0.2) -> tuple[int | None, bool]:
    """`majlis drain`: SIGTERM to the process of the pid file, then wait up to `wait` s for it to end. (pid or None
    when no running process is named there, whether it ended in time.)"""
    pid = read_pid(path)
    if pid is None or not alive(pid):
        return None, False
    os.kill(pid, signal.SIGTERM)
    ends = time.monotonic() + wait
    while time.monotonic() < ends:
        if not alive(pid):
            return pid, True
        await asyncio.sleep(poll)
    return pid, not alive(pid)
