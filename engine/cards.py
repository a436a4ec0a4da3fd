"""Card and tile codes of NOTATION.md for the three systems: French 52 + jokers, Spanish 40, tiles 104 + 2.

Cards are plain strings in their canonical code everywhere in game states, so states stay JSON and logs stay
readable. This module owns reading a typed code into the canonical one and building the decks.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from engine.errors import IllegalMove

# ---- French cards (Canasta, Konkan cards, Tunj) -------------------------------------------------------------
FRENCH_RANKS = "A23456789TJQK"
FRENCH_SUITS = "SHDC"
JOKER = "X"
RED_SUITS = frozenset("HD")
_FRENCH_RE = re.compile(r"^(10|[A2-9TJQK])([SHDC])$")


def parse_french(token: str) -> str:
    """Canonical French code for a typed card (`10h` -> `TH`, `x` -> `X`)."""
    text = token.strip().upper()
    if text == JOKER:
        return JOKER
    match = _FRENCH_RE.match(text)
    if not match:
        raise IllegalMove(f"'{token}' is not a card (e.g. AS, TH, 7C, X)", "not_a_card", token=token,
                          examples="AS, TH, 7C, X")
    rank = "T" if match.group(1) == "10" else match.group(1)
    return rank + match.group(2)


def french_rank(code: str) -> str:
    return code[0]


def french_suit(code: str) -> str:
    return code[1] if len(code) == 2 else ""


def french_rank_index(code: str) -> int:
    """1 for the ace up to 13 for the king."""
    return FRENCH_RANKS.index(code[0]) + 1


def is_red(code: str) -> bool:
    return french_suit(code) in RED_SUITS


def french_deck(decks: int = 1, jokers: int = 0) -> list[str]:
    """`decks` full 52-card decks plus `jokers` jokers, in a fixed order (shuffle with engine.rng)."""
    one = [rank + suit for suit in FRENCH_SUITS for rank in FRENCH_RANKS]
    return one * decks + [JOKER] * jokers


# ---- Spanish baraja (Kenza, Rabaeen) ------------------------------------------------------------------------
SPANISH_VALUES = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)
SPANISH_SUITS = "OCEB"  # oros, copas, espadas, bastos
_SPANISH_RE = re.compile(r"^(\d{1,2})([OCEB])$")


def parse_spanish(token: str) -> str:
    """Canonical Spanish code for a typed card (`6o` -> `6O`, `12c` -> `12C`)."""
    text = token.strip().upper()
    match = _SPANISH_RE.match(text)
    if not match or int(match.group(1)) not in SPANISH_VALUES:
        raise IllegalMove(f"'{token}' is not a card (e.g. 1O, 7C, 10E, 12B)", "not_a_card", token=token,
                          examples="1O, 7C, 10E, 12B")
    return f"{int(match.group(1))}{match.group(2)}"


def spanish_value(code: str) -> int:
    """The printed number: 1-7, sota 10, caballo 11, rey 12 (also the Kenza summing value)."""
    return int(code[:-1])


def spanish_suit(code: str) -> str:
    return code[-1]


def spanish_deck() -> list[str]:
    return [f"{value}{suit}" for suit in SPANISH_SUITS for value in SPANISH_VALUES]


# ---- Tiles (Konkan tiles) -----------------------------------------------------------------------------------
TILE_COLORS = "RKBY"  # red, black, blue, yellow
FALSE_JOKER = "F"
_TILE_RE = re.compile(r"^([RKBY])(\d{1,2})$")


def parse_tile(token: str) -> str:
    """Canonical tile code (`r9` -> `R9`, `f` -> `F`)."""
    text = token.strip().upper()
    if text == FALSE_JOKER:
        return FALSE_JOKER
    match = _TILE_RE.match(text)
    if not match or not 1 <= int(match.group(2)) <= 13:
        raise IllegalMove(f"'{token}' is not a tile (e.g. R9, K13, B1, F)", "not_a_tile", token=token,
                          examples="R9, K13, B1, F")
    return f"{match.group(1)}{int(match.group(2))}"


def tile_set() -> list[str]:
    """104 numbered tiles (two of each colour and number) and the two false jokers."""
    one = [f"{color}{number}" for color in TILE_COLORS for number in range(1, 14)]
    return one * 2 + [FALSE_JOKER] * 2


# ---- shared helpers -----------------------------------------------------------------------------------------
def split_wild(token: str) -> tuple[str, str | None]:
    """`X:7H` -> ("X", "7H"); `7H` -> ("7H", None). Codes are returned as typed (caller parses)."""
    if ":" in token:
        real, _, stands = token.partition(":")
        return real.strip(), stands.strip()
    return token.strip(), None


def check_counts(cards: Iterable[str], full_deck: Iterable[str], what: str = "card") -> None:
    """Refuse a layout that holds a card more often than the game's deck has it."""
    have = Counter(cards)
    limit = Counter(full_deck)
    for code, count in have.items():
        if count > limit.get(code, 0):
            raise ValueError(f"{what} {code} appears {count} times; the deck has {limit.get(code, 0)}")


def remove_cards(pile: list[str], cards: Iterable[str]) -> list[str]:
    """A copy of `pile` without one copy of each of `cards`; IllegalMove if one is missing."""
    rest = list(pile)
    for card in cards:
        try:
            rest.remove(card)
        except ValueError:
            raise IllegalMove(f"{card} is not in your hand", "not_in_hand", card=card) from None
    return rest
