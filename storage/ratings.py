"""Ratings: the ranked ladder's storage — rating a finished match, the leaderboard pages, each player's ratings,
achievements, and the rebuild that folds every stored rated result again.

For other parts of the bot (tournament seeding, issue 15 part B), the one call to use is

    standing = await store.rating_of(player_id, game, mode)   # storage.ladder.Standing, fresh if never rated
    standing.rating, standing.placed, standing.mu, standing.sigma

The maths and the rules of the ladder are in storage/ladder.py; this module only reads and writes rows.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, and_, case, delete, func, insert, or_, select
from sqlalchemy.ext.asyncio import AsyncConnection

from storage import ladder
from storage.db import Database, Row
from storage.dialects import upsert
from storage.ladder import Entry, Standing
from storage.schema import achievements, matches, players, rated_results, ratings, seats, stats
from storage.stats import seat_outcomes

# storage.migrate's advisory lock key + 1: a number no other program on the server locks with.
RATING_LOCK_KEY = 0x6D616A6C6973 + 1

PAGE_SIZE = 10
STANDING_COLUMNS = ("mu", "sigma", "rating", "matches", "wins", "draws", "losses", "points", "streak", "best_streak",
                    "updated")
ON_BOARD = ratings.join(players, players.c.id == ratings.c.player_id)


@dataclass(frozen=True)
class LadderRow:
    rank: int  # 1-based position on the whole board (not the page)
    player_id: int
    display_name: str
    standing: Standing


@dataclass(frozen=True)
class LadderPage:
    rows: list[LadderRow]
    page: int  # 0-based
    pages: int  # at least 1
    placed: int  # players on the board
    in_placement: int  # players still in their placement matches (not on the board)


@dataclass(frozen=True)
class RatingChange:
    """What one rated match did to one player's rating (for the match's announcement)."""

    player_id: int
    display_name: str
    rating_before: int
    standing: Standing  # after the match
    outcome: str  # ladder.WIN / DRAW / LOSS
    abandoned: bool


@dataclass(frozen=True)
class GameRating:
    game: str
    mode: str
    standing: Standing


@dataclass(frozen=True)
class FormEntry:
    """One recent finished match of a player: its game and how it went for them (win / draw / loss)."""

    match_id: int
    game: str
    outcome: str


@dataclass(frozen=True)
class RebuildReport:
    matches: int  # rated matches folded
    ratings: int  # (player, game, mode) ratings written
    differences: list[str]  # what the stored ratings had that the fold does not reach (empty: identical)


def _standing(row: Row) -> Standing:
    return Standing(row["mu"], row["sigma"], row["matches"], row["wins"], row["draws"], row["losses"], row["points"],
                    row["streak"], row["best_streak"])


class RatingOps(Database):
    # ---- reading -----------------------------------------------------------------------------------------------
    async def rating_of(self, player_id: int, game: str, mode: str) -> Standing:
        """The player's ladder standing in one game and mode; a fresh Standing (1000, in placement) when never
        rated. Bots have no player id and so no rating."""
        async with self.transaction(write=False) as db:
            return await self._standing_of(db, player_id, game, mode)

    async def player_ratings(self, player_id: int) -> list[GameRating]:
        """Every game and mode the player has a rating in, the most played first."""
        async with self.transaction(write=False) as db:
            rows = await self._all(db, select(ratings).where(ratings.c.player_id == player_id)
                                   .order_by(ratings.c.matches.desc(), ratings.c.game, ratings.c.mode))
        return [GameRating(row["game"], row["mode"], _standing(row)) for row in rows]

    async def ladder(self, game: str, mode: str, platform: str, chat_id: str | None = None, page: int = 0,
                     per_page: int = PAGE_SIZE) -> LadderPage:
        """One page of the board of a game and mode: players out of placement, best shown rating first (then the
        higher mu, then the earlier player, so equal ratings list in a stable order).

        Global is every player of the platform (players are per platform); with `chat_id`, only players who
        finished a rated match of this game and mode in that chat, still ranked by their one rating.
        A page past the end shows the last page.
        """
        placed_now = ratings.c.matches >= ladder.PLACEMENT_MATCHES
        board = (ratings.c.game == game, ratings.c.mode == mode, self._scope(chat_id, platform))
        async with self.transaction(write=False) as db:
            counts = await self._one(db, select(
                func.sum(case((placed_now, 1), else_=0)).label("placed"),
                func.sum(case((placed_now, 0), else_=1)).label("placing")).select_from(ON_BOARD).where(*board))
            placed = int(counts["placed"] or 0) if counts else 0
            placing = int(counts["placing"] or 0) if counts else 0
            pages = max(1, -(-placed // per_page))
            page = min(max(page, 0), pages - 1)
            rows = await self._all(
                db, select(ratings, players.c.display_name).select_from(ON_BOARD).where(*board, placed_now)
                .order_by(ratings.c.rating.desc(), ratings.c.mu.desc(), ratings.c.player_id)
                .limit(per_page).offset(page * per_page))
        return LadderPage(
            [LadderRow(page * per_page + number, row["player_id"], row["display_name"], _standing(row))
             for number, row in enumerate(rows, start=1)], page, pages, placed, placing)

    async def ladder_rank(self, player_id: int, game: str, mode: str, platform: str) -> tuple[int, int] | None:
        """(position, players on the board) of a placed player on the platform's board; None when not on it."""
        async with self.transaction(write=False) as db:
            mine = await self._one(db, _rating_row(player_id, game, mode))
            if mine is None or mine["matches"] < ladder.PLACEMENT_MATCHES:
                return None
            rating, mu = mine["rating"], mine["mu"]
            r = ratings.c
            ahead = or_(r.rating > rating, and_(r.rating == rating, or_(
                r.mu > mu, and_(r.mu == mu, r.player_id < player_id))))
            row = await self._one(
                db, select(func.sum(case((ahead, 1), else_=0)).label("above"), func.count().label("total"))
                .select_from(ON_BOARD)
                .where(r.game == game, r.mode == mode, r.matches >= ladder.PLACEMENT_MATCHES,
                       players.c.platform == platform))
        assert row is not None
        return int(row["above"] or 0) + 1, int(row["total"])

    async def rating_changes(self, match_id: int) -> list[RatingChange]:
        """The rating change of every human of a rated match, in seat order of their sides; empty if unrated."""
        async with self.transaction(write=False) as db:
            rr = rated_results.c
            rows = await self._all(
                db, select(rated_results, players.c.display_name)
                .select_from(rated_results.join(players, players.c.id == rr.player_id))
                .where(rr.match_id == match_id).order_by(rr.place, rr.side, rr.player_id))
            out = []
            for row in rows:
                standing = await self._standing_of(db, row["player_id"], row["game"], row["mode"])
                out.append(RatingChange(row["player_id"], row["display_name"], row["rating_before"], standing,
                                        row["outcome"], bool(row["abandoned"])))
        return out

    async def recent_form(self, player_id: int, limit: int = 10) -> list[FormEntry]:
        """The player's last finished matches that count in statistics (private rooms do not), newest first,
        each as win / draw / loss for them (storage.stats.seat_outcomes reads the stored result)."""
        async with self.transaction(write=False) as db:
            others = seats.alias("others")
            seat_count = (select(func.count()).select_from(others).where(others.c.match_id == matches.c.id)
                          .scalar_subquery())
            rows = await self._all(
                db, select(matches.c.id, matches.c.game, matches.c.result, seats.c.seat,
                           seat_count.label("seat_count"))
                .select_from(matches.join(seats, seats.c.match_id == matches.c.id))
                .where(seats.c.player_id == player_id, matches.c.status == "finished", matches.c.mode != "private")
                .order_by(matches.c.finished.desc(), matches.c.id.desc()).limit(limit))
        out = []
        for row in rows:
            result = json.loads(row["result"] or "{}")
            won, drawn, _ = seat_outcomes(result, row["seat_count"])[row["seat"]]
            out.append(FormEntry(row["id"], row["game"], ladder.WIN if won else ladder.DRAW if drawn else ladder.LOSS))
        return out

    # ---- achievements ------------------------------------------------------------------------------------------
    async def award(self, player_id: int, codes: Sequence[str], match_id: int | None) -> list[str]:
        """Give the player each achievement they do not have yet; returns the newly earned codes, in order.

        One INSERT ... ON CONFLICT DO NOTHING per code: two workers awarding the same code at once both succeed,
        and only the one whose row went in reports it as earned."""
        earned = []
        async with self.transaction() as db:
            for code in codes:
                added = await self._one(db, upsert(self.dialect, achievements)
                                        .values(player_id=player_id, code=code, match_id=match_id, at=self._now())
                                        .on_conflict_do_nothing().returning(achievements.c.code))
                if added is not None:
                    earned.append(code)
        return earned

    async def achievements_of(self, player_id: int) -> list[str]:
        """The player's achievement codes, earliest first."""
        async with self.transaction(write=False) as db:
            rows = await self._all(db, select(achievements.c.code).where(achievements.c.player_id == player_id)
                                   .order_by(achievements.c.at, achievements.c.code))
        return [row["code"] for row in rows]

    async def mode_wins(self, player_id: int, game: str, mode: str) -> int:
        """Wins recorded in the statistics for one game and mode (e.g. Turbo wins, for its achievement)."""
        async with self.transaction(write=False) as db:
            row = await self._one(db, select(stats.c.won).where(stats.c.player_id == player_id,
                                                                 stats.c.game == game, stats.c.mode == mode))
        return int(row["won"]) if row else 0

    # ---- rebuilding --------------------------------------------------------------------------------------------
    async def rebuild_ratings(self, write: bool = True) -> RebuildReport:
        """Fold every stored rated result again, in the order it was applied, and rewrite the ratings from it
        (`write=False`: only compare).

        The report lists every rating (and every per-match rating in rated_results) the stored numbers had that the
        fold does not reproduce exactly; an empty list means the ratings were already what the results say.
        """
        async with self.transaction() as db:
            rows = await self._all(db, select(rated_results).order_by(rated_results.c.seq, rated_results.c.seat))
            folded: dict[tuple[str, str], dict[int, Standing]] = {}
            differences: list[str] = []
            matches = 0
            for (seq, match_id), group in _by_match(rows):
                first = group[0]
                board = folded.setdefault((first["game"], first["mode"]), {})
                entries = [Entry(row["player_id"], row["side"], row["place"], bool(row["abandoned"]), row["points"])
                           for row in group]
                after = ladder.rate(entries, board)
                matches += 1
                for row in group:
                    standing = after.get(row["player_id"])
                    if standing is None or (standing.mu, standing.sigma) != (row["mu"], row["sigma"]):
                        differences.append(f"match {match_id} (seq {seq}) player {row['player_id']}: stored "
                                           f"{row['mu']!r}/{row['sigma']!r}, folded "
                                           f"{None if standing is None else (standing.mu, standing.sigma)!r}")
                board.update(after)
            stored = {(row["player_id"], row["game"], row["mode"]): _standing(row)
                      for row in await self._all(db, select(ratings))}
            fresh = {(player, game, mode): standing for (game, mode), board in folded.items()
                     for player, standing in board.items()}
            for key in sorted(set(stored) | set(fresh)):
                if stored.get(key) != fresh.get(key):
                    differences.append(f"player {key[0]} {key[1]}/{key[2]}: stored {stored.get(key)}, "
                                       f"folded {fresh.get(key)}")
            if not write:
                return RebuildReport(matches, len(fresh), differences)
            await self._exec(db, delete(ratings))
            now = self._now()
            for (player, game, mode), standing in sorted(fresh.items()):
                await self._write_standing(db, player, game, mode, standing, now)
        return RebuildReport(matches, len(fresh), differences)

    # ---- inside apply_move's transaction -------------------------------------------------------------------------
    async def _rate_match(self, db: AsyncConnection, match: Row,
                          sides: Sequence[tuple[int, int]], result: dict[str, Any]) -> None:
        """Rate a finished rated table: `sides` is (side, place) per seat (ladder.sides_and_places).

        Nothing is rated when a seat is a bot (a bot-filled table never feeds the ladder) or fewer than two sides
        played. A seat still away at the end was finished by the away-bot: its player abandoned and takes a loss.
        """
        rows = await self._all(db, select(seats.c.seat, seats.c.player_id, seats.c.away)
                               .where(seats.c.match_id == match["id"]).order_by(seats.c.seat))
        if len(rows) != len(sides) or any(seat["player_id"] is None for seat in rows):
            return
        entries = [Entry(seat["player_id"], sides[seat["seat"]][0], sides[seat["seat"]][1], bool(seat["away"]),
                         ladder.side_points(result, sides[seat["seat"]][0])) for seat in rows]
        seat_of = {seat["player_id"]: seat["seat"] for seat in rows}
        game, mode = match["game"], match["mode"]
        current = {entry.player_id: await self._standing_of(db, entry.player_id, game, mode) for entry in entries}
        after = ladder.rate(entries, current)
        if not after:
            return
        if self.dialect == "postgresql":
            # Workers finishing rated matches take turns until commit: the ratings read here and the next `seq`
            # must be the ones the previous rated match wrote, or a rebuild would fold a different order.
            await self._exec(db, select(func.pg_advisory_xact_lock(RATING_LOCK_KEY)))
        row = await self._one(db, select((func.coalesce(func.max(rated_results.c.seq), 0) + 1).label("next")))
        seq = int(row["next"]) if row else 1
        now = self._now()
        for entry in entries:
            standing = after[entry.player_id]
            await self._exec(db, insert(rated_results).values(
                match_id=match["id"], player_id=entry.player_id, seq=seq, seat=seat_of[entry.player_id], game=game,
                mode=mode, side=entry.side, place=entry.place, abandoned=int(entry.abandoned), points=entry.points,
                outcome=ladder.outcome(entry, entries), rating_before=current[entry.player_id].rating,
                mu=standing.mu, sigma=standing.sigma, at=now))
            await self._write_standing(db, entry.player_id, game, mode, standing, now)

    async def _standing_of(self, db: AsyncConnection, player_id: int, game: str, mode: str) -> Standing:
        row = await self._one(db, _rating_row(player_id, game, mode))
        return Standing() if row is None else _standing(row)

    async def _write_standing(self, db: AsyncConnection, player_id: int, game: str, mode: str,
                              standing: Standing, now: float) -> None:
        values = upsert(self.dialect, ratings).values(
            player_id=player_id, game=game, mode=mode, mu=standing.mu, sigma=standing.sigma, rating=standing.rating,
            matches=standing.matches, wins=standing.wins, draws=standing.draws, losses=standing.losses,
            points=standing.points, streak=standing.streak, best_streak=standing.best_streak, updated=now)
        await self._exec(db, values.on_conflict_do_update(
            index_elements=[ratings.c.player_id, ratings.c.game, ratings.c.mode],
            set_={name: values.excluded[name] for name in STANDING_COLUMNS}))

    @staticmethod
    def _scope(chat_id: str | None, platform: str) -> ColumnElement[bool]:
        """Whose ratings a board lists: the platform's players, or those who finished a rated match of the board's
        game and mode in one chat."""
        if chat_id is None:
            return players.c.platform == platform
        rr = rated_results.c
        return (select(rr.player_id).select_from(rated_results.join(matches, matches.c.id == rr.match_id))
                .where(rr.player_id == ratings.c.player_id, rr.game == ratings.c.game, rr.mode == ratings.c.mode,
                       matches.c.platform == platform, matches.c.chat_id == str(chat_id))
                .exists())


def _rating_row(player_id: int, game: str, mode: str) -> Any:
    return select(ratings).where(ratings.c.player_id == player_id, ratings.c.game == game, ratings.c.mode == mode)


def _by_match(rows: list[Row]) -> list[tuple[tuple[int, int], list[Row]]]:
    groups: dict[tuple[int, int], list[Row]] = {}
    for row in rows:
        groups.setdefault((row["seq"], row["match_id"]), []).append(row)
    return sorted(groups.items())
