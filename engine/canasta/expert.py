"""Canasta's `expert`: the determinized search of engine.bots.search, worlds dealt from the seat's view.

Hidden from the seat: the other hands, the stock and the discard pile under its top card (the view shows its size
and whether it is frozen, so a world's pile keeps that: a frozen pile holds a wild card or a red 3, an unfrozen one
none). Everything else — melds, red 3s, the top card, what the seat itself took — is in the view. A rollout plays
to the end of the hand, which is when Canasta scores.
"""

from __future__ import annotations

import random
from typing import Any

from engine.base import VERSION_KEY
from engine.bots.search import ExpertBot, SearchPlan, real, unseen
from engine.canasta.cards import DECK, is_red_three, is_wild
from engine.canasta.scoring import hand_points


def sample(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A whole Canasta state agreeing with `view`; the hidden cards dealt at random from the unseen ones."""
    players, seat = view["players"], view["seat"]
    hand = list(view["hand"])
    top = view["discard_top"]
    taken = list(view["taken_cards"] or [])
    seen = hand + taken + [real(card) for meld in view["melds"] for card in meld["cards"]]
    seen += [card for cards in view["red3s"] for card in cards] + ([top] if top else [])
    if view["must_use"]:
        seen.append(view["must_use"])
    pool = unseen(DECK, seen)
    rng.shuffle(pool)
    turn = view["turn"]
    pending = None
    if view["must_use"]:
        rest = taken if seat == turn else _draw(pool, view["pile_taken"])
        pending = {"top": view["must_use"], "rest": rest,
                   "frozen": not view["opened"][turn % 2] or any(is_wild(c) or is_red_three(c) for c in rest)}
    # the pile under the top: frozen piles hold a freezing card, others none
    under = max(0, view["pile_size"] - 1)
    freezing = [card for card in pool if is_wild(card) or is_red_three(card)]
    plain = [card for card in pool if not (is_wild(card) or is_red_three(card))]
    pile_rest: list[str] = []
    if under:
        top_freezes = top is not None and (is_wild(top) or is_red_three(top))
        if view["frozen"] and not top_freezes and freezing:
            pile_rest.append(freezing.pop())
        pile_rest += plain[: under - len(pile_rest)]
        pile_rest += freezing[: under - len(pile_rest)]  # only if the plain cards ran out
    pool = _without(pool, pile_rest)
    hands = []
    for other, size in enumerate(view["hand_sizes"]):
        hands.append(hand if other == seat else _draw(pool, size))
    stock = _draw(pool, view["stock_size"])
    melds = [{"team": meld["team"], "rank": meld["rank"], "cards": list(meld["cards"])} for meld in view["melds"]]
    opened_now = any(meld["team"] == turn % 2 for meld in melds)
    return {
        "game": "canasta", VERSION_KEY: 2, "players": players,
        "options": {"variant": view["variant"], "target": view["target"]}, "rng": rng.getrandbits(64),
        "round": view["round"], "scores": list(view["scores"]), "history": [list(r) for r in view["history"]],
        "over": False, "winners": [], "last_move": view["last_move"], "last_hand": view["last_hand"],
        "dealer": view["dealer"], "hands": hands, "stock": stock, "discard": ([top] if top else []) + pile_rest,
        "melds": melds, "red3s": [list(cards) for cards in view["red3s"]],
        # scores change only when a hand ends: today's totals are the hand's starting ones
        "hand_start_scores": list(view["scores"]), "turn": turn, "phase": view["phase"], "ask": view["ask"],
        "pending": pending, "opened_at_turn_start": opened_now,
        "hand_log": [],
    }


def _draw(pool: list[str], count: int) -> list[str]:
    """The first `count` cards of the shuffled pool, taken out of it."""
    cards = pool[:count]
    del pool[:count]
    return cards


def _without(pool: list[str], cards: list[str]) -> list[str]:
    left = list(pool)
    for card in cards:
        left.remove(card)
    return left


def _hand_so_far(state: dict[str, Any], seat: int) -> list[float]:
    """Each team's points if the hand ended here without anyone going out: what the melds, canastas, red 3s
    and the cards still held are worth, the score a rollout cut short stands for."""
    return [float(points) for points in hand_points(state, None, False)[0]]


PLAN = SearchPlan("canasta", sample, rollouts=24, max_worlds=8, candidates=4, win_bonus=500.0, horizon=40,
                  estimate=_hand_so_far)


class ExpertCanastaBot(ExpertBot):
    def __init__(self) -> None:
        super().__init__(PLAN)
