"""One bot worker for the multi-process test (tests/test_workers.py): a Service on the shared database, fed
requests as JSON lines on stdin, answering each on stdout.

Requests carry the time (`now`): the test owns the clock of every worker, so turn timers come due when it says,
on all workers at once. Each request is handled in its own task, as a real worker handles concurrent updates.
Run: python tests/mp_worker.py DATABASE_URL NAME START_TIME
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.messages import Actor, ChatRef  # noqa: E402
from bot.service import Service  # noqa: E402
from storage import Store  # noqa: E402
from tests.clock import Clock  # noqa: E402
from tests.fakes import FakeTransport  # noqa: E402


async def handle(service: Service, clock: Clock, request: dict[str, Any]) -> dict[str, Any]:
    clock.now = max(clock.now, float(request["now"]))
    if request["op"] == "tick":
        return {"fired": await service.tick()}
    actor = Actor("fake", request["user"], request["user"], language="en")
    chat = ChatRef("fake", request["chat"], private=request.get("private", False))
    if request["op"] == "press":
        reply = await service.press(actor, chat, request["data"])
    else:
        reply = await service.command(actor, chat, request["name"], request.get("args", []))
    return {"text": reply.text}


async def main(url: str, name: str, now: float) -> None:
    store = await Store.open(url)
    clock = Clock(now)
    service = Service(store, clock=clock, seed_source=random.Random(name))
    service.attach(FakeTransport(), images=False)
    await service.resume()  # a restarted worker: bots owed a turn play it, owed screens are shown
    reader = asyncio.StreamReader()
    await asyncio.get_running_loop().connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    print(json.dumps({"ready": name}), flush=True)
    running: set[asyncio.Task[None]] = set()

    async def answer(request: dict[str, Any]) -> None:
        try:
            result = await handle(service, clock, request)
        except Exception as error:  # reported to the test, which fails on it
            result = {"error": f"{type(error).__name__}: {error}"}
        print(json.dumps({"id": request["id"], **result}), flush=True)

    while line := await reader.readline():
        task = asyncio.create_task(answer(json.loads(line)))
        running.add(task)
        task.add_done_callback(running.discard)
    await asyncio.gather(*running)
    await service.close()
    await store.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], float(sys.argv[3])))
