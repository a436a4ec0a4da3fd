"""The bracket's arithmetic: single elimination, seeded, with byes — no I/O.

Seeds are 1 (the strongest) to n. The bracket has the next power of two of places; the places beyond n are byes,
and the standard seeding order puts them against the best seeds (1 meets the last seed or a bye, and 1 and 2 can
only meet in the final). Game `slot` of round r (both from 1) is fed by games 2*slot-1 and 2*slot of round r-1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from storage.stats import seat_outcomes


def bracket_size(entries: int) -> int:
    """Places in the first round: the smallest power of two holding every entry (at least 2)."""
    return max(2, 1 << max(0, math.ceil(math.log2(max(entries, 1)))))


def rounds(entries: int) -> int:
    return int(math.log2(bracket_size(entries)))


def seed_order(size: int) -> list[int]:
    """Seeds by first-round place: [1, 4, 2, 3] for 4, [1, 8, 4, 5, 2, 7, 3, 6] for 8 (each pair sums to size+1)."""
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for first in order for seed in (first, total - first)]
    return order


def draw(entry_ids_by_seed: Sequence[int]) -> list[tuple[int, int, int | None, int | None]]:
    """Every game of the bracket as (round, slot, entry_a, entry_b): the first round filled (None: a bye), the
    later rounds empty until their feeders are decided."""
    size = bracket_size(len(entry_ids_by_seed))
    order = seed_order(size)

    def entry(seed: int) -> int | None:
        return entry_ids_by_seed[seed - 1] if seed <= len(entry_ids_by_seed) else None

    games: list[tuple[int, int, int | None, int | None]] = [
        (1, slot + 1, entry(order[2 * slot]), entry(order[2 * slot + 1])) for slot in range(size // 2)]
    for round_number in range(2, rounds(len(entry_ids_by_seed)) + 1):
        games += [(round_number, slot, None, None) for slot in range(1, (size >> round_number) + 1)]
    return games


def feeds(round_number: int, slot: int) -> tuple[int, int, str]:
    """Where the winner of a game goes: (round, slot, "entry_a" or "entry_b")."""
    return round_number + 1, (slot + 1) // 2, "entry_a" if slot % 2 else "entry_b"


def match_seats(team_size: int) -> int:
    """Seats of a bracket match: one side per entry; a team of two sits at seats {0, 2} or {1, 3}."""
    return 2 * team_size


def seat_players(a: Sequence[int], b: Sequence[int]) -> list[int]:
    """The players in seat order: A's first, B's first, A's second, B's second (partners face each other)."""
    out: list[int] = []
    for pair in zip(a, b, strict=True):
        out += list(pair)
    return out


def winning_side(result: dict[str, Any], seats: int) -> int | None:
    """0 when entry A (seat 0's side) won the match, 1 when entry B did, None for a draw."""
    outcomes = seat_outcomes(result, seats)
    a_won, b_won = outcomes[0][0], outcomes[1][0]
    if a_won == b_won:
        return None
    return 0 if a_won else 1
