"""Showing a match: racks in private chats, the table and turn notices in the group — after the move is stored.
A matched table (bot/core/matchmaking.py) has no group: each human seat gets the table and its rack in its own
private chat, on the platform the seat carries (a Discord seat in a DM with components, never an ephemeral).

A stored move is a fact, so nothing here may un-tell it: a move only *schedules* a delivery (`_schedule`), and the
delivery runs after the presser was answered (`deliver`), retries what the platform refused with backoff (honouring
`Busy.retry_after`), and resumes after a restart from the pending-delivery mark in storage (`delivered_version`).
Order matters: the rack of the player to move first, then the other racks and the turn notice, the table last.
The table of a group is edited at most `Transport.group_edits_per_minute` times a minute: moves in between are
coalesced, the newest state wins (Telegram allows about 20 messages a minute in a group).

A lobby change (a seat, an option, the start, the cancel) is a stored fact too: the presser is answered from the
commit, and the lobby message is owed like a move's screens (`_owe_lobby`; in storage the match's lobby version
above the shown one), so a platform error on the edit is retried and a restart posts it.

Several workers may deliver one match at once. A new message (a table, a rack, a ping, a notice) is sent only by
the worker holding its slot's claim in the database (`_claimed`): the other finds the claimer's message once it is
saved and edits it, so a group never holds two live tables nor a player two racks or a forgotten ping.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import engine
from bot import presenter
from bot.core.state import MAX_RECAP, ServiceState, match_state
from bot.i18n import game_name, t
from bot.logs import bind_log_fields
from bot.messages import Actor, Busy, ChatRef, MessageGone, OutMessage, Priority, Reply, Unreachable, sending
from storage.models import Match, Message, Seat
from storage.queue import MATCHED

log = logging.getLogger(__name__)

RETRY_CAP = 60.0  # seconds: the longest wait between two attempts, unless the platform asks for longer
MAX_ATTEMPTS = 10  # then the delivery waits for the match's next move (or the next start) to try again
CLAIM_LEASE = 30.0  # seconds a slot claim holds at most: a worker killed while sending frees its slot then
CLAIM_RETRY = 1.0  # seconds before trying a slot again that another worker is sending into
# A player who pressed or typed anything within this many seconds is looking at the chat: their turn shows in the
# rack edited in front of them, and no "your turn" ping (a message, and the deletion of the one before) is sent.
# Someone away longer gets it: an edit notifies nobody on Telegram. (Issue 27: the ping and its deletion were
# half of the calls a move cost against the bot's 30 a second.)
# Off (0: every turn that comes is pinged) until the multi-worker failure it showed is understood: with it on,
# tests/test_workers_telegram.py's kill-after-a-move and restart-storm runs left a group without its table picture
# (bisected to this change on 2026-12-01; the note of that day). tests/test_call_budget.py measures it switched on.
PING_AFTER_IDLE = 0.0
IDLE_PING_SECONDS = 45.0  # the value measured by the call-budget tests and bench/pipeline_limits.py
SEEN_KEPT = 50_000  # players' last inputs remembered before the ones older than PING_AFTER_IDLE are dropped


class SlotBusy(Busy):
    """Another worker is sending a new message into this slot right now: try again shortly, when its message is
    saved and can be edited."""


@dataclass
class Claim:
    """This worker's hold on a slot (`Delivery._claimed`): its token, and the slot's message as stored when it was
    claimed (None: there is none)."""

    token: str
    current: Message | None
    saved: bool = False


@dataclass
class Due:
    """What a match still owes its screens."""

    seats: set[int] | None = field(default_factory=set)  # racks to redraw; None: every human's
    turn: bool = False  # the turn moved on: tell the player now to move (a ping / a turn notice)
    table: bool = False
    lobby: bool = False  # the lobby message owes a stored lobby change (seats, options, the start, the cancel)
    movers: set[int] = field(default_factory=set)  # seats that moved since the last delivery
    ready: bool = False  # a complete change is scheduled (not just the first moves of a bot chain)
    retry_at: float = 0.0  # after a refusal: not before this time
    table_after: float = 0.0  # the group's table may be edited again from this time (coalescing)
    attempts: int = 0
    missing: set[int] = field(default_factory=set)  # seats whose rack / notice the platform refused last time

    def merge(self, other: Due) -> None:
        self.seats = None if self.seats is None or other.seats is None else self.seats | other.seats
        self.turn |= other.turn
        self.table |= other.table
        self.lobby |= other.lobby
        self.movers |= other.movers
        self.ready |= other.ready
        self.missing |= other.missing
        self.retry_at = max(self.retry_at, other.retry_at)
        self.table_after = max(self.table_after, other.table_after)
        self.attempts = max(self.attempts, other.attempts)

    @property
    def empty(self) -> bool:
        return self.seats == set() and not self.table and not self.turn and not self.lobby

    def due_at(self, now: float) -> bool:
        """Whether a pass should run now: never before a retry time; a table-only remainder waits for its slot,
        but racks, notices and the lobby never wait behind the group's table."""
        if not self.ready or self.retry_at > now:
            return False
        return self.seats != set() or self.turn or self.lobby or (self.table and self.table_after <= now)


