"""Tournaments: the event, its entries (a player, or a team of two), their members, and the bracket's games.

The store only records; the rules of the bracket (who meets whom, byes, advancing, forfeits) live in
bot/tournament.py and bot/core/tournaments.py. Statements are SQLAlchemy Core, as in the rest of storage/, so
they run unchanged on SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, delete, insert, literal_column, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from storage.db import Database, Row
from storage.errors import AlreadySeated, NotFound, WrongStatus
from storage.models import dumps, loads
from storage.schema import matches, players, tournament_entries, tournament_games, tournament_members, tournaments

LIVE = ("registering", "running")  # the statuses of a tournament the timer loop moves on
# The timer loop's question on every pass (about once a move), built once with the statuses written into the SQL
# (this module's constants), so it is read straight from SQLite on the event loop (storage/db.py `_read_all`).
_LIVE_TOURNAMENTS = (select(tournaments)
                     .where(tournaments.c.platform == bindparam("platform"),
                            tournaments.c.status.in_([literal_column(f"'{status}'") for status in LIVE]))
                     .order_by(tournaments.c.starts, tournaments.c.id))
GAME_FIELDS = frozenset({"entry_a", "entry_b", "match_id", "deadline", "ready", "winner", "outcome"})


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
            tournament_id = (await self._exec(db, insert(tournaments).values(
                platform=platform, chat_id=str(chat_id), game=game, mode=mode, options=dumps(options),
                team_size=team_size, opens=opens, closes=closes, starts=starts, grace=grace, prize=prize,
                status="registering", created_by=created_by, created=self._now()).returning(tournaments.c.id)
                                            )).scalar_one()
            return await self._tournament(db, tournament_id)

    async def get_tournament(self, tournament_id: int) -> Tournament | None:
        async with self.transaction(write=False) as db:
            row = await self._one(db, select(tournaments).where(tournaments.c.id == tournament_id))
        return None if row is None else Tournament.from_row(row)

    async def tournaments(self, platform: str, statuses: Sequence[str] = LIVE) -> list[Tournament]:
        """The platform's tournaments in these statuses, the soonest start first."""
        if tuple(statuses) == LIVE:  # every pass of the timer loop asks: one read on the event loop
            return [Tournament.from_row(row) for row in await self._read_all(_LIVE_TOURNAMENTS, {"platform": platform})]
        async with self.transaction(write=False) as db:
            rows = await self._all(db, select(tournaments)
                                   .where(tournaments.c.platform == platform, tournaments.c.status.in_(statuses))
                                   .order_by(tournaments.c.starts, tournaments.c.id))
        return [Tournament.from_row(row) for row in rows]

    async def latest_tournament(self, platform: str) -> Tournament | None:
        async with self.transaction(write=False) as db:
            row = await self._one(db, select(tournaments).where(tournaments.c.platform == platform)
                                  .order_by(tournaments.c.id.desc()).limit(1))
        return None if row is None else Tournament.from_row(row)

    async def set_tournament_status(self, tournament_id: int, status: str, champion: int | None = None) -> Tournament:
        async with self.transaction() as db:
            changes: dict[str, Any] = {"status": status}
            if champion is not None:
                changes["champion"] = champion
            await self._exec(db, update(tournaments).where(tournaments.c.id == tournament_id).values(**changes))
            return await self._tournament(db, tournament_id)

    async def host_chats(self, platform: str) -> list[str]:
        """The groups that have hosted a table on this platform: where tournaments are announced."""
        async with self.transaction(write=False) as db:
            rows = await self._all(db, select(matches.c.chat_id).distinct().where(matches.c.platform == platform)
                                   .order_by(matches.c.chat_id))
        return [row["chat_id"] for row in rows]

    # ---- entries -------------------------------------------------------------------------------------------
    async def add_entry(self, tournament_id: int, chat_id: str | int, player_id: int) -> Entry:
        """A new entry (a player, or a team's first member) registered from `chat_id`; AlreadySeated when the
        player is already in an entry of this tournament."""
        async with self.transaction() as db:
            await self._registering(db, tournament_id)
            await self._not_entered(db, tournament_id, player_id)
            entry_id = (await self._exec(db, insert(tournament_entries).values(
                tournament_id=tournament_id, chat_id=str(chat_id), registered=self._now())
                .returning(tournament_entries.c.id))).scalar_one()
            await self._exec(db, insert(tournament_members).values(
                tournament_id=tournament_id, entry_id=entry_id, player_id=player_id, position=0))
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
            await self._exec(db, insert(tournament_members).values(
                tournament_id=tournament_id, entry_id=entry_id, player_id=player_id, position=len(entry.members)))
            return await self._entry(db, entry_id)

    async def withdraw(self, tournament_id: int, player_id: int) -> Entry | None:
        """Take the player out before the draw; an entry left empty goes. The entry as it was, or None."""
        async with self.transaction() as db:
            await self._registering(db, tournament_id)
            row = await self._one(db, _membership(tournament_id, player_id))
            if row is None:
                return None
            entry = await self._entry(db, row["entry_id"])
            members = tournament_members.c
            await self._exec(db, delete(tournament_members).where(members.tournament_id == tournament_id,
                                                                  members.player_id == player_id))
            rest = [m for m in entry.members if m.player_id != player_id]
            if not rest:
                await self._exec(db, delete(tournament_entries).where(tournament_entries.c.id == entry.id))
            else:
                # Renumbered in two steps: (entry_id, position) is unique, checked row by row on PostgreSQL.
                for position, member in enumerate(rest):
                    await self._exec(db, update(tournament_members)
                                     .where(members.entry_id == entry.id, members.player_id == member.player_id)
                                     .values(position=position + 100))
                await self._exec(db, update(tournament_members).where(members.entry_id == entry.id)
                                 .values(position=members.position - 100))
            return entry

    async def entries(self, tournament_id: int) -> list[Entry]:
        """Every entry, in order of registration."""
        async with self.transaction(write=False) as db:
            rows = await self._all(db, select(tournament_entries.c.id)
                                   .where(tournament_entries.c.tournament_id == tournament_id)
                                   .order_by(tournament_entries.c.id))
            return [await self._entry(db, row["id"]) for row in rows]

    # ---- the bracket ---------------------------------------------------------------------------------------
    async def draw_bracket(self, tournament_id: int, seeds: dict[int, int], drop: Sequence[int],
                           games: Sequence[tuple[int, int, int | None, int | None]]) -> None:
        """Start the tournament: incomplete entries (`drop`) leave, the others get their seeds, and the bracket's
        games (round, slot, entry_a, entry_b) are written, all at once."""
        async with self.transaction() as db:
            # Locked (PostgreSQL) so that two workers drawing at once cannot both find it registering.
            row = await self._one(db, select(tournaments.c.status).where(tournaments.c.id == tournament_id)
                                  .with_for_update())
            if row is None or row["status"] != "registering":
                raise WrongStatus(f"tournament {tournament_id} is not registering")
            for entry_id in drop:
                await self._exec(db, delete(tournament_members).where(tournament_members.c.entry_id == entry_id))
                await self._exec(db, delete(tournament_entries).where(tournament_entries.c.id == entry_id))
            for entry_id, seed in seeds.items():
                await self._exec(db, update(tournament_entries).where(tournament_entries.c.id == entry_id)
                                 .values(seed=seed))
            for round_number, slot, entry_a, entry_b in games:
                await self._exec(db, insert(tournament_games).values(
                    tournament_id=tournament_id, round=round_number, slot=slot, entry_a=entry_a, entry_b=entry_b,
                    ready="[]"))
            await self._exec(db, update(tournaments).where(tournaments.c.id == tournament_id)
                             .values(status="running"))

    async def bracket(self, tournament_id: int) -> list[BracketGame]:
        async with self.transaction(write=False) as db:
            rows = await self._all(db, select(tournament_games)
                                   .where(tournament_games.c.tournament_id == tournament_id)
                                   .order_by(tournament_games.c.round, tournament_games.c.slot))
        return [BracketGame.from_row(row) for row in rows]

    async def tournament_game_of_match(self, match_id: int) -> BracketGame | None:
        async with self.transaction(write=False) as db:
            row = await self._one(db, select(tournament_games).where(tournament_games.c.match_id == match_id))
        return None if row is None else BracketGame.from_row(row)

    async def update_game(self, tournament_id: int, round_number: int, slot: int, **fields: Any) -> BracketGame:
        """Set some of entry_a, entry_b, match_id, deadline, ready (a list), winner, outcome of one game."""
        unknown = set(fields) - GAME_FIELDS
        if unknown:
            raise ValueError(f"not a bracket game field: {sorted(unknown)}")
        values = {name: dumps(list(value)) if name == "ready" else value for name, value in fields.items()}
        games = tournament_games.c
        this_game = (games.tournament_id == tournament_id, games.round == round_number, games.slot == slot)
        async with self.transaction() as db:
            if values:
                await self._exec(db, update(tournament_games).where(*this_game).values(**values))
            row = await self._one(db, select(tournament_games).where(*this_game))
            if row is None:
                raise NotFound(f"tournament {tournament_id} has no game {round_number}.{slot}")
            return BracketGame.from_row(row)

    # ---- helpers (inside a transaction) --------------------------------------------------------------------
    async def _tournament(self, db: AsyncConnection, tournament_id: int) -> Tournament:
        row = await self._one(db, select(tournaments).where(tournaments.c.id == tournament_id))
        if row is None:
            raise NotFound(f"no tournament {tournament_id}")
        return Tournament.from_row(row)

    async def _registering(self, db: AsyncConnection, tournament_id: int) -> None:
        """Entries change only before the draw (the registration window itself is the service's clock's call)."""
        tournament = await self._tournament(db, tournament_id)
        if tournament.status != "registering":
            raise WrongStatus(f"tournament {tournament_id} is not taking registrations")

    async def _not_entered(self, db: AsyncConnection, tournament_id: int, player_id: int) -> None:
        row = await self._one(db, _membership(tournament_id, player_id))
        if row is not None:
            raise AlreadySeated(f"player {player_id} is already in entry {row['entry_id']}")

    async def _entry(self, db: AsyncConnection, entry_id: int) -> Entry:
        row = await self._one(db, select(tournament_entries).where(tournament_entries.c.id == entry_id))
        if row is None:
            raise NotFound(f"no entry {entry_id}")
        member = tournament_members.c
        members = await self._all(
            db, select(member.player_id, players.c.display_name)
            .select_from(tournament_members.join(players, players.c.id == member.player_id))
            .where(member.entry_id == entry_id).order_by(member.position))
        return Entry(row["id"], row["tournament_id"], row["chat_id"], row["seed"], row["registered"],
                     tuple(Member(m["player_id"], m["display_name"]) for m in members))


def _membership(tournament_id: int, player_id: int) -> Any:
    """The entry a player is in, in one tournament (a player is in at most one)."""
    return select(tournament_members.c.entry_id).where(tournament_members.c.tournament_id == tournament_id,
                                                       tournament_members.c.player_id == player_id)
