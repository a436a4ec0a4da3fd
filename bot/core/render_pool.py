"""Worker processes that draw pictures, driven from the event loop itself: no thread between the loop and them.

`concurrent.futures.ProcessPoolExecutor` gives every job to a feeder thread (which pickles it into a pipe) and has
a manager thread unpickle every answer and wake the loop with `call_soon_threadsafe`: two threads of the main
process that fight the event loop for the interpreter lock, about 9 % of the main process's CPU under load (0.7 ms
per picture). Here each worker has one socket (a `multiprocessing.Pipe()`, a socketpair on Linux) that the loop
reads and writes as asyncio streams: the coroutine that asks for a job pickles it and writes it (buffered by the
transport, never blocking the loop), and one reader task per worker unpickles the answers and resolves the
awaiting futures.

The wire is `multiprocessing.Connection`'s own framing, so a worker is a plain blocking `recv_bytes` /
`send_bytes` loop: a pickled `(job, function, args)` in, a pickled `(job, ok, result or exception)` out. A worker
does one job at a time and answers in the order it was asked, so an answer that names no job (a request the worker
could not unpickle) is the oldest job's. A job goes to the worker with the fewest jobs in flight. A worker that
dies (killed, out of memory) fails its jobs in flight with `BrokenProcessPool` (the caller may retry) and a fresh
worker takes its place; a worker ends, quietly, when its socket reaches EOF or is reset (the pool closed, or the
main process gone, also killed).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import multiprocessing
import os
import pickle
import signal
import socket
import struct
import sys
import traceback
from collections.abc import Callable, Iterator
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar

log = logging.getLogger(__name__)
T = TypeVar("T")

_SIZE = struct.Struct("!i")  # multiprocessing.Connection's header: a signed big-endian length...
_LONG_SIZE = struct.Struct("!Q")  # ...or -1 and then this, for a payload above 2 GiB (CPython's _send_bytes)
_READY = 0  # the job id of a worker's first message: initialised, taking jobs
# How a worker learns that the main process is gone: EOF when it closed its end in order; ECONNRESET when it died
# (SIGKILL, out of memory) with an answer still unread in its socket, which Linux reports as a reset; EPIPE (or
# another socket error) when the worker writes to an end nobody holds. Each is the worker's cue to end, quietly:
# a traceback on the shared stderr would only say that the bot was killed.
PARENT_GONE = (EOFError, OSError)  # OSError covers ConnectionResetError and BrokenPipeError
JOIN_SECONDS = 5.0  # how long `close` waits for a worker to finish its picture before killing it


@contextlib.contextmanager
def lean_children() -> Iterator[None]:
    """While worker processes may start: hide where the main module is, so a spawned worker does not import it
    (multiprocessing re-imports `__main__` in every child: for `majlis run` or a bench that is the whole bot,
    its chat library and database code, tens of MiB per worker that only draws). The workers need only what
    their jobs pickle by reference: renderers."""
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    saved = {name: main.__dict__[name] for name in ("__file__", "__spec__") if name in main.__dict__}
    main.__dict__.pop("__file__", None)
    main.__dict__["__spec__"] = None
    try:
        yield
    finally:
        main.__dict__.pop("__spec__", None)
        main.__dict__.update(saved)


def _frame(payload: bytes) -> bytes:
    """`payload` as `Connection.send_bytes` would put it on the wire."""
    if len(payload) > 0x7FFFFFFF:
        return _SIZE.pack(-1) + _LONG_SIZE.pack(len(payload)) + payload
    return _SIZE.pack(len(payload)) + payload


async def _read_frame(reader: asyncio.StreamReader) -> bytes:
    """One message as `Connection.recv_bytes` would read it."""
    (size,) = _SIZE.unpack(await reader.readexactly(_SIZE.size))
    if size == -1:
        (size,) = _LONG_SIZE.unpack(await reader.readexactly(_LONG_SIZE.size))
    elif size < 0:
        raise ConnectionError(f"a render worker sent a bad frame length {size}")
    return await reader.readexactly(size)


def _failure(job: int | None, error: BaseException) -> bytes:
    """A failed job's answer: the exception itself (with the worker's traceback as a note) if it comes back whole
    through pickle, else a RuntimeError naming it."""
    with contextlib.suppress(Exception):
        error.add_note("in the render worker:\n" + "".join(traceback.format_exception(error)).rstrip())
    try:
        answer = pickle.dumps((job, False, error), pickle.HIGHEST_PROTOCOL)
        pickle.loads(answer)  # the main process unpickles it with the same modules
        return answer
    except Exception:
        return pickle.dumps((job, False, RuntimeError(f"render worker: {error!r}")), pickle.HIGHEST_PROTOCOL)


def _serve(connection: Connection, initializer: Callable[..., object], initargs: tuple[Any, ...]) -> None:
    """A worker process: initialise, say so (or why not, and end), then answer jobs until the main process closes
    the socket. Ctrl-C is the main process's to handle: it ends the workers by closing their sockets."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        initializer(*initargs)
    except BaseException as error:
        with contextlib.suppress(*PARENT_GONE):
            connection.send_bytes(_failure(_READY, error))
        return
    try:
        connection.send_bytes(pickle.dumps((_READY, True, None)))
    except PARENT_GONE:
        return
    while True:
        try:
            request = connection.recv_bytes()
        except PARENT_GONE:
            return
        job = None
        try:
            job, function, args = pickle.loads(request)
            answer = pickle.dumps((job, True, function(*args)), pickle.HIGHEST_PROTOCOL)
        except BaseException as error:  # anything the job raised is the caller's
            answer = _failure(job, error)
        try:
            connection.send_bytes(answer)
        except PARENT_GONE:
            return