class Delivery(ServiceState):
    # ------------------------------------------------------------------------------------------------ scheduling
    def _schedule(self, match: Match, changed_seats: set[int] | None, new_turn: bool, table: bool = True) -> None:
        """Owe `match`'s screens its current state: the racks of `changed_seats` (None: all), the table, and a
        ping when the turn moved. Called under the match lock, right after the commit; delivers nothing itself."""
        due = self._due.setdefault(match.id, Due())
        due.merge(Due(seats=None if changed_seats is None else set(changed_seats), turn=new_turn, table=table,
                      ready=True))

    def _owe_lobby(self, match_id: int, failed: BaseException | None = None) -> None:
        """Owe the lobby message the lobby as stored now (called right after a lobby change's commit, or when a
        player's readiness changed); shown by the next delivery pass, after the presser was answered. `failed`:
        the error a first attempt met, which sets the time of the retry as a failed pass would."""
        due = Due(lobby=True, ready=True)
        if failed is not None:
            due.attempts = 1
            due.retry_at = self.clock() + max(failed.retry_after if isinstance(failed, Busy) else 0.0, 1.0)
        self._due.setdefault(match_id, Due()).merge(due)
        if failed is not None:
            self._timer_due(due.retry_at)

    def _moved(self, match_id: int, seat: int) -> None:
        self._due.setdefault(match_id, Due()).movers.add(seat)

    def next_delivery_at(self, waiting_only: bool = False) -> float | None:
        """The earliest time a waiting delivery becomes due (a retry, a group's coalesced table edit); None when
        nothing waits for a time (work waiting for the next move is not timed). `waiting_only` (the timer loop's
        plan): leave out the matches whose pass is running or starting — that pass takes their newer work when it
        ends, and tells the loop of a retry it leaves (`_timer_due`); counted, it would read as "due now" for as
        long as a slow pass runs, and the loop would wake once a second instead of at the next turn deadline."""
        times = []
        for match_id, due in self._due.items():
            if not due.ready or (waiting_only and (match_id in self._delivering or match_id in self._behind)):
                continue
            if due.seats != set() or due.turn or due.lobby:
                times.append(due.retry_at)
            elif due.table:
                times.append(max(due.retry_at, due.table_after))
        return min(times, default=None)

    def rack_missing(self, match_id: int, seat: int) -> bool:
        """Whether the platform refused this seat's rack (or turn notice) at the last attempt: a timeout then is
        not the player's absence."""
        due = self._due.get(match_id)
        return due is not None and seat in due.missing

    async def deliver(self) -> None:
        """Run every delivery whose time has come (each match in its own task, so a slow group holds up no other)."""
        now = self.clock()
        ready = [match_id for match_id, due in self._due.items()
                 if due.due_at(now) and match_id not in self._delivering]
        if ready:
            await asyncio.gather(*(self._deliver_match(match_id) for match_id in ready))
            # The caller (a press, after its answer) waits for the table edits its passes started, as it waited
            # when they were inline; the match's next passes do not (`_tables_behind`).
            tables = [self._tables[match_id] for match_id in ready if match_id in self._tables]
            if tables:
                await asyncio.gather(*tables, return_exceptions=True)

    def deliver_behind(self) -> None:
        """The timer loop's deliveries: start every delivery whose time has come, each match in a task of its own,
        and return at once — a table edit may wait seconds in a platform's rate limiter, and the loop's next turn
        timer must not wait for it. A match being shown already (by a press, by `resume`, by an earlier task) is
        left to that pass, which goes on while its match owes more (`_deliver_match`): one pass per match at a
        time, however many callers."""
        now = self.clock()
        for match_id, due in list(self._due.items()):
            if due.due_at(now) and match_id not in self._delivering and match_id not in self._behind:
                task = asyncio.create_task(self._deliver_behind_match(match_id), name=f"delivery of match {match_id}")
                self._behind[match_id] = task
                task.add_done_callback(lambda done, match_id=match_id: self._behind_ended(match_id, done))

    async def _deliver_behind_match(self, match_id: int) -> None:
        self._fresh_reads()  # its own reads: the loop's next pass starts from the database meanwhile
        await self._deliver_match(match_id)

    def _behind_ended(self, match_id: int, task: asyncio.Task[None]) -> None:
        if self._behind.get(match_id) is task:
            del self._behind[match_id]
        if not task.cancelled() and task.exception() is not None:  # `_deliver_match` logs its own; never lost
            log.error("delivery of match %s failed", match_id, exc_info=task.exception())

    def cancel_behind(self) -> None:
        """The timer loop was cancelled: so are the deliveries it started (their pending-delivery marks bring them
        back after a restart)."""
        for task in self._behind.values():
            task.cancel()

    async def behind_done(self) -> None:
        """Wait for the deliveries the timer loop started (it is stopping: they finish their pass)."""
        while self._behind:
            await asyncio.gather(*self._behind.values(), return_exceptions=True)

    async def settle(self, poll: float = 0.05) -> None:
        """Shutting down: run what is due, then wait until no delivery is running (deferred table edits and
        retries stay scheduled: their pending-delivery marks bring them back after the restart)."""
        await self.deliver()
        while self._delivering or self._tables:
            if self._tables:
                await asyncio.gather(*self._tables.values(), return_exceptions=True)
            else:
                await asyncio.sleep(poll)

    async def _resume_deliveries(self) -> None:
        """After a restart: every match with the pending mark owes all its screens (its racks, table, notice), and
        every match whose lobby message is behind its lobby changes owes that message (posted if it never went
        out)."""
        for match in await self.store.undelivered_matches():
            if self._shows(match):
                await self._owed_sheets(match)
                self._schedule(match, None, new_turn=True)
        for match in await self.store.lobby_owed_matches():
            if match.platform in self.transports:
                self._owe_lobby(match.id)

    async def _owed_sheets(self, match: Match) -> None:
        """After a restart: the rounds that finished after the delivered version still owe their score sheet. How
        many had finished then is found by replaying the move log up to that version (the engines are
        deterministic); a sheet sent just before the stop, its table edit still owed, goes out once more."""
        if match.snapshot is None:
            return
        game = engine.get(match.game)
        finished = len(game.result(match_state(match))["history"])
        if not finished:
            return
        delivered = match.delivered_version or 0
        try:
            state = game.new(len(await self._seats(match.id)), match.options, seed=match.seed)
            for record in await self.store.moves(match.id):
                if record.seq > delivered:
                    break
                state = game.apply(state, record.seat, record.move)
        except Exception:  # a log that no longer replays (a deal forced in a test, an engine changed since)
            log.warning("match %s: cannot replay to version %s; its score sheets are not re-announced", match.id,
                        delivered, exc_info=True)
            return
        shown = len(game.result(state)["history"])
        if finished > shown:
            self._announce[match.id] = min(self._announce.get(match.id, shown + 1), shown + 1)

    # ------------------------------------------------------------------------------------------------ one match
    async def _deliver_match(self, match_id: int) -> None:
        if match_id in self._delivering:
            return
        self._delivering.add(match_id)
        try:
            while True:
                due = self._due.get(match_id)
                if due is None or not due.due_at(self.clock()):
                    return
                del self._due[match_id]  # what is scheduled from now on is the next pass's work
                match = await self.store.get_match(match_id)
                if match is None or not self._shows(match):
                    return
                bind_log_fields(match=match.id, platform=match.platform)  # this pass runs in a task of its own
                left = await self._deliver_pass(match, due)
                if left.empty and not _in_play(match):
                    if match.status == "cancelled" and match_id not in self._due:
                        self._finished(match_id)  # its last screen is out: nothing of it stays in memory
                    continue
                if left.empty and match_id in self._tables:
                    continue  # the table edit on its way marks the screens up to date when it is out
                if left.empty:
                    stored = await self.store.mark_delivered(match.id, match.version)
                    if stored is not None and stored > match.version and match_id not in self._due:
                        # A move this worker did not schedule was stored meanwhile: another worker's, whose own
                        # delivery may have landed before these older screens. Show the newest state again (the
                        # ping for its turn was that worker's to send).
                        self._due[match_id] = Due(seats=None, table=True, ready=True)
                        continue
                    if match.status != "active" and match_id not in self._due:
                        # Its last screens are shown: nothing of it stays in memory (months of matches add up).
                        self._finished(match_id)
                    continue
                newer = self._due.get(match_id)
                if newer is not None:
                    left.merge(newer)
                self._due[match_id] = left
                if not left.due_at(self.clock()):
                    self._timer_due(self.next_delivery_at())  # a retry or a coalesced table edit to come back for
                    return
        except Exception:  # never let one match's delivery take the caller (a press, the timer loop) down
            log.exception("delivery of match %s failed", match_id)
        finally:
            self._delivering.discard(match_id)

    async def _deliver_pass(self, match: Match, work: Due) -> Due:
        """Show `match` as it is now; return what is left (with its retry time)."""
        left = Due(seats=set(), ready=True, attempts=work.attempts)
        errors: list[BaseException] = []
        await self._fresh_slots(match.id)
        if work.lobby:  # first, as when it was edited inline: "the game has started", then the cards and the table
            await self._deliver_lobby(match, left, errors)
        if _in_play(match):
            await self._deliver_play(match, work, left, errors)
        if work.table and _in_play(match):
            if work.table_after > self.clock():
                left.table, left.table_after = True, work.table_after
            elif self._tables_behind(match):
                running = self._tables.get(match.id)
                if running is None:
                    self._start_table(match.id)
                else:  # its previous edit still waits for the rate limiter: this state goes out after it
                    left.table, left.table_after = True, self.clock() + self._table_interval(match)
            else:
                running = self._tables.get(match.id)
                if running is not None:  # the last table goes out after the one still on its way, never before
                    await asyncio.gather(running, return_exceptions=True)
                await self._deliver_table(match, match_state(match), await self._seats(match.id), left, errors)
        if errors:
            self.metrics.delivery_retry()
            left.attempts += 1
            retry_after = max((e.retry_after for e in errors if isinstance(e, Busy)), default=0.0)
            delay = max(retry_after, min(RETRY_CAP, 2.0 ** (left.attempts - 1)))
            log.warning("match %s: delivery attempt %d failed (%s); retrying in %.0f s", match.id, left.attempts,
                        "; ".join(f"{type(e).__name__}: {e}" for e in errors), delay)
            if left.attempts >= MAX_ATTEMPTS:
                log.error("match %s: giving up delivering version %s for now", match.id, match.version)
                return Due(seats=None, turn=left.turn, table=True, lobby=left.lobby, missing=left.missing)
            left.retry_at = max(left.retry_at, self.clock() + delay)
        if left.empty:
            left.missing = set()
        return left

    def _table_interval(self, match: Match) -> float:
        # A matched table (no group: MATCHED) has no group's pace; its private tables go out inline.
        per_minute = getattr(self.transports.get(match.platform), "group_edits_per_minute", None)
        return 60.0 / per_minute if per_minute else 0.0

    def _tables_behind(self, match: Match) -> bool:
        """Whether this match's table edit runs in a task of its own, behind its racks: on a platform whose group
        edits are paced (Telegram), while the match is in play. The table is the least urgent screen of a move (a
        rate limiter lets it wait behind the racks, bot/messages.py `Priority`); waiting inline it would hold up
        the next move's racks of the same match. A finished match's last table is shown inline, after any edit
        still on its way, so the last state is the one left."""
        return match.status == "active" and bool(self._table_interval(match)) and \
            self.transports[match.platform].push_private

    def _start_table(self, match_id: int) -> None:
        task = asyncio.create_task(self._table_behind(match_id), name=f"table of match {match_id}")
        self._tables[match_id] = task
        task.add_done_callback(lambda done, match_id=match_id: self._table_ended(match_id, done))

    def _table_ended(self, match_id: int, task: asyncio.Task[None]) -> None:
        if self._tables.get(match_id) is task:
            del self._tables[match_id]

    async def _table_behind(self, match_id: int) -> None:
        """Show the group's table as the match is now (the newest state wins). A refusal owes it again, with the
        usual backoff; shown, and with nothing else owed, the match's screens are marked up to date."""
        self._fresh_reads()
        try:
            match = await self.store.get_match(match_id)
            if match is None or match.status != "active" or match.platform not in self.transports:
                return  # a finished match's last table is its final pass's (inline)
            left = Due(seats=set(), ready=True)
            errors: list[BaseException] = []
            await self._deliver_table(match, match_state(match), await self._seats(match.id), left, errors)
            if errors:
                failures = self._table_failures[match_id] = self._table_failures.get(match_id, 0) + 1
                retry_after = max((e.retry_after for e in errors if isinstance(e, Busy)), default=0.0)
                delay = max(retry_after, min(RETRY_CAP, 2.0 ** (failures - 1)))
                log.warning("match %s: table edit attempt %d failed (%s); retrying in %.0f s", match.id, failures,
                            "; ".join(f"{type(e).__name__}: {e}" for e in errors), delay)
                if failures >= MAX_ATTEMPTS:  # as a failed pass gives up: the match's next move tries again
                    log.error("match %s: giving up the table edit for now", match.id)
                    self._table_failures.pop(match_id, None)
                    return
                self._due.setdefault(match_id, Due()).merge(Due(table=True, ready=True,
                                                                retry_at=self.clock() + delay))
                self._timer_due(self.next_delivery_at())
                return
            self._table_failures.pop(match_id, None)
            if left.table:  # paced: the group may see it a little later
                self._due.setdefault(match_id, Due()).merge(Due(table=True, ready=True,
                                                                table_after=left.table_after))
                self._timer_due(self.next_delivery_at())
            elif match_id not in self._due and match_id not in self._delivering:
                await self.store.mark_delivered(match.id, match.version)
        except Exception:  # never lost: logged; the match's next move owes the table again
            log.exception("the table of match %s failed", match_id)

    async def _deliver_play(self, match: Match, work: Due, left: Due, errors: list[BaseException]) -> None:
        """The racks (or the turn notice) of a match in play."""
        state = match_state(match)
        seats = await self._seats(match.id)
        turn = presenter.shown_turn(match, state) if match.status == "active" else None
        if self._pushes(match):
            await self._deliver_racks(match, state, seats, turn, work, left, errors)
        else:
            try:
                with sending(Priority.TABLE):
                    await self._turn_notice(match, state, seats, work)
            except Exception as error:
                errors.append(error)
                left.turn = True
                if turn is not None:
                    left.missing.add(turn)

    async def _deliver_lobby(self, match: Match, left: Due, errors: list[BaseException]) -> None:
        """The lobby message as the lobby is stored now (and, for a cancelled match whose table was out, the note
        under it); then the lobby version it shows is marked, so a restart does not owe it again."""
        try:
            with sending(Priority.TABLE):
                await self._post_lobby(match)
        except Unreachable as error:  # the group refuses the bot's messages: nothing a retry would change
            log.info("match %s: the lobby could not be shown: %s", match.id, error)
        except Exception as error:
            errors.append(error)
            left.lobby = True

    async def _post_lobby(self, match: Match) -> None:
        """Show the lobby (and a cancelled table's note) and mark it shown; a later lobby change stored meanwhile
        (another worker's) is owed at once."""
        await self._show_lobby(match)
        if match.status == "cancelled" and await self._slot(match.platform, "table", match.id, None) is not None:
            lang = await self._chat_lang(ChatRef(match.platform, match.chat_id))
            await self._show(match, "cancelled", None, match.chat_id, OutMessage(t(lang, "table.cancelled")))
        stored = await self.store.mark_lobby_shown(match.id, match.lobby_version)
        if stored is not None and stored > match.lobby_version:
            self._owe_lobby(match.id)

    async def _show_lobby(self, match: Match) -> None:
        """The group's lobby message (bot/core/lobby.py draws it)."""
        raise NotImplementedError

    async def _deliver_racks(self, match: Match, state: dict[str, Any], seats: list[Seat], turn: int | None,
                             work: Due, left: Due, errors: list[BaseException]) -> None:
        """Racks, the player to move first. The rack is one message per match, edited in place; when the turn
        comes to a human (or comes back after another human played), a short ping is sent so their phone rings
        — an edit notifies nobody on Telegram — and the previous ping is deleted."""
        game = engine.get(match.game)
        previous_hands = self._hand_sizes.get(match.id)
        sizes = game.view(state, None).get("hand_sizes")
        others_played = any(mover != turn and seats[mover].is_human for mover in work.movers if mover < len(seats))
        pings: list[tuple[Seat, str, str]] = []
        for seat in sorted((s for s in seats if s.is_human), key=lambda s: s.seat != turn):
            is_turn = seat.seat == turn and not seat.away
            owed = is_turn and work.turn and (self._last_turn.get(match.id, -1) != turn or others_played)
            ping = owed and self._wants_ping(seat)
            redealt = previous_hands is not None and sizes is not None and sizes[seat.seat] > previous_hands[
                seat.seat]
            touched = work.seats is None or seat.seat in work.seats or redealt or match.status != "active"
            # The rack of the player to move is drawn by every pass. Issue 27 tried skipping it when this worker had
            # drawn it at this version (one call less a pass), but with several workers an older edit of another
            # worker can land over it, and test_workers_telegram's kill-after-a-move run then left the player
            # without their new buttons (2026-12-01): a player's buttons are worth the call.
            if not (is_turn or touched):
                continue
            player = await self._player(seat.player_id) if seat.player_id else None
            platform = self._shown_on(match, seat)
            if player is None or platform not in self.transports:
                continue
            try:
                chat_id = await self._private_chat(platform, player.user_id)
                message = await self._rack_message(match, state, seat)
                with sending(Priority.NEXT_RACK if is_turn else Priority.REPLY):
                    await self._show(match, "rack", seat.seat, chat_id, message, platform=platform)
                if ping:
                    pings.append((seat, chat_id, platform))
            except Unreachable:  # they never opened (or closed) the private chat: nothing a retry would change
                log.info("rack for player %s could not be delivered", player.id)
            except Exception as error:
                errors.append(error)
                assert left.seats is not None
                left.seats.add(seat.seat)
                left.turn |= ping
                left.movers |= work.movers
                left.missing.add(seat.seat)
        for seat, chat_id, platform in pings:  # after every rack: the least urgent of a move's sends
            try:
                with sending(Priority.PING):
                    await self._ping(match, seat, chat_id, platform)
            except Unreachable:
                log.info("ping for seat %s of match %s could not be delivered", seat.seat, match.id)
            except Exception as error:
                errors.append(error)
                assert left.seats is not None
                left.turn = True
                left.movers |= work.movers
        self._hand_sizes[match.id] = sizes
        if not left.turn:
            self._last_turn[match.id] = turn

    def _wants_ping(self, seat: Seat) -> bool:
        """Whether the player whose turn came is pinged: not when they pressed or typed anything here lately."""
        seen = self._seen.get(seat.player_id) if seat.player_id is not None else None
        return seen is None or self.clock() - seen >= PING_AFTER_IDLE

    def _saw(self, player_id: int) -> None:
        """The player pressed or typed something (any chat, any match): they are looking at their phone."""
        now = self.clock()
        self._seen[player_id] = now
        if len(self._seen) > SEEN_KEPT:
            self._seen = {pid: at for pid, at in self._seen.items() if now - at < PING_AFTER_IDLE}

    async def _deliver_table(self, match: Match, state: dict[str, Any], seats: list[Seat], left: Due,
                             errors: list[BaseException]) -> None:
        if match.platform == MATCHED:
            await self._deliver_private_tables(match, state, seats, left, errors)
            return
        key = (match.platform, match.chat_id)
        per_minute = getattr(self.transports[match.platform], "group_edits_per_minute", None)
        interval = 60.0 / per_minute if per_minute else 0.0
        wait = self._table_at.get(key, float("-inf")) + interval - self.clock()
        if wait > 0 and match.status == "active":  # coalesced: the newest state goes out when the group may see it
            left.table = True
            left.table_after = self.clock() + wait
            return
        chat_lang = await self._chat_lang(ChatRef(match.platform, match.chat_id))
        recent = await self._recap(match, seats)
        try:
            with sending(Priority.TABLE):
                await self._announce_rounds(match, state, seats, chat_lang, match.platform, match.chat_id)
                self._sheets_out(match.id)
                table = await self._render(presenter.table_parts, match, state, seats, chat_lang, recent,
                                           self.images[match.platform])
                await self._show(match, "table", None, match.chat_id, table)
        except Exception as error:
            errors.append(error)
            left.table = True
            return
        self._table_at[key] = self.clock()
        if match.status == "finished":  # the ladder's results and new achievements, under the final table
            await self._tell_news(match.id, match.platform, match.chat_id, chat_lang)

    async def _deliver_private_tables(self, match: Match, state: dict[str, Any], seats: list[Seat], left: Due,
                                      errors: list[BaseException]) -> None:
        """A matched table has no group: each human seat sees the table in its own private chat, in its own
        language, on its own platform (a private chat is not paced like a group: PTB's limiter keeps Telegram's
        per-chat limit). A finished match's rating news goes to every seat."""
        recent = await self._recap(match, seats)
        news = self._news.get(match.id)
        failed = False
        for seat in seats:
            platform = self._shown_on(match, seat)
            player = await self._player(seat.player_id) if seat.player_id else None
            if player is None or platform not in self.transports:
                continue
            lang = await self._player_lang(match, seat)
            try:
                chat_id = await self._table_chat(platform, player.user_id)
                with sending(Priority.TABLE):
                    await self._announce_rounds(match, state, seats, lang, platform, chat_id)
                    table = await self._render(presenter.table_parts, match, state, seats, lang, recent.copy(),
                                               self.images[platform])
                    await self._show(match, "table", seat.seat, chat_id, table, platform=platform)
            except Unreachable:  # a private chat closed to the bot: nothing a retry would change
                log.info("match %s: the table could not reach seat %s", match.id, seat.seat)
                continue
            except Exception as error:
                errors.append(error)
                failed = True
                continue
            if match.status == "finished" and news is not None:
                self._news[match.id] = news
                await self._tell_news(match.id, platform, chat_id, lang)
        if failed:
            left.table = True
            return
        self._sheets_out(match.id)

    async def _recap(self, match: Match, seats: list[Seat]) -> presenter.Recent:
        """The moves the table's recap shows. This worker's log holds the moves it stored; when the match has
        moved past it (another worker's moves, or a restart), the log is rebuilt from the stored move log — the
        engines are deterministic, so replaying from the seed gives every view the recap needs."""
        if self._recent_at.get(match.id, 0) == match.version:
            return self._recent[match.id].copy() if match.id in self._recent else presenter.Recent()
        game = engine.get(match.game)
        log_ = presenter.Recent()
        try:
            state = game.new(len(seats), match.options, seed=match.seed)
            for record in await self.store.moves(match.id):
                if record.seq > match.version:
                    break
                before, state = state, game.apply(state, record.seat, record.move)
                log_.add((record.seat, record.move, game.view(state, None), game.result(before)["round"]),
                         lambda before=before: game.view(before, None), len(seats), MAX_RECAP)
        except Exception:  # a log that no longer replays (a deal forced in a test, an engine changed since)
            log.warning("match %s: cannot replay its moves; the table shows no recap", match.id, exc_info=True)
            return presenter.Recent()
        self._recent[match.id], self._recent_at[match.id] = log_, match.version
        return log_.copy()

    async def _announce_rounds(self, match: Match, state: dict[str, Any], seats: list[Seat], lang: str,
                               platform: str, chat_id: str) -> None:
        """Each finished round's score sheet, posted in the chat before the table moves on, once each (the caller
        forgets the owed sheets once every chat of the table has them: `_sheets_out`)."""
        first = self._announce.get(match.id)
        if first is None:
            return
        key = (match.id, platform, chat_id)
        first = max(first, self._announced.get(key, first))  # a sheet this chat has is not sent again on a retry
        for message in await self._render_all(presenter.round_ends_parts, match, state, seats, lang, first,
                                              self.images[platform]):
            await self.transports[platform].send(chat_id, message)
            first += 1
            self._announced[key] = first

    def _sheets_out(self, match_id: int) -> None:
        """Every chat of the match has its finished rounds' sheets: none is owed any more."""
        self._announce.pop(match_id, None)
        for key in [key for key in self._announced if key[0] == match_id]:
            del self._announced[key]

    async def _ping(self, match: Match, seat: Seat, user_id: str, platform: str) -> None:
        """A short text in the private chat that makes the phone ring; the previous one is deleted first. Another
        worker pinging this seat right now rings the same player: then this one does not."""
        transport = self.transports[platform]
        try:
            async with self._claimed(match, "ping", seat.seat, platform) as claim:
                old = claim.current
                if old is not None:
                    try:
                        await transport.delete(old.chat_id, old.message_id)
                    except MessageGone:
                        pass
                    await self._slot_delete(old)
                lang = await self._player_lang(match, seat)
                text = t(lang, "ping.turn", game=game_name(lang, match.game))
                message_id = await transport.send(user_id, OutMessage(text, ping=True))
                await self._slot_save(platform, user_id, message_id, "ping", match.id, seat.seat, claim.token)
                claim.saved = True
        except SlotBusy:
            log.info("match %s: seat %s is being pinged by another worker", match.id, seat.seat)

    @asynccontextmanager
    async def _claimed(self, match: Match, kind: str, seat: int | None, platform: str | None = None
                       ) -> AsyncIterator[Claim]:
        """Hold a slot in the database while sending a new message into it (SlotBusy when another worker holds
        it). The claim comes with the slot's message as stored now, which replaces this worker's memory of it;
        saving the new message with `claim.token` releases the claim, else it is released on the way out."""
        token = secrets.token_hex(8)
        platform = platform or match.platform
        outcome = await self.store.claim_slot(platform, kind, match.id, seat, token, self.clock(), CLAIM_LEASE)
        self._slots[(platform, kind, match.id, seat)] = outcome.current
        if not outcome.held:
            raise SlotBusy(CLAIM_RETRY, f"another worker is sending the {kind} of match {match.id}")
        claim = Claim(token, outcome.current)
        try:
            yield claim
        finally:
            if not claim.saved:
                try:
                    await self.store.release_slot(platform, kind, match.id, seat, token)
                except Exception:  # its lease frees it
                    log.warning("match %s: could not release the %s claim", match.id, kind, exc_info=True)

    async def _turn_notice(self, match: Match, state: dict[str, Any], seats: list[Seat], work: Due) -> None:
        """On platforms without pushed racks, one short mention of the player to move, replaced each turn —
        and left in place while the same player stays to move with no other human playing meanwhile. The notice
        remembers its seat in storage, so a restart does not ping the same player again."""
        transport = self.transports[match.platform]
        turn = presenter.shown_turn(match, state) if match.status == "active" else None
        notices = [m for m in await self.store.messages_for_match(match.id) if m.kind == "notice"]
        others_played = any(seat != turn and seat < len(seats) and seats[seat].is_human for seat in work.movers)
        wanted = turn is not None and seats[turn].is_human and not seats[turn].away
        if wanted and len(notices) == 1 and notices[0].seat == turn and not others_played:
            return
        # One worker replaces the notice at a time (another one's pass retries, and finds its notice in place).
        async with self._claimed(match, "notice", None):
            for old in [m for m in await self.store.messages_for_match(match.id) if m.kind == "notice"]:
                try:
                    await transport.delete(old.chat_id, old.message_id)
                except MessageGone:
                    pass
                await self._slot_delete(old)
            if not wanted:
                return
            assert turn is not None
            player = await self._player(seats[turn].player_id)
            if player is None:
                return
            lang = await self._chat_lang(ChatRef(match.platform, match.chat_id))
            text = t(lang, "notice.turn", user=t(lang, "mention", user=player.user_id))
            message_id = await transport.send(match.chat_id, OutMessage(text, mention=player.user_id))
            await self._slot_save(match.platform, match.chat_id, message_id, "notice", match.id, turn)

    async def _rack_message(self, match: Match, state: dict[str, Any], seat: Seat) -> OutMessage:
        seats = await self._seats(match.id)
        lang = await self._player_lang(match, seat)
        pick = self._picks.get((match.id, seat.seat))
        return await self._render(presenter.rack_parts, match, state, seat, seats, lang, pick,
                                  self.images[self._shown_on(match, seat)])

    async def _cmd_hand(self, actor: Actor, chat: ChatRef, player_id: int, lang: str, args: list[str]) -> Reply:
        match = await self._chat_match(chat, player_id)
        if match is None or match.status != "active":
            return Reply(t(lang, "err.no_game"))
        return await self._show_hand(match, player_id, lang)

    async def _show_hand(self, match: Match, player_id: int, lang: str) -> Reply:
        if match.status != "active":
            return Reply(t(lang, "err.no_game"), alert=True)
        seat = await self._seat_of(match, player_id)
        if seat is None:
            return Reply(t(lang, "err.not_your_seat"), alert=True)
        message = await self._rack_message(match, match_state(match), seat)
        await self._fresh_slots(match.id)
        if self._pushes(match):
            platform = self._shown_on(match, seat)
            try:
                chat_id = await self._private_chat(platform, (await self._player(player_id)).user_id)
                await self._show(match, "rack", seat.seat, chat_id, message, new=True, platform=platform)
            except Unreachable:
                link = self.transports[platform].deep_link(f"m{match.id}")
                return Reply(t(lang, "err.open_private", link=link or ""), alert=True)
            except SlotBusy:  # another worker is sending this rack right now: it is on its way
                pass
            return Reply(t(lang, "hand.sent"))
        return Reply("", message=message)

    async def _show(self, match: Match, kind: str, seat: int | None, chat_id: str, message: OutMessage,
                    new: bool = False, platform: str | None = None) -> None:
        """Edit the message in this slot, or send it (and remember it) when there is none or it is gone. A send
        holds the slot's claim: when another worker's message turned up in the slot meanwhile, that one is edited
        instead, so the slot never gets a second live message."""
        platform = platform or match.platform
        transport = self.transports[platform]
        chat_id = str(chat_id)
        old = await self._slot(platform, kind, match.id, seat)
        if old is not None and not new and old.chat_id == chat_id:
            try:
                await transport.edit(old.chat_id, old.message_id, message)
                return
            except MessageGone:
                pass
        async with self._claimed(match, kind, seat, platform) as claim:
            current = claim.current
            if (not new and current is not None and current.chat_id == chat_id
                    and (old is None or current.message_id != old.message_id)):
                try:  # another worker's message, sent since this one looked: show this state in it
                    await transport.edit(current.chat_id, current.message_id, message)
                    return
                except MessageGone:
                    pass
            message_id = await transport.send(chat_id, message)
            await self._slot_save(platform, chat_id, message_id, kind, match.id, seat, claim.token)
            claim.saved = True
        if new and current is not None and current.chat_id == chat_id:  # one live message per slot: the old goes
            try:
                await transport.delete(current.chat_id, current.message_id)
            except Exception as error:  # the new one is out; an old one left behind is only clutter
                log.info("could not delete the previous %s message: %s", kind, error)

    async def _send(self, platform: str, chat_id: str, message: OutMessage) -> str:
        return await self.transports[platform].send(chat_id, message)


def _in_play(match: Match) -> bool:
    """Whether a match has racks and a table to show (a lobby and a cancelled match have only the lobby)."""
    return match.status in ("active", "finished") and match.snapshot is not None
