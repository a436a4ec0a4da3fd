"""End-of-round scoring (rules/konkan-cards.md, "Scoring"; lower is better)."""

from __future__ import annotations

from typing import Any

from engine.konkan_cards.cards import hand_points

OUT = -30
OUT_BY_HAND = -60
NEVER_OPENED = 100


def round_points(
    hands: list[list[str]], opened: list[bool], committed: list[bool], went_out: int | None, by_hand: bool
) -> tuple[list[int], list[dict[str, Any]]]:
    """Each seat's points for the round, and why.

    `went_out` is None for a void round (the stock ran out a fourth time): everybody scores as a loser, undoubled.
    A committed seat that did not complete its Konkan never opened (it may not meld otherwise), so it takes the
    flat 100/200 like any seat that never opened. After a Hand the hand-sum losers are doubled; the never-opened
    200 already includes the doubling (the rules file's decision).
    """
    points: list[int] = []
    detail: list[dict[str, Any]] = []
    for seat, hand in enumerate(hands):
        if seat == went_out:
            value = OUT_BY_HAND if by_hand else OUT
            why = "hand" if by_hand else "out"
        elif opened[seat] and not committed[seat]:
            value = hand_points(hand) * (2 if by_hand else 1)
            why = "cards"
        else:
            value = NEVER_OPENED * (2 if by_hand else 1)
            why = "committed" if committed[seat] else "never_opened"
        points.append(value)
        detail.append({"points": value, "why": why})
    return points, detail
