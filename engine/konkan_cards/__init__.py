"""Konkan with cards, Sahrat rules (كونكان سهرات): the two-deck Hand rummy with runs and sets, played to five rounds."""

from engine.konkan_cards.game import GAME, KonkanCardsGame

__all__ = ["GAME", "KonkanCardsGame"]
