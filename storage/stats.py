"""Per-player results and the leaderboard, fed by `apply_move` when a match finishes."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import aiosqlite

from storage.db import Database
from storage.models import GameStats, LeaderRow


def seat_outcomes(result: dict[str, Any], seat_count: int) -> list[tuple[bool, bool, int]]:
    """(won, drawn, points) for each seat, read from an engine result dict (NOTATION.md `result`).

    `scores` and `winners` are per seat, or per team in team games; a team game is recognised by having fewer
    scores than seats, and seat s then belongs to team s % len(scores) (teams are {0, 2} and {1, 3}). A drawn
    match ("draw": true) lists every side tied for first in winners: those sides get a draw, the rest a loss.
    Points are the side's final match total as the engine reports it.
    """
    scores = list(result.get("scores") or [])
    winners = set(result.get("winners") or [])
    draw = bool(result.get("draw"))
    sides = len(scores)
    outcomes = []
    for seat in range(seat_count):
        side = seat % sides if 0 < sides < seat_count else seat
        score = scores[side] if side < sides else 0
        points = int(round(score)) if isinstance(score, int | float) and not isinstance(score, bool) else 0
        top = side in winners
        outcomes.append((top and not draw, top and draw, points))
    return outcomes


class StatsOps(Database):
    async def _record_result(self, db: aiosqlite.Connection, match: aiosqlite.Row, result: dict[str, Any]) -> None:
        """Add one played match to every human seat's stats; the caller's transaction makes it all-or-nothing."""
        seats = await self._all(db, "SELECT seat, player_id FROM seats WHERE match_id = ? ORDER BY seat",
                                (match["id"],))
        outcomes = seat_outcomes(result, len(seats))
        for seat in seats:
            if seat["player_id"] is None:
                continue
            won, drawn, points = outcomes[seat["seat"]]
            await db.execute(
                """INSERT INTO stats (player_id, game, mode, played, won, drawn, points) VALUES (?, ?, ?, 1, ?, ?, ?)
                   ON CONFLICT (player_id, game, mode) DO UPDATE SET
                     played = played + 1, won = won + excluded.won, drawn = drawn + excluded.drawn,
                     points = points + excluded.points""",
                (seat["player_id"], match["game"], match["mode"], int(won), int(drawn), points),
            )

    async def leaderboard(
        self, game: str | None, platform: str, limit: int = 10, mode: str | None = None,
        lower_games: Collection[str] = (),
    ) -> list[LeaderRow]:
        """Top players of one platform, for one game (or all games, None), optionally one mode.

        Ranked by wins, then win rate, then points in each game's own direction (`lower_games`: the games whose
        lowest total wins, such as Konkan with cards; their points count against the player), then the earlier
        player — so equal records still list in a stable order. Ranks are positions (1, 2, 3...), not shared.
        """
        async with self.transaction(write=False) as db:
            rows = await self._ranked(db, platform, game, mode, lower_games)
        return [
            LeaderRow(rank, row["player_id"], row["display_name"], row["played"], row["won"], row["drawn"],
                      row["points"], row["won"] / row["played"])
            for rank, row in enumerate(rows[:limit], start=1)
        ]

    async def standings_page(
        self, game: str | None, platform: str, *, mode: str | None = None, lower_games: Collection[str] = (),
        chat_id: str | None = None, page: int = 0, per_page: int = 10,
    ) -> tuple[list[LeaderRow], int, int]:
        """(rows, page, pages): one page of `leaderboard`'s order. With `chat_id`, only the players who finished a
        match of that game in the chat, still ranked by their whole record. A page past the end shows the last."""
        async with self.transaction(write=False) as db:
            rows = await self._ranked(db, platform, game, mode, lower_games, chat_id)
        pages = max(1, -(-len(rows) // per_page))
        page = min(max(page, 0), pages - 1)
        start = page * per_page
        return [
            LeaderRow(rank, row["player_id"], row["display_name"], row["played"], row["won"], row["drawn"],
                      row["points"], row["won"] / row["played"])
            for rank, row in enumerate(rows[start:start + per_page], start=start + 1)
        ], page, pages

    async def player_rank(self, player_id: int, game: str, platform: str,
                          lower_games: Collection[str] = ()) -> tuple[int, int] | None:
        """(rank, players ranked) of the player in one game, ordered as `leaderboard`; None if never played."""
        async with self.transaction(write=False) as db:
            rows = await self._ranked(db, platform, game, None, lower_games)
        for rank, row in enumerate(rows, start=1):
            if row["player_id"] == player_id:
                return rank, len(rows)
        return None

    async def _ranked(self, db: aiosqlite.Connection, platform: str, game: str | None, mode: str | None,
                      lower_games: Collection[str], chat_id: str | None = None) -> list[aiosqlite.Row]:
        lower = sorted(set(lower_games))
        marks = ", ".join("?" for _ in lower) or "NULL"
        here = """AND (? IS NULL OR EXISTS (SELECT 1 FROM seats t JOIN matches m ON m.id = t.match_id
                   WHERE t.player_id = p.id AND m.platform = p.platform AND m.chat_id = ? AND m.status = 'finished'
                   AND (? IS NULL OR m.game = ?)))"""
        return await self._all(
            db,
            f"""SELECT p.id AS player_id, p.display_name, sum(s.played) AS played, sum(s.won) AS won,
                      sum(s.drawn) AS drawn, sum(s.points) AS points,
                      sum(CASE WHEN s.game IN ({marks}) THEN -s.points ELSE s.points END) AS merit
               FROM stats s JOIN players p ON p.id = s.player_id
               WHERE p.platform = ? AND (? IS NULL OR s.game = ?) AND (? IS NULL OR s.mode = ?) {here}
               GROUP BY p.id HAVING sum(s.played) > 0
               ORDER BY won DESC, CAST(won AS REAL) / played DESC, merit DESC, p.id""",  # noqa: S608 (only ? marks)
            (*lower, platform, game, game, mode, mode, chat_id, chat_id, game, game),
        )

    async def player_stats(self, player_id: int) -> dict[str, GameStats]:
        """The player's record per game (modes summed); games never played are absent."""
        async with self.transaction(write=False) as db:
            rows = await self._all(
                db,
                """SELECT game, sum(played) AS played, sum(won) AS won, sum(drawn) AS drawn, sum(points) AS points
                   FROM stats WHERE player_id = ? GROUP BY game ORDER BY game""",
                (player_id,),
            )
        return {row["game"]: GameStats(row["game"], row["played"], row["won"], row["drawn"], row["points"])
                for row in rows}
