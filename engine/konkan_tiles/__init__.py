"""Konkan with tiles (كنكان): the Iraqi/Kurdish tile rummy of 106 tiles, Erbil standard and Sulaymaniyah rules."""

from engine.konkan_tiles.game import GAME, KonkanTilesGame

__all__ = ["GAME", "KonkanTilesGame"]
