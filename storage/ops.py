"""What the bot's operators read and decide: the counts behind /metrics and /status, and bans (MAJLIS_OPERATORS)."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import func, select, update
from sqlalchemy.engine import Connection

from storage.db import Database
from storage.models import Player
from storage.schema import coin_ledger, matches, players, rated_results, seats

Counts = dict[tuple[str, ...], float]


@dataclass(frozen=True)
class OperatorCounts:
    """Database-wide figures, each keyed by its label values."""

    live_tables: Counts = field(default_factory=dict)  # (game, mode) -> matches in play
    coin_entries: Counts = field(default_factory=dict)  # (reason,) -> coin ledger rows
    rated_results: Counts = field(default_factory=dict)  # (game, mode) -> rated results folded into the ladder
    timers_due: float = 0.0  # matches in play whose turn deadline has passed


class OpsReads(Database):
    async def operator_counts(self, now: float | None = None) -> OperatorCounts:
        """Grouped counts in one read: live tables by game and mode, timers past due, the coin ledger by reason,
        rated results by game and mode. Timers past due at `now` (the clock the deadlines were written by), when
        given."""

        def read(db: Connection) -> OperatorCounts:
            live = db.execute(select(matches.c.game, matches.c.mode, func.count()).where(matches.c.status == "active")
                              .group_by(matches.c.game, matches.c.mode)).all()
            ledger = db.execute(select(coin_ledger.c.reason, func.count()).group_by(coin_ledger.c.reason)).all()
            rated = db.execute(select(rated_results.c.game, rated_results.c.mode, func.count())
                               .group_by(rated_results.c.game, rated_results.c.mode)).all()
            due = 0 if now is None else db.execute(
                select(func.count()).where(matches.c.status == "active", matches.c.deadline.is_not(None),
                                           matches.c.deadline <= now)).scalar_one()
            return OperatorCounts({(game, mode): float(n) for game, mode, n in live},
                                  {(reason,): float(n) for reason, n in ledger},
                                  {(game, mode): float(n) for game, mode, n in rated}, float(due))

        return await self.run(read, write=False)

    async def ping(self) -> None:
        """One round trip to the database (raises when it does not answer): the readiness check's question."""
        await self.run(lambda db: db.execute(select(1)).scalar_one(), write=False)

    async def set_banned(self, platform: str, user_id: str, banned: bool) -> Player:
        """Ban or unban a platform account, creating its player row when the bot has never seen it (so a ban can
        come before the first press); the ban is the row's `banned_at` time, None when lifted."""
        from storage.dialects import upsert

        key = str(user_id)
        insert = upsert(self.dialect, players).values(platform=platform, user_id=key, display_name=key,
                                                      created=self._now())
        statement = insert.on_conflict_do_nothing(index_elements=[players.c.platform, players.c.user_id])
        at = self._now() if banned else None

        def write(db: Connection) -> Player:
            db.execute(statement)
            db.execute(update(players).where(players.c.platform == platform, players.c.user_id == key)
                       .values(banned_at=at))
            row = db.execute(select(players).where(players.c.platform == platform, players.c.user_id == key)
                             ).mappings().first()
            assert row is not None
            return Player.from_row(row)

        return await self.run(write)

    async def open_seats_of(self, player_id: int) -> list[tuple[int, int, str]]:
        """(match id, seat, status) of every seat this player holds at a lobby or a match in play."""
        rows = await self._read_all(
            select(seats.c.match_id, seats.c.seat, matches.c.status)
            .join(matches, matches.c.id == seats.c.match_id)
            .where(seats.c.player_id == player_id, matches.c.status.in_(("lobby", "active")))
            .order_by(seats.c.match_id))
        return [(row["match_id"], row["seat"], row["status"]) for row in rows]
