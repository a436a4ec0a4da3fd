"""Kenza computer players.

The `normal` bot scores each legal move by what it banks now minus what it hands the next player: the points it
captures (gold dominates: the gold rey alone is worth twelve plain cards), and the best capture an unseen card could
make on the table it leaves behind. Unseen cards are the baraja minus its own hand and the table — all its seat sees.
"""

from __future__ import annotations

import random
from typing import Any

from engine.bots import RandomBot
from engine.cards import spanish_deck, spanish_value
from engine.kenza.rules import capture_subsets, card_points, pile_points

_DECK = spanish_deck()


class NormalBot:
    level = "normal"

    def choose(self, view: dict[str, Any], legal: list[str], rng: random.Random) -> str:
        if not legal:
            raise ValueError("no legal move to choose from")
        hand = view.get("hand", [])
        table = view["table"]
        total = view["capture_sum"]
        seen = set(hand) | set(table)
        unseen = [card for card in _DECK if card not in seen]
        cards_left = view["stock_size"] + sum(view["hand_sizes"]) - len(hand)
        scored = [(self._score(move, table, unseen, total, cards_left), rng.random(), move) for move in legal]
        scored.sort(reverse=True)
        return scored[0][2]

    def _score(self, move: str, table: list[str], unseen: list[str], total: int, cards_left: int) -> float:
        words = move.split()
        card, taken = words[1], words[3:]
        if taken:
            gain = pile_points(taken) + card_points(card) + 0.3 * (len(taken) + 1)
            after = [code for code in table if code not in taken]
        else:
            gain = -card_points(card) * 0.5 - (0.2 if spanish_value(card) == 7 else 0.0)
            after = table + [card]
        if cards_left == 0:
            # The last card of the deal: leftovers go to the last capturer, so capturing now is worth them too.
            return gain + (pile_points(after) if taken else 0.0)
        return gain - 0.8 * _threat(after, unseen, total)


def _threat(table: list[str], unseen: list[str], total: int) -> float:
    """The most an opponent could bank with one unseen card on this table (weighted by how likely it is held)."""
    if not table:
        return 0.0
    best = 0.0
    by_value: dict[int, list[str]] = {}
    for card in unseen:
        by_value.setdefault(spanish_value(card), []).append(card)
    for cards in by_value.values():
        probe = cards[0]
        subsets = capture_subsets(table, probe, total)
        if not subsets:
            continue
        take = max(pile_points([table[i] for i in subset]) for subset in subsets)
        own = max(card_points(card) for card in cards)
        likelihood = min(1.0, 0.35 * len(cards))
        best = max(best, (take + own) * likelihood)
    return best




def _expert() -> Any:
    from engine.kenza.expert import ExpertKenzaBot  # late: the expert module imports this one

    return ExpertKenzaBot()


BOTS = {"random": RandomBot, "normal": NormalBot, "expert": _expert}
