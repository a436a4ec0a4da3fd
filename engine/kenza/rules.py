"""Kenza arithmetic: capture subsets and card points (kenza.md, "Turn" and "Scoring per deal").

Kept apart from the state machine so the bots and the chat UI can ask "what can this card take?" cheaply.
"""

from __future__ import annotations

from engine.cards import spanish_suit, spanish_value

CAPTURE_SUM = {"kenza": 15, "rabaeen": 40}
GOLD = "O"


def card_points(code: str) -> int:
    """Gold: ace 10, 2-7 face value, sota 10, caballo 11, rey 12 (70 for the suit); any other card 1."""
    if spanish_suit(code) != GOLD:
        return 1
    value = spanish_value(code)
    return 10 if value == 1 else value


def pile_points(cards: list[str]) -> int:
    return sum(card_points(card) for card in cards)


def capture_subsets(table: list[str], card: str, total: int) -> list[tuple[int, ...]]:
    """Every set of table positions whose values plus `card` make `total` exactly, in table order.

    A depth-first walk with the remaining sum as bound: values are positive, so a branch stops as soon as it
    overshoots, which keeps even a crowded Rabaeen table quick.
    """
    need = total - spanish_value(card)
    if need <= 0:
        return []
    values = [spanish_value(code) for code in table]
    order = sorted(range(len(table)), key=lambda index: values[index])
    found: list[tuple[int, ...]] = []
    chosen: list[int] = []

    def walk(start: int, remaining: int) -> None:
        for position in range(start, len(order)):
            index = order[position]
            value = values[index]
            if value > remaining:
                break
            chosen.append(index)
            if value == remaining:
                found.append(tuple(sorted(chosen)))
            else:
                walk(position + 1, remaining - value)
            chosen.pop()

    walk(0, need)
    found.sort()
    return found
