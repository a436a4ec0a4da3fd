"""What a bench run cost the machine and the platform, beyond wall time: CPU seconds (this process and any worker
processes it started, e.g. a render pool), resident memory, and how often each chat was written to.

CPU time is steadier than wall time on a machine shared with other work, so capacity figures are quoted per CPU
second. Worker processes are read from /proc while they live (a pool's workers are reaped only when it shuts down,
so `RUSAGE_CHILDREN` would miss them); on a system without /proc only this process is counted.
"""

from __future__ import annotations

import asyncio
import gc
import multiprocessing
import os
import resource
import time
from collections import defaultdict, deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _proc_cpu(pid: int) -> float:
    """User + system CPU seconds of a live process (0 when /proc cannot tell)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / _TICKS  # utime, stime (fields 14 and 15 of stat)


def _proc_status_kib(pid: int, key: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def workers() -> list[int]:
    """Process ids of this process's live worker processes (multiprocessing children)."""
    return [child.pid for child in multiprocessing.active_children() if child.pid is not None]


@dataclass
class CpuMeter:
    """CPU seconds spent between `start()` and `stop()` by this process and its workers (those alive at either
    end: a worker started in between is counted from its birth)."""

    _self: float = 0.0
    _workers: dict[int, float] = field(default_factory=dict)
    seconds: float = 0.0
    worker_seconds: float = 0.0

    def start(self) -> None:
        self._self = time.process_time()
        self._workers = {pid: _proc_cpu(pid) for pid in workers()}

    def stop(self) -> None:
        own = time.process_time() - self._self
        self.worker_seconds = sum(_proc_cpu(pid) - self._workers.get(pid, 0.0) for pid in workers())
        self.seconds = own + self.worker_seconds


@dataclass
class GcMeter:
    """Time this process spent in the cyclic garbage collector between `start()` and `stop()`: every pause stops
    the event loop, so the longest one shows in the latency's tail, and a thousand live matches make the oldest
    generation's passes long."""

    seconds: float = 0.0
    longest: float = 0.0
    passes: list[int] = field(default_factory=lambda: [0, 0, 0])  # per generation
    _began: float = 0.0

    def start(self) -> None:
        gc.callbacks.append(self._seen)

    def stop(self) -> None:
        if self._seen in gc.callbacks:
            gc.callbacks.remove(self._seen)

    def _seen(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._began = time.thread_time()
            return
        # CPU time of the collecting thread: it holds the interpreter for the whole pass, and wall time would also
        # count the moments the machine gave the core to another process.
        pause = time.thread_time() - self._began
        self.seconds += pause
        self.longest = max(self.longest, pause)
        self.passes[info["generation"]] += 1


def rss_bytes() -> int:
    """This process's resident memory now (bytes)."""
    try:
        return int(Path("/proc/self/statm").read_text().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def peak_rss_mib() -> tuple[float, float]:
    """(this process's peak RSS, the sum of its live workers' peak RSS) in MiB."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return own, sum(_proc_status_kib(pid, "VmHWM") for pid in workers()) / 1024


def combined_rss_bytes() -> int:
    """This process's resident memory plus its live workers' now (bytes)."""
    return rss_bytes() + sum(_proc_status_kib(pid, "VmRSS") for pid in workers()) * 1024


@dataclass
class RssSampler:
    """The highest resident memory of this process and its workers *together*, sampled every `every` seconds
    (the sum of each one's own peak overstates it: a worker peaks while it starts, the service later)."""

    every: float = 0.2
    peak: int = 0

    async def run(self) -> None:
        while True:
            self.peak = max(self.peak, combined_rss_bytes())
            await asyncio.sleep(self.every)


@dataclass
class ChatWrites:
    """Messages sent or edited per chat over time, to check the platform's per-chat limits (Telegram: about 20 a
    minute in a group, about one a second in any chat)."""

    times: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))

    def record(self, chat_id: str, at: float | None = None) -> None:
        self.times[chat_id].append(time.monotonic() if at is None else at)

    def max_in_window(self, seconds: float, chats: Iterable[str] | None = None) -> int:
        """The most writes any one of `chats` (default: all) received within any `seconds`-long window."""
        best = 0
        for chat in self.times if chats is None else chats:
            window: deque[float] = deque()
            for at in sorted(self.times.get(chat, ())):
                window.append(at)
                while window[0] <= at - seconds:
                    window.popleft()
                best = max(best, len(window))
        return best

    def groups(self) -> list[str]:
        """Telegram's group chats: negative ids."""
        return [chat for chat in self.times if chat.startswith("-")]
