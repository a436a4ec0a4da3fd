"""Where a bot's move is worked out: the searching level in a worker process, the quick ones on the loop.

An `expert` bot searches for up to about a second of CPU (engine.bots.search), which on the event loop would hold up
every other table's presses; it thinks in the picture workers instead (bot/core/pictures.py: the spare cores, or the
render thread when there are none). `random` and `normal` decide in well under a millisecond, less than sending the
job would cost, so they stay on the loop. A worker that dies while thinking (killed, out of memory) must not lose the
turn: that move is the `normal` bot's, decided on the loop from the same seed.
"""

from __future__ import annotations

import logging
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from bot.core.pictures import Pictures
from engine.bots import decide_seeded

log = logging.getLogger(__name__)

OFF_LOOP_LEVELS = frozenset({"expert"})  # the levels whose decisions are worth a worker's round trip
FALLBACK_LEVEL = "normal"


async def bot_move(pictures: Pictures, game_id: str, state: dict[str, Any], seat: int, level: str, seed: str, *,
                   slips: bool) -> str:
    """The move of the bot of `level` at `seat`, its dice seeded from `seed` (the match's seed and version)."""
    if level not in OFF_LOOP_LEVELS:
        return decide_seeded(game_id, state, seat, level, seed, slips)
    try:
        return await pictures.compute(decide_seeded, game_id, state, seat, level, seed, slips)
    except BrokenProcessPool:
        log.warning("a worker died while the %s bot of a %s table was thinking; the %s bot plays this move",
                    level, game_id, FALLBACK_LEVEL)
        return decide_seeded(game_id, state, seat, FALLBACK_LEVEL, seed, slips)
