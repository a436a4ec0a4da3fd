"""What bench/pipeline.py plays per game: the table it opens, and how its simulated human chooses a move.

Kenza's human presses the first move button of its rack (the platform driver reads it from the recorded API
calls). Canasta, Tunj, Konkan (cards) and Konkan tiles racks are two-step keyboards (card or tile toggles, source
then target) that no fixed "first button" rule can play through a whole hand, so their human's move is chosen on the
bench side by the engine's normal bot from the human seat's own view of the stored snapshot, and TYPED (`/m <move>` /
the `m` slash command): the same service -> engine -> storage -> renders -> platform path as a press, only the input
differs.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field
from typing import Any

import engine
import engine.bots
from storage import Store


@dataclass(frozen=True)
class Table:
    """One simulated human against one normal bot."""

    game: str
    options: dict[str, str] = field(default_factory=dict)
    typed: bool = False  # the human's moves are typed commands chosen by the engine's normal bot

    def new_words(self) -> list[str]:
        """The arguments of `/new` that open this table (`kenza`, `canasta variant=duo target=2500`)."""
        return [self.game, *(f"{key}={value}" for key, value in self.options.items())]

    @property
    def label(self) -> str:
        name = engine.get(self.game).info.names["en"]
        extra = " ".join(f"{key}={value}" for key, value in self.options.items())
        return f"{name} ({extra})" if extra else name

    @property
    def input(self) -> str:
        if self.typed:
            return "the human's move is chosen by the engine's normal bot from its seat's view and TYPED (/m)"
        return "the human presses its rack's first move button (a pick is followed by the first choice)"


TABLES = {
    "kenza": Table("kenza"),
    "canasta": Table("canasta", {"variant": "duo", "target": "2500"}, typed=True),
    # Tunj's bot plays a move at a time, each followed by a claim window's pause (rules/tunj.md, "Bots"): the
    # shortest window keeps a run short; the bot's later moves are the production timer loop's work.
    "tunj": Table("tunj", {"claim_seconds": "1"}, typed=True),
    # Konkan's rack is Canasta's picker (toggles, set aside, meld / add / swap / discard): typed like Canasta.
    "konkan_cards": Table("konkan_cards", typed=True),
    # one human against one bot: Konkan's 1v1 is the private room (untimed, no stats); its picker is multi-step
    "konkan_tiles": Table("konkan_tiles", {"mode": "private"}, typed=True),
}


@dataclass
class Decision:
    version: int  # the match version the move was chosen on: a typed move moved the match when it grew
    move: str


class TypedHuman:
    """The bench-side player of typed moves: one engine normal bot, one random stream per match.

    It reads only the stored snapshot and decides from `game.view(state, seat)` and that seat's legal moves, as
    a bot seat in the service would; the time it spends choosing is added up in `choose_seconds`, because it
    runs on the same event loop as the process being measured (a real human thinks elsewhere).
    """

    def __init__(self, game_id: str) -> None:
        self.game = engine.get(game_id)
        self.bot = engine.bots.get(game_id, "normal")
        self.seats: dict[int, int] = {}  # match id -> the human's seat
        self.rngs: dict[int, random.Random] = {}
        self.choose_seconds = 0.0

    async def seat(self, store: Store, match_id: int) -> int:
        if match_id not in self.seats:
            seats = await store.seats(match_id)
            self.seats[match_id] = next(seat.seat for seat in seats if seat.is_human)
        return self.seats[match_id]

    async def decide(self, store: Store, match_id: int, seat: int | None = None) -> Decision | None:
        """The human's next move (`seat`'s; by default the table's one human), or None when the match is over.
        Waits while the stored position shows another seat to move (a turn timer's move and the bot's answer are
        being committed)."""
        if seat is None:
            seat = await self.seat(store, match_id)
        waited, version = 0, -1
        while waited < 200:  # 10 s with nothing stored; a bot moving at its pace (Tunj) is still moving
            match = await store.get_match(match_id)
            if match is None or match.status != "active":
                return None
            if match.version == version:  # the position this poll already read: still another seat's turn
                waited += 1
                await asyncio.sleep(0.05)
                continue
            waited, version = 0, match.version
            # Decoded once per stored version: decoding it at every poll while a bot took seconds at its pace was
            # about a third of the main thread's CPU in a Tunj run (cProfile), all of it the bench's, not the service's.
            state = self.game.from_json(match.snapshot)
            if self.game.to_move(state) == seat:
                started = time.perf_counter()
                rng = self.rngs.setdefault(match_id, random.Random(match_id))
                move = self.bot.choose(self.game.view(state, seat), self.game.legal_moves(state, seat), rng)
                self.choose_seconds += time.perf_counter() - started
                return Decision(match.version, move)
            await asyncio.sleep(0.05)
        raise AssertionError(f"match {match_id}: the human's turn never came back")


def moved(before: Decision, match: Any) -> bool:
    """Whether the typed move was accepted: the match moved past the version it was chosen on."""
    return match is not None and match.version > before.version
