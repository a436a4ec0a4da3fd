"""Pure game rules for Majlis: no I/O, no asyncio, deterministic from a seed or a layout.

    import engine
    game = engine.get("kenza")
    state = game.new(players=2, options={"target": 151}, seed=7)
"""

from __future__ import annotations

import importlib

from engine.base import Game, GameInfo, OptionSpec, State
from engine.errors import BadOption, IllegalMove

# game id -> module that defines `GAME`; a module not present yet is simply not offered.
_MODULES = {
    "canasta": "engine.canasta",
    "kenza": "engine.kenza",
    "konkan_cards": "engine.konkan_cards",
    "konkan_tiles": "engine.konkan_tiles",
    "tunj": "engine.tunj",
}
_loaded: dict[str, Game] = {}


def _load(game_id: str) -> Game | None:
    if game_id in _loaded:
        return _loaded[game_id]
    module_name = _MODULES.get(game_id)
    if module_name is None:
        return None
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name and module_name.startswith(error.name):
            return None
        raise
    game = module.GAME
    _loaded[game_id] = game
    return game


def game_ids() -> list[str]:
    """The ids of every game this build implements, sorted."""
    return sorted(game_id for game_id in _MODULES if _load(game_id) is not None)


def get(game_id: str) -> Game:
    """The rules object for a game id; KeyError for an unknown id."""
    game = _load(game_id)
    if game is None:
        raise KeyError(f"unknown game {game_id!r}; known: {', '.join(game_ids())}")
    return game


__all__ = ["BadOption", "Game", "GameInfo", "IllegalMove", "OptionSpec", "State", "game_ids", "get"]
