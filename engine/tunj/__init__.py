"""Tunj (طنج): two-player Crapette with calls on broken rules."""

from engine.tunj.game import GAME

__all__ = ["GAME"]
