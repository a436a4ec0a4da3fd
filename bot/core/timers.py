"""Turn timers: when a turn times out, playing for the absent seat, marking a player away, `/timer`."""

from __future__ import annotations

import asyncio
import logging
import random
from typing import Any

import engine
from bot import callbacks
from bot.core.state import ServiceState, match_state
from bot.games import ui_for
from bot.i18n import t, tn
from bot.logs import log_context
from bot.messages import Actor, ChatRef, OutMessage, Reply
from engine.bots import decide
from storage.errors import StaleVersion
from storage.models import Match, Seat
from storage.wakeups import DeadlineWatch

log = logging.getLogger(__name__)

AWAY_AFTER_TIMEOUTS = 2
# Seconds the timer loop sleeps at most with nothing due: how late a deadline another worker wrote fires when its
# wake-up was lost (storage/wakeups.py: the listening connection down).
MAX_SLEEP = 30.0
# How long a claimed timer stays this worker's (Store.claim_due_timers): far longer than playing a timeout takes
# (its move replaces the deadline), short enough that a killed worker's claimed timers fire on another one soon
# after. Claimed a batch at a time, each with a fresh lease, so a long list of due timers never outlives its lease.
# (A lease that did run out costs only work done twice: the version check applies one move.)
TIMER_LEASE = 5.0
TIMER_BATCH = 10
# A bot's turn is owed work with a due time like a turn timer's (`_deadline_for`): the worker that stores the move
# before it plays the bots at once, inline, and their moves replace this deadline; it only comes due when that
# worker died (or a chain of bot moves stalled) in between, and then any worker's timer loop claims it and plays
# the bots (`_timeout`). Long enough that a live worker's inline bots are never raced by another worker's loop.
BOT_TURN_GRACE = 2.0
WATCH_TIMEOUT = 10.0  # seconds to open the loop's deadline subscription (a hanging server must not stop the loop)


