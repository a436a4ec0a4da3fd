"""Reads kept for the update that made them, while other updates run interleaved on the same event loop.

Each update (command, press, timer tick) starts from the database (bot/core/state.py `_fresh_reads`) and may
then reuse what it read. Clearing one shared cache at each update's start served that rule, but with hundreds of
tables in play every other update's start cleared this one's reads half-way, and a delivery read again what its
press had just read. Here an entry serves only the update that stored it (its number, in a context variable that
the update's own tasks inherit), so interleaved updates no longer throw each other's reads away.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")

LIMIT = 4096  # entries kept at most; beyond, the next update's start empties the cache (stale entries add up)


class PerUpdate(Generic[K, V]):
    def __init__(self, update: ContextVar[int], limit: int = LIMIT) -> None:
        self._update = update
        self._limit = limit
        self._entries: dict[K, tuple[int, V]] = {}

    def get(self, key: K, default: V | None = None) -> V | None:
        """The value this update stored under `key`; another update's entry is not this one's to trust."""
        hit = self._entries.get(key)
        return hit[1] if hit is not None and hit[0] == self._update.get() else default

    def __setitem__(self, key: K, value: V) -> None:
        self._entries[key] = (self._update.get(), value)

    def pop(self, key: K, default: V | None = None) -> V | None:
        """Forget `key` for every update (a write through this process changed it)."""
        hit = self._entries.pop(key, None)
        return default if hit is None else hit[1]

    def trim(self) -> None:
        if len(self._entries) > self._limit:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)
