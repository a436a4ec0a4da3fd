"""Tunj positions built from an explicit layout, for tests that need one exact table rather than a deal."""

from __future__ import annotations

from typing import Any

import engine

GAME = engine.get("tunj")
KINGS = ["KS", "KH", "KD", "KC"]


def table(reserves=((), ()), hands=((), ()), houses=None, *, wastes=((), ()), foundations=None,
          to_move: int = 0) -> dict[str, Any]:
    """Houses default to lone kings, so only a queen fits on any of them unless a test says otherwise; houses are
    given bottom first as {"H3": [...]}, foundations as {"F4": [...]}."""
    houses = {f"H{i}": [KINGS[(i - 1) % 4]] for i in range(1, 9)} | (houses or {})
    foundations = foundations or {}
    return GAME.new(2, layout={
        "reserves": [list(p) for p in reserves],
        "hands": [list(p) for p in hands],
        "wastes": [list(p) for p in wastes],
        "houses": [houses[f"H{i}"] for i in range(1, 9)],
        "foundations": [foundations.get(f"F{i}", []) for i in range(1, 9)],
        "to_move": to_move,
    })
