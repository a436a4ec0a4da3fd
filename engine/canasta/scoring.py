"""End-of-hand scoring (rules/canasta.md, "Scoring"): one total per team, with the items kept for display."""

from __future__ import annotations

from typing import Any

from engine.canasta.cards import total
from engine.canasta.melds import canasta_kind

CANASTA_BONUS = {"natural": 500, "mixed": 300}


def hand_points(state: dict[str, Any], went_out: int | None, concealed: bool) -> tuple[list[int], list[dict]]:
    """Each team's points for the hand that just ended, and the breakdown behind them."""
    players = state["players"]
    points: list[int] = []
    detail: list[dict[str, int]] = []
    for team in (0, 1):
        seats = [seat for seat in range(players) if seat % 2 == team]
        melds = [meld["cards"] for meld in state["melds"] if meld["team"] == team]
        kinds = [canasta_kind(cards) for cards in melds]
        canastas = sum(CANASTA_BONUS[kind] for kind in kinds if kind)
        reds = sum(len(state["red3s"][seat]) for seat in seats)
        red_bonus = 800 if reds == 4 else 100 * reds
        if not melds:
            red_bonus = -red_bonus
        out_bonus = 0
        if went_out is not None and went_out % 2 == team:
            out_bonus = 200 if concealed else 100
        melded = sum(total(cards) for cards in melds)
        in_hand = sum(total(state["hands"][seat]) for seat in seats)
        row = {
            "canastas": canastas,
            "red3s": red_bonus,
            "going_out": out_bonus,
            "melded": melded,
            "in_hand": -in_hand,
        }
        detail.append(row)
        points.append(sum(row.values()))
    return points, detail
