"""Judging a Tunj move against the building rules and the three mandatory priorities.

The game never refuses a placement that breaks a rule: the opponent may call "Tunj" on it. So judging gives
reasons (what the attempt broke) and the compulsory move it neglected, and leaves refusing to the game only
for what cannot be attempted at all.
"""

from __future__ import annotations

from typing import Any

from engine.tunj.moves import Move
from engine.tunj.rules import fits_foundation, fits_house, fits_load, is_run, run_capacity, run_length
from engine.tunj.table import (
    FOUNDATIONS,
    HOUSES,
    TURNED,
    hand,
    houses_key,
    reserve,
    source_pile,
    target_pile,
    waste,
)

Piles = dict[str, list[str]]

TURNED_FIRST = "the turned card must be played before any other move"
PRIORITY_TEXT = {
    1: "priority 1: your reserve top card can go to a foundation and must go first",
    2: "priority 2: an available card can go to a foundation, which comes before any other move",
    3: "priority 3: an empty house must be filled from your reserve before turning a card",
}


def fits(piles: Piles, seat: int, card: str, dst: str) -> bool:
    """Whether one card may go to a move's TO under the building rules."""
    pile = piles[target_pile(seat, dst)]
    if dst[0] == "F":
        return fits_foundation(card, pile)
    if dst[0] == "H":
        return fits_house(card, pile)
    return fits_load(card, pile)


def _empty_houses(piles: Piles, besides: str) -> int:
    return sum(1 for name in HOUSES if name != besides and not piles[name])


def building_faults(piles: Piles, seat: int, move: Move) -> list[str]:
    """What `move` breaks among the building and turn rules; empty when it obeys them all."""
    faults: list[str] = []
    if piles[TURNED] and move.src != "T":
        faults.append(TURNED_FIRST)
    if move.kind != "move":
        return faults
    cards = piles[source_pile(seat, move.src)][-move.count :]
    if move.count > 1:
        if not is_run(cards):
            faults.append(f"{' '.join(cards)} is not a run (down by one, alternating colours)")
        if move.dst[0] != "H":
            faults.append("a run of several cards can only move to a house")
            return faults
        spare = _empty_houses(piles, move.dst)
        if move.count > run_capacity(spare):
            faults.append(f"a run of {move.count} cards needs more empty houses ({spare} spare allow "
                          f"{run_capacity(spare)})")
    if not fits(piles, seat, cards[0], move.dst):
        faults.append(_misfit(piles, seat, cards[0], move.dst))
    return faults


def _misfit(piles: Piles, seat: int, card: str, dst: str) -> str:
    pile = piles[target_pile(seat, dst)]
    where = {"OR": "the opponent's reserve", "OW": "the opponent's waste"}.get(dst, dst)
    if dst[0] == "F":
        return f"{card} cannot go on foundation {dst} (an ace starts it, then the same suit one rank up)"
    if dst[0] == "H":
        return f"{card} cannot go on {pile[-1]} in {dst} (one rank down, other colour)"
    if not pile:
        return f"{where} is empty and cannot be loaded"
    return f"{card} cannot load {pile[-1]} on {where} (same suit, one rank up or down)"


def foundation_for(piles: Piles, card: str) -> str | None:
    """The first foundation a card may go to (the one a corrected priority uses)."""
    for name in FOUNDATIONS:
        if fits_foundation(card, piles[name]):
            return name
    return None


def available(piles: Piles, seat: int) -> list[tuple[str, str]]:
    """(FROM, card) for each available card: reserve top, turned card, then the outer card of each house."""
    out: list[tuple[str, str]] = []
    if piles[reserve(seat)]:
        out.append(("R", piles[reserve(seat)][-1]))
    if piles[TURNED]:
        out.append(("T", piles[TURNED][-1]))
    out.extend((name, piles[name][-1]) for name in HOUSES if piles[name])
    return out


def neglected(piles: Piles, seat: int, move: Move, faults: list[str]) -> tuple[int, Move] | None:
    """The highest mandatory priority `move` neglects, with the compulsory move it should have been.

    Where several compulsory moves would do ("you choose which"), the one made for the player is the first
    in the order reserve, turned card, H1..H8, onto the first foundation that takes it.
    """
    to_foundation = move.kind == "move" and move.dst[0] == "F" and not faults
    top = piles[reserve(seat)][-1] if piles[reserve(seat)] else None
    if top is not None:
        target = foundation_for(piles, top)
        if target is not None:
            return None if to_foundation and move.src == "R" else (1, Move("move", "R", 1, target))
    for src, card in available(piles, seat):
        target = foundation_for(piles, card)
        if target is not None:
            return None if to_foundation else (2, Move("move", src, 1, target))
    if move.kind == "turn" and top is not None:
        for name in HOUSES:
            if not piles[name]:
                return 3, Move("move", "R", 1, name)
    return None


def turned_playable(piles: Piles, seat: int) -> bool:
    """Whether the turned card has any place under the building rules (else it goes to the waste)."""
    card = piles[TURNED][-1]
    targets = (*FOUNDATIONS, *HOUSES, "OR", "OW")
    return any(fits(piles, seat, card, dst) for dst in targets)


def houses_after(piles: Piles, move: Move) -> list[list[str]]:
    """The eight houses after a house-to-house move (for the within-turn no-repeat rule)."""
    houses = [piles[name] for name in HOUSES]
    i, j = HOUSES.index(move.src), HOUSES.index(move.dst)
    houses[j] = houses[j] + houses[i][-move.count :]
    houses[i] = houses[i][: -move.count]
    return houses


def repeats(state: dict[str, Any], move: Move) -> bool:
    """Whether a house-to-house move would bring back a position already seen this turn."""
    if move.kind != "move" or move.src[0] != "H" or move.dst[0] != "H":
        return False
    return houses_key(houses_after(state["piles"], move)) in state["turn_seen"]


def building_moves(state: dict[str, Any], seat: int) -> list[Move]:
    """Every move that obeys the building and turn rules and repeats no position of this turn.

    Moves neglecting a priority are included (they are attempts, which open a claim); the game's `legal_moves`
    leaves them out.
    """
    piles: Piles = state["piles"]
    moves: list[Move] = []
    if piles[TURNED]:
        sources = [("T", piles[TURNED][-1])]
    else:
        sources = [(src, card) for src, card in available(piles, seat)]
    for src, card in sources:
        for dst in FOUNDATIONS:
            if fits_foundation(card, piles[dst]):
                moves.append(Move("move", src, 1, dst))
        for dst in HOUSES:
            if dst != src and fits_house(card, piles[dst]):
                moves.append(Move("move", src, 1, dst))
        for dst in ("OR", "OW"):
            if fits(piles, seat, card, dst):
                moves.append(Move("move", src, 1, dst))
    if not piles[TURNED]:
        empties = [name for name in HOUSES if not piles[name]]
        for src in HOUSES:
            longest = run_length(piles[src])
            for count in range(2, longest + 1):
                base = piles[src][-count]
                for dst in HOUSES:
                    if dst == src or not fits_house(base, piles[dst]):
                        continue
                    spare = len(empties) - (1 if dst in empties else 0)
                    if count <= run_capacity(spare):
                        moves.append(Move("move", src, count, dst))
        if piles[hand(seat)] or piles[waste(seat)]:
            moves.append(Move("turn"))
    return [move for move in moves if not repeats(state, move)]
