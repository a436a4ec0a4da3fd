"""Tunj computer players: "random" (uniform over the legal moves), "normal" (keeps the priorities and plays
with purpose) and "strong" (the normal player that never slips).

Slips: spotting the opponent's slip is the game, so the levels that sit at casual tables ("random" and
"normal") sometimes attempt a move that neglects a mandatory priority on purpose: wherever the seat's attempts
include such a move, they make one with probability SLIP_RATE (one of them, uniformly). "strong" never does.
A claim against the opponent: "normal" and "strong" always call it; "random" picks `tunj` or `expire` at random
(its only legal moves then).
"""

from __future__ import annotations

import random
from typing import Any

from engine.tunj.moves import Move, parse
from engine.tunj.rules import fits_foundation, fits_house

NEGLECT = -1000  # a move that would neglect a priority: the opponent calls it and takes the turn
SLIP_RATE = 0.1  # where a priority can be neglected, how often a casual-table level neglects it on purpose


def slip(legal: list[str], attempts: list[str] | None, rate: float, rng: random.Random) -> str | None:
    """A priority-neglecting attempt to make instead of a legal move, or None (most of the time)."""
    if not attempts or rate <= 0:
        return None
    slips = [move for move in attempts if move not in legal]
    if not slips or rng.random() >= rate:
        return None
    return slips[rng.randrange(len(slips))]


class RandomBot:
    """Uniform over the legal moves, slipping now and then like a casual player."""

    level = "random"
    slip_rate = SLIP_RATE

    def choose(self, view: dict[str, Any], legal: list[str], rng: random.Random,
               attempts: list[str] | None = None) -> str:
        if not legal:
            raise ValueError("no legal move to choose from")
        return slip(legal, attempts, self.slip_rate, rng) or legal[rng.randrange(len(legal))]


class _Board:
    """The part of a seat's view the normal bot reasons about, with the seat's own piles picked out."""

    def __init__(self, view: dict[str, Any]) -> None:
        me = view["seat"]
        self.houses: list[list[str]] = view["houses"]
        self.foundations: list[list[str]] = view["foundations"]
        self.reserve_top: str | None = view["reserves"][me]["top"]
        self.reserve_count: int = view["reserves"][me]["count"]
        self.turned: str | None = view["turned"]

    def house(self, name: str) -> list[str]:
        return self.houses[int(name[1]) - 1]

    def to_foundation(self, card: str | None) -> bool:
        return card is not None and any(fits_foundation(card, pile) for pile in self.foundations)

    def available(self) -> list[str]:
        cards = [self.reserve_top, self.turned, *(pile[-1] for pile in self.houses if pile)]
        return [card for card in cards if card is not None]


class NormalBot:
    """Priorities first, then loading the opponent, then building toward the foundations.

    Every legal move gets a score; house-to-house moves only score when they expose something useful (an
    empty house the reserve can fill, a card for a foundation, a place for the reserve top), so the bot does
    not shuffle the table for nothing, and `turn` comes once nothing better is left.
    """

    level = "normal"
    slip_rate = SLIP_RATE

    def choose(self, view: dict[str, Any], legal: list[str], rng: random.Random,
               attempts: list[str] | None = None) -> str:
        if not legal:
            raise ValueError("no legal move to choose from")
        if "tunj" in legal:
            return "tunj"
        slipped = slip(legal, attempts, self.slip_rate, rng)
        if slipped is not None:
            return slipped
        board = _Board(view)
        scored = [(self._score(board, parse(text)), text) for text in legal]
        best = max(score for score, _ in scored)
        options = [text for score, text in scored if score == best]
        return options[rng.randrange(len(options))]

    def _score(self, board: _Board, move: Move) -> int:
        reserve_first = board.to_foundation(board.reserve_top)
        any_first = reserve_first or any(board.to_foundation(card) for card in board.available())
        empty_house = any(not pile for pile in board.houses)
        if move.kind == "turn":
            if any_first or (empty_house and board.reserve_count):
                return NEGLECT
            return 100
        to_foundation = move.dst[0] == "F"
        if reserve_first:
            return 1000 if to_foundation and move.src == "R" else NEGLECT
        if any_first:
            if not to_foundation:
                return NEGLECT
            if move.src in ("R", "T"):
                return 930 if move.src == "R" else 920
            return 910 + self._exposes(board, move)
        if move.src == "T":
            return _by_target(board, move.dst, (500, 480, 300, 150))
        if move.src == "R":
            return _by_target(board, move.dst, (800, 780, 700, 600))
        gain = self._exposes(board, move)
        if move.dst in ("OR", "OW"):
            return (420 if move.dst == "OR" else 400) + gain
        return 300 + gain if gain else -10

    @staticmethod
    def _exposes(board: _Board, move: Move) -> int:
        """What taking `move.count` cards off a house uncovers that the bot can use next."""
        rest = board.house(move.src)[: -move.count]
        if not rest:
            into_empty = move.dst[0] == "H" and not board.house(move.dst)
            return 60 if board.reserve_count and not into_empty else 0
        outer = rest[-1]
        if board.to_foundation(outer):
            return 80
        if board.reserve_top is not None and fits_house(board.reserve_top, [outer]):
            return 70
        return 0


def _by_target(board: _Board, dst: str, scores: tuple[int, int, int, int]) -> int:
    """Score by where a card goes: opponent's reserve, opponent's waste, a built house, an empty house."""
    if dst == "OR":
        return scores[0]
    if dst == "OW":
        return scores[1]
    return scores[2] if board.house(dst) else scores[3]


class StrongBot(NormalBot):
    """The normal player without slips: the strongest level, for benches and players who want no gifts."""

    level = "strong"
    slip_rate = 0.0


def _expert() -> Any:
    from engine.tunj.expert import ExpertTunjBot  # late: its search asks this module for "normal"

    return ExpertTunjBot()


BOTS = {"random": RandomBot, "normal": NormalBot, "strong": StrongBot, "expert": _expert}
