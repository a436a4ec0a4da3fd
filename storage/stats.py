"""Per-player results and the leaderboard, fed by `apply_move` when a match finishes."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from sqlalchemy import Float, case, cast, func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from storage.db import Database, Row
from storage.dialects import upsert
from storage.models import GameStats, LeaderRow
from storage.schema import matches, players, seats, stats


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
    async def _record_result(self, db: AsyncConnection, match: Row, result: dict[str, Any]) -> None:
        """Add one played match to every human seat's stats; the caller's transaction makes it all-or-nothing.

        Rows are written in player order, as every finishing match does, so two matches ending at once on
        PostgreSQL lock shared players' rows in the same order and cannot deadlock."""
        rows = await self._all(db, select(seats.c.seat, seats.c.player_id).where(seats.c.match_id == match["id"])
                               .order_by(seats.c.seat))
        outcomes = seat_outcomes(result, len(rows))
        for seat in sorted((row for row in rows if row["player_id"] is not None), key=lambda row: row["player_id"]):
            won, drawn, points = outcomes[seat["seat"]]
            insert = upsert(self.dialect, stats).values(
                player_id=seat["player_id"], game=match["game"], mode=match["mode"], played=1, won=int(won),
                drawn=int(drawn), points=points)
            await db.execute(insert.on_conflict_do_update(
                index_elements=[stats.c.player_id, stats.c.game, stats.c.mode],
                set_={"played": stats.c.played + 1, "won": stats.c.won + insert.excluded.won,
                      "drawn": stats.c.drawn + insert.excluded.drawn,
                      "points": stats.c.points + insert.excluded.points}))

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

    async def _ranked(self, db: AsyncConnection, platform: str, game: str | None, mode: str | None,
                      lower_games: Collection[str], chat_id: str | None = None) -> list[Row]:
        played, won = func.sum(stats.c.played), func.sum(stats.c.won)
        lower = sorted(set(lower_games))
        merit = func.sum(case((stats.c.game.in_(lower), -stats.c.points), else_=stats.c.points)) if lower \
            else func.sum(stats.c.points)
        query = (
            select(players.c.id.label("player_id"), players.c.display_name, played.label("played"),
                   won.label("won"), func.sum(stats.c.drawn).label("drawn"), func.sum(stats.c.points).label("points"))
            .select_from(stats.join(players, players.c.id == stats.c.player_id))
            .where(players.c.platform == platform)
            .group_by(players.c.id, players.c.display_name)
            .having(played > 0)
            .order_by(won.desc(), (cast(won, Float) / played).desc(), merit.desc(), players.c.id)
        )
        if game is not None:
            query = query.where(stats.c.game == game)
        if mode is not None:
            query = query.where(stats.c.mode == mode)
        if chat_id is not None:  # only who finished a match (of this game) in the chat
            here = (select(seats.c.player_id).join(matches, matches.c.id == seats.c.match_id)
                    .where(seats.c.player_id == players.c.id, matches.c.platform == players.c.platform,
                           matches.c.chat_id == chat_id, matches.c.status == "finished"))
            if game is not None:
                here = here.where(matches.c.game == game)
            query = query.where(here.exists())
        return await self._all(db, query)

    async def player_stats(self, player_id: int) -> dict[str, GameStats]:
        """The player's record per game (modes summed); games never played are absent."""
        async with self.transaction(write=False) as db:
            rows = await self._all(
                db, select(stats.c.game, func.sum(stats.c.played).label("played"), func.sum(stats.c.won).label("won"),
                           func.sum(stats.c.drawn).label("drawn"), func.sum(stats.c.points).label("points"))
                .where(stats.c.player_id == player_id).group_by(stats.c.game).order_by(stats.c.game))
        return {row["game"]: GameStats(row["game"], row["played"], row["won"], row["drawn"], row["points"])
                for row in rows}