class Timers(ServiceState):
    _watch_failed = False  # the deadline subscription could not be opened (said once, until it opens again)

    async def tick(self) -> int:
        """Play for every seat whose turn timer has run out, then run the deliveries that are due (retries after a
        refusal, coalesced table edits); returns how many timeouts fired. (The tests' and the console's step: the
        production loop, `run_timers`, fires the same way but never waits for the deliveries.)"""
        fired = await self._fire_due()
        await self.deliver()
        return fired

    async def _fire_due(self) -> int:
        """The timer part of a tick: play every turn timer that has run out and move the tournaments on; the
        screens this owes are scheduled (`_schedule`), not shown. Returns how many timeouts fired."""
        self._fresh_reads()
        fired = 0
        for _ in range(1000):  # a guard against a clock gone wrong: each timeout leaves a later deadline
            now = self.clock()
            claimed = await self.store.claim_due_timers(now, TIMER_LEASE, limit=TIMER_BATCH)
            for timer in claimed:
                self.metrics.timer_fired(now - timer.deadline)
                with log_context(match=timer[0]):
                    fired += await self._timeout(*timer, now + TIMER_LEASE)
            if len(claimed) < TIMER_BATCH:
                break
        await self._tournament_tick()  # bot/core/tournaments.py: draws due, results, check-ins, forfeits
        await self._queue_tick()  # bot/core/matchmaking.py: Quick queues whose wait is over, widened rated spreads
        return fired

    async def run_timers(self, interval: float = MAX_SLEEP) -> None:
        """The production timer loop (tests call `tick` with a controlled clock instead): fire what is due, start
        the deliveries that are due in the background, then sleep until the next turn deadline or waiting delivery
        — at most `interval` seconds — or until a move or a delivery tells it of an earlier time (`_timer_due`),
        here or on another worker (storage/wakeups.py: a deadline a worker wrote just before it died fires on time
        on the others).
        The deliveries never hold the loop up: a table edit may wait seconds in a platform's rate limiter, and the
        next turn timer must fire on time meanwhile (`Delivery.deliver_behind`).
        An idle bot wakes once per `interval`, not once a second. `stop_timers` ends it between two passes and
        then waits for the deliveries it started, so neither a pass's transactions nor a delivery is cut in half;
        cancelling it cancels them too."""
        self._stop_timers = asyncio.Event()
        self._timers_changed = asyncio.Event()
        watch: DeadlineWatch | None = None
        try:
            while not self._stop_timers.is_set():
                watch = await self._watch_deadlines(watch)
                await self._timer_pass(interval)
        except asyncio.CancelledError:
            self.cancel_behind()
            raise
        finally:
            try:
                await self.behind_done()
            finally:
                if watch is not None:
                    await watch.close()

    async def _watch_deadlines(self, watch: DeadlineWatch | None) -> DeadlineWatch | None:
        """The loop's subscription to deadlines other workers write (storage/wakeups.py), opened again after its
        connection was lost; without one the loop still sees them, at its longest sleep's end."""
        if watch is not None and watch.alive:
            return watch
        if watch is not None:
            await watch.close()
        try:
            watch = await asyncio.wait_for(self.store.watch_deadlines(self._timer_due), WATCH_TIMEOUT)
        except Exception as error:  # the database is away: the ticks fail too, and the next pass tries again
            if not self._watch_failed:
                log.warning("not woken by other workers' deadlines for now: %s", error or type(error).__name__)
            self._watch_failed = True
            return None
        self._watch_failed = False
        return watch

    async def _timer_pass(self, interval: float) -> None:
        """Fire what is due and start its deliveries (not waited for), then the sleep until the next thing due
        (or a wake, or the stop)."""
        self._timers_changed.clear()
        self._timers_wake_at = float("-inf")  # awake: a time told meanwhile is kept in _told_min
        self._told_min = float("inf")
        try:
            try:
                await self._fire_due()
            finally:
                self.deliver_behind()  # also what a failed pass scheduled before it failed
            wait = await self._until_next(interval)
            wait = min(wait, max(0.0, self._told_min - self.clock()))
        except Exception:  # a bad match must not stop every other table's timers
            log.exception("timer tick failed")
            wait = min(interval, 1.0)
        if wait <= 0:
            # Still past due right after a tick: held by a move or a delivery under way (or stuck); look again
            # in a second, as the loop always did, rather than spin.
            wait = min(interval, 1.0)
        self._timers_wake_at = self.clock() + wait
        stop = asyncio.ensure_future(self._stop_timers.wait())
        changed = asyncio.ensure_future(self._timers_changed.wait())
        try:
            await asyncio.wait({stop, changed}, timeout=wait, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
            changed.cancel()

    async def _until_next(self, longest: float) -> float:
        """Seconds until the earliest stored turn deadline or waiting delivery, at most `longest`."""
        planned = (await self.store.next_deadline(), self.next_delivery_at(waiting_only=True))
        times = [at for at in planned if at is not None]
        if not times:
            return longest
        return max(0.0, min(longest, min(times) - self.clock()))

    def stop_timers(self) -> None:
        stop = getattr(self, "_stop_timers", None)
        if stop is not None:
            stop.set()

    async def _cmd_timer(self, actor: Actor, chat: ChatRef, player_id: int, lang: str, args: list[str]) -> Reply:
        """`/timer SECONDS` (admins): this chat's turn timer; 0 switches it off, `default` gives each game's own."""
        if chat.private:
            return Reply(t(lang, "err.group_only"))
        if not actor.is_admin:
            return Reply(t(lang, "err.admin_only"))
        choice = args[0].lower() if args else ""
        if choice == "default":
            await self._chat_write(self.store.set_chat_defaults, chat.platform, chat.chat_id, {"turn_timer": None})
            return Reply(t(lang, "timer.default") + " " + await self._retime_current_turn(chat, lang))
        try:
            seconds = callbacks.number(choice)
        except callbacks.BadAction:
            return Reply(t(lang, "timer.usage"))
        if not (seconds == 0 or 10 <= seconds <= 3600):
            return Reply(t(lang, "timer.usage"))
        await self._chat_write(self.store.set_chat_defaults, chat.platform, chat.chat_id, {"turn_timer": seconds})
        said = t(lang, "timer.off") if seconds == 0 else tn(lang, "timer.set", seconds)
        return Reply(said + " " + await self._retime_current_turn(chat, lang))

    async def _retime_current_turn(self, chat: ChatRef, lang: str) -> str:
        """A new timer applies to the turn being played: its deadline is set again from now (a fresh full turn,
        or none). When a move lands meanwhile, the new timer starts with the next turn, and the answer says so."""
        match = await self.store.lobby_or_active_match(chat.platform, chat.chat_id)
        if match is None or match.status != "active":
            return t(lang, "timer.next")
        async with self._locks[match.id]:
            match = await self.store.get_match(match.id) or match
            if match.status != "active":
                return t(lang, "timer.next")
            deadline = await self._deadline_for(match, match_state(match), await self._seats(match.id))
            try:
                await self.store.set_deadline(match.id, deadline, expected_version=match.version)
            except StaleVersion:
                return t(lang, "timer.next")
            self._timer_due(deadline)
        return t(lang, "timer.now")

    async def _deadline_for(self, match: Match, state: dict[str, Any], seats: list[Seat]) -> float | None:
        chat = await self._chat(match.platform, match.chat_id)
        return turn_deadline(match.game, match.options, state, [seat.is_human for seat in seats], self.clock(),
                             chat.turn_timer, away=[seat.away for seat in seats])

    def _bot_pause(self, match: Match, state: dict[str, Any], seats: list[Seat]) -> float | None:
        """Seconds the bot to move waits before its next move (GameUI.bot_pause), or None: it plays at once. Only
        a bot in its own seat waits: one covering an absent player never slips, so it has nothing to hide."""
        return _bot_pause(match.game, match.options, state, [seat.is_human for seat in seats])

    async def _timeout(self, match_id: int, seen_version: int, lease_end: float | None = None) -> int:
        """Play for the seat whose timer ran out, if it is still that turn's timer: claimed at `seen_version` with
        the deadline moved to `lease_end` (Store.claim_due_timers). A move since then started a new turn with its
        own timer; a deadline that is no longer the lease's was switched off (/timer 0) or restarted (/timer, "I'm
        back") meanwhile. Without a lease (a direct call), the stored deadline must simply have passed."""
        async with self._locks[match_id]:
            match = await self.store.get_match(match_id)
            if match is None or match.status != "active" or match.version != seen_version:
                return 0
            if lease_end is None:
                if match.deadline is None or match.deadline > self.clock():
                    return 0
            elif match.deadline != lease_end:
                return 0
            game = engine.get(match.game)
            state = match_state(match)
            seat_index = game.to_move(state)
            if seat_index is None:
                return 0
            seats = await self._seats(match.id)
            seat = seats[seat_index]
            forced = ui_for(match.game).forced_timeout_move(game.view(state, None))
            if forced is None and (not seat.is_human or seat.away):
                # A bot's pause after its move is over (its next move, shown and followed by the next pause), or
                # bot turns owed since a worker stored the move before them and died before playing them.
                match = await self._run_bots(match)
                self._schedule(match, changed_seats=None, new_turn=True)
                return 1
            # A player whose rack (or turn notice) the platform refused could not have played: not their absence.
            unseen = self.rack_missing(match.id, seat_index)
            self._keep_pick_after_move(match, seat_index)
            move = forced or decide(match.game, state, seat_index, "normal",
                                    random.Random(f"{match.seed}:{match.version}"), slips=False)
            new_state = game.apply(state, seat_index, move)
            try:
                match = await self._commit(match, seat_index, "timer", move, state, new_state)
            except StaleVersion:
                return 0
            if forced is not None or unseen:  # a rules window closing is nobody's absence
                match = await self._run_bots(match)
                self._schedule(match, changed_seats={seat_index}, new_turn=True)
                return 1
            timeouts = seat.timeouts_in_a_row + 1
            away = timeouts >= AWAY_AFTER_TIMEOUTS
            await self._seat_write(self.store.set_seat_flags, match.id, seat_index, timeouts_in_a_row=timeouts,
                                   away=away or seat.away)
            if seat.is_human:
                await self._notify_player(match, seat, "timer.played" if not away else "timer.away",
                                          move=move)
            if away and match.status == "active":
                # The absent player's seat is now bot-played: its next turns should not wait for a timer.
                new_deadline = await self._deadline_for(match, match_state(match),
                                                        await self._seats(match.id))
                match = await self.store.set_deadline(match.id, new_deadline)
            match = await self._run_bots(match)
            self._schedule(match, changed_seats={seat_index}, new_turn=True)
            return 1

    async def _seat_to_bot(self, match_id: int, seat_index: int) -> None:
        """A seat whose player may no longer play (an operator banned them): the away bot plays it from now on,
        at once if it is that seat's turn, as after a second timeout (`_timeout`)."""
        async with self._locks[match_id]:
            match = await self.store.get_match(match_id)
            if match is None or match.status != "active":
                return
            await self._seat_write(self.store.set_seat_flags, match.id, seat_index, away=True)
            deadline = await self._deadline_for(match, match_state(match), await self._seats(match.id))
            match = await self.store.set_deadline(match.id, deadline)
            self._timer_due(match.deadline)
            match = await self._run_bots(match)
            self._schedule(match, changed_seats={seat_index}, new_turn=True)

    async def _notify_player(self, match: Match, seat: Seat, key: str, **values: Any) -> None:
        platform = self._shown_on(match, seat)
        transport = self.transports.get(platform)
        player = await self._player(seat.player_id) if seat.player_id else None
        if player is None or transport is None:
            return
        lang = await self._player_lang(match, seat)
        values = {**values, "move": ui_for(match.game).describe_move(values.get("move", ""), lang)}
        text = t(lang, key, **values)
        pushed = self._pushes(match)
        mention = None
        try:
            target = await self._private_chat(platform, player.user_id) if pushed else match.chat_id
        except Exception as error:
            log.info("could not open the private chat of player %s: %s", player.id, error)
            return
        if not pushed:
            text = t(lang, "mention", user=player.user_id) + " " + text
            mention = player.user_id
        try:
            await transport.send(target, OutMessage(text, mention=mention))
        except Exception as error:  # a courtesy message: the move it reports is stored and will be shown anyway
            log.info("could not tell player %s about %s: %s", player.id, key, error)


def turn_deadline(game_id: str, options: dict[str, Any], state: dict[str, Any], humans: list[bool], now: float,
                  chat_timer: int | None, away: list[bool] | None = None) -> float | None:
    """When the turn of the seat to move times out (None: untimed), from the seats' kinds alone — so a table
    started without any chat (bot/core/matchmaking.py, inside its seating transaction) gets the same deadline."""
    game = engine.get(game_id)
    seat = game.to_move(state)
    if seat is None:
        return None
    if not humans[seat] or (away is not None and away[seat]):
        # A bot seat never waits; but a window the rules time (a Tunj claim) still needs its deadline, and so
        # does a bot's pause between its moves where the rules want each one shown (`_bot_pause`). A bot that
        # plays at once gets a due time too: its turn is owed work any worker claims (BOT_TURN_GRACE).
        if ui_for(game_id).forced_timeout_move(game.view(state, None)) is None:
            pause = _bot_pause(game_id, options, state, humans)
            return now + (BOT_TURN_GRACE if pause is None else pause)
    seconds = ui_for(game_id).timer_seconds(game.view(state, None), options, chat_timer)
    return now + seconds if seconds else None


def _bot_pause(game_id: str, options: dict[str, Any], state: dict[str, Any], humans: list[bool]) -> float | None:
    game = engine.get(game_id)
    seat = game.to_move(state)
    if seat is None or humans[seat]:
        return None
    return ui_for(game_id).bot_pause(game.view(state, None), options)
