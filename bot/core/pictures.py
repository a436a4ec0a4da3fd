"""Drawing the pictures of messages off the event loop, each distinct picture once.

Pillow work is the heaviest part of a move, and in a thread it holds the interpreter lock against the event loop:
with `processes` > 0 pictures are drawn in worker processes (each with its own Pillow objects and the palettes one
learner process learned for them), so a second core draws while the loop answers players. The workers are driven
from the event loop itself (bot/core/render_pool.py), not through `ProcessPoolExecutor`, whose feeder and manager
threads fought the loop for the interpreter lock (about 9 % of the main process's CPU under load). With 0 (tests,
the console) one render thread draws, as before.

A `Picture` is plain data whose key is a digest of everything drawn, so a picture asked for again (a rack whose hand
did not change while its keyboard did, a table the same after a refused edit, a retry) is taken from a small cache
bounded in bytes instead of drawn again, and a picture already being drawn is awaited, not drawn twice. The key
covers the whole drawn view, so a cached picture is only ever served for a view that draws exactly those bytes: a
rack of one seat cannot come back for another seat whose view differs in anything.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import multiprocessing
import os
from collections import OrderedDict
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

import renderers
from bot.core.render_pool import RenderPool, lean_children
from renderers.picture import Picture, draw

log = logging.getLogger(__name__)
T = TypeVar("T")

CACHE_BYTES = 8 * 2**20  # about 300 pictures of ~26 KiB: the live racks and tables of the busiest moments


def default_processes() -> int:
    """Render processes for a production bot: every core but the one the event loop runs on (at least one)."""
    return max(1, (os.cpu_count() or 1) - 1)


def _start_worker(games: tuple[str, ...], learned: dict[str, bytes]) -> None:
    """A worker process's start: take the palettes learned for it, learn any other of its games' (so no player waits
    for one on a first picture)."""
    renderers.adopt_palettes(learned)
    renderers.warm(games)


def _learn(games: tuple[str, ...]) -> dict[str, bytes]:
    """In a short-lived process: the games' palettes, as bytes for the render workers."""
    return renderers.learned_palettes(games)


class Pictures:
    def __init__(self, processes: int = 0, *, cache_bytes: int = CACHE_BYTES, games: Iterable[str] = ()) -> None:
        self.processes = processes
        self._games = tuple(games)
        self._learned: dict[str, bytes] = {}  # palettes learned by `warm`'s learner process, handed to every worker
        self._learned_for: tuple[str, ...] | None = None  # the games `_learned` was learned for
        self._pool = self._new_pool()
        # Pictures with `processes` 0, and builders that draw inside whole messages (a replay's animation), are drawn
        # on one render thread of this process: Pillow's font objects are never used by two threads at once.
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="render")
        self._cache: OrderedDict[str, bytes] = OrderedDict()
        self._cache_bytes = cache_bytes
        self._size = 0
        self._drawing: dict[str, asyncio.Future[bytes]] = {}
        self.drawn = 0  # pictures actually drawn (tests and the bench read these)
        self.reused = 0  # pictures served from the cache or from a drawing already under way

    def _new_pool(self) -> RenderPool | None:
        if self.processes <= 0:
            return None
        return RenderPool(self.processes, _start_worker, (self._games, self._learned))

    async def draw(self, picture: Picture) -> bytes:
        """The picture's PNG bytes: from the cache, from a drawing of the same picture under way, or drawn now."""
        key = picture.key()
        cached = self._cache.get(key)
        if cached is not None:
            self._cache.move_to_end(key)
            self.reused += 1
            return cached
        running = self._drawing.get(key)
        if running is not None:
            self.reused += 1
            return await asyncio.shield(running)
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._drawing[key] = future
        try:
            data = await self._run(picture)
        except BaseException as error:
            if not future.done():
                if isinstance(error, asyncio.CancelledError):
                    future.cancel()
                else:
                    future.set_exception(error)
                    future.exception()  # retrieved: nobody else may be waiting for it
            raise
        finally:
            self._drawing.pop(key, None)
        future.set_result(data)
        self.drawn += 1
        self._keep(key, data)
        return data

    async def call(self, function: Callable[..., bytes], *args: Any) -> bytes:
        """Any other picture (a module-level renderer function and picklable arguments, e.g. a /stats card):
        drawn off the loop in the same workers, not cached."""
        return await self._submit(function, *args)

    async def in_thread(self, function: Callable[..., T], *args: Any) -> T:
        """Run a builder that draws as it builds (its result is not plain picture bytes) on the render thread."""
        return await asyncio.get_running_loop().run_in_executor(self._thread, functools.partial(function, *args))

    async def _submit(self, function: Callable[..., T], *args: Any) -> T:
        """A job for the worker processes, or with none for the render thread."""
        if self._pool is None:
            return await asyncio.get_running_loop().run_in_executor(self._thread, function, *args)
        return await self._pool.submit(function, *args)

    async def _run(self, picture: Picture) -> bytes:
        try:
            return await self._submit(draw, picture)
        except BrokenProcessPool:  # its worker died (killed, out of memory) and a fresh one took its place: once more
            log.warning("a render worker died while drawing; drawing the picture again")
            return await self._submit(draw, picture)

    def _keep(self, key: str, data: bytes) -> None:
        if len(data) > self._cache_bytes:
            return
        self._cache[key] = data
        self._size += len(data)
        while self._size > self._cache_bytes:
            _, dropped = self._cache.popitem(last=False)
            self._size -= len(dropped)

    @property
    def cached_bytes(self) -> int:
        return self._size

    async def warm(self, games: Iterable[str]) -> None:
        """Before the first player: learn the palettes (in the render thread), or learn them once in a short-lived
        process and start every worker process with them.

        Learning peaks about 55 MiB above what drawing needs (renderers.palette.adopt), and a process keeps its
        peak's pages long after: learned in each worker, that peak stayed in every worker's memory for its whole
        life. The learner exits before the workers start, so its peak is paid once, before any player."""
        if self.processes <= 0:
            await self._submit(renderers.warm, tuple(games))
            return
        games = tuple(games)
        if games != self._learned_for:
            self._games = games
            self._learned = await self._learn(games)
            self._learned_for = games
            if self._pool is not None:
                self._pool.close()  # workers started without these palettes (none, if nothing was drawn yet)
            self._pool = self._new_pool()
        assert self._pool is not None
        await self._pool.ready()

    async def _learn(self, games: tuple[str, ...]) -> dict[str, bytes]:
        learner = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
        try:
            with lean_children():
                job = asyncio.get_running_loop().run_in_executor(learner, _learn, games)
            return await job
        finally:
            await asyncio.to_thread(learner.shutdown, True)  # gone before the workers start

    def close(self) -> None:
        """End the worker processes and the render thread (from sync code too, as the service's close does)."""
        if self._pool is not None:
            self._pool.close()
        self._thread.shutdown(wait=True)
