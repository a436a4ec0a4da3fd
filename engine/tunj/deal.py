"""Setting up a Tunj hand: each seat deals from its own deck, or piles come from an explicit layout."""

from __future__ import annotations

from collections import Counter
from typing import Any

from engine import rng
from engine.cards import check_counts, french_deck, parse_french
from engine.tunj.rules import fits_foundation, start_strength
from engine.tunj.table import FOUNDATIONS, HOUSES, SEATS, empty_piles, hand, reserve, waste

RESERVE_SIZE = 13
HOUSES_PER_SEAT = 4


def seat_houses(seat: int) -> tuple[str, ...]:
    return HOUSES[HOUSES_PER_SEAT * seat : HOUSES_PER_SEAT * (seat + 1)]


def deal(state: dict[str, Any]) -> None:
    """Each seat shuffles its own 52 cards: 13 to the reserve (top face up), 4 houses, 35 to the hand."""
    piles, owners = empty_piles(), empty_piles()
    for seat in SEATS:
        state["rng"], deck = rng.shuffled(state["rng"], french_deck())
        piles[reserve(seat)] = deck[:RESERVE_SIZE]
        for offset, name in enumerate(seat_houses(seat)):
            piles[name] = [deck[RESERVE_SIZE + offset]]
        piles[hand(seat)] = deck[RESERVE_SIZE + HOUSES_PER_SEAT :]
        for name in (reserve(seat), hand(seat), *seat_houses(seat)):
            owners[name] = [seat] * len(piles[name])
    state["piles"], state["owners"] = piles, owners


def starter(piles: dict[str, list[str]]) -> int:
    """Higher reserve top starts (A, K ... 2; spades > hearts > diamonds > clubs).

    [decision] Identical tops compare the houses left to right (H1 with H5, H2 with H6, ...); a table
    identical even there (or a layout without reserves) starts with seat 0.
    """
    pairs = [(reserve(0), reserve(1)), *zip(seat_houses(0), seat_houses(1), strict=True)]
    for mine, theirs in pairs:
        a, b = piles[mine], piles[theirs]
        if a and b and start_strength(a[-1]) != start_strength(b[-1]):
            return 0 if start_strength(a[-1]) > start_strength(b[-1]) else 1
        if a and not b:
            return 0
        if b and not a:
            return 1
    return 0


def load_layout(state: dict[str, Any], layout: dict[str, Any]) -> int:
    """Fill the piles from a NOTATION.md layout; returns the seat to move first.

    Reserves, hands and wastes are given top first, houses and foundations bottom first. [decision] Owners
    follow where a card lies (a seat's piles and houses H1-H4 / H5-H8); when both copies of a code would
    belong to one seat, or a card lies on a foundation, it goes to the deck still missing that code.
    """
    unknown = sorted(set(layout) - {"reserves", "houses", "hands", "wastes", "foundations", "to_move"})
    if unknown:
        raise ValueError(f"unknown layout key(s) for tunj: {', '.join(unknown)}")
    piles = empty_piles()
    for key, name_of in (("reserves", reserve), ("hands", hand), ("wastes", waste)):
        given = _seat_lists(layout, key)
        for seat in SEATS:
            piles[name_of(seat)] = [parse_french(card) for card in reversed(given[seat])]
    for key, names in (("houses", HOUSES), ("foundations", FOUNDATIONS)):
        given = layout.get(key) or [[] for _ in names]
        if len(given) != len(names):
            raise ValueError(f"layout {key!r} needs {len(names)} lists, bottom first")
        for name, cards in zip(names, given, strict=True):
            piles[name] = [parse_french(card) for card in cards]
    for name in FOUNDATIONS:
        pile = piles[name]
        if any(not fits_foundation(pile[i], pile[:i]) for i in range(len(pile))):
            raise ValueError(f"foundation {name} must go up by suit from the ace: {pile}")
    everything = [card for pile in piles.values() for card in pile]
    if "X" in everything:
        raise ValueError("Tunj is played without jokers")
    check_counts(everything, french_deck(2))
    state["piles"], state["owners"] = piles, _owners(piles)
    to_move = layout.get("to_move")
    if to_move is None:
        return starter(piles)
    if to_move not in SEATS:
        raise ValueError("layout 'to_move' must be 0 or 1")
    return int(to_move)


def _seat_lists(layout: dict[str, Any], key: str) -> list[list[str]]:
    given = layout.get(key) or [[], []]
    if len(given) != 2:
        raise ValueError(f"layout {key!r} needs one list per seat, top first")
    return [list(cards or []) for cards in given]


def _natural_owner(name: str) -> int | None:
    if name[0] in "RNW":
        return int(name[1])
    if name in HOUSES:
        return HOUSES.index(name) // HOUSES_PER_SEAT
    return None


def _owners(piles: dict[str, list[str]]) -> dict[str, list[int]]:
    """Give every layout card a deck so that no deck holds a code twice."""
    taken: dict[str, set[int]] = {}
    owners: dict[str, list[int]] = {name: [0] * len(pile) for name, pile in piles.items()}
    pending: list[tuple[str, int, str]] = []
    for name, pile in piles.items():
        natural = _natural_owner(name)
        for index, card in enumerate(pile):
            used = taken.setdefault(card, set())
            if natural is not None and natural not in used:
                owners[name][index] = natural
                used.add(natural)
            else:
                pending.append((name, index, card))
    for name, index, card in pending:
        free = [seat for seat in SEATS if seat not in taken[card]]
        owners[name][index] = free[0]
        taken[card].add(free[0])
    return owners


def deck_contents(state: dict[str, Any]) -> list[Counter[str]]:
    """The cards each seat's deck has on the table now (for sending cards home and checking conservation)."""
    decks: list[Counter[str]] = [Counter(), Counter()]
    for name, pile in state["piles"].items():
        for card, owner in zip(pile, state["owners"][name], strict=True):
            decks[owner][card] += 1
    return decks
