"""Kenza bot strength: the `expert` bot against `normal` (or `random`), seeded matches, seats alternated.

    .venv/bin/python bench/kenza_strength.py [N=200] [--vs normal|random] [--players 2|4]

The same as `bench/expert_strength.py kenza`: prints the expert's wins, losses and draws and its decision times
(CPU ms, p50/p95/mean). The normal bot's own figure against random is `python -m bench.engine --strength kenza`.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.expert_strength import main  # noqa: E402

if __name__ == "__main__":
    main("kenza", sys.argv[1:] or ["200"])
