"""How often the interpreter passes between threads, set for the bot's one busy thread and its database thread.

The event loop's thread runs Python almost all the time under load; SQLite's writes run on aiosqlite's thread
(storage/db.py), which lets go of the interpreter around every SQLite call and must then wait for the loop's
thread to hand it back. CPython hands it over every `sys.getswitchinterval()` (5 ms by default), so a write of
eight or so SQLite calls took tens of milliseconds while the loop was busy, and every read and write of the
process queued behind it. At a thousand live Tunj tables (bench/pipeline.py) 0.5 ms cut the writes over 80 ms
from 63-103 a run to 14, p99 from 175-352 ms to 83-148 ms (three runs) and the longest answer from 0.6-1.1 s to
0.2-0.4 s, with no more CPU per move.
"""

from __future__ import annotations

import sys

SWITCH_INTERVAL = 0.0005  # seconds


def share_the_interpreter() -> float:
    """Let a waiting thread in after at most `SWITCH_INTERVAL`; returns the interval it replaced."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_INTERVAL)
    return before
