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

from sqlalchemy.ext.asyncio import AsyncConnection

from storage import ladder
from storage.db import Database, Row
from storage.ladder import Entry, Standing
from storage.stats import seat_outcomes

# storage.migrate's advisory lock key + 1: a number no other program on the server locks with.
RATING_LOCK_KEY = 0x6D616A6C6973 + 1

PAGE_SIZE = 10


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
            rows = await self._all(db, "SELECT * FROM ratings WHERE player_id = ? ORDER BY matches DESC, game, mode",
                                   (player_id,))
        return [GameRating(row["game"], row["mode"], _standing(row)) for row in rows]

    async def ladder(self, game: str, mode: str, platform: str, chat_id: str | None = None, page: int = 0,
                     per_page: int = PAGE_SIZE) -> LadderPage:
        """One page of the board of a game and mode: players out of placement, best shown rating first (then the
        higher mu, then the earlier player, so equal ratings list in a stable order).

        Global is every player of the platform (players are per platform); with `chat_id`, only players who
        finished a rated match of this game and mode in that chat, still ranked by their one rating.
        A page past the end shows the last page.
        """
        scope, params = self._scope(chat_id, platform)
        async with self.transaction(write=False) as db:
            counts = await self._one(
                db, f"""SELECT sum(CASE WHEN r.matches >= ? THEN 1 ELSE 0 END) AS placed,
                               sum(CASE WHEN r.matches < ? THEN 1 ELSE 0 END) AS placing
                        FROM ratings r JOIN players p ON p.id = r.player_id
                        WHERE r.game = ? AND r.mode = ? AND {scope}""",  # noqa: S608 (only ? marks)
                (ladder.PLACEMENT_MATCHES, ladder.PLACEMENT_MATCHES, game, mode, *params))
            placed = int(counts["placed"] or 0) if counts else 0
            placing = int(counts["placing"] or 0) if counts else 0
            pages = max(1, -(-placed // per_page))
            page = min(max(page, 0), pages - 1)
            rows = await self._all(
                db, f"""SELECT r.*, p.display_name FROM ratings r JOIN players p ON p.id = r.player_id
                        WHERE r.game = ? AND r.mode = ? AND r.matches >= ? AND {scope}
                        ORDER BY r.rating DESC, r.mu DESC, r.player_id
                        LIMIT ? OFFSET ?""",  # noqa: S608 (only ? marks)
                (game, mode, ladder.PLACEMENT_MATCHES, *params, per_page, page * per_page))
        return LadderPage(
            [LadderRow(page * per_page + number, row["player_id"], row["display_name"], _standing(row))
             for number, row in enumerate(rows, start=1)], page, pages, placed, placing)

    async def ladder_rank(self, player_id: int, game: str, mode: str, platform: str) -> tuple[int, int] | None:
        """(position, players on the board) of a placed player on the platform's board; None when not on it."""
        async with self.transaction(write=False) as db:
            mine = await self._one(db, "SELECT * FROM ratings WHERE player_id = ? AND game = ? AND mode = ?",
                                   (player_id, game, mode))
            if mine is None or mine["matches"] < ladder.PLACEMENT_MATCHES:
                return None
            rating, mu = mine["rating"], mine["mu"]
            row = await self._one(
                db, """SELECT sum(CASE WHEN r.rating > ? OR (r.rating = ? AND (r.mu > ? OR (r.mu = ?
                                  AND r.player_id < ?))) THEN 1 ELSE 0 END) AS above, count(*) AS total
                       FROM ratings r JOIN players p ON p.id = r.player_id
                       WHERE r.game = ? AND r.mode = ? AND r.matches >= ? AND p.platform = ?""",
                (rating, rating, mu, mu, player_id, game, mode, ladder.PLACEMENT_MATCHES, platform))
        assert row is not None
        return int(row["above"] or 0) + 1, int(row["total"])

    async def rating_changes(self, match_id: int) -> list[RatingChange]:
        """The rating change of every human of a rated match, in seat order of their sides; empty if unrated."""
        async with self.transaction(write=False) as db:
            rows = await self._all(
                db, """SELECT rr.*, p.display_name FROM rated_results rr JOIN players p ON p.id = rr.player_id
                       WHERE rr.match_id = ? ORDER BY rr.place, rr.side, rr.player_id""", (match_id,))
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
            rows = await self._all(
                db, """SELECT m.id, m.game, m.result, s.seat,
                              (SELECT count(*) FROM seats t WHERE t.match_id = m.id) AS seat_count
                       FROM matches m JOIN seats s ON s.match_id = m.id
                       WHERE s.player_id = ? AND m.status = 'finished' AND m.mode <> 'private'
                       ORDER BY m.finished DESC, m.id DESC LIMIT ?""", (player_id, limit))
        out = []
        for row in rows:
            result = json.loads(row["result"] or "{}")
            won, drawn, _ = seat_outcomes(result, row["seat_count"])[row["seat"]]
            out.append(FormEntry(row["id"], row["game"], ladder.WIN if won else ladder.DRAW if drawn else ladder.LOSS))
        return out

    # ---- achievements ------------------------------------------------------------------------------------------
    async def award(self, player_id: int, codes: Sequence[str], match_id: int | None) -> list[str]:
        """Give the player each achievement they do not have yet; returns the newly earned codes, in order."""
        earned = []
        async with self.transaction() as db:
            for code in codes:
                have = await self._one(db, "SELECT 1 FROM achievements WHERE player_id = ? AND code = ?",
                                       (player_id, code))
                if have is None:
                    await self._exec(db, "INSERT INTO achievements (player_id, code, match_id, at) VALUES (?, ?, ?, ?)",
                                     (player_id, code, match_id, self._now()))
                    earned.append(code)
        return earned

    async def achievements_of(self, player_id: int) -> list[str]:
        """The player's achievement codes, earliest first."""
        async with self.transaction(write=False) as db:
            rows = await self._all(db, "SELECT code FROM achievements WHERE player_id = ? ORDER BY at, code",
                                   (player_id,))
        return [row["code"] for row in rows]

    async def mode_wins(self, player_id: int, game: str, mode: str) -> int:
        """Wins recorded in the statistics for one game and mode (e.g. Turbo wins, for its achievement)."""
        async with self.transaction(write=False) as db:
            row = await self._one(db, "SELECT won FROM stats WHERE player_id = ? AND game = ? AND mode = ?",
                                  (player_id, game, mode))
        return int(row["won"]) if row else 0

    # ---- rebuilding --------------------------------------------------------------------------------------------
    async def rebuild_ratings(self, write: bool = True) -> RebuildReport:
        """Fold every stored rated result again, in the order it was applied, and rewrite the ratings from it
        (`write=False`: only compare).

        The report lists every rating (and every per-match rating in rated_results) the stored numbers had that the
        fold does not reproduce exactly; an empty list means the ratings were already what the results say.
        """
        async with self.transaction() as db:
            rows = await self._all(db, "SELECT * FROM rated_results ORDER BY seq, seat")
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
                      for row in await self._all(db, "SELECT * FROM ratings")}
            fresh = {(player, game, mode): standing for (game, mode), board in folded.items()
                     for player, standing in board.items()}
            for key in sorted(set(stored) | set(fresh)):
                if stored.get(key) != fresh.get(key):
                    differences.append(f"player {key[0]} {key[1]}/{key[2]}: stored {stored.get(key)}, "
                                       f"folded {fresh.get(key)}")
            if not write:
                return RebuildReport(matches, len(fresh), differences)
            await self._exec(db, "DELETE FROM ratings")
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
        seats = await self._all(db, "SELECT seat, player_id, away FROM seats WHERE match_id = ? ORDER BY seat",
                                (match["id"],))
        if len(seats) != len(sides) or any(seat["player_id"] is None for seat in seats):
            return
        entries = [Entry(seat["player_id"], sides[seat["seat"]][0], sides[seat["seat"]][1], bool(seat["away"]),
                         ladder.side_points(result, sides[seat["seat"]][0])) for seat in seats]
        seat_of = {seat["player_id"]: seat["seat"] for seat in seats}
        game, mode = match["game"], match["mode"]
        current = {entry.player_id: await self._standing_of(db, entry.player_id, game, mode) for entry in entries}
        after = ladder.rate(entries, current)
        if not after:
            return
        if self.dialect == "postgresql":
            # Workers finishing rated matches take turns until commit: the ratings read here and the next `seq`
            # must be the ones the previous rated match wrote, or a rebuild would fold a different order.
            await self._exec(db, "SELECT pg_advisory_xact_lock(?)", (RATING_LOCK_KEY,))
        row = await self._one(db, "SELECT coalesce(max(seq), 0) + 1 AS next FROM rated_results")
        seq = int(row["next"]) if row else 1
        now = self._now()
        for entry in entries:
            standing = after[entry.player_id]
            await self._exec(db,
                """INSERT INTO rated_results (match_id, player_id, seq, seat, game, mode, side, place, abandoned,
                                              points, outcome, rating_before, mu, sigma, at)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                (match["id"], entry.player_id, seq, seat_of[entry.player_id], game, mode, entry.side, entry.place,
                 int(entry.abandoned), entry.points, ladder.outcome(entry, entries),
                 current[entry.player_id].rating, standing.mu, standing.sigma, now))
            await self._write_standing(db, entry.player_id, game, mode, standing, now)

    async def _standing_of(self, db: AsyncConnection, player_id: int, game: str, mode: str) -> Standing:
        row = await self._one(db, "SELECT * FROM ratings WHERE player_id = ? AND game = ? AND mode = ?",
                              (player_id, game, mode))
        return Standing() if row is None else _standing(row)

    async def _write_standing(self, db: AsyncConnection, player_id: int, game: str, mode: str,
                              standing: Standing, now: float) -> None:
        await self._exec(db,
            """INSERT INTO ratings (player_id, game, mode, mu, sigma, rating, matches, wins, draws, losses, points,
                                    streak, best_streak, updated)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT (player_id, game, mode) DO UPDATE SET
                 mu = excluded.mu, sigma = excluded.sigma, rating = excluded.rating, matches = excluded.matches,
                 wins = excluded.wins, draws = excluded.draws, losses = excluded.losses, points = excluded.points,
                 streak = excluded.streak, best_streak = excluded.best_streak, updated = excluded.updated""",
            (player_id, game, mode, standing.mu, standing.sigma, standing.rating, standing.matches, standing.wins,
             standing.draws, standing.losses, standing.points, standing.streak, standing.best_streak, now))

    @staticmethod
    def _scope(chat_id: str | None, platform: str) -> tuple[str, tuple[Any, ...]]:
        if chat_id is None:
            return "p.platform = ?", (platform,)
        return ("""EXISTS (SELECT 1 FROM rated_results rr JOIN matches m ON m.id = rr.match_id
                           WHERE rr.player_id = r.player_id AND rr.game = r.game AND rr.mode = r.mode
                           AND m.platform = ? AND m.chat_id = ?)""", (platform, str(chat_id)))


def _by_match(rows: list[Row]) -> list[tuple[tuple[int, int], list[Row]]]:
    groups: dict[tuple[int, int], list[Row]] = {}
    for row in rows:
        groups.setdefault((row["seq"], row["match_id"]), []).append(row)
    return sorted(groups.items())
