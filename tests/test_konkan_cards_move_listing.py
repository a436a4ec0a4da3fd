"""The lazier move listing of engine/konkan_cards/game.py (a lay-off search that stops reaching once a group
misses more cards than a joker fills; "may the discard be taken?" answered at the first legal move instead of
listing them all) lists exactly what the previous code listed, in the same order, and allows a take exactly when
it did. The previous functions are kept below verbatim (only renamed) as the oracle; they are compared on every
seat of every position of bot and random matches. One rule change since (konkan-cards.md, joker swap [decision]):
a swap is listed while a taken discard waits, and taking still needs a meld or lay-off using the card at once, so
the oracle lists swaps then too and leaves them out of its take check."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations
from typing import Any

import engine
from engine.bots import decide
from engine.cards import JOKER
from engine.errors import IllegalMove
from engine.konkan_cards import game as G
from engine.konkan_cards.cards import is_joker, rank_number, rank_value
from engine.konkan_cards.melds import (
    Meld,
    Token,
    best_opening,
    candidate_melds,
    find_konkan,
    fits,
    keeps_a_discard,
    read_meld,
    swap_needs,
    tokens_of,
)

GAME = engine.get("konkan_cards")


# ---- the previous implementation (the oracle) --------------------------------------------------------------
def ref_collect(moves: list[str], seen: set[str], check: Any, *args: Any) -> None:
    try:
        move = check(*args)
    except IllegalMove:
        return
    if move not in seen:
        seen.add(move)
        moves.append(move)


def ref_play_moves(state: dict, seat: int, swaps: bool = True) -> list[str]:
    hand = state["hands"][seat]
    moves: list[str] = []
    seen: set[str] = set()
    opened = G._opened(state)[seat]
    committed = state["committed"][seat]
    forced = state["must_use"]
    konkan = find_konkan(hand)
    if konkan:
        ref_collect(moves, seen, G._check_meld, state, seat, [tokens_of(meld.cards) for meld in konkan])
    if committed:
        return moves + G._discards(hand)
    for meld in candidate_melds(hand):
        if forced is None or forced in meld.use:
            ref_collect(moves, seen, G._check_meld, state, seat, [tokens_of(meld.cards)])
    if not opened and not any(move.startswith("meld") and "|" not in move for move in moves):
        best = ref_best_opening(hand, G._minimum(state), forced=forced)
        if best:
            ref_collect(moves, seen, G._check_meld, state, seat, [tokens_of(meld.cards) for meld in best])
    if opened:
        for number, meld in enumerate(state["melds"], start=1):
            for tokens in ref_lay_off_options(meld["cards"], hand):
                if forced is None or any(card == forced for card, _ in tokens):
                    ref_collect(moves, seen, G._check_add, state, seat, tokens, number)
            needs = swap_needs(meld["cards"])
            if needs and swaps:
                ref_collect(moves, seen, G._check_swap, state, seat, needs, number)
    if forced is None:
        moves += G._discards(hand)
    return moves


def ref_best_opening(
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
    counts = Counter(JOKER if is_joker(card) else card for card in hand)
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
    return best[0]


def ref_lay_off_options(table: list[str], hand: list[str]) -> list[list[Token]]:
    counts = G._counts(hand)
    jokers = counts[JOKER] > 0 and not any(is_joker(card) for card in table)
    meld = read_meld(tokens_of(table))
    out: list[list[Token]] = []
    if meld.kind == "set":
        rank = next(card for card in table if not is_joker(card))[0]
        missing = [rank + suit for suit in "SHDC" if rank + suit not in table and counts[rank + suit]]
        room = 4 - len(table)
        for size in range(1, room + 1):
            for picked in combinations(missing, size):
                out.append([(card, None) for card in picked])
            if jokers:
                for picked in combinations(missing, size - 1):
                    out.append([*((card, None) for card in picked), (JOKER, None)])
        return out
    suit = next(card for card in table if not is_joker(card))[1]
    first = table[0][2:] if is_joker(table[0]) else table[0]
    last = table[-1][2:] if is_joker(table[-1]) else table[-1]
    low = 1 if first[0] == "A" else rank_number(first)
    high = 14 if last[0] == "A" and len(table) > 1 and low != 1 else rank_number(last)
    below = [p for p in range(low - 1, 0, -1)]
    above = [p for p in range(high + 1, 15)]
    room = 13 - len(table)

    def card_at(position: int) -> str:
        return "A" + suit if position in (1, 14) else "A23456789TJQK"[position - 1] + suit

    for down in range(0, min(len(below), room) + 1):
        for up in range(0, min(len(above), room - down) + 1):
            if down + up == 0:
                continue
            places = below[:down] + above[:up]
            missing = [p for p in places if not counts[card_at(p)]]
            if len(missing) > 1 or (missing and not jokers):
                continue
            if missing:
                out.append([(JOKER, card_at(p)) if p == missing[0] else (card_at(p), None) for p in places])
                continue
            out.append([(card_at(p), None) for p in places])
            if jokers:
                for joker_at in places:
                    out.append([(JOKER, card_at(p)) if p == joker_at else (card_at(p), None) for p in places])
    return out


def ref_may_take(state: dict, seat: int) -> bool:
    """The previous `_take_refusal`'s answer for a seat in its draw phase (committed seats may always take)."""
    if state["committed"][seat]:
        return True
    pile = state["discard"]
    hands = list(state["hands"])
    hands[seat] = [*hands[seat], pile[0]]
    trial = {**state, "hands": hands, "discard": pile[1:], "must_use": pile[0], "phase": "play"}
    return bool(ref_play_moves(trial, seat, swaps=False))


