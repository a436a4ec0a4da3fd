"""Meld rules and the searches built on them: which melds a hand can lay, the best opening, going out.

Canasta melds are sets by rank, so every search here works rank by rank on card counts instead of trying
subsets of the hand: a hand of 30 cards has at most 11 natural ranks, and a rank's wild-card needs depend only
on how many naturals it holds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from engine.canasta.cards import card_key, is_black_three, is_wild, rank_key, sort_cards, total, value
from engine.errors import IllegalMove

CANASTA = 7
MAX_WILDS = 3


@dataclass(frozen=True)
class Slot:
    """A meld (on the table or being planned) as the wild-card arithmetic sees it."""

    naturals: int
    wilds: int = 0

    @property
    def size(self) -> int:
        return self.naturals + self.wilds

    @property
    def room(self) -> int:
        """How many more wild cards it may take: at most 3, never more wilds than naturals."""
        return max(0, min(MAX_WILDS, self.naturals) - self.wilds)


def meld_problem(rank: str, cards: list[str]) -> IllegalMove | None:
    """Why `cards` are not a valid meld of `rank` (the refusal, for the caller to raise), or None when they are."""
    naturals = [card for card in cards if not is_wild(card)]
    wilds = len(cards) - len(naturals)
    if any(card[0] != rank for card in naturals):
        return IllegalMove("a meld holds cards of one rank only (no runs in Canasta)", "canasta.one_rank")
    if rank == "3":
        if any(not is_black_three(card) for card in naturals):
            return IllegalMove("red 3s are bonus cards and are never melded", "canasta.red3_meld")
        if wilds:
            return IllegalMove("a meld of black 3s takes no wild cards", "canasta.black3_wilds")
        if len(cards) not in (3, 4):
            return IllegalMove("black 3s are melded as three or four of them", "canasta.black3_count")
        return None
    if len(naturals) < 2:
        return IllegalMove("a meld needs at least two natural cards", "canasta.two_naturals")
    if len(cards) < 3:
        return IllegalMove("a meld needs at least three cards", "canasta.three_cards")
    if wilds > MAX_WILDS:
        return IllegalMove("a meld may hold at most three wild cards", "canasta.max_wilds")
    if wilds > len(naturals):
        return IllegalMove("a meld may not hold more wild cards than natural ones", "canasta.more_wilds")
    return None


def canasta_kind(cards: list[str]) -> str | None:
    """"natural" (clean, 500), "mixed" (300) or None for a meld of fewer than seven cards."""
    if len(cards) < CANASTA:
        return None
    return "mixed" if any(is_wild(card) for card in cards) else "natural"


def submultisets(cards: Iterable[str], low: int, high: int) -> list[tuple[str, ...]]:
    """Every distinct sub-multiset of `cards` with low..high cards, each sorted in print order.

    Identical codes from the two decks are one choice, so three 7S give 7S, 7S 7S and 7S 7S 7S, not 7 subsets.
    """
    counts = sorted(Counter(cards).items(), key=lambda item: card_key(item[0]))
    out: list[tuple[str, ...]] = []

    def walk(position: int, chosen: list[str]) -> None:
        if len(chosen) > high:
            return
        if position == len(counts):
            if len(chosen) >= low:
                out.append(tuple(chosen))
            return
        code, available = counts[position]
        for taken in range(available + 1):
            if len(chosen) + taken > high:
                break
            walk(position + 1, chosen + [code] * taken)

    walk(0, [])
    return out


def spread_wilds(slots: list[Slot], wilds: int) -> tuple[list[int], int] | None:
    """Share `wilds` wild cards among melds so every new meld reaches three cards and as many melds as possible
    become canastas; (wilds given to each slot, canastas made) or None when they cannot all be placed."""
    needs = [max(0, 3 - slot.size) for slot in slots]
    if any(need > slot.room for need, slot in zip(needs, slots, strict=True)):
        return None
    if sum(needs) > wilds or wilds > sum(slot.room for slot in slots):
        return None
    given = list(needs)
    left = wilds - sum(needs)
    short = []
    for index, slot in enumerate(slots):
        deficit = CANASTA - slot.size - given[index]
        if 0 < deficit <= slot.room - given[index]:
            short.append((deficit, index))
    for deficit, index in sorted(short):
        if deficit <= left:
            given[index] += deficit
            left -= deficit
    for index, slot in enumerate(slots):
        extra = min(left, slot.room - given[index])
        given[index] += extra
        left -= extra
    canastas = sum(1 for slot, extra in zip(slots, given, strict=True) if slot.size + extra >= CANASTA)
    return given, canastas


@dataclass
class Plan:
    """A way to meld a whole hand: new melds (cards), additions per team-meld rank, and the final discard."""

    new: list[list[str]] = field(default_factory=list)
    adds: dict[str, list[str]] = field(default_factory=dict)
    discard: str | None = None


def going_out_plan(
    hand: list[str], team: dict[str, Slot], *, opened: bool, minimum: int, need: int
) -> Plan | None:
    """A way for this hand to go out now (meld everything, at most one card discarded), or None.

    `team` maps each rank the team has melded to its meld. An unopened team must reach `minimum` with what it
    melds; the plan then lays every new meld in one move, as an opening of several melds is one move.
    """
    naturals: dict[str, list[str]] = {}
    for card in hand:
        if not is_wild(card):
            naturals.setdefault(card[0], []).append(card)
    # Every rank without a team meld needs two naturals; a lone one can only be the discard.
    lonely = [cards[0] for rank, cards in naturals.items() if len(cards) == 1 and rank not in team]
    if len(lonely) > 1:
        return None
    choices = lonely if lonely else [None, *sorted(set(hand), key=card_key)]
    for discard in choices:
        plan = _plan_without(hand, discard, team, opened=opened, minimum=minimum, need=need)
        if plan is not None:
            return plan
    return None


def _plan_without(
    hand: list[str], discard: str | None, team: dict[str, Slot], *, opened: bool, minimum: int, need: int
) -> Plan | None:
    rest = list(hand)
    if discard is not None:
        rest.remove(discard)
    blacks = [card for card in rest if is_black_three(card)]
    if len(blacks) not in (0, 3, 4):
        return None
    wilds = sorted((card for card in rest if is_wild(card)), key=lambda card: (-value(card), card_key(card)))
    by_rank: dict[str, list[str]] = {}
    for card in rest:
        if not is_wild(card) and not is_black_three(card):
            by_rank.setdefault(card[0], []).append(card)
    if not opened and (total(rest) < minimum or not rest):
        return None
    ranks = sorted(set(by_rank) | set(team), key=rank_key)
    slots = []
    for rank in ranks:
        have = len(by_rank.get(rank, []))
        meld = team.get(rank)
        if meld is None and have < 2:
            return None
        base = meld or Slot(0, 0)
        slots.append(Slot(base.naturals + have, base.wilds))
    spread = spread_wilds(slots, len(wilds))
    if spread is None:
        return None
    given, canastas = spread
    if canastas < need:
        return None
    plan = Plan(discard=discard)
    for rank, extra in zip(ranks, given, strict=True):
        cards = by_rank.get(rank, []) + [wilds.pop() for _ in range(extra)]
        if not cards:
            continue
        if rank in team:
            plan.adds[rank] = sort_cards(cards)
        else:
            plan.new.append(sort_cards(cards))
    if blacks:
        plan.new.append(sort_cards(blacks))
    return plan


def best_opening(
    hand: list[str],
    *,
    minimum: int,
    need: int,
    may_go_out: bool,
    top: str | None = None,
    from_hand: int = 2,
    extra_left: int = 0,
) -> list[list[str]] | None:
    """The highest-valued set of new melds (one opening move) worth at least `minimum`, or None.

    With `top` (the discard pile's top card just taken) one meld must hold it together with at least `from_hand`
    naturals of its rank from the hand. The move must leave two cards in hand (counting the `extra_left` pile
    cards that join the hand afterwards) unless it may go out (`may_go_out`) and makes `need` canastas.
    """
    wilds = sorted((card for card in hand if is_wild(card)), key=lambda card: (-value(card), card_key(card)))
    by_rank: dict[str, list[str]] = {}
    for card in hand:
        if not is_wild(card) and not is_black_three(card):
            by_rank.setdefault(card[0], []).append(card)
    for cards in by_rank.values():
        cards.sort(key=card_key)
    forced = top[0] if top else None
    options: list[tuple[str, list[int]]] = []
    for rank in sorted(by_rank, key=rank_key):
        have = len(by_rank[rank])
        if rank == forced:
            if have < from_hand:
                return None
            options.append((rank, list(range(have, from_hand - 1, -1))))
        elif have >= 2:
            options.append((rank, [*range(have, 1, -1), 0]))
    if forced and forced not in by_rank:
        if from_hand > 0:
            return None
        options.append((forced, [0]))
    combinations = 1
    for _, counts in options:
        combinations *= len(counts)
    if combinations > 4096:
        # Huge hands: try each rank all-or-nothing; a smaller meld of a rank only ever helps the two-card rule.
        options = [(rank, counts if rank == forced else [counts[0], 0]) for rank, counts in options]
    wild_values = [0]
    for card in wilds:
        wild_values.append(wild_values[-1] + value(card))
    best: tuple[int, list[tuple[str, int]], list[int]] | None = None
    picks: list[tuple[str, int]] = []

    def judge() -> None:
        nonlocal best
        groups = [(rank, taken) for rank, taken in picks if taken or rank == forced]
        if not groups:
            return
        slots = [Slot(taken + (1 if rank == forced else 0)) for rank, taken in groups]
        base = sum(total(by_rank[rank][:taken]) for rank, taken in groups) + (value(top) if top else 0)
        used = sum(taken for _, taken in groups)
        room = sum(slot.room for slot in slots)
        for count in range(min(len(wilds), room), -1, -1):
            spread = spread_wilds(slots, count)
            if spread is None:
                continue
            left = len(hand) - used - count + extra_left
            if left < 2 and not (may_go_out and spread[1] >= need):
                continue
            worth = base + wild_values[count]
            if worth >= minimum and (best is None or worth > best[0]):
                best = (worth, list(groups), spread[0])
            return

    def walk(position: int) -> None:
        if position == len(options):
            judge()
            return
        rank, counts = options[position]
        for taken in counts:
            picks.append((rank, taken))
            walk(position + 1)
            picks.pop()

    walk(0)
    if best is None:
        return None
    _, groups, given = best
    pool = list(wilds)
    melds = []
    for (rank, taken), extra in zip(groups, given, strict=True):
        cards = by_rank.get(rank, [])[:taken] + [pool.pop(0) for _ in range(extra)]
        if rank == forced and top is not None:
            cards.append(top)
        melds.append(sort_cards(cards))
    return melds
