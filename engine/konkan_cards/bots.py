"""Konkan (cards) computer players.

The `normal` bot plays the plan a Sahrat regular would teach: take the discard whenever it can be melded at once
(that is the only time taking is allowed, and it is a free card), open as soon as the minimum allows unless the
whole hand is one or two cards away from going out by Hand, lay off and meld everything once open (a joker freed
by a swap is laid on the table straight away, since one left in hand costs 15), and discard what the others can
use least: never a card that fits a table meld, and a lone card over one that has partners. In the final round it
commits to Konkan when its first hand is two cards (three when well behind) from one.
It decides from its seat's view and the legal moves only.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from engine.bots import RandomBot
from engine.cards import JOKER
from engine.errors import IllegalMove
from engine.konkan_cards.cards import penalty, rank_number
from engine.konkan_cards.melds import best_opening, candidate_melds, lay_off

HAND_CLOSE = 2  # cards left after the best opening at which the bot waits to go out by Hand instead
COMMIT_DISTANCE = 2
COMMIT_DISTANCE_BEHIND = 3
BEHIND = 60


def konkan_distance(hand: list[str]) -> int:
    """Roughly how many cards this hand lacks for a Konkan (run of 10 + set of 4, or 11 + 3); each meld may
    take one joker."""
    real = [card for card in hand if card != JOKER]
    jokers = len(hand) - len(real)
    counts = Counter(real)
    by_suit: dict[str, set[int]] = {}
    suits_of: dict[str, set[str]] = {}
    for card in real:
        positions = by_suit.setdefault(card[1], set())
        positions.add(rank_number(card))
        if card[0] == "A":
            positions.add(14)
        suits_of.setdefault(card[0], set()).add(card[1])
    best = 99
    for length in (10, 11):
        set_size = 14 - length
        for suit, positions in by_suit.items():
            for low in range(1, 15 - length + 1):
                window = [p for p in range(low, low + length)]
                run_missing = sum(1 for p in window if p not in positions)
                if run_missing - min(jokers, 1) >= best:
                    continue
                in_run = {"A23456789TJQKA"[p - 1] for p in window if p in positions}
                for rank, suits in suits_of.items():
                    usable = set(suits)
                    if rank in in_run and counts[rank + suit] < 2:
                        usable.discard(suit)
                    set_missing = max(0, set_size - len(usable))
                    absorbed = min(jokers, (run_missing > 0) + (set_missing > 0))
                    best = min(best, run_missing + set_missing - absorbed)
    return best


def _parse(move: str) -> tuple[str, list[str], int | None]:
    """(verb, cards, meld number) of a canonical move string."""
    words = move.split()
    if words[0] in ("add", "swap"):
        return words[0], words[1:-2], int(words[-1])
    if words[0] == "meld":
        return "meld", [word for word in words[1:] if word != "|"], None
    return words[0], words[1:], None


class NormalBot:
    level = "normal"

    def choose(self, view: dict[str, Any], legal: list[str], rng: random.Random) -> str:
        if not legal:
            raise ValueError("no legal move to choose from")
        if len(legal) == 1:
            return legal[0]
        seat = view["seat"]
        if "commit" in legal and self._should_commit(view):
            return "commit"
        legal = [move for move in legal if move != "commit"]
        phase = view["phase"]
        if phase == "draw":
            if "take" in legal and self._wants_take(view):
                return "take"
            return "draw"
        if phase == "first":
            return self._discard(view, legal)
        if view["committed"][seat]:
            melds = [move for move in legal if move.startswith("meld")]
            return melds[0] if melds else self._discard(view, legal)
        lays = [move for move in legal if move.split()[0] in ("meld", "add", "swap")]
        going_out = [move for move in lays if move.startswith("meld") and len(view["hand"]) - len(_parse(move)[1]) == 1]
        if going_out:
            return going_out[0]
        if view["must_use"]:
            return max(lays, key=lambda move: (len(_parse(move)[1]), move))
        if not view["opened"][seat]:
            opening = self._opening(view, lays)
            return opening or self._discard(view, legal)
        if lays:
            return max(lays, key=self._lay_score)
        return self._discard(view, legal)

    # ---- final round ------------------------------------------------------------------------------------------
    @staticmethod
    def _should_commit(view: dict[str, Any]) -> bool:
        hand = list(view["hand"])
        if len(hand) < 14:
            return False
        distance = min(konkan_distance([card for card in hand if card != drop]) for drop in set(hand))
        scores = view["scores"]
        behind = scores[view["seat"]] - min(scores) > BEHIND
        return distance <= (COMMIT_DISTANCE_BEHIND if behind else COMMIT_DISTANCE)

    # ---- drawing ----------------------------------------------------------------------------------------------
    @staticmethod
    def _wants_take(view: dict[str, Any]) -> bool:
        seat = view["seat"]
        if not view["committed"][seat]:
            return True  # taking is legal only when the card can be melded at once
        hand = list(view["hand"])
        now = konkan_distance(hand)
        return konkan_distance([*hand, view["discard_top"]]) < now

    # ---- melding ----------------------------------------------------------------------------------------------
    @staticmethod
    def _lay_score(move: str) -> tuple[int, int, int]:
        verb, cards, _ = _parse(move)
        order = {"meld": 2, "add": 1, "swap": 0}[verb]
        return (len(cards), order, sum(penalty(card) for card in cards))

    def _opening(self, view: dict[str, Any], lays: list[str]) -> str | None:
        """The opening that lays the most cards, unless a Hand is within reach and the round still young."""
        openings = [move for move in lays if move.startswith("meld")]
        if not openings:
            return None
        best = max(openings, key=lambda move: (len(_parse(move)[1]), move))
        hand = view["hand"]
        left = len(hand) - len(_parse(best)[1])
        plan = best_opening(hand, 0)
        plan_left = len(hand) - sum(meld.size for meld in plan) if plan else len(hand)
        seat = view["seat"]
        others_close = min(size for other, size in enumerate(view["hand_sizes"]) if other != seat) <= 5
        young = view["reshuffles_left"] >= 2 and not others_close and not any(view["opened"])
        if young and left > 1 and plan_left <= HAND_CLOSE + 1:
            return None
        return best

    # ---- discarding -------------------------------------------------------------------------------------------
    def _discard(self, view: dict[str, Any], legal: list[str]) -> str:
        options = [move for move in legal if move.startswith("discard")]
        if not options:
            return legal[0]
        hand = list(view["hand"])
        seat = view["seat"]
        if view["committed"][seat]:
            return min(options, key=lambda move: (konkan_distance(_without(hand, move.split()[1])), move))
        keep = Counter()
        for meld in candidate_melds(hand):
            if JOKER not in meld.use:
                keep.update(meld.use)
        table = [meld["cards"] for meld in view["melds"]]
        opened = view["opened"][seat]

        def cost(move: str) -> tuple[float, str]:
            card = move.split()[1]
            score = 0.0
            if keep[card]:
                score += 40 + 2 * keep[card]
            score += 12 * _partners(hand, card)
            if _fits_table(card, table):
                score += 60
            value = penalty(card)
            score += -value * 0.8 if opened else value * 0.2
            return (score, move)

        return min(options, key=cost)


def _without(hand: list[str], card: str) -> list[str]:
    rest = list(hand)
    rest.remove(card)
    return rest


def _partners(hand: list[str], card: str) -> int:
    """Cards that could meld with this one: same rank in another suit, or same suit within two ranks."""
    count = 0
    number = rank_number(card)
    for other in _without(hand, card):
        if other == JOKER:
            continue
        if other[0] == card[0] and other[1] != card[1]:
            count += 1
        elif other[1] == card[1] and other[0] != card[0]:
            gap = abs(rank_number(other) - number)
            if gap <= 2 or (card[0] == "A" and rank_number(other) >= 12) or (other[0] == "A" and number >= 12):
                count += 1
    return count


def _fits_table(card: str, table: list[list[str]]) -> bool:
    for cards in table:
        try:
            lay_off(cards, [(card, None)])
        except IllegalMove:
            continue
        return True
    return False


def _expert() -> Any:
    from engine.konkan_cards.expert import ExpertKonkanCardsBot  # late: its search asks this module for "normal"

    return ExpertKonkanCardsBot()


BOTS = {"random": RandomBot, "normal": NormalBot, "expert": _expert}
