"""Where a bot's move is worked out: the searching level in worker processes of its own, the quick ones on the loop.

An `expert` bot searches for up to about a second of CPU (engine.bots.search), which on the event loop would hold up
every other table's presses, and in the picture workers would hold up every table's pictures; it thinks in a pool of
its own (`Thinkers`: as many processes as the pictures have, started when the first expert thinks, so a bot with no
expert seat pays nothing; with none, as in tests and the terminal, one thinking thread). `random` and `normal`
decide in well under a millisecond, less than sending the job would cost, so they stay on the loop. A worker that
dies while thinking (killed, out of memory) must not lose the turn: that move is the `normal` bot's, decided on the
loop from the same seed.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol, TypeVar

from bot.core.render_pool import RenderPool
from engine.bots import decide_seeded

log = logging.getLogger(__name__)
T = TypeVar("T")

OFF_LOOP_LEVELS = frozenset({"expert"})  # the levels whose decisions are worth a worker's round trip
FALLBACK_LEVEL = "normal"


class Computes(Protocol):
    async def compute(self, function: Any, *args: Any) -> Any: ...


def _start_thinker() -> None:
    """A thinking worker's start: every game's bots imported before its first decision."""
    import engine
    from engine.bots import get

    for game_id in engine.game_ids():
        get(game_id, "expert")


class Thinkers:
    """The processes (or, with `processes` 0, the one thread) that searching bots think in."""

    def __init__(self, processes: int) -> None:
        self._pool = RenderPool(processes, _start_thinker) if processes > 0 else None
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="think")

    async def compute(self, function: Any, *args: Any) -> Any:
        """`function(*args)` off the loop (BrokenProcessPool if its worker dies meanwhile)."""
        if self._pool is None:
            return await asyncio.get_running_loop().run_in_executor(self._thread, function, *args)
        return await self._pool.submit(function, *args)

    @property
    def pids(self) -> list[int]:
        return self._pool.pids if self._pool is not None else []

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
        self._thread.shutdown(wait=False)


async def bot_move(thinkers: Computes, game_id: str, state: dict[str, Any], seat: int, level: str, seed: str, *,
                   slips: bool) -> str:
    """The move of the bot of `level` at `seat`, its dice seeded from `seed` (the match's seed and version)."""
    if level not in OFF_LOOP_LEVELS:
        return decide_seeded(game_id, state, seat, level, seed, slips)
    try:
        return await thinkers.compute(decide_seeded, game_id, state, seat, level, seed, slips)
    except BrokenProcessPool:
        log.warning("a worker died while the %s bot of a %s table was thinking; the %s bot plays this move",
                    level, game_id, FALLBACK_LEVEL)
        return decide_seeded(game_id, state, seat, FALLBACK_LEVEL, seed, slips)
