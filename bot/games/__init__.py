"""Per-game chat layouts: how a game's moves become buttons and short texts.

A new game plugs in by adding `bot/games/<game_id>.py` with `UI = SomeGameUI()` — the service and the adapters
find it by name and need no edit.
"""

from __future__ import annotations

import importlib
from functools import cache

from bot.games.base import GameUI, UIButton


@cache
def ui_for(game_id: str) -> GameUI:
    """The layout of a game; KeyError when the game has no chat layout yet."""
    try:
        module = importlib.import_module(f"bot.games.{game_id}")
    except ModuleNotFoundError as error:
        raise KeyError(game_id) from error
    return module.UI


def playable_games() -> list[str]:
    """Games that have both an engine and a chat layout, in the engine's order."""
    import engine

    out = []
    for game_id in engine.game_ids():
        try:
            ui_for(game_id)
        except KeyError:
            continue
        out.append(game_id)
    return out


__all__ = ["GameUI", "UIButton", "playable_games", "ui_for"]
