"""Runs and sets: reading a meld (where its joker stands), laying off, swapping a joker, and the searches built on
them (every meld a hand can lay, the best opening, a Konkan).

A meld is stored as its cards in print order: a run ascending (ace first when low, last when high) with its joker
written `X:7H`; a set by suit (S H D C) with a plain `X`, since a set's joker stands for its rank and whichever
suit is missing (rules/konkan-cards.md: swapping it takes *both* missing cards of a 3-card set).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import combinations

from engine.cards import FRENCH_RANKS, FRENCH_SUITS, JOKER
from engine.errors import IllegalMove
from engine.konkan_cards.cards import SUIT_ORDER, is_joker, rank_number, rank_value

# Searches are cached by a call (`f = lru_cache(...)(_f_uncached)`) rather than a decorator: mutmut leaves decorated
# functions unmutated, and these searches are the rules' core (scripts/mutate.py, docs/testing.md).

ACE_HIGH = 14
MAX_RUN = 13
Token = tuple[str, str | None]  # (card, what a joker stands for)


@dataclass(frozen=True)
class Meld:
    """One reading of a meld: its kind, cards in print order, and its worth towards an opening."""

    kind: str  # "run" | "set"
    cards: tuple[str, ...]
    value: int

    @cached_property
    def use(self) -> Counter:
        """The hand cards it takes (a joker is one `X` whatever it stands for)."""
        return Counter(JOKER if is_joker(card) else card for card in self.cards)

    @property
    def size(self) -> int:
        return len(self.cards)

    def text(self) -> str:
        return " ".join(self.cards)


def position_card(position: int, suit: str) -> str:
    """The card at a run position (1 = ace low ... 13 = king, 14 = ace high)."""
    return FRENCH_RANKS[(position - 1) % 13] + suit


def position_value(position: int) -> int:
    """Opening worth of a run position: the ace counts 1 low (A-2-3) and 11 high (Q-K-A)."""
    if position == 1:
        return 1
    if position == ACE_HIGH:
        return 11
    return rank_value(FRENCH_RANKS[position - 1])


def tokens_of(cards: Iterable[str]) -> list[Token]:
    """Stored meld cards back to tokens (`X:7H` -> ("X", "7H"))."""
    out: list[Token] = []
    for card in cards:
        if card.startswith(JOKER + ":"):
            out.append((JOKER, card[2:]))
        else:
            out.append((card, None))
    return out


# ---- reading a meld -------------------------------------------------------------------------------------------
def _set_reading(reals: list[str], joker: Token | None) -> tuple[Meld | None, IllegalMove | None]:
    ranks = {card[0] for card in reals}
    if len(ranks) != 1:
        return None, None
    rank = ranks.pop()
    suits = [card[1] for card in reals]
    if len(set(suits)) != len(suits):
        return None, IllegalMove("a set may not hold a suit twice", "konkan.set_suit_twice")
    size = len(reals) + (1 if joker else 0)
    if size > 4:
        return None, IllegalMove("a set has 3 or 4 cards, one of each suit", "konkan.set_size")
    if joker and joker[1] is not None and (joker[1][0] != rank or joker[1][1] in suits):
        return None, IllegalMove(f"in this set the joker can only stand for a missing {rank} ({joker[1]} is not)",
                                 "konkan.set_joker", rank=rank, card=joker[1])
    cards = sorted(reals, key=lambda card: SUIT_ORDER[card[1]]) + ([JOKER] if joker else [])
    return Meld("set", tuple(cards), rank_value(rank) * size), None


def _run_readings(reals: list[str], joker: Token | None) -> tuple[list[Meld], IllegalMove | None]:
    suits = {card[1] for card in reals}
    if len(suits) != 1:
        return [], None
    suit = suits.pop()
    numbers = [rank_number(card) for card in reals]
    if len(set(numbers)) != len(numbers):
        return [], IllegalMove("a run may not hold a rank twice", "konkan.run_rank_twice")
    readings: list[Meld] = []
    why = IllegalMove("a run's ranks must follow each other (no wrap-around: K-A-2 is not a run)", "konkan.run_gap")
    for ace in ((1, ACE_HIGH) if 1 in numbers else (1,)):
        positions = sorted(ace if number == 1 else number for number in numbers)
        low, high = positions[0], positions[-1]
        gaps = [p for p in range(low, high + 1) if p not in positions]
        if not joker:
            if not gaps and high - low + 1 <= MAX_RUN:
                readings.append(_run(positions, suit, None))
            continue
        if len(gaps) > 1:
            continue
        places = gaps if gaps else [p for p in (low - 1, high + 1) if 1 <= p <= ACE_HIGH]
        for place in places:
            span = [*positions, place]
            if max(span) - min(span) + 1 > MAX_RUN:
                continue
            if joker[1] is not None and position_card(place, suit) != joker[1]:
                why = IllegalMove(f"the joker cannot stand for {joker[1]} in this run", "konkan.run_joker",
                                  card=joker[1])
                continue
            readings.append(_run(span, suit, place))
    unique = {meld.cards: meld for meld in readings}
    return list(unique.values()), why


def _run(positions: list[int], suit: str, joker_at: int | None) -> Meld:
    cards = []
    for position in sorted(positions):
        card = position_card(position, suit)
        cards.append(f"{JOKER}:{card}" if position == joker_at else card)
    return Meld("run", tuple(cards), sum(position_value(p) for p in positions))


def readings(tokens: Sequence[Token]) -> tuple[list[Meld], IllegalMove]:
    """Every way `tokens` form a meld, and the refusal to raise when there is none."""
    jokers = [token for token in tokens if token[0] == JOKER]
    reals = [card for card, _ in tokens if card != JOKER]
    if len(jokers) > 1:
        return [], IllegalMove("a meld holds at most one joker", "konkan.one_joker")
    if len(tokens) < 3:
        return [], IllegalMove("a meld needs at least three cards", "konkan.three_cards")
    if any(stands is not None for card, stands in tokens if card != JOKER):
        return [], IllegalMove("only the joker can stand for another card", "konkan.only_joker_stands")
    joker = jokers[0] if jokers else None
    found: list[Meld] = []
    reasons: list[IllegalMove] = []
    as_set, why = _set_reading(reals, joker)
    if as_set:
        found.append(as_set)
    elif why:
        reasons.append(why)
    runs, why = _run_readings(reals, joker)
    found += runs
    if not runs and why and len({card[1] for card in reals}) == 1:
        reasons.append(why)
    if reasons:
        return found, reasons[0]
    return found, IllegalMove("a meld is a run (one suit, ranks in a row) or a set (one rank)", "konkan.not_a_meld")


def read_meld(tokens: Sequence[Token]) -> Meld:
    """The one reading of a meld; IllegalMove when it is not a meld or its joker's place is ambiguous.

    A joker-free run of all thirteen ranks reads either way round; it is taken with the ace high (worth 11).
    """
    found, refusal = readings(tokens)
    if not found:
        raise refusal
    if len(found) > 1:
        jokers = sorted({card for meld in found for card in meld.cards if card.startswith(JOKER + ":")})
        if len(jokers) > 1:
            raise IllegalMove(f"say where the joker goes: {' or '.join(jokers)}", "konkan.joker_where",
                              cards=" ".join(jokers))
        found.sort(key=lambda meld: -meld.value)
    return found[0]


def meld_problem(cards: Sequence[str]) -> str | None:
    """Why stored cards are not a valid meld, or None."""
    try:
        meld = read_meld(tokens_of(cards))
    except IllegalMove as error:
        return error.reason
    return None if meld.cards == tuple(cards) else "a meld is stored in print order"


def kind_of(cards: Sequence[str]) -> str:
    return read_meld(tokens_of(cards)).kind


def lay_off(table_cards: Sequence[str], added: Sequence[Token]) -> Meld:
    """The table meld grown by `added`; IllegalMove when they do not fit."""
    old = tokens_of(table_cards)
    if any(card == JOKER for card, _ in old) and any(card == JOKER for card, _ in added):
        raise IllegalMove("that meld already holds its one joker", "konkan.meld_has_joker")
    meld = read_meld([*old, *added])
    if meld.kind != read_meld(old).kind:
        raise IllegalMove("those cards do not fit that meld", "konkan.no_fit")
    return meld


def swap_needs(table_cards: Sequence[str]) -> list[str] | None:
    """The real cards that free the joker of a table meld (run: the card it stands for; set: every missing
    suit of its rank), or None when the meld holds no joker."""
    jokers = [card for card in table_cards if is_joker(card)]
    if not jokers:
        return None
    joker = jokers[0]
    if joker.startswith(JOKER + ":"):
        return [joker[2:]]
    reals = [card for card in table_cards if not is_joker(card)]
    rank = reals[0][0]
    have = {card[1] for card in reals}
    return [rank + suit for suit in FRENCH_SUITS if suit not in have]


def swapped(table_cards: Sequence[str], given: Sequence[str]) -> tuple[str, ...]:
    """The table meld after its joker is replaced by `given`; IllegalMove when they are not the right cards."""
    needs = swap_needs(table_cards)
    if needs is None:
        raise IllegalMove("that meld holds no joker", "konkan.swap_no_joker")
    if sorted(given) != sorted(needs):
        if len(needs) > 1:
            raise IllegalMove(f"to free a set's joker put down both missing cards: {' '.join(needs)}",
                              "konkan.swap_set_needs", cards=" ".join(needs))
        raise IllegalMove(f"the joker there stands for {needs[0]}", "konkan.swap_stands_for", card=needs[0])
    reals = [card for card in table_cards if not is_joker(card)] + list(given)
    return read_meld([(card, None) for card in reals]).cards


# ---- searches over a hand -------------------------------------------------------------------------------------
def candidate_melds(hand: Iterable[str]) -> list[Meld]:
    """Every distinct meld the hand can lay on its own (each joker placement its own meld), best worth first."""
    return list(_candidates(tuple(sorted(JOKER if is_joker(card) else card for card in hand))))


def _candidates_uncached(hand: tuple[str, ...]) -> tuple[Meld, ...]:
    """The search behind `candidate_melds`, cached by the sorted hand: a turn asks it several times."""
    counts = Counter(hand)
    jokers = counts[JOKER]
    out: dict[tuple[str, ...], Meld] = {}
    for suit in FRENCH_SUITS:
        present = {rank_number(card) for card in counts if card != JOKER and card[1] == suit}
        if 1 in present:
            present.add(ACE_HIGH)
        for low in range(1, ACE_HIGH - 1):
            for high in range(low + 2, min(ACE_HIGH, low + MAX_RUN - 1) + 1):
                missing = [p for p in range(low, high + 1) if p not in present]
                if len(missing) > 1 or (missing and not jokers):
                    if len(missing) > 1:
                        break
                    continue
                span = list(range(low, high + 1))
                if missing:
                    meld = _run(span, suit, missing[0])
                    out[meld.cards] = meld
                    continue
                meld = _run(span, suit, None)
                out[meld.cards] = meld
                if jokers:
                    for place in span:
                        meld = _run(span, suit, place)
                        out[meld.cards] = meld
    by_rank: dict[str, list[str]] = {}
    for card in counts:
        if card != JOKER:
            by_rank.setdefault(card[0], []).append(card)
    for cards in by_rank.values():
        for size in (3, 4):
            for chosen in combinations(sorted(cards, key=lambda c: SUIT_ORDER[c[1]]), size):
                meld, _ = _set_reading(list(chosen), None)
                out[meld.cards] = meld
            if jokers:
                for chosen in combinations(sorted(cards, key=lambda c: SUIT_ORDER[c[1]]), size - 1):
                    meld, _ = _set_reading(list(chosen), (JOKER, None))
                    out[meld.cards] = meld
    return tuple(sorted(out.values(), key=lambda meld: (-meld.value, -meld.size, meld.cards)))


_candidates = lru_cache(maxsize=4096)(_candidates_uncached)


def fits(use: Counter, counts: Counter) -> bool:
    return all(counts[card] >= number for card, number in use.items())


def keeps_a_discard(counts: Counter) -> bool:
    """A hand left after laying cards must hold a card to discard, and a joker is never discarded."""
    return any(number > 0 and card != JOKER for card, number in counts.items())


def best_opening(
    hand: Sequence[str],
    minimum: int,
    forced: str | None = None,
    node_limit: int = 40_000,
) -> list[Meld] | None:
    """The highest-valued set of melds the hand can lay in one move worth at least `minimum`, keeping a card to
    discard (ties: more cards laid). With `forced` (a just-taken discard) one meld must hold that card.

    A depth-first search over the candidate melds, pruned by the worth of the cards still in hand; capped at
    `node_limit` nodes so a freak hand cannot stall a turn (the best found so far is returned).
    """
    found = _best_opening(tuple(sorted(JOKER if is_joker(card) else card for card in hand)), minimum, forced,
                          node_limit)
    return None if found is None else list(found)


def _best_opening_uncached(hand: tuple[str, ...], minimum: int, forced: str | None,
                           node_limit: int) -> tuple[Meld, ...] | None:
    """The search behind `best_opening`, cached by the sorted hand (jokers as one `X`, as the search sees them):
    a turn asks it for the same hand from the move listing, the take check and the bot."""
    counts = Counter(hand)
    melds = candidate_melds(hand)
    if forced is not None and not any(forced in meld.use for meld in melds):
        return None
    best: list = [None, -1, -1]
    nodes = [0]

    def potential(left: Counter) -> int:
        return sum((11 if card == JOKER else rank_value(card[0])) * number for card, number in left.items())

    def walk(start: int, chosen: list[Meld], worth: int, laid: int, left: Counter, used_forced: bool) -> None:
        nodes[0] += 1
        if chosen and worth >= minimum and (forced is None or used_forced) and keeps_a_discard(left):
            if worth > best[1] or (worth == best[1] and laid > best[2]):
                best[0], best[1], best[2] = list(chosen), worth, laid
        if nodes[0] > node_limit or worth + potential(left) <= best[1]:
            return
        for index in range(start, len(melds)):
            meld = melds[index]
            use = meld.use
            if not fits(use, left):
                continue
            chosen.append(meld)
            walk(index + 1, chosen, worth + meld.value, laid + meld.size, left - use,
                 used_forced or (forced is not None and forced in use))
            chosen.pop()

    walk(0, [], 0, 0, counts, False)
    return None if best[0] is None else tuple(best[0])


_best_opening = lru_cache(maxsize=4096)(_best_opening_uncached)


def is_konkan(melds: Sequence[Meld]) -> bool:
    """A run of 10 with a set of 4, or a run of 11 with a set of 3 (rules/konkan-cards.md, "Konkan")."""
    if len(melds) != 2:
        return False
    shape = sorted((meld.kind, meld.size) for meld in melds)
    return shape in ([("run", 10), ("set", 4)], [("run", 11), ("set", 3)])


def find_konkan(hand: Sequence[str]) -> list[Meld] | None:
    """A Konkan this hand can lay now keeping one card to discard, or None."""
    if len(hand) < 15:
        return None
    counts = Counter(JOKER if is_joker(card) else card for card in hand)
    melds = candidate_melds(hand)
    runs = [meld for meld in melds if meld.kind == "run" and meld.size in (10, 11)]
    sets = [meld for meld in melds if meld.kind == "set"]
    for run in runs:
        left = counts - run.use
        for group in sets:
            if group.size != 14 - run.size or not fits(group.use, left):
                continue
            if keeps_a_discard(left - group.use):
                return [run, group]
    return None
