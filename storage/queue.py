"""The matchmaking queue: players waiting for a table with no group, and seating them — in one transaction.

Seating reads a queue's entries locked (`FOR UPDATE SKIP LOCKED` on PostgreSQL: entries another worker is seating
right now are skipped, not waited for), lets the caller choose the tables (a pure function: bot/core/matchmaking.py),
and creates each table in play with its seats while deleting the seated entries. Whichever worker commits first
seats a player; another one never sees that entry again, so nobody is seated twice. SQLite has one writer at a
time (BEGIN IMMEDIATE), which gives the same guarantee without the lock clause.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from storage.errors import AlreadyQueued
from storage.models import Match, QueueEntry, dumps
from storage.schema import matches, players, queue_entries, seats
from storage.wakeups import DeadlineWakes

MATCHED = "matched"  # matches.platform of a table seated from the queue: it has no group, each seat its platform
BOT_LEVEL = "normal"

_ENTRIES = select(queue_entries, players.c.display_name).select_from(
    queue_entries.join(players, players.c.id == queue_entries.c.player_id))

# A seat in a match in play: a player queued who sat down at a group's table meanwhile waits until it ends.
_PLAYING = select(seats.c.player_id).select_from(seats.join(matches, matches.c.id == seats.c.match_id)).where(
    matches.c.status == "active")


@dataclass(frozen=True)
class Deal:
    """A new table's start, made by the caller for a seat count: the engine state, its seed, the first deadline."""

    options: dict[str, Any]
    mode: str
    snapshot: dict[str, Any]
    seed: int
    deadline: float | None
    rated: bool


# A table the chooser made: the entries in seat order, None for a seat a bot takes.
Table = Sequence[QueueEntry | None]
Chooser = Callable[[list[QueueEntry]], list[Table]]
Dealer = Callable[[Table], Deal]


@dataclass(frozen=True)
class Seated:
    match: Match
    table: tuple[QueueEntry | None, ...]


