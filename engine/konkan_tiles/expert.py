"""Konkan (tiles)' `expert`: the determinized search of engine.bots.search, worlds dealt from the seat's view.

Hidden from the seat: the other racks, the draw pile and the discards under the top one; a world deals them from
the tile set minus the seat's rack, the melds, the top discard and the indicator. The turn's bookkeeping the view
shows (the opening total so far, a taken tile still to lay, whether the seat must finish) is copied; what it does
not (which melds were laid this very turn) starts empty. A position in the middle of a finish (locks) is left to
the `normal` bot, as is any world in which a candidate fails. A rollout ends with the round or after `horizon`
moves.
"""

from __future__ import annotations

import random
from typing import Any

from engine.base import VERSION_KEY
from engine.bots.search import ExpertBot, SearchPlan, real, unseen
from engine.konkan_tiles.melds import KONKAN_RUN, read, table_entries
from engine.konkan_tiles.scoring import NOT_OPENED, hand_penalty
from engine.konkan_tiles.tiles import DECK


def sample(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A whole Konkan (tiles) state agreeing with `view`; hidden tiles dealt at random from the unseen ones."""
    players, seat = view["players"], view["seat"]
    hand = list(view["hand"])
    top = view["discard_top"]
    seen = hand + [real(tile) for meld in view["melds"] for tile in meld["cards"]] + ([top] if top else [])
    if view["indicator"]:
        seen.append(view["indicator"])
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
    discard = ([top] if top else []) + pool[: max(0, view["discard_size"] - 1)]
    mover = view["to_move"]
    turn = {"seat": mover, "taken": view["taken"], "taken_laid": False, "opening": view["opening"], "laid": [],
            "finish": None, "must_finish": view["must_finish"], "opened_now": False}
    take_from = view["take_from"]
    return {
        "game": "konkan_tiles", VERSION_KEY: 2, "players": players,
        "options": {"mode": view["mode"], "rules": view["rules"]}, "rng": rng.getrandbits(64),
        "round": view["round"], "rounds": view["rounds"], "decider": view["decider"], "forced": list(view["forced"]),
        "scores": list(view["scores"]), "history": [list(row) for row in view["history"]], "over": False,
        "winners": [], "draw": False, "last_move": view["last_move"], "ghosts": list(view["ghosts"]),
        "last_round": view["last_round"], "round_log": [], "captain": view["captain"], "hands": hands,
        "stock": stock, "discard": discard, "indicator": view["indicator"], "joker": view["joker"],
        "melds": [_table_meld(meld, view["joker"]) for meld in view["melds"]],
        "opened": list(view["opened"]), "konkan": list(view["konkan"]), "eliminated": list(view["eliminated"]),
        "stolen": [view["stolen"] if s == seat else 0 for s in range(players)],
        "konkan_takes": list(view["konkan_takes"]), "reshuffles": 3 - view["reshuffles_left"],
        "locks_used": 0, "to_move": mover, "phase": view["phase"], "turn": turn,
        "last_discard": None if take_from is None else {"seat": take_from, "takeable": True,
                                                        "konkan": view["konkan"][take_from]},
    }


def _table_meld(meld: dict[str, Any], joker: str | None) -> dict[str, Any]:
    """A view's meld as the state holds it: its reading (colour, number, span) worked out from its cells."""
    shapes = [shape for shape in read(table_entries(meld), joker, konkan=len(meld["cards"]) >= KONKAN_RUN)
              if shape.kind == meld["kind"] and list(shape.cells) == list(meld["cards"])]
    shapes = shapes or [shape for shape in read(table_entries(meld), joker, konkan=len(meld["cards"]) >= KONKAN_RUN)
                        if shape.kind == meld["kind"]]
    table = shapes[0].as_table(meld["seat"]) if shapes else {"color": None, "number": None, "low": 0, "high": 0}
    return {**table, "seat": meld["seat"], "kind": meld["kind"], "cards": list(meld["cards"]),
            "locked": list(meld["locked"])}


def _exposure(state: dict[str, Any], seat: int) -> list[float]:
    """What each side stands to collect where a rollout stops: half of what the other side's seats would pay
    if the round ended now (100 for a seat not yet opened, its rack's penalty otherwise)."""
    owed = [0.0, 0.0]
    for other in range(state["players"]):
        if state["eliminated"][other] or state["opened"][other] is None:
            penalty = NOT_OPENED
        else:
            penalty = hand_penalty(state["hands"][other], state["joker"], state["stolen"][other])
        owed[1 - other % 2] += 0.5 * penalty
    return owed


PLAN = SearchPlan("konkan_tiles", sample, rollouts=12, max_worlds=4, candidates=3, win_bonus=100.0, horizon=16,
                  estimate=_exposure)


class ExpertKonkanTilesBot(ExpertBot):
    def __init__(self) -> None:
        super().__init__(PLAN)

    def choose(self, view: dict[str, Any], legal: list[str], rng: random.Random,
               attempts: list[str] | None = None) -> str:
        if view.get("finish") is not None or view.get("phase") != "play":
            return self.policy.choose(view, legal, rng)
        return super().choose(view, legal, rng)