@dataclass(eq=False)
class _Worker:
    process: BaseProcess
    sock: socket.socket
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    ready: asyncio.Future[None]
    jobs: dict[int, asyncio.Future[Any]] = field(default_factory=dict)  # in flight, in the order sent
    task: asyncio.Task[None] | None = None  # its reader


class RenderPool:
    """`size` spawned worker processes, each started with `initializer(*initargs)`; used from one event loop."""

    def __init__(self, size: int, initializer: Callable[..., object], initargs: tuple[Any, ...] = ()) -> None:
        self.size = size
        self._initializer = initializer
        self._initargs = initargs
        self._context = multiprocessing.get_context("spawn")  # not fork: the parent has threads a fork would copy
        self._workers: list[_Worker] = []
        self._dead: list[BaseProcess] = []  # replaced workers, reaped by `close`
        self._starting = asyncio.Lock()
        self._ids = itertools.count(_READY + 1)
        self._closed = False
        self.restarts = 0  # workers that died after starting and were replaced (bot/metrics.py reads it)

    async def submit(self, function: Callable[..., T], *args: Any) -> T:
        """`function(*args)` in the worker with the fewest jobs in flight."""
        if len(self._workers) < self.size:
            await self._fill()
        worker = min(self._workers, key=lambda w: len(w.jobs))
        job = next(self._ids)
        message = _frame(pickle.dumps((job, function, args), pickle.HIGHEST_PROTOCOL))
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        worker.jobs[job] = future
        worker.writer.write(message)
        try:
            with contextlib.suppress(OSError):  # the worker died: its reader fails the job
                await worker.writer.drain()
            return await future
        finally:
            future.cancel()  # only if its caller gave up: the answer, when it comes, is dropped

    async def ready(self) -> None:
        """Every worker started and initialised (BrokenProcessPool if one died meanwhile)."""
        await self._fill()
        await asyncio.gather(*(asyncio.shield(worker.ready) for worker in self._workers))

    async def _fill(self) -> None:
        async with self._starting:
            while len(self._workers) < self.size:
                if self._closed:
                    raise RuntimeError("the render pool is closed")
                self._workers.append(await self._start())
                if self._closed:  # closed while that one started
                    self.close()

    async def _start(self) -> _Worker:
        ours, theirs = self._context.Pipe()
        process = self._context.Process(target=_serve, args=(theirs, self._initializer, self._initargs),
                                        name="render", daemon=True)  # daemon: never outlives the bot
        try:
            with lean_children():
                process.start()
        finally:
            theirs.close()  # the worker's end lives in the worker only: its death is EOF here
        sock = socket.socket(fileno=os.dup(ours.fileno()))
        ours.close()
        reader, writer = await asyncio.open_unix_connection(sock=sock, limit=2**20)
        worker = _Worker(process, sock, reader, writer, asyncio.get_running_loop().create_future())
        worker.task = asyncio.create_task(self._read(worker), name=f"render worker {process.pid}")
        return worker

    async def _read(self, worker: _Worker) -> None:
        """Answers from one worker to their futures, until it dies; then a fresh worker in its place."""
        try:
            while True:
                answer = await _read_frame(worker.reader)
                try:
                    job, ok, value = pickle.loads(answer)
                except Exception as error:
                    job, ok, value = None, False, RuntimeError(f"a render worker's answer is unreadable: {error!r}")
                if job == _READY:
                    if worker.ready.done():
                        pass
                    elif ok:
                        worker.ready.set_result(None)
                    else:
                        worker.ready.set_exception(value)  # the initializer's own error, for `ready`
                    continue
                if job is None:  # a request the worker could not unpickle: the oldest one in flight
                    job = next(iter(worker.jobs), None)
                future = worker.jobs.pop(job, None)
                if future is None or future.done():
                    continue
                if ok:
                    future.set_result(value)
                else:
                    future.set_exception(value)
        except (asyncio.IncompleteReadError, OSError):
            pass
        if self._closed:
            return
        process = worker.process
        if process.is_alive():  # a worker whose socket broke is of no more use
            process.kill()
        process.join(1)  # at its end already: its socket closed as it exited
        # One that could not even start is replaced by the next job only: no loop of workers failing to start.
        started = worker.ready.done() and worker.ready.exception() is None
        log.warning("render worker %s died (exit code %s)%s", process.pid, process.exitcode,
                    "; starting another" if started else " before it was ready")
        self._retire(worker, BrokenProcessPool(f"render worker {process.pid} died (exit code {process.exitcode})"))
        self._dead.append(process)
        if started:
            self.restarts += 1
            try:
                await self._fill()
            except Exception:
                if not self._closed:
                    log.exception("could not start a render worker (the next job tries again)")

    def _retire(self, worker: _Worker, error: BaseException) -> None:
        """Forget a worker: its socket closed, its jobs and readiness failed with `error`."""
        if worker in self._workers:
            self._workers.remove(worker)
        with contextlib.suppress(RuntimeError):  # the event loop may be closed already
            worker.writer.transport.abort()
        worker.sock.close()
        for future in [worker.ready, *worker.jobs.values()]:
            if not future.done():
                future.set_exception(error)
                future.exception()  # retrieved: nobody may be waiting for it
        worker.jobs.clear()

    def close(self) -> None:
        """End every worker (safe from sync code, and with the loop closed): each one's socket is shut, so it sees
        EOF after its current picture; one that does not end in time is killed. Jobs in flight fail."""
        self._closed = True
        workers, self._workers = self._workers, []
        for worker in workers:
            with contextlib.suppress(OSError):
                worker.sock.shutdown(socket.SHUT_RDWR)  # EOF for the worker now, not when the loop next runs
            if worker.task is not None:
                with contextlib.suppress(RuntimeError):  # the event loop may be closed already
                    worker.task.cancel()
            self._retire(worker, BrokenProcessPool("the render pool was closed"))
        for process in [*(worker.process for worker in workers), *self._dead]:
            process.join(JOIN_SECONDS)
            if process.is_alive():
                log.warning("render worker %s did not end; killing it", process.pid)
                process.kill()
                process.join()
        self._dead.clear()

    @property
    def queued(self) -> int:
        """Jobs sent to the workers and not answered yet (being drawn, or waiting behind one)."""
        return sum(len(worker.jobs) for worker in self._workers)

    @property
    def pids(self) -> list[int]:
        """The live workers' process ids (tests, benches)."""
        return [worker.process.pid for worker in self._workers if worker.process.pid is not None]
