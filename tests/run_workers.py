"""Real `majlis run` worker processes for the multi-worker tests: each one is `python -m bot.cli run` with its own
environment (Telegram in webhook mode on its own port, pointed at tests/tg_stand_in.py; one PostgreSQL schema; the
shared Redis limiter under the test's own key prefix), started, SIGKILLed and restarted by the test.

A worker is ready when it has logged in, a webhook is registered (by it or another worker) and its webhook port
takes connections (the runner starts the adapters, then `resume()`, then the timer loop). The tests SIGKILL every
process in a `finally`, whatever happened.
"""

from __future__ import annotations

import asyncio
import ctypes
import os
import signal
import socket
import sys
import time
from pathlib import Path

from tests.tg_stand_in import StandIn

ROOT = Path(__file__).resolve().parent.parent
PR_SET_PDEATHSIG = 1


def _die_with_the_test() -> None:
    """In the worker process before exec: SIGKILL it when the test process dies (a hard timeout that skips the
    `finally`), so no worker outlives its test holding a port (Linux; elsewhere nothing)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def poll(condition, timeout: float, every: float = 0.05, what: str = "condition") -> float:
    """Wait until `condition()` (sync or async) is true; the seconds it took. AssertionError after `timeout`."""
    began = time.monotonic()
    while True:
        result = condition()
        if asyncio.iscoroutine(result):
            result = await result
        if result:
            return time.monotonic() - began
        if time.monotonic() - began > timeout:
            raise AssertionError(f"{what}: not within {timeout} s")
        await asyncio.sleep(every)


class RunWorker:
    """One `majlis run` process and its environment; `starts` counts its processes."""

    def __init__(self, name: str, env: dict[str, str], stand_in: StandIn, folder: Path) -> None:
        self.name, self.stand_in, self.folder = name, stand_in, folder
        self.port = free_port()
        self.env = {**env, "TELEGRAM_BASE_URL": stand_in.base_url(name), "TELEGRAM_WEBHOOK_PORT": str(self.port),
                    "TELEGRAM_WEBHOOK_LISTEN": "127.0.0.1"}
        self.process: asyncio.subprocess.Process | None = None
        self.starts = 0
        self.launched = 0.0
        self.start_seconds: list[float] = []  # launch -> ready, of each start
        stand_in.workers[name] = self.port

    @property
    def log(self) -> Path:
        return self.folder / f"{self.name}-{self.starts}.log"

    async def launch(self) -> None:
        """Start the process (not waiting for it to be ready)."""
        self.starts += 1
        self.launched = time.monotonic()
        self.calls_before = len(self.stand_in.calls(worker=self.name))
        with self.log.open("w") as out:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot.cli", "run", cwd=str(self.folder), env=self.env,
                stdin=asyncio.subprocess.DEVNULL, stdout=out, stderr=asyncio.subprocess.STDOUT,
                preexec_fn=_die_with_the_test)

    async def ready(self, timeout: float = 40) -> None:
        """Wait until it serves (logged in, webhook registered, port open); fails at once if the process exited."""

        async def serving() -> bool:
            assert self.process is not None
            if self.process.returncode is not None:
                raise AssertionError(f"{self.name} exited with {self.process.returncode} while starting:\n"
                                     f"{self.tail()}")
            # Logged in (getMe...) and a webhook registered by someone: whether each worker calls setWebhook or only
            # one does is the workers' choice (issue 26 point 1 allows either).
            if len(self.stand_in.calls(worker=self.name)) <= self.calls_before or not self.stand_in.webhook:
                return False
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", self.port)
            except OSError:
                return False
            writer.close()
            return True

        await poll(serving, timeout, 0.1, f"{self.name} ready")
        self.start_seconds.append(time.monotonic() - self.launched)
        self.stand_in.alive[self.name] = True

    async def resumed(self, timeout: float = 20) -> None:
        """Wait until the runner says it is running (after `resume()`); fails if the process exits first, as a
        worker does on a start error ("Majlis could not start: ...")."""

        def running() -> bool:
            assert self.process is not None
            if self.process.returncode is not None:
                raise AssertionError(f"{self.name} exited with {self.process.returncode}:\n{self.tail(4)}")
            return "Majlis is running" in self.log.read_text(errors="replace")

        await poll(running, timeout, 0.1, f"{self.name} running")

    async def start(self) -> None:
        await self.launch()
        await self.ready()

    async def kill(self) -> None:
        """SIGKILL: no clean-up of any kind, as a crash or an OOM kill."""
        self.stand_in.alive[self.name] = False
        if self.process is not None and self.process.returncode is None:
            self.process.send_signal(signal.SIGKILL)
            await self.process.wait()
        for hold in self.stand_in.holds:
            if hold.worker == self.name:
                hold.release.set()

    async def close(self) -> None:
        self.stand_in.alive[self.name] = False
        if self.process is not None and self.process.returncode is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.process.wait(), 10)
            except TimeoutError:
                self.process.kill()
                await self.process.wait()

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.returncode is None

    def tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


def worker_env(database_url: str, redis_url: str | None, token: str) -> dict[str, str]:
    """What every worker shares: the token, the public webhook URL, the database, the Redis limiter."""
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("TELEGRAM_", "DISCORD_", "DATABASE_URL", "MAJLIS_"))}
    env.update({"TELEGRAM_BOT_TOKEN": token, "TELEGRAM_WEBHOOK_URL": "https://bot.example/hook",
                "DATABASE_URL": database_url, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"})
    if redis_url:
        env["MAJLIS_REDIS_URL"] = redis_url
    return env
