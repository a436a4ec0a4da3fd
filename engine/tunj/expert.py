"""Tunj's `expert`: the determinized search of engine.bots.search over the seat's view; it never slips.

Hidden from both seats alike: the face-down hands, the reserves under their top cards and the wastes under theirs
(the view shows counts and tops). A world deals those places from the two decks minus every card in sight (houses,
foundations, tops, the turned card). A rollout follows the `normal` bot's legal play (no slips) for `horizon` moves
and is scored by the burdens left (hand + waste + 2 x reserve, the deadlock rule's measure), or by the hand's points
when it ends first. A claim against the opponent is always called, as the `normal` and `strong` bots do.
"""

from __future__ import annotations

import random
from typing import Any

from engine.base import VERSION_KEY
from engine.bots.search import ExpertBot, SearchPlan, unseen
from engine.cards import french_deck
from engine.tunj.table import FOUNDATIONS, HOUSES, TURNED, burden, empty_piles, hand, houses_key, reserve, waste

_DECKS = french_deck(decks=2)


def sample(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A whole Tunj state agreeing with `view`; the face-down cards dealt at random from the unseen ones."""
    piles = empty_piles()
    for name, cards in zip(HOUSES, view["houses"], strict=True):
        piles[name] = list(cards)
    for name, cards in zip(FOUNDATIONS, view["foundations"], strict=True):
        piles[name] = list(cards)
    if view["turned"]:
        piles[TURNED] = [view["turned"]]
    seen = [card for pile in piles.values() for card in pile]
    seen += [pile["top"] for pile in view["reserves"] if pile["top"]]
    seen += [top for top in view["waste_tops"] if top]
    pool = unseen(_DECKS, seen)
    rng.shuffle(pool)
    for seat in (0, 1):
        top, count = view["reserves"][seat]["top"], view["reserves"][seat]["count"]
        piles[reserve(seat)] = _take(pool, max(0, count - 1)) + ([top] if top else [])
        wtop, wsize = view["waste_tops"][seat], view["waste_sizes"][seat]
        piles[waste(seat)] = _take(pool, max(0, wsize - 1)) + ([wtop] if wtop else [])
        piles[hand(seat)] = _take(pool, view["hand_sizes"][seat])
    owners = _owners(piles)
    return {
        "game": "tunj", VERSION_KEY: 2, "players": 2, "options": _options(view), "rng": rng.getrandbits(64),
        "round": view["round"], "scores": list(view["scores"]), "history": [list(r) for r in view["history"]],
        "over": False, "draw": False, "winners": [], "to_move": view["to_move"], "claim": None,
        "last_move": view["last_move"], "events": [], "turn_seen": [houses_key([piles[name] for name in HOUSES])],
        "start_seen": {}, "hand_result": None, "full_deal": True, "piles": piles, "owners": owners, "hand_log": [],
    }


def _owners(piles: dict[str, list[str]]) -> dict[str, list[int]]:
    """Whose deck each card came from, as far as a world needs it: one copy of each code per seat, so the hand
    can end (cards go home) in a world too. Which copy is whose does not change the play."""
    seen: dict[str, int] = {}
    owners: dict[str, list[int]] = {}
    for name, pile in piles.items():
        owners[name] = []
        for card in pile:
            owners[name].append(seen.get(card, 0))
            seen[card] = seen.get(card, 0) + 1
    return owners


def _options(view: dict[str, Any]) -> dict[str, Any]:
    options: dict[str, Any] = {"claim_seconds": view["claim_seconds"]}
    options["target"] = view["target"]
    return options


def _take(pool: list[str], count: int) -> list[str]:
    cards = pool[:count]
    del pool[:count]
    return cards


def _burdens(state: dict[str, Any], seat: int) -> list[float]:
    """Each seat's standing where a rollout stops: the opponent's burden less its own."""
    mine = [burden(state["piles"], s) for s in (0, 1)]
    return [float(mine[1] - mine[0]), float(mine[0] - mine[1])]


PLAN = SearchPlan("tunj", sample, rollouts=24, max_worlds=6, candidates=4, win_bonus=30.0, horizon=30,
                  estimate=_burdens)


class ExpertTunjBot(ExpertBot):
    def __init__(self) -> None:
        super().__init__(PLAN)

    def choose(self, view: dict[str, Any], legal: list[str], rng: random.Random,
               attempts: list[str] | None = None) -> str:
        if "tunj" in legal:  # the opponent slipped: always call it
            return "tunj"
        return super().choose(view, legal, rng)
