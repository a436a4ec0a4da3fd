"""Coin tables as rules: which games offer a stake, the stakes the lobby offers, and the finishing order a pot
is paid by (konkan-cards.md, "Coin tables"). No I/O: the lobby, the presenter and the service all read it.
"""

from __future__ import annotations

from itertools import groupby
from typing import Any

import engine

COIN_GAMES = frozenset({"konkan_cards"})
STAKES = (0, 10, 50, 100, 250)  # what the lobby's stake button cycles through; `stake=N` may name any other
MAX_STAKE = 1_000_000


def parse_stake(text: str) -> int | None:
    """A stake typed in `/new game stake=N`: whole coins, ASCII digits only; None if it is not one."""
    if not (text.isascii() and text.isdigit()) or int(text) > MAX_STAKE:
        return None
    return int(text)


def next_stake(current: int) -> int:
    later = [stake for stake in STAKES if stake > current]
    return later[0] if later else STAKES[0]


def finishing_places(game_id: str, result: dict[str, Any], seats: int) -> list[list[int]]:
    """Seats grouped by finishing position, best first: the engine's winners (a committed-Konkan winner is
    among them and alone), then the others by total in the game's own direction, equal totals sharing a place."""
    winners = sorted(set(result.get("winners") or []))
    konkan = result.get("konkan_winner")
    if konkan is not None:
        winners = [konkan]
    scores = list(result.get("scores") or [])
    sign = 1 if engine.get(game_id).info.lower_is_better else -1

    def rank_key(seat: int) -> float:
        return sign * scores[seat] if seat < len(scores) else 0

    rest = sorted((seat for seat in range(seats) if seat not in winners), key=rank_key)
    places: list[list[int]] = [winners] if winners else []
    for _, group in groupby(rest, key=rank_key):
        places.append(list(group))
    return places
