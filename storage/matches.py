"""Matches, their seats and their move log — including `apply_move`, the one place a game advances."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy import bindparam, case, delete, func, insert, literal_column, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from storage.coins import CoinOps
from storage.db import Row
from storage.errors import AlreadySeated, NotFound, StaleVersion, TableBusy, TableFull, WrongStatus
from storage.models import Match, MoveRecord, Seat, dumps
from storage.ratings import RatingOps
from storage.schema import matches, moves, players, seats
from storage.stats import StatsOps
from storage.wakeups import DEADLINE_NOTICE, DeadlineWakes

ACTORS = ("human", "bot", "timer")

OPEN = ("lobby", "active")
_SEATS = select(seats, players.c.display_name).select_from(
    seats.outerjoin(players, players.c.id == seats.c.player_id))
# The statements of every move and press, built once (storage/db.py `_read_one`).
_MATCH = select(matches).where(matches.c.id == bindparam("match_id"))
_LOCKED_MATCH = _MATCH.with_for_update()
_MATCH_SEATS = _SEATS.where(seats.c.match_id == bindparam("match_id")).order_by(seats.c.seat)
# The player's seats first (an IN subquery): as a join, SQLite walked every active match by its status index and
# probed each one's seats, 330 µs at a thousand live tables against 56 µs this way.
_PLAYER_MATCH = (select(matches)
                 .where(matches.c.id.in_(select(seats.c.match_id).where(seats.c.player_id == bindparam("player_id"))),
                        (matches.c.platform == bindparam("platform")) | (matches.c.platform == literal_column(
                            "'matched'")),  # a table seated from the queue (storage/queue.py MATCHED)
                        matches.c.status == "active")
                 .order_by(matches.c.id.desc()).limit(1))
# The open statuses written into the SQL (they are this module's constants): SQLite then sees that the query
# implies the partial index matches_one_open_per_chat and finds the chat's table by it, where bound values left
# it walking every active match by status (a thousand live tables: every group command read them all). Bound
# values would also be an IN list expanded at each execution, which keeps it from a plain sqlite3 read.
_OPEN_STATUSES = matches.c.status.in_([literal_column(f"'{status}'") for status in OPEN])
_OPEN_MATCH = select(matches).where(matches.c.platform == bindparam("platform"),
                                    matches.c.chat_id == bindparam("chat_id"), _OPEN_STATUSES)
_LOG_MOVE = insert(moves)
# Whether any turn timer is due: every pass of the timer loop asks (a move wakes it, so about once a move), and the
# answer is nearly always no. A read on the event loop (storage/db.py `_read_one`) where the claim would be a write
# transaction on the database's thread, its statement built anew each time.
_ANY_DUE = (select(matches.c.id)
            .where(matches.c.status == "active", matches.c.deadline.is_not(None),
                   matches.c.deadline <= bindparam("now"))
            .limit(1))
_CHANGE_MATCH = update(matches).where(matches.c.id == bindparam("match_id"))
# PostgreSQL, a deadline written: the same change, sending it to every worker's timer loop (storage/wakeups.py) in
# the same statement (no round trip of its own).
_CHANGE_MATCH_TOLD = _CHANGE_MATCH.returning(DEADLINE_NOTICE)
# After every delivery pass: built once, as a new statement object each time cost more than the move's own write.
_DELIVERED_BEHIND = matches.c.delivered_version.is_(None) | (matches.c.delivered_version < bindparam("shown"))
_MARK_DELIVERED = (update(matches).where(matches.c.id == bindparam("match_id"))
                   .values(delivered_version=case((_DELIVERED_BEHIND, bindparam("shown")),
                                                  else_=matches.c.delivered_version))
                   .returning(matches.c.version))
# A lobby change counts up the lobby's version (the group's lobby message owes it until `mark_lobby_shown`); a match
# opened without a lobby message (a tournament's, a row from before the counter) stays at 0 and owes none.
_LOBBY_CHANGED = case((matches.c.lobby_version > 0, matches.c.lobby_version + 1), else_=0)
_LOBBY_SHOWN = (update(matches).where(matches.c.id == bindparam("match_id"))
                .values(lobby_shown=case((matches.c.lobby_shown < bindparam("shown"), bindparam("shown")),
                                         else_=matches.c.lobby_shown))
                .returning(matches.c.lobby_version))


class DueTimer(tuple[int, int]):
    """A claimed timer: (match id, version), as it compares and unpacks, and the deadline it had when claimed
    (`deadline`, for how late it fired: bot/metrics.py)."""

    deadline: float

    def __new__(cls, match_id: int, version: int, deadline: float) -> DueTimer:
        timer = super().__new__(cls, (match_id, version))
        timer.deadline = deadline
        return timer


class MatchOps(StatsOps, CoinOps, RatingOps, DeadlineWakes):
    # ---- matches -------------------------------------------------------------------------------------------

    async def create_match(
        self,
        game: str,
        mode: str,
        options: dict[str, Any],
        platform: str,
        chat_id: str | int,
        creator_id: int | None,
        seed: int | None,
        stake: int = 0,
        rated: bool = False,
        lobby_screen: bool = True,
    ) -> Match:
        """Open a lobby in the chat; TableBusy if the chat already has a lobby or a match in play. A `stake`
        makes it a coin table: each seat's coins are held when it starts. `rated`: the table feeds the ranked
        ladder when it ends (if every seat is then a human). `lobby_screen`: the group is shown a lobby message,
        owed from this commit on (`lobby_owed_matches`) until `mark_lobby_shown`; False for a table started
        without one (a tournament's)."""
        async with self.transaction() as db:
            busy = await self._open_row(db, platform, str(chat_id))
            if busy is not None:
                raise TableBusy(platform, str(chat_id), busy["id"])
            now = self._now()
            try:
                # The savepoint keeps the transaction usable when another worker's /new won the race: the
                # database's one-open-table-per-chat index refuses ours, and we report the winner's table.
                async with db.begin_nested():
                    match_id = (await db.execute(insert(matches).values(
                        game=game, mode=mode, options=dumps(options), status="lobby", version=0, seed=seed,
                        platform=platform, chat_id=str(chat_id), creator_id=creator_id, created=now, updated=now,
                        stake=stake, rated=int(rated), lobby_version=int(lobby_screen), lobby_shown=0)
                        .returning(matches.c.id))).scalar_one()
            except IntegrityError:
                busy = await self._open_row(db, platform, str(chat_id))
                if busy is None:
                    raise
                raise TableBusy(platform, str(chat_id), busy["id"]) from None
            return Match.from_row(await self._match_row(db, match_id))

    async def get_match(self, match_id: int) -> Match | None:
        row = await self._read_one(_MATCH, {"match_id": match_id})
        return None if row is None else Match.from_row(row)

    async def lobby_or_active_match(self, platform: str, chat_id: str | int) -> Match | None:
        """The chat's one open table, if any."""
        row = await self._read_one(_OPEN_MATCH, {"platform": platform, "chat_id": str(chat_id)})
        return None if row is None else Match.from_row(row)

    async def latest_match(self, platform: str, chat_id: str | int) -> Match | None:
        """The chat's most recent table of any status (for `/score` once a match has ended)."""
        row = await self._read_one(select(matches).where(matches.c.platform == platform,
                                                         matches.c.chat_id == str(chat_id))
                                   .order_by(matches.c.id.desc()).limit(1))
        return None if row is None else Match.from_row(row)

    async def player_active_match(self, platform: str, player_id: int) -> Match | None:
        """The newest match in play where this player has a seat (a private-chat command's table)."""
        row = await self._read_one(_PLAYER_MATCH, {"player_id": player_id, "platform": platform})
        return None if row is None else Match.from_row(row)

    async def player_latest_match(self, player_id: int) -> Match | None:
        """The newest match of any status where this player has a seat (`/score` after a matched table ended)."""
        row = await self._read_one(select(matches).where(matches.c.id.in_(
            select(seats.c.match_id).where(seats.c.player_id == player_id))).order_by(matches.c.id.desc()).limit(1))
        return None if row is None else Match.from_row(row)

    async def due_timers(self, now: float) -> list[tuple[int, int]]:
        """(match id, version) of every match in play whose turn deadline has passed, oldest deadline first."""
        rows = await self._read_all(
            select(matches.c.id, matches.c.version)
            .where(matches.c.status == "active", matches.c.deadline.is_not(None), matches.c.deadline <= now)
            .order_by(matches.c.deadline))
        return [(row["id"], row["version"]) for row in rows]

    async def claim_due_timers(self, now: float, lease: float, limit: int = 100) -> list[DueTimer]:
        """(match id, version) of due turn timers that this worker now owns, oldest deadline first.

        Several workers tick at once: each claims the due rows it can lock (FOR UPDATE SKIP LOCKED: rows another
        worker is claiming, or a match being moved right now, are skipped rather than waited for) and pushes their
        deadline `lease` seconds on in the same transaction, so no other worker sees them due meanwhile. The
        claimer fires the timeout with the version it claimed; the move's version check makes it apply once even
        if the lease ran out. A worker killed after claiming leaves the deadline at the lease's end: another
        worker fires it then. (SQLite: one writer at a time already, the lock clause is left out.)
        """
        if await self._read_one(_ANY_DUE, {"now": now}) is None:
            return []

        def claim(db: Connection) -> list[Row]:
            rows = list(db.execute(
                select(matches.c.id, matches.c.version, matches.c.deadline)
                .where(matches.c.status == "active", matches.c.deadline.is_not(None), matches.c.deadline <= now)
                .order_by(matches.c.deadline).limit(limit).with_for_update(skip_locked=True)).mappings().all())
            if rows:
                db.execute(update(matches).where(matches.c.id.in_([row["id"] for row in rows]))
                           .values(deadline=now + lease))
            return rows

        rows = await self.run(claim)
        return [DueTimer(row["id"], row["version"], row["deadline"]) for row in rows]

    async def next_deadline(self) -> float | None:
        """The earliest turn deadline of any match in play (None: no turn is timed): when the timer loop must
        wake next."""
        row = await self._read_one(select(func.min(matches.c.deadline).label("at"))
                                   .where(matches.c.status == "active"))
        return None if row is None else row["at"]

    async def active_matches(self, platform: str | None = None) -> list[Match]:
        """Every match in play (optionally on one platform), oldest first: what to resume timers for on start-up."""
        query = select(matches).where(matches.c.status == "active").order_by(matches.c.id)
        if platform is not None:
            query = query.where(matches.c.platform == platform)
        rows = await self._read_all(query)
        return [Match.from_row(row) for row in rows]

    async def undelivered_matches(self) -> list[Match]:
        """Matches in play or just finished whose latest version some screen has not shown yet (oldest first)."""
        rows = await self._read_all(
            select(matches).where(matches.c.status.in_(("active", "finished")),
                                  matches.c.delivered_version.is_(None)
                                  | (matches.c.delivered_version < matches.c.version))
            .order_by(matches.c.id))
        return [Match.from_row(row) for row in rows]

    async def lobby_owed_matches(self) -> list[Match]:
        """Matches whose lobby message does not show their latest lobby change (a post or an edit refused, then a
        restart), oldest first."""
        rows = await self._read_all(select(matches).where(matches.c.lobby_shown < matches.c.lobby_version)
                                    .order_by(matches.c.id))
        return [Match.from_row(row) for row in rows]

    async def mark_lobby_shown(self, match_id: int, lobby_version: int) -> int | None:
        """The lobby message shows `lobby_version` (or later): never backwards. Returns the stored lobby version
        (None: no such match): a later one is a change made meanwhile (on another worker) still to show."""
        values = {"match_id": match_id, "shown": lobby_version}
        return await self.run(lambda db: db.execute(_LOBBY_SHOWN, values).scalar_one_or_none())

    async def mark_delivered(self, match_id: int, version: int) -> int | None:
        """Every screen shows `version` (or later): clear the pending-delivery mark up to it, never backwards.

        Returns the match's version as stored now (None: no such match), in the same statement: a later one means
        a move was stored after the delivery read the match — on another worker, whose own delivery may have
        landed before this one's older screens."""
        values = {"match_id": match_id, "shown": version}
        return await self.run(lambda db: db.execute(_MARK_DELIVERED, values).scalar_one_or_none())

    async def set_match_options(self, match_id: int, options: dict[str, Any], mode: str | None = None) -> Match:
        """Replace a lobby's options (and mode, if given) before the game starts."""
        async with self.transaction() as db:
            await self._lobby_change(db, match_id)
            await db.execute(update(matches).where(matches.c.id == match_id).values(
                options=dumps(options), mode=matches.c.mode if mode is None else mode, updated=self._now()))
            return Match.from_row(await self._match_row(db, match_id))

    async def start_match(
        self,
        match_id: int,
        snapshot: dict[str, Any],
        deadline: float | None,
        seat_order: Sequence[int] | None = None,
        *,
        seat_count: int | None = None,
    ) -> Match:
        """Move a lobby into play at version 0 with the engine's initial state.

        `seat_order[i]` is the lobby seat that becomes seat i (a shuffle chosen by the service, which must have
        built `snapshot` for that order). Every seat must be taken by a player or a bot. At a coin table every
        human seat's stake goes into the pot in the same transaction (NotEnoughCoins, and no start, if one is short).
        With `seat_count` (the seats `snapshot` was dealt for), WrongStatus if the lobby has another number by now:
        a seat taken or left through another worker since the caller read them.
        """
        async with self.transaction() as db:
            await self._lobby_change(db, match_id)
            count = await self._seat_count(db, match_id)
            if count == 0:
                raise WrongStatus(f"match {match_id} has no seats")
            if seat_count is not None and count != seat_count:
                raise WrongStatus(f"match {match_id} has {count} seats now, not {seat_count}")
            if seat_order is not None:
                order = list(seat_order)
                if sorted(order) != list(range(count)):
                    raise ValueError(f"seat_order must be a permutation of 0..{count - 1}, not {order}")
                await self._reseat(db, match_id, {old: new for new, old in enumerate(order)})
            row = await self._match_row(db, match_id)
            if row["stake"]:
                await self._hold_stakes(db, match_id, row["stake"])
            start = update(matches).where(matches.c.id == match_id).values(
                status="active", version=0, snapshot=dumps(snapshot), deadline=deadline, updated=self._now())
            await db.execute(start.returning(DEADLINE_NOTICE) if self._tells(deadline) else start)
            started = Match.from_row(await self._match_row(db, match_id))
        self._deadline_written(deadline)
        return started

    async def cancel_match(self, match_id: int) -> Match:
        """Close a lobby or abandon a match in play; cancelling twice is harmless, a finished match stays finished.
        Stakes held for an abandoned coin table go back to their players in the same transaction."""
        async with self.transaction() as db:
            row = await self._match_row(db, match_id, lock=True)
            if row["status"] == "cancelled":
                return Match.from_row(row)
            if row["status"] == "finished":
                raise WrongStatus(f"match {match_id} is already finished")
            now = self._now()
            await db.execute(update(matches).where(matches.c.id == match_id).values(
                status="cancelled", deadline=None, finished=now, updated=now, lobby_version=_LOBBY_CHANGED))
            if row["stake"] and row["status"] == "active":
                await self._refund_pot(db, match_id)
            return Match.from_row(await self._match_row(db, match_id))

    async def apply_move(
        self,
        match_id: int,
        expected_version: int,
        seat: int,
        actor: str,
        move: str,
        new_snapshot: dict[str, Any],
        deadline: float | None,
        finished_result: dict[str, Any] | None = None,
        *,
        record_stats: bool = True,
        places: Sequence[Sequence[int]] | None = None,
        sides: Sequence[tuple[int, int]] | None = None,
    ) -> Match:
        """Record one move and the state after it, atomically, if the caller saw the latest version.

        The version check is what makes a double button press, or a timer firing just as the player moves,
        apply once: the loser gets StaleVersion (also raised when the match is no longer active). The move is
        logged as seq = version + 1. With `finished_result` (the engine's `result(state)`) the match is finished
        in the same transaction and every human seat's stats are updated, unless `record_stats` is False
        (modes such as private rooms that the rules keep out of statistics). At a coin table the pot is paid in the
        same transaction to the seats by finishing position (`places`: groups of seats, best first; without it the
        stakes are given back). A rated table's ratings move in the same transaction too, from `sides`: (side, place)
        per seat (storage.ladder.sides_and_places); never when `record_stats` is False.
        """
        if actor not in ACTORS:
            raise ValueError(f"actor must be one of {ACTORS}, not {actor!r}")
        if finished_result is None:  # every move but the last: one synchronous transaction (storage/db.py `run`)
            moved = await self.run(lambda db: self._move(db, match_id, expected_version, seat, actor, move,
                                                         new_snapshot, deadline))
            self._deadline_written(deadline)
            return moved
        async with self.transaction() as db:
            # Locked until commit: a move on another worker waits here, then sees our version and goes stale.
            row = await self._match_row(db, match_id, lock=True)
            if row["status"] != "active" or row["version"] != expected_version:
                raise StaleVersion(match_id, expected_version, row["version"], row["status"])
            now = self._now()
            version = expected_version + 1
            await db.execute(insert(moves).values(match_id=match_id, seq=version, seat=seat, actor=actor, move=move,
                                                  at=now))
            await db.execute(update(matches).where(matches.c.id == match_id).values(
                snapshot=dumps(new_snapshot), version=version, deadline=None, updated=now, status="finished",
                finished=now, result=dumps(finished_result)))
            if record_stats:
                await self._record_result(db, row, finished_result)
                if row["rated"] and sides is not None:
                    await self._rate_match(db, row, sides, finished_result)
            if row["stake"]:
                if places is None:
                    await self._refund_pot(db, match_id)
                else:
                    await self._pay_pot(db, match_id, places)
            return Match.from_row(await self._match_row(db, match_id))

    def _move(self, db: Connection, match_id: int, expected_version: int, seat: int, actor: str, move: str,
              new_snapshot: dict[str, Any], deadline: float | None) -> Match:
        """`apply_move` of a move that does not finish the match, as one synchronous transaction."""
        row = _locked_row(db, match_id)
        if row["status"] != "active" or row["version"] != expected_version:
            raise StaleVersion(match_id, expected_version, row["version"], row["status"])
        now = self._now()
        version = expected_version + 1
        db.execute(_LOG_MOVE, {"match_id": match_id, "seq": version, "seat": seat, "actor": actor, "move": move,
                               "at": now})
        changes = {"snapshot": dumps(new_snapshot), "version": version, "deadline": deadline, "updated": now}
        db.execute(_CHANGE_MATCH_TOLD if self._tells(deadline) else _CHANGE_MATCH, {"match_id": match_id, **changes})
        # The caller's snapshot itself, not a parse of the text just written from it (the same data).
        return replace(Match.from_row({**row, **changes, "snapshot": None}), snapshot=new_snapshot)

    async def set_deadline(
        self, match_id: int, deadline: float | None, expected_version: int | None = None
    ) -> Match:
        """Start, move or stop (None) the turn timer of a match in play.

        With `expected_version`, only if no move happened meanwhile (StaleVersion otherwise), so a timer
        rescheduled from an old view cannot overwrite the deadline a newer move set.
        """
        def change(db: Connection) -> Match:
            row = _locked_row(db, match_id)
            if row["status"] != "active" or (expected_version is not None and row["version"] != expected_version):
                raise StaleVersion(match_id, row["version"] if expected_version is None else expected_version,
                                   row["version"], row["status"])
            changes = {"deadline": deadline, "updated": self._now()}
            db.execute(_CHANGE_MATCH_TOLD if self._tells(deadline) else _CHANGE_MATCH,
                       {"match_id": match_id, **changes})
            return Match.from_row({**row, **changes})

        changed = await self.run(change)
        self._deadline_written(deadline)
        return changed

    async def moves(self, match_id: int) -> list[MoveRecord]:
        """The match's move log in order, for replay from the start state."""
        rows = await self._read_all(select(moves).where(moves.c.match_id == match_id).order_by(moves.c.seq))
        return [MoveRecord.from_row(row) for row in rows]

    # ---- seats ---------------------------------------------------------------------------------------------

    async def add_seat(self, match_id: int, player_id: int | None = None, bot_level: str | None = None, *,
                       max_seats: int | None = None) -> Seat:
        """Seat a player or a bot (exactly one of the two) at the next free index of a lobby; with `max_seats`,
        TableFull when that many are taken (checked under the lobby's lock: two workers seating the last place at
        once seat one)."""
        if (player_id is None) == (bot_level is None):
            raise ValueError("a seat takes exactly one of player_id and bot_level")
        async with self.transaction() as db:
            await self._lobby_change(db, match_id)
            if max_seats is not None and await self._seat_count(db, match_id) >= max_seats:
                raise TableFull(f"match {match_id} has its {max_seats} seats taken")
            if player_id is not None:
                taken = await self._one(db, select(seats.c.seat).where(seats.c.match_id == match_id,
                                                                       seats.c.player_id == player_id))
                if taken is not None:
                    raise AlreadySeated(f"player {player_id} already has seat {taken['seat']} in match {match_id}")
                found = await self._one(db, select(players.c.platform).where(players.c.id == player_id))
                if found is None:
                    raise NotFound(f"no player {player_id}")
            index = await self._seat_count(db, match_id)
            await db.execute(insert(seats).values(match_id=match_id, seat=index, player_id=player_id,
                                                  bot_level=bot_level, timeouts_in_a_row=0, away=0,
                                                  platform=None if player_id is None else found["platform"]))
            return await self._seat(db, match_id, index)

    async def remove_seat(self, match_id: int, seat_index: int) -> list[Seat]:
        """Free a lobby seat and close the gap, so seats stay numbered 0..n-1; returns the remaining seats."""
        async with self.transaction() as db:
            await self._lobby_change(db, match_id)
            result = await db.execute(delete(seats).where(seats.c.match_id == match_id, seats.c.seat == seat_index))
            if result.rowcount == 0:
                raise NotFound(f"match {match_id} has no seat {seat_index}")
            rows = await self._all(db, select(seats.c.seat).where(seats.c.match_id == match_id)
                                   .order_by(seats.c.seat))
            await self._reseat(db, match_id, {row["seat"]: new for new, row in enumerate(rows)})
            return [Seat.from_row(row) for row in await self._seat_rows(db, match_id)]

    async def seats(self, match_id: int) -> list[Seat]:
        rows = await self._read_all(_MATCH_SEATS, {"match_id": match_id})
        return [Seat.from_row(row) for row in rows]

    async def set_seat_flags(
        self, match_id: int, seat: int, *, timeouts_in_a_row: int | None = None, away: bool | None = None
    ) -> Seat:
        """Update a seat's timeout streak and/or away flag; an argument left as None is left unchanged."""
        changes: dict[str, Any] = {}
        if timeouts_in_a_row is not None:
            changes["timeouts_in_a_row"] = timeouts_in_a_row
        if away is not None:
            changes["away"] = int(away)
        this_seat = (seats.c.match_id == match_id, seats.c.seat == seat)

        def change(db: Connection) -> Seat:
            if changes:
                db.execute(update(seats).where(*this_seat).values(**changes))
            row = db.execute(_SEATS.where(*this_seat)).mappings().first()
            if row is None:
                raise NotFound(f"match {match_id} has no seat {seat}")
            return Seat.from_row(row)

        return await self.run(change)

    # ---- helpers (call inside a transaction) ---------------------------------------------------------------

    async def _match_row(self, db: AsyncConnection, match_id: int, *, lock: bool = False) -> Row:
        """The match's row; with `lock`, held FOR UPDATE until the transaction ends (PostgreSQL: another worker's
        change of this match waits; SQLite: the write transaction already excludes every other writer)."""
        query = select(matches).where(matches.c.id == match_id)
        row = await self._one(db, query.with_for_update() if lock else query)
        if row is None:
            raise NotFound(f"no match {match_id}")
        return row

    async def _require(self, db: AsyncConnection, match_id: int, status: str) -> Row:
        """The match's row, locked, if it is in `status`: a lobby change or start waits for any other one, then
        sees its outcome (a lobby started twice at once is started once; the second gets WrongStatus)."""
        row = await self._match_row(db, match_id, lock=True)
        if row["status"] != status:
            raise WrongStatus(f"match {match_id} is {row['status']}, not {status}")
        return row

    async def _lobby_change(self, db: AsyncConnection, match_id: int) -> Row:
        """`_require` a lobby, and count the change about to be made in it (its lobby message now owes it; the
        transaction's rollback takes the count back with the change)."""
        row = await self._require(db, match_id, "lobby")
        await db.execute(update(matches).where(matches.c.id == match_id).values(lobby_version=_LOBBY_CHANGED))
        return row

    async def _open_row(self, db: AsyncConnection, platform: str, chat_id: str) -> Row | None:
        return await self._one(db, _OPEN_MATCH, {"platform": platform, "chat_id": chat_id})

    async def _seat_count(self, db: AsyncConnection, match_id: int) -> int:
        return int((await db.execute(select(func.count()).select_from(seats).where(seats.c.match_id == match_id)))
                   .scalar_one())

    async def _seat_rows(self, db: AsyncConnection, match_id: int) -> list[Row]:
        return await self._all(db, _SEATS.where(seats.c.match_id == match_id).order_by(seats.c.seat))

    async def _seat(self, db: AsyncConnection, match_id: int, seat: int) -> Seat:
        row = await self._one(db, _SEATS.where(seats.c.match_id == match_id, seats.c.seat == seat))
        assert row is not None
        return Seat.from_row(row)

    async def _reseat(self, db: AsyncConnection, match_id: int, mapping: dict[int, int]) -> None:
        """Renumber seats old -> new. Moving through negative numbers first avoids colliding with the primary key
        half-way, whatever order the database visits the rows in."""
        moved = {old: new for old, new in mapping.items() if old != new}
        for old in moved:
            await db.execute(update(seats).where(seats.c.match_id == match_id, seats.c.seat == old)
                             .values(seat=-1 - old))
        for old, new in moved.items():
            await db.execute(update(seats).where(seats.c.match_id == match_id, seats.c.seat == -1 - old)
                             .values(seat=new))


def _locked_row(db: Connection, match_id: int) -> Row:
    """`_match_row(..., lock=True)` inside a synchronous transaction."""
    row = db.execute(_LOCKED_MATCH, {"match_id": match_id}).mappings().first()
    if row is None:
        raise NotFound(f"no match {match_id}")
    return row
