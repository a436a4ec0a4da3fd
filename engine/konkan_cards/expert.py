"""Konkan (cards)' `expert`: the determinized search of engine.bots.search, worlds dealt from the seat's view.

Hidden from the seat: the other hands, the stock and the discard pile under its top card; a world deals them from
the two decks minus the seat's hand, the melds and the top discard. The turn's bookkeeping the view does not show
(how many turns each seat has played, when it first laid) is filled so that no Konkan or Hand bonus is credited for
melds already on the table: the search values what the seat can still do. A rollout ends with the round (or after
`horizon` moves, the cards held then scored as if the round ended void).
"""

from __future__ import annotations

import random
from typing import Any

from engine.base import VERSION_KEY
from engine.bots.search import ExpertBot, SearchPlan, real, unseen
from engine.konkan_cards.cards import DECK
from engine.konkan_cards.scoring import round_points


def sample(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A whole Konkan (cards) state agreeing with `view`; hidden cards dealt at random from the unseen ones."""
    players, seat = view["players"], view["seat"]
    hand = list(view["hand"])
    top = view["discard_top"]
    seen = hand + [real(card) for meld in view["melds"] for card in meld["cards"]] + ([top] if top else [])
    pool = unseen(DECK, seen)
    rng.shuffle(pool)
    hands = []
    for other, size in enumerate(view["hand_sizes"]):
        if other == seat:
            hands.append(hand)
        else:
            hands.append(pool[:size])
            del pool[:size]
    stock = pool[: view["stock_size"]]
    del pool[: view["stock_size"]]
    pile = ([top] if top else []) + pool[: max(0, view["pile_size"] - 1)]
    melds = [{"seat": meld["seat"], "kind": meld["kind"], "cards": list(meld["cards"])} for meld in view["melds"]]
    lays = [sum(1 for meld in melds if meld["seat"] == s) for s in range(players)]
    turns = [1] * players
    if view["can_commit"]:
        turns[seat] = 0
    return {
        "game": "konkan_cards", VERSION_KEY: 2, "players": players, "options": {"variant": view["variant"]},
        "rng": rng.getrandbits(64), "round": view["round"], "scores": list(view["scores"]),
        "history": [list(row) for row in view["history"]], "over": False, "winners": [], "konkan_winner": None,
        "last_move": view["last_move"], "last_round": view["last_round"], "round_log": [],
        "dealer": view["dealer"], "hands": hands, "stock": stock, "discard": pile, "melds": melds,
        "reshuffles_left": view["reshuffles_left"], "committed": list(view["committed"]), "turns": turns,
        "laid": lays, "opened_before": [False] * players,
        # melds already down were not laid in a seat's last turn: no Konkan is credited for them
        "first_lay": [-1 if count else None for count in lays], "touched": [False] * players,
        "must_use": view["must_use"], "turn": view["turn"], "phase": view["phase"],
    }


def _cards_held(state: dict[str, Any], seat: int) -> list[float]:
    """Each seat's penalty if the round stopped here, void (the cards it holds, or the flat never-opened price)."""
    opened = [any(meld["seat"] == s for meld in state["melds"]) for s in range(state["players"])]
    return [float(points) for points in round_points(state["hands"], opened, state["committed"], None, False)[0]]


PLAN = SearchPlan("konkan_cards", sample, rollouts=24, max_worlds=8, candidates=4, win_bonus=100.0, horizon=40,
                  estimate=_cards_held)


class ExpertKonkanCardsBot(ExpertBot):
    def __init__(self) -> None:
        super().__init__(PLAN)
