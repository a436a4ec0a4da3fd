"""The piles of a Tunj table inside the JSON state, and who owns each card.

Every pile is a list with its top (outer) card last, so the common moves are list appends and pops.
`state["owners"]` mirrors `state["piles"]` card for card with the seat whose deck the card came from: the
two decks share card codes, so ownership cannot be read off the code, and cards must go home between hands.

Pile names: R0/R1 reserves, N0/N1 hands (face down), W0/W1 wastes, T the card turned this turn,
H1-H8 houses (H1-H4 dealt by seat 0), F1-F8 foundations.
"""

from __future__ import annotations

import hashlib
from typing import Any

SEATS = (0, 1)
HOUSES = tuple(f"H{i}" for i in range(1, 9))
FOUNDATIONS = tuple(f"F{i}" for i in range(1, 9))
TURNED = "T"


def reserve(seat: int) -> str:
    return f"R{seat}"


def hand(seat: int) -> str:
    return f"N{seat}"


def waste(seat: int) -> str:
    return f"W{seat}"


PILE_NAMES = (
    *(reserve(s) for s in SEATS),
    *(hand(s) for s in SEATS),
    *(waste(s) for s in SEATS),
    TURNED,
    *HOUSES,
    *FOUNDATIONS,
)


def empty_piles() -> dict[str, list[Any]]:
    return {name: [] for name in PILE_NAMES}


def source_pile(seat: int, src: str) -> str:
    """The pile a move's FROM names, seen from the mover."""
    return reserve(seat) if src == "R" else src


def target_pile(seat: int, dst: str) -> str:
    """The pile a move's TO names, seen from the mover (OR/OW are the opponent's)."""
    if dst == "OR":
        return reserve(1 - seat)
    if dst == "OW":
        return waste(1 - seat)
    return dst


def transfer(state: dict[str, Any], src: str, dst: str, count: int = 1) -> list[str]:
    """Move the top `count` cards from one pile to another keeping their order; returns them."""
    piles, owners = state["piles"], state["owners"]
    cards = piles[src][-count:]
    marks = owners[src][-count:]
    del piles[src][-count:]
    del owners[src][-count:]
    piles[dst].extend(cards)
    owners[dst].extend(marks)
    return cards


def flip_waste(state: dict[str, Any], seat: int) -> None:
    """Turn the waste over into the hand without shuffling: the first card wasted is the next turned."""
    piles, owners = state["piles"], state["owners"]
    piles[hand(seat)] = piles[waste(seat)][::-1] + piles[hand(seat)]
    owners[hand(seat)] = owners[waste(seat)][::-1] + owners[hand(seat)]
    piles[waste(seat)] = []
    owners[waste(seat)] = []


def player_empty(piles: dict[str, list[str]], seat: int) -> bool:
    """A normal win: reserve, hand and waste all empty (and no turned card still to play)."""
    return not (piles[reserve(seat)] or piles[hand(seat)] or piles[waste(seat)] or piles[TURNED])


def burden(piles: dict[str, list[str]], seat: int) -> int:
    """Hand + waste + twice the reserve: what a seat's leftover cards cost it."""
    return len(piles[hand(seat)]) + len(piles[waste(seat)]) + 2 * len(piles[reserve(seat)])


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def houses_key(houses: list[list[str]] | tuple[list[str], ...]) -> str:
    """Fingerprint of the eight houses: within a turn only house-to-house moves can come back to a position."""
    return _digest("|".join(",".join(pile) for pile in houses))


def position_key(piles: dict[str, list[str]], seat: int) -> str:
    """Fingerprint of the whole table with the seat to move, for the deadlock rule."""
    return _digest(f"{seat}/" + "|".join(",".join(piles[name]) for name in PILE_NAMES))
