"""Worker processes (tests/mp_worker.py) driven from a test or a bench: start, ask, SIGKILL, stop."""

from __future__ import annotations

import asyncio
import itertools
import json
import signal
import sys
from pathlib import Path
from typing import Any

from bot import presenter
from storage.models import Match

WORKER = Path(__file__).resolve().parent / "mp_worker.py"


class Worker:
    """A worker process and the requests it has not answered yet."""

    def __init__(self, url: str, name: str, log: Path) -> None:
        self.url, self.name, self.log = url, name, log
        self.ids = itertools.count()
        self.waiting: dict[int, asyncio.Future[dict[str, Any] | None]] = {}
        self.process: asyncio.subprocess.Process | None = None
        self.reader: asyncio.Task[None] | None = None
        self.starts = 0

    async def start(self, now: float) -> None:
        self.starts += 1
        with self.log.open("a") as err:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, str(WORKER), self.url, f"{self.name}-{self.starts}", str(now),
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=err)
        assert self.process.stdout is not None
        ready = await asyncio.wait_for(self.process.stdout.readline(), 60)
        assert json.loads(ready) == {"ready": f"{self.name}-{self.starts}"}, ready
        self.reader = asyncio.create_task(self._read(self.process))

    async def _read(self, process: asyncio.subprocess.Process) -> None:
        assert process.stdout is not None
        while line := await process.stdout.readline():
            answer = json.loads(line)
            future = self.waiting.pop(answer.pop("id"), None)
            if future is not None and not future.done():
                future.set_result(answer)
        for future in self.waiting.values():  # the process is gone: these will never be answered
            if not future.done():
                future.set_result(None)
        self.waiting.clear()

    async def ask(self, request: dict[str, Any]) -> dict[str, Any] | None:
        """The worker's answer, or None if it died before answering."""
        assert self.process is not None and self.process.stdin is not None
        request_id = next(self.ids)
        future: asyncio.Future[dict[str, Any] | None] = asyncio.get_running_loop().create_future()
        self.waiting[request_id] = future
        try:
            self.process.stdin.write((json.dumps({"id": request_id, **request}) + "\n").encode())
            await self.process.stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            self.waiting.pop(request_id, None)
            return None
        answer = await asyncio.wait_for(future, 120)
        assert answer is None or "error" not in answer, f"{self.name}: {answer}"
        return answer

    async def kill(self) -> None:
        assert self.process is not None and self.reader is not None
        self.process.send_signal(signal.SIGKILL)
        await self.process.wait()
        await self.reader

    async def stop(self) -> None:
        if self.process is not None and self.process.returncode is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            try:
                await asyncio.wait_for(self.process.wait(), 30)
            except TimeoutError:
                self.process.kill()
                await self.process.wait()
        if self.reader is not None:
            await self.reader


def rack_presses(match: Match, state: dict[str, Any], seat: int) -> list[tuple[str, str]]:
    """(button code, move) of the moves the human's rack offers now: its move buttons, or, when it first asks for a
    pick (Kenza's capture choice), the move buttons drawn after its first pick. Their codes carry the picking state,
    so any worker can rebuild the keyboard from the code alone."""
    for pick in [None, *(b.arg for row in presenter.rack_buttons(match, state, seat, "en", None)
                         for b in row if b.kind == "pick")]:
        moves = presenter.button_moves(presenter.rack_buttons(match, state, seat, "en", pick))
        if moves:
            return [(presenter.move_code(match, index, pick), move) for index, move in enumerate(moves)]
    return []
