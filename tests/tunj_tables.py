"""Tunj positions built from an explicit layout, for tests that need one exact table rather than a deal."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import engine

GAME = engine.get("tunj")
KINGS = ["KS", "KH", "KD", "KC"]


def table(reserves=((), ()), hands=((), ()), houses=None, *, wastes=((), ()), foundations=None,
          to_move: int = 0) -> dict[str, Any]:
    """Houses default to lone kings, so only a queen fits on any of them unless a test says otherwise; houses are
    given bottom first as {"H3": [...]}, foundations as {"F4": [...]}."""
    houses = {f"H{i}": [KINGS[(i - 1) % 4]] for i in range(1, 9)} | (houses or {})
    foundations = foundations or {}
    return GAME.new(2, layout={
        "reserves": [list(p) for p in reserves],
        "hands": [list(p) for p in hands],
        "wastes": [list(p) for p in wastes],
        "houses": [houses[f"H{i}"] for i in range(1, 9)],
        "foundations": [foundations.get(f"F{i}", []) for i in range(1, 9)],
        "to_move": to_move,
    })


async def play_out_bot_turn(service: Any, clock: Any, match_id: int, limit: int = 500,
                            look: Callable[[], Awaitable[None]] | None = None) -> int:
    """Let the bot's paced turn run (rules/tunj.md, "Bots": each move is followed by a pause, timed like a claim
    window): move the clock to each pause's end and tick, until a human is to move (a claim the bot's slip opened
    included) or the match is over. `look` checks the screens during each pause. Returns how many pauses ended."""
    for ended in range(limit):
        match = await service.store.get_match(match_id)
        if match.status != "active":
            return ended
        seat = GAME.to_move(GAME.from_json(match.snapshot))
        seats = await service.store.seats(match_id)
        if seats[seat].is_human:
            return ended
        assert match.deadline is not None, "a bot to move waits for its pause to end"
        if look is not None:
            await look()
        clock.now = match.deadline + 0.01
        assert await service.tick() == 1
    raise AssertionError(f"the bot's turn did not end in {limit} moves")
