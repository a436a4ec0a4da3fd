"""Round penalties (konkan-tiles.md, "Scoring: penalties"): the finisher's side collects from each opponent,
the partner is protected, and nobody scores in a void round.

A Konkan-10 finish (Sulaymaniyah) is a Konkan win too: it doubles the not-opened penalties and adds the +400.
"""

from __future__ import annotations

from typing import Any

from engine.konkan_tiles.tiles import tile_value

NOT_OPENED = 100
DEALT_JOKER = 25
STOLEN_JOKER = 2
SULAYMANIYAH_BONUS = 400
KONKAN_KINDS = ("konkan", "konkan10")


def hand_penalty(hand: list[str], joker: str | None, stolen: int) -> int:
    """An opened opponent's hand: face values (11-13 count 10, a false joker its tile's value), each joker 25,
    or 2 for a joker stolen from a meld."""
    jokers = sum(1 for tile in hand if joker is not None and tile == joker)
    cheap = min(stolen, jokers)
    faces = sum(tile_value(tile, joker) for tile in hand if tile != joker)
    return faces + DEALT_JOKER * (jokers - cheap) + STOLEN_JOKER * cheap


def round_points(state: dict[str, Any], finisher: int | None, kind: str) -> tuple[list[int], list[dict[str, Any]]]:
    """(points per side, one line per seat) for a round that ended with `finisher` (None: void) by `kind`."""
    points = [0, 0]
    if finisher is None:
        return points, []
    side = finisher % 2
    konkan_win = kind in KONKAN_KINDS
    detail = []
    for seat in range(state["players"]):
        if seat == finisher:
            detail.append({"seat": seat, "state": "finisher", "penalty": 0})
            continue
        if seat % 2 == side:
            detail.append({"seat": seat, "state": "partner", "penalty": 0})
            continue
        if state["eliminated"][seat]:
            status, penalty = "eliminated", NOT_OPENED * (2 if konkan_win else 1)
        elif state["opened"][seat] is None:
            status = "konkan" if state["konkan"][seat] else "not_opened"
            penalty = NOT_OPENED * (2 if konkan_win else 1)
        else:
            status = "opened"
            penalty = hand_penalty(state["hands"][seat], state["joker"], state["stolen"][seat])
        detail.append({"seat": seat, "state": status, "penalty": penalty})
        points[side] += penalty
    if kind == "konkan10":
        points[side] += SULAYMANIYAH_BONUS
    return points, detail
