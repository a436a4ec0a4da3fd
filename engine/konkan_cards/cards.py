"""Konkan's view of the French cards: 106 of them, what each is worth, and the order melds and hands print in.

Kept apart from the rules so melds, scoring, bots and the renderer read one table of values
(rules/konkan-cards.md, "Melds" and "Scoring").
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.cards import FRENCH_RANKS, FRENCH_SUITS, JOKER, check_counts, french_deck, parse_french, split_wild
from engine.errors import IllegalMove

DECK = french_deck(decks=2, jokers=2)  # 106 cards
SUIT_ORDER = {suit: index for index, suit in enumerate(FRENCH_SUITS)}
JOKER_PENALTY = 15


def is_joker(card: str) -> bool:
    """True for the joker, whether plain (`X`) or standing for a card in a meld (`X:7H`)."""
    return card == JOKER or card.startswith(JOKER + ":")


def rank_number(card: str) -> int:
    """1 for the ace up to 13 for the king (the ace's high position, 14, is a meld's business)."""
    return FRENCH_RANKS.index(card[0]) + 1


def rank_value(rank: str) -> int:
    """Points of a rank: 2-10 face value, J/Q/K 10, ace 11."""
    if rank == "A":
        return 11
    if rank in "TJQK":
        return 10
    return int(rank)


def penalty(card: str) -> int:
    """Points of a card left in a loser's hand: rank value, the joker 15."""
    return JOKER_PENALTY if is_joker(card) else rank_value(card[0])


def hand_points(cards: Iterable[str]) -> int:
    return sum(penalty(card) for card in cards)


def card_key(card: str) -> tuple[int, int, int]:
    """Hands print by rank (ace first) then suit, jokers last."""
    if is_joker(card):
        return (1, 0, 0)
    return (0, rank_number(card), SUIT_ORDER[card[1]])


def suit_key(card: str) -> tuple[int, int, int]:
    """By suit then rank, jokers last: the order runs are easiest to see in."""
    if is_joker(card):
        return (1, 0, 0)
    return (0, SUIT_ORDER[card[1]], rank_number(card))


def sort_cards(cards: Iterable[str]) -> list[str]:
    return sorted(cards, key=card_key)


def parse_token(token: str) -> tuple[str, str | None]:
    """A typed card, possibly `X:7H`: (canonical card, canonical card the joker stands for, or None)."""
    real, stands = split_wild(token)
    card = parse_french(real)
    if stands is None:
        return card, None
    if card != JOKER:
        raise IllegalMove(f"only the joker can stand for another card ('{token}')", "konkan.joker_only_stands",
                          token=token)
    target = parse_french(stands)
    if target == JOKER:
        raise IllegalMove("a joker stands for a real card, e.g. X:7H", "konkan.joker_target")
    return card, target


def check_deck(cards: Iterable[str]) -> None:
    """ValueError when a layout holds a card more often than two decks and two jokers do."""
    check_counts((JOKER if is_joker(card) else card for card in cards), DECK)
