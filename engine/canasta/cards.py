"""Canasta's view of the French cards: which are wild, what each is worth, how melds print.

Kept apart from the rules so the meld search, the scoring and the bots read one table of values
(rules/canasta.md, "Cards").
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.cards import JOKER, check_counts, french_deck, parse_french, split_wild
from engine.errors import IllegalMove

DECK = french_deck(decks=2, jokers=4)  # 108 cards
RED_THREES = frozenset({"3H", "3D"})
BLACK_THREES = frozenset({"3S", "3C"})
# Ranks a team can meld, low to high; "3" is only ever a meld of black 3s laid when going out.
MELD_RANKS = "3456789TJQKA"
NATURAL_RANKS = "456789TJQKA"
_SUIT_ORDER = {"S": 0, "H": 1, "D": 2, "C": 3}
_RANK_ORDER = {rank: index for index, rank in enumerate(MELD_RANKS)}
_VALUES = {"A": 20, "2": 20, "K": 10, "Q": 10, "J": 10, "T": 10, "9": 10, "8": 10}


def is_wild(card: str) -> bool:
    return card == JOKER or card[0] == "2"


def is_red_three(card: str) -> bool:
    return card in RED_THREES


def is_black_three(card: str) -> bool:
    return card in BLACK_THREES


def value(card: str) -> int:
    """Points of a card melded or left in hand (a red 3 scores only as a bonus, so 0 here)."""
    if card == JOKER:
        return 50
    if card in RED_THREES:
        return 0
    return _VALUES.get(card[0], 5)


def total(cards: Iterable[str]) -> int:
    return sum(value(card) for card in cards)


def card_key(card: str) -> tuple[int, int, int]:
    """Naturals by rank then suit, then the 2s, then jokers: the order melds and hands print in."""
    if card == JOKER:
        return (2, 0, 0)
    if card[0] == "2":
        return (1, 0, _SUIT_ORDER[card[1]])
    return (0, _RANK_ORDER.get(card[0], -1), _SUIT_ORDER[card[1]])


def rank_key(rank: str) -> int:
    return _RANK_ORDER[rank]


def sort_cards(cards: Iterable[str]) -> list[str]:
    return sorted(cards, key=card_key)


def parse_card(token: str) -> tuple[str, str | None]:
    """A typed card, possibly written `X:7H`: (canonical card, rank it stands for or None)."""
    real, stands = split_wild(token)
    card = parse_french(real)
    if stands is None:
        return card, None
    if not is_wild(card):
        raise IllegalMove(f"only a wild card can stand for another ('{token}')", "canasta.wild_only_stands",
                          token=token)
    target = parse_french(stands)
    if is_wild(target) or target[0] == "3":
        raise IllegalMove(f"a wild card stands for a natural card from 4 to ace, not {target}", "canasta.wild_target",
                          card=target)
    return card, target[0]


def check_deck(cards: Iterable[str]) -> None:
    """ValueError when a layout holds a card more often than the two decks and four jokers do."""
    check_counts(cards, DECK)
