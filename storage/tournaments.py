"""Tournaments: the event, its entries (a player, or a team of two), their members, and the bracket's games.

The store only records; the rules of the bracket (who meets whom, byes, advancing, forfeits) live in
bot/tournament.py and bot/core/tournaments.py. Portable SQL only (the schema also runs on PostgreSQL).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from storage.db import Database, Row
from storage.errors import AlreadySeated, NotFound, WrongStatus
from storage.models import dumps, loads


@dataclass(frozen=True)
class Tournament:
    id: int
    platform: str
    chat_id: str  # where the operator scheduled it
    game: str
    mode: str
    options: dict[str, Any]
    team_size: int  # 1: solo entries; 2: teams of two (seats {0, 2} and {1, 3})
    opens: float
    closes: float
    starts: float
    grace: float  # seconds a drawn game waits for its players to check in
    prize: str
    status: str  # registering | running | finished | cancelled
    champion: int | None  # the winning entry
    created_by: int | None
    created: float

    def registering_at(self, now: float) -> bool:
        return self.status == "registering" and self.opens <= now < self.closes

    @classmethod
    def from_row(cls, row: Row) -> Tournament:
        return cls(row["id"], row["platform"], row["chat_id"], row["game"], row["mode"], loads(row["options"]),
                   row["team_size"], row["opens"], row["closes"], row["starts"], row["grace"], row["prize"],
                   row["status"], row["champion"], row["created_by"], row["created"])


@dataclass(frozen=True)
class Member:
    player_id: int
    display_name: str


@dataclass(frozen=True)
class Entry:
    id: int
    tournament_id: int
    chat_id: str  # the group it registered from: its matches are played there
    seed: int | None
    registered: float
    members: tuple[Member, ...]

    @property
    def player_ids(self) -> tuple[int, ...]:
        return tuple(member.player_id for member in self.members)

    def name(self, joiner: str = " & ") -> str:
        return joiner.join(member.display_name for member in self.members)


@dataclass(frozen=True)
class BracketGame:
    tournament_id: int
    round: int
    slot: int
    entry_a: int | None
    entry_b: int | None
    match_id: int | None
    deadline: float | None  # check-in closes; None: not called yet
    ready: tuple[int, ...]  # player ids checked in
    winner: int | None
    outcome: str | None  # played | bye | forfeit | draw (a drawn match: the better seed went through)

    @classmethod
    def from_row(cls, row: Row) -> BracketGame:
        return cls(row["tournament_id"], row["round"], row["slot"], row["entry_a"], row["entry_b"], row["match_id"],
                   row["deadline"], tuple(json.loads(row["ready"])), row["winner"], row["outcome"])


class TournamentOps(Database):
    async def create_tournament(self, platform: str, chat_id: str | int, game: str, mode: str, options: dict[str, Any],
                                team_size: int, opens: float, closes: float, starts: float, grace: float, prize: str,
                                created_by: int | None) -> Tournament:
        async with self.transaction() as db:
            tournament_id = (await self._exec(
                db, """INSERT INTO tournaments (platform, chat_id, game, mode, options, team_size, opens, closes,
                                                starts, grace, prize, created_by, created)
                       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id""",
                (platform, str(chat_id), game, mode, dumps(options), team_size, opens, closes, starts, grace, prize,
                 created_by, self._now()))).scalar_one()
            return await self._tournament(db, tournament_id)

    async def get_tournament(self, tournament_id: int) -> Tournament | None:
        async with self.transaction(write=False) as db:
            row = await self._one(db, "SELECT * FROM tournaments WHERE id = ?", (tournament_id,))
        return None if row is None else Tournament.from_row(row)

    async def tournaments(self, platform: str,
                          statuses: Sequence[str] = ("registering", "running")) -> list[Tournament]:
        """The platform's tournaments in these statuses, the soonest start first."""
        marks = ", ".join("?" for _ in statuses)
        async with self.transaction(write=False) as db:
            rows = await self._all(db, f"SELECT * FROM tournaments WHERE platform = ? AND status IN ({marks}) "
                                       "ORDER BY starts, id", (platform, *statuses))
        return [Tournament.from_row(row) for row in rows]

    async def latest_tournament(self, platform: str) -> Tournament | None:
        async with self.transaction(write=False) as db:
            row = await self._one(db, "SELECT * FROM tournaments WHERE platform = ? ORDER BY id DESC LIMIT 1",
                                  (platform,))
        return None if row is None else Tournament.from_row(row)

    async def set_tournament_status(self, tournament_id: int, status: str, champion: int | None = None) -> Tournament:
        async with self.transaction() as db:
            await self._exec(db, "UPDATE tournaments SET status = ?, champion = coalesce(?, champion) WHERE id = ?",
                             (status, champion, tournament_id))
            return await self._tournament(db, tournament_id)

    async def host_chats(self, platform: str) -> list[str]:
        """The groups that have hosted a table on this platform: where tournaments are announced."""
        async with self.transaction(write=False) as db:
            rows = await self._all(db, "SELECT DISTINCT chat_id FROM matches WHERE platform = ? ORDER BY chat_id",
                                   (platform,))
        return [row["chat_id"] for row in rows]

    # ---- entries -------------------------------------------------------------------------------------------
    async def add_entry(self, tournament_id: int, chat_id: str | int, player_id: int) -> Entry:
        """A new entry (a player, or a team's first member) registered from `chat_id`; AlreadySeated when the
        player is already in an entry of this tournament."""
        async with self.transaction() as db:
            await self._registering(db, tournament_id)
            await self._not_entered(db, tournament_id, player_id)
            entry_id = (await self._exec(
                db, "INSERT INTO tournament_entries (tournament_id, chat_id, registered) VALUES (?, ?, ?) RETURNING id",
                (tournament_id, str(chat_id), self._now()))).scalar_one()
            await self._exec(db, "INSERT INTO tournament_members (tournament_id, entry_id, player_id, position) "
                             "VALUES (?, ?, ?, 0)", (tournament_id, entry_id, player_id))
            return await self._entry(db, entry_id)

    async def join_entry(self, tournament_id: int, entry_id: int, player_id: int, size: int) -> Entry:
        """Add the player to a team that still has room; WrongStatus when it is full."""
        async with self.transaction() as db:
            await self._registering(db, tournament_id)
            await self._not_entered(db, tournament_id, player_id)
            entry = await self._entry(db, entry_id)
            if entry.tournament_id != tournament_id:
                raise NotFound(f"no entry {entry_id} in tournament {tournament_id}")
            if len(entry.members) >= size:
                raise WrongStatus(f"entry {entry_id} is full")
            await self._exec(db, "INSERT INTO tournament_members (tournament_id, entry_id, player_id, position) "
                             "VALUES (?, ?, ?, ?)", (tournament_id, entry_id, player_id, len(entry.members)))
            return await self._entry(db, entry_id)

    async def withdraw(self, tournament_id: int, player_id: int) -> Entry | None:
        """Take the player out before the draw; an entry left empty goes. The entry as it was, or None."""
        async with self.transaction() as db:
            await self._registering(db, tournament_id)
            row = await self._one(db, "SELECT entry_id FROM tournament_members WHERE tournament_id = ? "
                                      "AND player_id = ?", (tournament_id, player_id))
            if row is None:
                return None
            entry = await self._entry(db, row["entry_id"])
            await self._exec(db, "DELETE FROM tournament_members WHERE tournament_id = ? AND player_id = ?",
                             (tournament_id, player_id))
            rest = [m for m in entry.members if m.player_id != player_id]
            if not rest:
                await self._exec(db, "DELETE FROM tournament_entries WHERE id = ?", (entry.id,))
            else:
                for position, member in enumerate(rest):
                    await self._exec(db, "UPDATE tournament_members SET position = ? WHERE entry_id = ? "
                                         "AND player_id = ?", (position + 100, entry.id, member.player_id))
                await self._exec(db, "UPDATE tournament_members SET position = position - 100 WHERE entry_id = ?",
                                 (entry.id,))
            return entry

    async def entries(self, tournament_id: int) -> list[Entry]:
        """Every entry, in order of registration."""
        async with self.transaction(write=False) as db:
            rows = await self._all(db, "SELECT id FROM tournament_entries WHERE tournament_id = ? ORDER BY id",
                                   (tournament_id,))
            return [await self._entry(db, row["id"]) for row in rows]

    # ---- the bracket ---------------------------------------------------------------------------------------
    async def draw_bracket(self, tournament_id: int, seeds: dict[int, int], drop: Sequence[int],
                           games: Sequence[tuple[int, int, int | None, int | None]]) -> None:
        """Start the tournament: incomplete entries (`drop`) leave, the others get their seeds, and the bracket's
        games (round, slot, entry_a, entry_b) are written, all at once."""
        async with self.transaction() as db:
            row = await self._one(db, "SELECT status FROM tournaments WHERE id = ?", (tournament_id,))
            if row is None or row["status"] != "registering":
                raise WrongStatus(f"tournament {tournament_id} is not registering")
            for entry_id in drop:
                await self._exec(db, "DELETE FROM tournament_members WHERE entry_id = ?", (entry_id,))
                await self._exec(db, "DELETE FROM tournament_entries WHERE id = ?", (entry_id,))
            for entry_id, seed in seeds.items():
                await self._exec(db, "UPDATE tournament_entries SET seed = ? WHERE id = ?", (seed, entry_id))
            for round_number, slot, entry_a, entry_b in games:
                await self._exec(db, "INSERT INTO tournament_games (tournament_id, round, slot, entry_a, entry_b) "
                                 "VALUES (?, ?, ?, ?, ?)", (tournament_id, round_number, slot, entry_a, entry_b))
            await self._exec(db, "UPDATE tournaments SET status = 'running' WHERE id = ?", (tournament_id,))

    async def bracket(self, tournament_id: int) -> list[BracketGame]:
        async with self.transaction(write=False) as db:
            rows = await self._all(db, "SELECT * FROM tournament_games WHERE tournament_id = ? ORDER BY round, slot",
                                   (tournament_id,))
        return [BracketGame.from_row(row) for row in rows]

    async def tournament_game_of_match(self, match_id: int) -> BracketGame | None:
        async with self.transaction(write=False) as db:
            row = await self._one(db, "SELECT * FROM tournament_games WHERE match_id = ?", (match_id,))
        return None if row is None else BracketGame.from_row(row)

    async def update_game(self, tournament_id: int, round_number: int, slot: int, **fields: Any) -> BracketGame:
        """Set some of entry_a, entry_b, match_id, deadline, ready (a list), winner, outcome of one game."""
        allowed = {"entry_a", "entry_b", "match_id", "deadline", "ready", "winner", "outcome"}
        unknown = set(fields) - allowed
        if unknown:
            raise ValueError(f"not a bracket game field: {sorted(unknown)}")
        values = {name: dumps(list(value)) if name == "ready" else value for name, value in fields.items()}
        async with self.transaction() as db:
            if values:
                assignments = ", ".join(f"{name} = ?" for name in values)
                await self._exec(db, f"UPDATE tournament_games SET {assignments} WHERE tournament_id = ? AND round = ? "
                                 "AND slot = ?", (*values.values(), tournament_id, round_number, slot))
            row = await self._one(db, "SELECT * FROM tournament_games WHERE tournament_id = ? AND round = ? "
                                      "AND slot = ?", (tournament_id, round_number, slot))
            if row is None:
                raise NotFound(f"tournament {tournament_id} has no game {round_number}.{slot}")
            return BracketGame.from_row(row)

    # ---- helpers (inside a transaction) --------------------------------------------------------------------
    async def _tournament(self, db: AsyncConnection, tournament_id: int) -> Tournament:
        row = await self._one(db, "SELECT * FROM tournaments WHERE id = ?", (tournament_id,))
        if row is None:
            raise NotFound(f"no tournament {tournament_id}")
        return Tournament.from_row(row)

    async def _registering(self, db: AsyncConnection, tournament_id: int) -> None:
        """Entries change only before the draw (the registration window itself is the service's clock's call)."""
        tournament = await self._tournament(db, tournament_id)
        if tournament.status != "registering":
            raise WrongStatus(f"tournament {tournament_id} is not taking registrations")

    async def _not_entered(self, db: AsyncConnection, tournament_id: int, player_id: int) -> None:
        row = await self._one(db, "SELECT entry_id FROM tournament_members WHERE tournament_id = ? AND player_id = ?",
                              (tournament_id, player_id))
        if row is not None:
            raise AlreadySeated(f"player {player_id} is already in entry {row['entry_id']}")

    async def _entry(self, db: AsyncConnection, entry_id: int) -> Entry:
        row = await self._one(db, "SELECT * FROM tournament_entries WHERE id = ?", (entry_id,))
        if row is None:
            raise NotFound(f"no entry {entry_id}")
        members = await self._all(
            db, """SELECT m.player_id, p.display_name FROM tournament_members m JOIN players p ON p.id = m.player_id
                   WHERE m.entry_id = ? ORDER BY m.position""", (entry_id,))
        return Entry(row["id"], row["tournament_id"], row["chat_id"], row["seed"], row["registered"],
                     tuple(Member(m["player_id"], m["display_name"]) for m in members))