# ---- positions to compare on -------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def positions(seeds: range, moves: int) -> list[dict]:
    """Every position of matches between normal bots with random moves mixed in (odd melds, early lay-offs)."""
    out = []
    for seed in seeds:
        state = GAME.new((2, 3, 4)[seed % 3], seed=seed)
        rng = random.Random(seed)
        for _ in range(moves):
            seat = GAME.to_move(state)
            if seat is None:
                break
            out.append(state)
            level = "normal" if rng.random() < 0.8 else "random"
            state = GAME.apply(state, seat, decide("konkan_cards", state, seat, level, rng))
    return out


def test_play_moves_are_listed_as_before_for_every_seat():
    compared = 0
    for state in positions(range(6), 250):
        for seat in range(state["players"]):
            if state["phase"] == "play":
                assert G._play_moves(state, seat) == ref_play_moves(state, seat), (state, seat)
                compared += 1
            for meld in state["melds"]:
                assert G._lay_off_options(meld["cards"], state["hands"][seat]) == \
                    ref_lay_off_options(meld["cards"], state["hands"][seat])
    assert compared > 500


def test_best_opening_finds_the_same_melds_as_before():
    for state in positions(range(6), 250)[::3]:
        for seat in range(state["players"]):
            hand = state["hands"][seat]
            for minimum, forced in ((0, None), (51, None), (71, None), (51, hand[len(hand) // 2])):
                assert best_opening(hand, minimum, forced) == ref_best_opening(hand, minimum, forced), (hand, forced)
    shuffled = list(hand)
    random.Random(1).shuffle(shuffled)
    assert best_opening(shuffled, 0) == ref_best_opening(hand, 0)


def test_the_discard_may_be_taken_exactly_when_it_could_before():
    takes = refusals = 0
    for state in positions(range(6), 250):
        seat = GAME.to_move(state)
        if state["phase"] != "draw" or not state["discard"] or seat is None:
            continue
        allowed = G._take_refusal(state, seat) is None
        assert allowed == ref_may_take(state, seat), (state, seat)
        takes += allowed
        refusals += not allowed
    assert takes and refusals  # both answers were compared
