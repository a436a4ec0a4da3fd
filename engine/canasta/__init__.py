"""Canasta (كاناستا): the two-deck rummy of sets by rank, for two partnerships of two or for two players."""

from engine.canasta.game import GAME, CanastaGame

__all__ = ["GAME", "CanastaGame"]
