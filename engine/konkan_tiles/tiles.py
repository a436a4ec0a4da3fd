"""Konkan tiles as the rules see them: colours, numbers, the round's joker, values, and the print order.

Tiles are plain NOTATION codes (`R9`, `K13`, `F`). Whether a code is wild depends on the round (the joker is the
indicator minus one), so every helper that must know takes the round's `joker` code (None: no joker this round).
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.cards import FALSE_JOKER, TILE_COLORS, parse_tile, tile_set

DECK = tile_set()  # 104 numbered tiles and the two false jokers
COLORS = TILE_COLORS  # R red, K black, B blue, Y yellow
HIGH_ACE = 14  # a 1 used high (12-13-1) sits in run position 14

Natural = tuple[str, int]  # (colour, number 1-13)


def joker_of(indicator: str | None) -> str | None:
    """The tile one below the indicator, same colour; 1 wraps to 13 (R9 -> R8, K1 -> K13)."""
    if indicator is None or indicator == FALSE_JOKER:
        return None
    number = int(indicator[1:])
    return f"{indicator[0]}{13 if number == 1 else number - 1}"


def natural(tile: str, joker: str | None) -> Natural | None:
    """The (colour, number) a tile plays as, or None for a real joker (wild). A false joker is the joker's tile."""
    if tile == FALSE_JOKER:
        if joker is None:
            raise ValueError("a false joker needs an indicator to know which tile it is")
        return joker[0], int(joker[1:])
    if tile == joker:
        return None
    return tile[0], int(tile[1:])


def is_wild(tile: str, joker: str | None) -> bool:
    return joker is not None and tile == joker


def code_of(color: str, number: int, joker: str | None) -> str:
    """The hand tile that plays as (colour, number): the false joker stands in for the joker's own tile."""
    number = 1 if number == HIGH_ACE else number
    code = f"{color}{number}"
    return FALSE_JOKER if code == joker else code


def number_value(number: int) -> int:
    """Face value 1-10; 11, 12, 13 count 10; a 1 counts 1 also when used high (position 14)."""
    if number == HIGH_ACE:
        return 1
    return 10 if number >= 11 else number


def tile_value(tile: str, joker: str | None) -> int:
    """Value of a tile by its face (a false joker counts as the tile it represents); a wild counts its face too."""
    if tile == FALSE_JOKER:
        return number_value(int(joker[1:])) if joker else 0
    return number_value(int(tile[1:]))


def tile_key(tile: str) -> tuple[int, int]:
    """Hand print order: by colour (R K B Y) then number; false jokers last."""
    if tile == FALSE_JOKER:
        return (len(COLORS), 0)
    return (COLORS.index(tile[0]), int(tile[1:]))


def sort_tiles(tiles: Iterable[str]) -> list[str]:
    return sorted(tiles, key=tile_key)


def bare(cell: str) -> str:
    """The physical tile of a meld cell (`R8:K9` -> `R8`)."""
    return cell.split(":", 1)[0]


__all__ = [
    "COLORS",
    "DECK",
    "FALSE_JOKER",
    "HIGH_ACE",
    "Natural",
    "bare",
    "code_of",
    "is_wild",
    "joker_of",
    "natural",
    "number_value",
    "parse_tile",
    "sort_tiles",
    "tile_key",
    "tile_value",
]