class QueueOps(DeadlineWakes):
    async def enqueue(self, player_id: int, platform: str, game: str, mode: str, ordinal: float,
                      queued: float | None = None, group_chat: str | None = None) -> QueueEntry:
        """Put the player in the queue of `game` and `mode` (joining at `queued`, by the service's clock, which
        times the queue's wait; the store's by default) — the global one, or group `group_chat`'s own; AlreadyQueued
        (carrying their entry) when they wait somewhere already — the database's unique player decides between two
        joins at once."""
        def add(db: Connection) -> QueueEntry:
            try:
                with db.begin_nested():
                    entry_id = db.execute(insert(queue_entries).values(
                        player_id=player_id, platform=platform, game=game, mode=mode, ordinal=ordinal,
                        group_chat=group_chat,
                        queued=self._now() if queued is None else queued).returning(queue_entries.c.id)).scalar_one()
            except IntegrityError:
                found = db.execute(_ENTRIES.where(queue_entries.c.player_id == player_id)).mappings().first()
                if found is None:
                    raise
                raise AlreadyQueued(QueueEntry.from_row(found)) from None
            return QueueEntry.from_row(db.execute(_ENTRIES.where(queue_entries.c.id == entry_id)).mappings().one())

        return await self.run(add)

    async def queue_entry_of(self, player_id: int) -> QueueEntry | None:
        row = await self._read_one(_ENTRIES.where(queue_entries.c.player_id == player_id))
        return None if row is None else QueueEntry.from_row(row)

    async def queue_entry(self, entry_id: int) -> QueueEntry | None:
        row = await self._read_one(_ENTRIES.where(queue_entries.c.id == entry_id))
        return None if row is None else QueueEntry.from_row(row)

    async def set_queue_message(self, entry_id: int, chat_id: str, message_id: str) -> None:
        await self.run(lambda db: db.execute(update(queue_entries).where(queue_entries.c.id == entry_id)
                                             .values(chat_id=chat_id, message_id=message_id)))

    async def leave_queue(self, player_id: int, entry_id: int | None = None) -> QueueEntry | None:
        """Take the player out of their queue (only entry `entry_id`, when given); the entry removed, or None."""
        def remove(db: Connection) -> QueueEntry | None:
            where = [queue_entries.c.player_id == player_id]
            if entry_id is not None:
                where.append(queue_entries.c.id == entry_id)
            row = db.execute(_ENTRIES.where(*where).with_for_update(of=queue_entries)).mappings().first()
            if row is None:
                return None
            db.execute(delete(queue_entries).where(queue_entries.c.id == row["id"]))
            return QueueEntry.from_row(row)

        return await self.run(remove)

    async def queue(self, game: str, mode: str, group_chat: str | None = None,
                    seatable: bool = False) -> list[QueueEntry]:
        """Who waits for `game` and `mode` (in the global queue, or in group `group_chat`'s), first come first;
        `seatable`: only those `seat_queue` could seat now (not playing a match meanwhile)."""
        where = [queue_entries.c.game == game, queue_entries.c.mode == mode, _in_group(group_chat)]
        if seatable:
            where.append(~_PLAYING.where(seats.c.player_id == queue_entries.c.player_id).exists())
        rows = await self._read_all(_ENTRIES.where(*where)
                                    .order_by(queue_entries.c.queued, queue_entries.c.id))
        return [QueueEntry.from_row(row) for row in rows]

    async def waiting_queues(self) -> list[tuple[str, str, str | None, float]]:
        """(game, mode, group chat or None, when its first player joined) of every queue someone waits in."""
        rows = await self._read_all(
            select(queue_entries.c.game, queue_entries.c.mode, queue_entries.c.group_chat,
                   func.min(queue_entries.c.queued).label("first"))
            .group_by(queue_entries.c.game, queue_entries.c.mode, queue_entries.c.group_chat))
        return [(row["game"], row["mode"], row["group_chat"], row["first"]) for row in rows]

    async def queue_sizes(self) -> dict[tuple[str, str], tuple[int, float]]:
        """(game, mode) -> (how many wait, when the first joined), for the metrics page and /status."""
        rows = await self._read_all(
            select(queue_entries.c.game, queue_entries.c.mode, func.count().label("waiting"),
                   func.min(queue_entries.c.queued).label("first"))
            .group_by(queue_entries.c.game, queue_entries.c.mode))
        return {(row["game"], row["mode"]): (int(row["waiting"]), float(row["first"])) for row in rows}

    async def seat_queue(self, game: str, mode: str, choose: Chooser, deal: Dealer,
                         group: tuple[str, str] | None = None) -> list[Seated]:
        """Seat what `choose` makes of the queue's unlocked entries (first come first), each table started in play
        from `deal`, in one transaction; the tables seated (none: nobody could be matched yet). `group` (platform,
        chat): that group's own queue, seated as the group's table — only while the group has no open table
        (one per chat, as for /new): its players wait until that one ends."""
        def work(db: Connection) -> list[Seated]:
            if group is not None and db.execute(select(matches.c.id).where(
                    matches.c.platform == group[0], matches.c.chat_id == group[1],
                    matches.c.status.in_(("lobby", "active")))).first() is not None:
                return []
            rows = db.execute(_ENTRIES.where(queue_entries.c.game == game, queue_entries.c.mode == mode,
                                             _in_group(None if group is None else group[1]),
                                             ~_PLAYING.where(seats.c.player_id == queue_entries.c.player_id)
                                             .exists())
                              .order_by(queue_entries.c.queued, queue_entries.c.id)
                              .with_for_update(skip_locked=True, of=queue_entries)).mappings().all()
            waiting = [QueueEntry.from_row(row) for row in rows]
            seated: list[Seated] = []
            used: set[int] = set()
            for table in choose(waiting) if waiting else []:
                chosen = [entry for entry in table if entry is not None]
                if not chosen or any(entry.id in used for entry in chosen):
                    raise ValueError("a queue entry chosen twice, or a table without a player")
                used |= {entry.id for entry in chosen}
                seated.append(Seated(self._open_matched(db, game, tuple(table), deal(table), group), tuple(table)))
                if group is not None:
                    break  # one table per group
            if used:
                db.execute(delete(queue_entries).where(queue_entries.c.id.in_(sorted(used))))
            return seated

        try:
            found = await self.run(work)
        except IntegrityError:
            if group is None:
                raise
            return []  # another worker opened the group's one table meanwhile (the unique open table per chat)
        for one in found:
            self._deadline_written(one.match.deadline)
        return found

    def _open_matched(self, db: Connection, game: str, table: tuple[QueueEntry | None, ...], deal: Deal,
                      group: tuple[str, str] | None = None) -> Match:
        """The table in play: with no group (MATCHED, each seat on its own platform), or group `group`'s, stored
        as a /new table of that group is (its platform and chat; the first player seated its creator)."""
        now = self._now()
        platform, chat_id = group if group is not None else (MATCHED, f"q{secrets.token_hex(8)}")
        creator = next(entry.player_id for entry in table if entry is not None) if group is not None else None
        match_id = db.execute(insert(matches).values(
            game=game, mode=deal.mode, options=dumps(deal.options), status="active", version=0, seed=deal.seed,
            snapshot=dumps(deal.snapshot), platform=platform, chat_id=chat_id, creator_id=creator,
            deadline=deal.deadline, created=now, updated=now, stake=0, rated=int(deal.rated), lobby_version=0,
            lobby_shown=0).returning(matches.c.id)).scalar_one()
        for index, entry in enumerate(table):
            db.execute(insert(seats).values(
                match_id=match_id, seat=index, player_id=None if entry is None else entry.player_id,
                bot_level=BOT_LEVEL if entry is None else None, timeouts_in_a_row=0, away=0,
                platform=None if entry is None else entry.platform))
        return Match.from_row(db.execute(select(matches).where(matches.c.id == match_id)).mappings().one())


def _in_group(group_chat: str | None) -> Any:
    """The entries of one queue's scope: a group's own, or the global queue's (no group)."""
    if group_chat is None:
        return queue_entries.c.group_chat.is_(None)
    return queue_entries.c.group_chat == group_chat


def player_ids(table: Table) -> list[int]:
    return [entry.player_id for entry in table if entry is not None]


__all__ = ["MATCHED", "AlreadyQueued", "Deal", "QueueOps", "Seated", "player_ids"]
