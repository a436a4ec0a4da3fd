"""Kenza (كينزة) and its sister Rabaeen (ربعين): the Moroccan fifteen-capture game on the Spanish baraja."""

from engine.kenza.game import GAME, KenzaGame

__all__ = ["GAME", "KenzaGame"]
