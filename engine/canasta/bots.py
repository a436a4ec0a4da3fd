"""Canasta computer players.

The `normal` bot plays the textbook beginner's plan the seed's tips describe: take the pile whenever it may
(a taken pile is the big swing of the game), open as soon as the minimum allows, meld naturals at once, keep wild
cards for openings and for completing canastas, go out as soon as the whole hand can be melded, and discard what
the opponents can least use (black 3s first, never a wild card, never a rank the opponents have melded).
It decides from its seat's view and the legal moves only.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from engine.bots import RandomBot
from engine.canasta.cards import is_black_three, is_wild, rank_key, sort_cards, total, value
from engine.canasta.melds import Slot, going_out_plan


def _parse(move: str) -> tuple[str, list[str], int | None]:
    """(verb, cards, meld number) of a canonical move string."""
    words = move.split()
    if words[0] == "add":
        return "add", words[1:-2], int(words[-1])
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
        phase = view["phase"]
        if phase == "answer":
            return "answer yes" if total(view["hand"]) < 100 else "answer no"
        if phase == "draw":
            return "take" if "take" in legal else ("draw" if "draw" in legal else "pass")
        if view["must_use"]:
            return max(legal, key=lambda move: self._forced_score(move, rng))
        team = view["team"]
        own = [meld for meld in view["melds"] if meld["team"] == team]
        finish = self._going_out(view, own, legal)
        if finish:
            return finish
        meld = self._meld(view, own, legal)
        if meld:
            return meld
        return self._discard(view, legal)

    # ---- after taking the pile ------------------------------------------------------------------------------
    @staticmethod
    def _forced_score(move: str, rng: random.Random) -> float:
        _, cards, _ = _parse(move)
        wilds = sum(1 for card in cards if is_wild(card))
        return len(cards) - wilds * 3 + rng.random() * 0.01

    # ---- going out ------------------------------------------------------------------------------------------
    def _going_out(self, view: dict[str, Any], own: list[dict], legal: list[str]) -> str | None:
        if view["ask"] == "no":
            return None
        hand = view["hand"]
        slots = {meld["rank"]: _slot(meld["cards"]) for meld in own}
        # Here no taken top card is pending, so an unopened team drew from the stock: its concealed going out
        # needs no minimum (rules file, "Going out").
        plan = going_out_plan(hand, slots, opened=bool(own), minimum=0, need=view["canastas_needed"])
        if plan is None:
            return None
        numbers = {meld["rank"]: meld["number"] for meld in own}
        steps: list[tuple[int, str]] = []
        if not own and plan.new:
            ordered = sorted(plan.new, key=lambda group: rank_key(_rank_of(group)))
            steps.append((0, "meld " + " | ".join(" ".join(sort_cards(group)) for group in ordered)))
        else:
            for group in plan.new:
                steps.append((1, "meld " + " ".join(sort_cards(group))))
            for rank, cards in plan.adds.items():
                meld = next(meld for meld in own if meld["rank"] == rank)
                completes = len(meld["cards"]) < 7 <= len(meld["cards"]) + len(cards)
                steps.append((0 if completes else 1, f"add {' '.join(sort_cards(cards))} to {numbers[rank]}"))
        for _, move in sorted(steps):
            if move in legal:
                return move
        if plan.discard and f"discard {plan.discard}" in legal and len(hand) == 1:
            return f"discard {plan.discard}"
        return None

    # ---- melding --------------------------------------------------------------------------------------------
    def _meld(self, view: dict[str, Any], own: list[dict], legal: list[str]) -> str | None:
        """Open as soon as possible; then lay naturals on our melds, wilds only to make canastas, and keep enough
        cards (pairs above all) to take the next pile."""
        hand = view["hand"]
        canastas = sum(1 for meld in own if meld["canasta"])
        short = canastas < view["canastas_needed"]
        by_number = {meld["number"]: meld for meld in own}
        best: tuple[float, str] | None = None
        for move in legal:
            verb, cards, number = _parse(move)
            if verb not in ("meld", "add"):
                continue
            wilds = [card for card in cards if is_wild(card)]
            naturals = len(cards) - len(wilds)
            left = len(hand) - len(cards)
            if verb == "meld":
                if own and (wilds or left < 5):
                    continue
                score = naturals * 10 + total(cards) * 0.1 - sum(value(card) for card in wilds) * 0.4
                if not own:
                    score += 100  # opening unfreezes the pile for us: worth a wild card or two
            else:
                meld = by_number[number]
                size = len(meld["cards"])
                completes = size < 7 <= size + len(cards)
                pushes = short and (size >= 5 or (size >= 4 and len(hand) <= 4))
                if wilds and not (completes or pushes):
                    continue
                if wilds and meld["canasta"] == "natural":
                    continue
                if left < 3 and not completes:
                    continue
                score = naturals * 10 + (60 if completes else 0) - len(wilds) * 5
            if best is None or score > best[0]:
                best = (score, move)
        return best[1] if best else None

    # ---- discarding -----------------------------------------------------------------------------------------
    def _discard(self, view: dict[str, Any], legal: list[str]) -> str:
        hand = view["hand"]
        counts = Counter(card[0] for card in hand if not is_wild(card))
        team = view["team"]
        theirs = {meld["rank"] for meld in view["melds"] if meld["team"] != team}
        mine = {meld["rank"] for meld in view["melds"] if meld["team"] == team}
        their_pile_open = not view["frozen_for"][1 - team]
        options = [move for move in legal if move.startswith("discard")]
        if not options:
            return legal[0]

        def danger(move: str) -> float:
            card = move.split()[1]
            if is_wild(card):
                return 1000.0
            if is_black_three(card):
                return -100.0
            risk = 0.0
            if card[0] in theirs and their_pile_open:
                risk += 300.0
            risk += {1: 0.0, 2: 80.0}.get(counts[card[0]], 150.0)
            if card[0] in mine:
                risk += 120.0
            return risk - value(card) * 0.5

        return min(options, key=lambda move: (danger(move), move))


def _rank_of(cards: list[str]) -> str:
    return next(card[0] for card in cards if not is_wild(card))


def _slot(cards: list[str]) -> Slot:
    wilds = sum(1 for card in cards if is_wild(card))
    return Slot(len(cards) - wilds, wilds)


def _expert() -> Any:
    from engine.canasta.expert import ExpertCanastaBot  # late: the expert's search asks this module for "normal"

    return ExpertCanastaBot()


BOTS = {"random": RandomBot, "normal": NormalBot, "expert": _expert}
