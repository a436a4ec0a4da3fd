"""Kenza's `expert`: determinized worlds dealt from the seat's view, each searched to the end of the round.

What the seat cannot see: the other hands and the stock. Cards captured earlier are not in the view either (only
their counts), so they are unseen too: a world deals the hands, the stock and the captured piles (in the sizes the
view shows) from the baraja minus the seat's hand and the table.
"""

from __future__ import annotations

import random
from typing import Any

from engine.base import VERSION_KEY
from engine.cards import spanish_deck
from engine.kenza.bots import _threat
from engine.kenza.rules import capture_subsets, pile_points

_DECK = spanish_deck()


def sample(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A whole Kenza state agreeing with `view`; the hidden cards dealt at random from the unseen ones."""
    players, seat = view["players"], view["seat"]
    hand = list(view["hand"])
    seen = set(hand) | set(view["table"])
    unseen = [card for card in _DECK if card not in seen]
    rng.shuffle(unseen)
    hands: list[list[str]] = []
    for other, size in enumerate(view["hand_sizes"]):
        if other == seat:
            hands.append(hand)
        else:
            hands.append(unseen[:size])
            unseen = unseen[size:]
    stock = unseen[: view["stock_size"]]
    unseen = unseen[view["stock_size"]:]
    captured = []  # what is left was captured earlier in the deal: the piles get their sizes, at random
    for count in view["captured_counts"]:
        captured.append(unseen[:count])
        unseen = unseen[count:]
    return {
        "game": "kenza", VERSION_KEY: 2, "players": players,
        "options": {"variant": view["variant"], "target": view["target"]},
        "rng": rng.getrandbits(64), "round": view["round"], "scores": list(view["scores"]),
        "history": [list(row) for row in view["history"]], "over": False, "draw": False, "winners": [],
        "dealer": view["dealer"], "captured": captured, "sweeps": list(view["sweeps"]),
        "sweeps_total": [0] * players, "last_capturer": view["last_capturer"], "last_move": view["last_move"],
        "to_move": view["to_move"], "hands": hands, "table": list(view["table"]),
        "stock": stock, "deal_log": [],
    }


WORLDS = 32  # the budget: deals of the hidden cards searched per decision...
NODES = 40_000  # ...unless the plies searched pass this many first (a crowded table early in a round of four)
MIN_WORLDS = 4  # (but never fewer worlds than these)
DEPTH = 8  # plies searched at most inside the current round of three cards (two players: all of it)
DEPTH_FOUR = 4  # with four players the round has twelve plies: a full search would take seconds
THREAT = 0.8  # how much of what the next player could capture from the table left counts against its leaver


class ExpertKenzaBot:
    """PIMC with an exact search of the current three-card round in each world.

    A Kenza decision is settled inside the round of three cards being played: every card of it is in some hand,
    and after it comes a fresh deal nobody can foresee. So in each world (hands and stock dealt anew from the unseen
    cards) the bot searches every line of play to the end of the round — each side maximising what it captures,
    partners together — and scores the table left behind the way the `normal` bot does: what the next player could
    take from it with one unseen card. The last round of a deal also counts the leftovers the last capturer gets.
    Every move meets the same worlds; the best total wins, ties going to the `normal` bot's choice.
    """

    level = "expert"

    def choose(self, view: dict[str, Any], legal: list[str], rng: random.Random,
               attempts: list[str] | None = None) -> str:
        if not legal:
            raise ValueError("no legal move to choose from")
        seed = rng.getrandbits(64)
        from engine.kenza.bots import NormalBot

        favourite = NormalBot().choose(view, legal, random.Random(seed))
        if len(legal) == 1:
            return legal[0]
        search = random.Random(seed ^ 0x4B454E5A41)
        seen = set(view["hand"]) | set(view["table"])
        plies = _Plies(view, [card for card in _DECK if card not in seen])
        moves = [favourite, *(move for move in legal if move != favourite)]
        totals = dict.fromkeys(moves, 0.0)
        for count in range(WORLDS):
            if count >= MIN_WORLDS and plies.nodes > NODES:
                break
            world = sample(view, search)
            for move in moves:
                totals[move] += plies.after(world, move)
        order = {move: index for index, move in enumerate(moves)}
        return max(moves, key=lambda move: (round(totals[move], 6), -order[move]))


class _Plies:
    """The search of one decision: the seat's side, the capture sum, and the table threats met so far."""

    def __init__(self, view: dict[str, Any], unseen: list[str]) -> None:
        self.seat = view["seat"]
        self.players = view["players"]
        self.total = view["capture_sum"]
        self.unseen = unseen
        self.threats: dict[tuple[str, ...], float] = {}
        self.nodes = 0  # plies played so far: the budget is counted, not timed, so the move depends on no clock

    def sign(self, seat: int) -> int:
        if self.players == 4:
            return 1 if seat % 2 == self.seat % 2 else -1
        return 1 if seat == self.seat else -1

    def after(self, world: dict[str, Any], move: str) -> float:
        words = move.split()
        card, taken = words[1], words[3:]
        hands = [tuple(hand) for hand in world["hands"]]
        table = tuple(world["table"])
        depth = DEPTH_FOUR if self.players == 4 else DEPTH
        return self._play(hands, table, self.seat, card, taken, world["last_capturer"], len(world["stock"]), depth)

    def _play(self, hands: list[tuple[str, ...]], table: tuple[str, ...], seat: int, card: str, taken: list[str],
              last: int | None, stock: int, depth: int) -> float:
        self.nodes += 1
        hands = list(hands)
        held = list(hands[seat])
        held.remove(card)
        hands[seat] = tuple(held)
        gain = 0.0
        if taken:
            gain = self.sign(seat) * pile_points([*taken, card])
            table = tuple(code for code in table if code not in taken)
            last = seat
        else:
            table = (*table, card)
        return gain + self._rest(hands, table, seat, last, stock, depth - 1)

    def _rest(self, hands: list[tuple[str, ...]], table: tuple[str, ...], played: int, last: int | None,
              stock: int, depth: int) -> float:
        players = self.players
        mover = next((s for s in ((played + k) % players for k in range(1, players + 1)) if hands[s]), None)
        if mover is None:  # the round of three cards is over
            if stock == 0:
                return self.sign(last) * pile_points(list(table)) if last is not None else 0.0
            return -self.sign((played + 1) % players) * THREAT * self._threat(table)
        if depth <= 0:
            return -self.sign(mover) * THREAT * self._threat(table)
        best: float | None = None
        maximise = self.sign(mover) > 0
        for card in set(hands[mover]):
            subsets = capture_subsets(list(table), card, self.total)
            options = [[table[i] for i in subset] for subset in subsets] if subsets else [[]]
            for taken in options:
                value = self._play(hands, table, mover, card, taken, last, stock, depth)
                if best is None or (value > best if maximise else value < best):
                    best = value
        return best or 0.0

    def _threat(self, table: tuple[str, ...]) -> float:
        key = tuple(sorted(table))
        if key not in self.threats:
            self.threats[key] = _threat(list(key), self.unseen, self.total)
        return self.threats[key]
