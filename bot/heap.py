"""The garbage collector, set for a long-running bot.

Everything alive once the bot has started (the imported modules of python-telegram-bot, discord.py,
SQLAlchemy, Babel, Pillow, the engines and their tables) lives until the process ends, yet every pass of the
collector's oldest generation walks all of it again: with the platforms' libraries loaded that is a pause of
about 0.1 s of a stopped event loop, several times a minute under load, which every player waiting on an answer
then feels (bench/pipeline.py prints the collector's pauses). `gc.freeze()` moves what exists now out of the
collector's sight; what the matches allocate later is still collected as before.
"""

from __future__ import annotations

import gc


def freeze_startup_heap() -> int:
    """Collect once, then leave everything alive now out of later collections; returns how many objects were
    frozen. Called once the bot has started (imports done, adapters up), before the first update."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
