"""The platform-independent bot: lobby, turns, bots, timers, leaderboards.

Adapters hand in normalised commands and button presses (`command`, `press`) and get back a `Reply` meant for
the acting user only; everything others should see goes out through the platform's `Transport`, as edits of the
messages recorded in storage, so a restart keeps editing the same table and racks.

Every state change of a match happens under that match's lock and through `Store.apply_move`, which checks the
version the caller saw: a double press, a stale keyboard or a timer racing a player applies once.

This module is the facade; each concern lives in its own module of `bot.core` (state and caches, lobby, play,
timers, delivery, ladder, standings, coins, replays, tournaments); matchmaking is an object of its own
(`self.matchmaking`, bot/core/matchmaking.py) handed the store, the clock and two callbacks into the service.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from bot import callbacks
from bot.core.coins import Coins
from bot.core.delivery import Delivery
from bot.core.ladder import Ladder
from bot.core.lobby import Lobby
from bot.core.matchmaking import Matchmaking
from bot.core.operators import COMMANDS as OPERATOR_COMMANDS
from bot.core.operators import OperatorDesk
from bot.core.play import MAX_BOT_MOVES, Play
from bot.core.replays import Replays
from bot.core.standings import Standings
from bot.core.timers import AWAY_AFTER_TIMEOUTS, Timers
from bot.core.tournaments import Tournaments
from bot.games import playable_games
from bot.i18n import pick_language, refusal, t
from bot.logs import log_context
from bot.messages import Actor, ChatRef, Reply, Transport
from engine import IllegalMove
from storage.models import Match
from storage.queue import MATCHED

__all__ = ["AWAY_AFTER_TIMEOUTS", "MAX_BOT_MOVES", "Service"]

TOURNAMENT_OPS = frozenset({"a", "u", "e", "w", "v"})  # codes naming a tournament, not a match (bot/callbacks.py)
QUEUE_OPS = frozenset({"q", "z"})  # 🎲 Play now and Leave queue: a queue entry, not a match

log = logging.getLogger(__name__)


LOBBY_OPS = ("o", "j", "l", "b", "r", "s", "x")  # the lobby message's buttons (bot/callbacks.py)


class Service(Lobby, Play, Timers, Delivery, Ladder, Standings, Coins, Replays, Tournaments):
    """The public face the adapters and tests use: `Service(store, clock=, seed_source=, bot_delay=,
    coin_grants=, render_processes=)`, `attach`,
    `command`, `press`, `tick`, `run_timers`, `resume`, `warm_up`. `queue_waits`: MAJLIS_QUEUE_WAIT's seconds
    per queue (bot/core/matchmaking.py)."""

    def __init__(self, *args: Any, queue_waits: Mapping[str, float] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.matchmaking = Matchmaking(self.store, clock=self.clock, seeds=self._seeds, transports=self.transports,
                                       table_started=self._table_seated, timer_due=self._timer_due,
                                       waits=queue_waits)
        self.metrics.add_gauge("majlis_matchmaking_queue_players", "Players waiting in a matchmaking queue.",
                               ("game", "mode"), self.matchmaking.lengths, queue=True)
        self.metrics.add_gauge("majlis_matchmaking_queue_wait_seconds",
                               "How long the first player of a matchmaking queue has waited.",
                               ("game", "mode"), self.matchmaking.longest_waits)
        # The operators' commands and bans (bot/core/operators.py): a concern of its own, handed what it uses.
        self.desk = OperatorDesk(self.store, self.operators, self.metrics, self._release_seat,
                                 self.pending_deliveries)

    def attach(self, transport: Transport, *, images: bool = True) -> None:
        self.transports[transport.platform] = transport
        self.images[transport.platform] = images

    async def command(self, actor: Actor, chat: ChatRef, name: str, args: list[str] | None = None, *,
                      deliver: bool = True) -> Reply:
        """A text command (`/new`, `/join`, ...) from `actor` in `chat`.

        The reply comes from what was stored; the screens others see are delivered afterwards — here, before
        returning, unless `deliver=False`: then the caller answers the user first and calls `deliver()` itself
        (the adapters do, so a press is answered before any table edit waits in a rate limiter)."""
        if actor.platform != chat.platform:  # players are per platform: never act on another platform's chat
            return Reply(t(pick_language(actor.language), "err.bad_button"), alert=True)
        with log_context(platform=actor.platform):
            with self.closing.handling():
                reply = await self._command(actor, chat, name, args or [])
            if deliver:
                await self.deliver()
        return reply

    async def _command(self, actor: Actor, chat: ChatRef, name: str, args: list[str]) -> Reply:
        self._fresh_reads()
        player = await self._actor_player(actor)
        self._saw(player.id)
        lang = await self._lang_for(actor, chat, player.language)
        if name in OPERATOR_COMMANDS:
            return await self.desk.command(name, actor, chat, lang, args)
        if player.banned_at is not None and not self.desk.is_operator(actor):
            return self.desk.banned(lang)
        handler = {
            "new": self._cmd_new, "join": self._cmd_join, "leave": self._cmd_leave, "start": self._cmd_start,
            "cancel": self._cmd_cancel, "hand": self._cmd_hand, "score": self._cmd_score, "top": self._cmd_top,
            "stats": self._cmd_stats, "rules": self._cmd_rules, "lang": self._cmd_lang, "help": self._cmd_help,
            "m": self._cmd_move, "back": self._cmd_back, "timer": self._cmd_timer,
            "coins": self._cmd_coins, "rated": self._cmd_rated, "replay": self._cmd_replay,
            "tournament": self._cmd_tournament, "play": self._cmd_play, "queue": self._cmd_queue,
        }.get(name)
        if handler is None:
            return Reply(t(lang, "err.unknown_command"))
        try:
            return await handler(actor, chat, player.id, lang, args)
        except IllegalMove as error:
            return Reply(t(lang, "err.illegal", reason=refusal(lang, error)), alert=True)

    async def press(self, actor: Actor, chat: ChatRef, data: str | None, *, deliver: bool = True) -> Reply:
        """A button press carrying an action code from `bot.callbacks`; `deliver` as for `command`."""
        if actor.platform != chat.platform:
            return Reply(t(pick_language(actor.language), "err.bad_button"), alert=True)
        with log_context(platform=actor.platform):
            with self.closing.handling():
                reply = await self._press(actor, chat, data)
            if deliver:
                await self.deliver()
        return reply

    async def _press(self, actor: Actor, chat: ChatRef, data: str | None) -> Reply:
        self._fresh_reads()
        player = await self._actor_player(actor)
        self._saw(player.id)
        lang = await self._lang_for(actor, chat, player.language)
        if player.banned_at is not None and not self.desk.is_operator(actor):
            return self.desk.banned(lang)
        try:
            action = callbacks.decode(data)
        except callbacks.BadAction:
            return Reply(t(lang, "err.bad_button"), alert=True)
        if not callbacks.drawn(action):
            return Reply(t(lang, "err.bad_button"), alert=True)
        if action.op == "n":
            # Only the game picker posted in a group carries this code: anywhere else (a private chat) it is forged.
            if chat.private or action.match_id != 0 or len(action.args) != 1:
                return Reply(t(lang, "err.bad_button"), alert=True)
            return await self._picked(actor, chat, player.id, lang, action.args[0])
        if action.op == "g":  # a leaderboard's page: no match behind it
            if action.match_id != 0:
                return Reply(t(lang, "err.bad_button"), alert=True)
            return await self._board_press(chat, lang, action.args)
        if action.op in TOURNAMENT_OPS:
            return await self._tournament_press(action, actor, chat, player.id, lang)
        if action.op in QUEUE_OPS:
            return await self.matchmaking.press(chat, player, lang, action)
        match = await self.store.get_match(action.match_id)
        # A matched table seats several platforms: whoever holds a seat there may press (their player ids are
        # their own platform's, so a seat is never another platform's user's).
        if match is None or match.platform not in (actor.platform, MATCHED):
            return Reply(t(lang, "err.bad_button"), alert=True)
        if action.op == "y":  # the replay is posted in the chat where its button was pressed
            if match.status != "finished":  # its button is drawn under a finished match only: this one is forged
                return Reply(t(lang, "err.bad_button"), alert=True)
            return await self._press_replay(match, chat, lang)
        if action.op in LOBBY_OPS and chat.chat_id != match.chat_id:
            # A lobby's buttons are drawn only in its own chat: pressed anywhere else the code is forged.
            return Reply(t(lang, "err.bad_button"), alert=True)
        try:
            with log_context(match=match.id):
                return await self._route(action, match, actor, player.id, lang)
        except IllegalMove as error:
            return Reply(t(lang, "err.illegal", reason=refusal(lang, error)), alert=True)

    async def _route(self, action: callbacks.Action, match: Match, actor: Actor, player_id: int, lang: str) -> Reply:
        op = action.op
        if op in LOBBY_OPS:
            return await self._lobby_action(op, match, actor, player_id, lang, action.args)
        if op == "h":
            return await self._show_hand(match, player_id, lang)
        if op == "c":
            return await self._score_reply(match, lang)
        if op == "i":
            return await self._back_in(match, player_id, lang)
        if op == "t":
            return await self._human_move(match.id, player_id, lang, call=True)
        try:
            version = callbacks.number(action.args[0]) if action.args else -1
            index = callbacks.number(action.args[1]) if op == "m" and len(action.args) >= 3 else -1
        except callbacks.BadAction:
            return Reply(t(lang, "err.bad_button"), alert=True)
        if version < 0:
            return Reply(t(lang, "err.bad_button"), alert=True)
        if op == "m":
            if index < 0:
                return Reply(t(lang, "err.bad_button"), alert=True)
            return await self._human_move(match.id, player_id, lang, version=version, index=index,
                                          tag=action.args[2])
        if op == "p" and len(action.args) == 2:
            return await self._pick(match.id, player_id, lang, version, action.args[1])
        if op == "k" and len(action.args) == 1:
            return await self._pick(match.id, player_id, lang, version, None)
        return Reply(t(lang, "err.bad_button"), alert=True)

    async def _release_seat(self, match_id: int, seat: int, status: str) -> None:
        """A banned player's seat: freed in a lobby, played by the away bot at a match in play."""
        if status == "lobby":
            await self._lobby_unseat(match_id, seat)
        else:
            await self._seat_to_bot(match_id, seat)

    async def _cmd_play(self, actor: Actor, chat: ChatRef, player_id: int, lang: str, args: list[str]) -> Reply:
        player = await self._player(player_id)
        assert player is not None
        if chat.private:
            self._reachable.add((actor.platform, actor.user_id))
        return await self.matchmaking.play(chat, player, lang, args)

    async def _private_chat_opened(self, player_id: int, lang: str, args: list[str]) -> Reply:
        """`/start` in the private chat; from a refused `/play`'s link (`q<game>-<mode>`) it joins that queue."""
        player = await self._player(player_id)
        if args and player is not None:
            chat = ChatRef(player.platform, player.user_id, private=True)
            joined = await self.matchmaking.from_link(chat, player, lang, args[0])
            if joined is not None:
                return joined
        return await super()._private_chat_opened(player_id, lang, args)

    async def _cmd_queue(self, actor: Actor, chat: ChatRef, player_id: int, lang: str, args: list[str]) -> Reply:
        player = await self._player(player_id)
        assert player is not None
        return await self.matchmaking.status(player, lang)

    async def _queue_tick(self) -> None:
        await self.matchmaking.tick()

    async def _table_seated(self, match: Match) -> None:
        """A table the queue just seated (in play already): the bots it owes move, then its screens are owed."""
        self._timer_due(match.deadline)
        async with self._locks[match.id]:
            match = await self._run_bots(match)
        self._schedule(match, changed_seats=None, new_turn=True)

    async def resume(self) -> None:
        """After a restart: let bots finish any turn they owe, then deliver what the pending-delivery marks say
        some screen has not shown yet. Screens already showing the latest state are left alone (no new pings).
        Several workers may resume at once: a bot turn another one played first is theirs (`_run_bots`)."""
        self._fresh_reads()
        for listed in await self.store.active_matches():
            async with self._locks[listed.id]:
                # Read again under the lock: another worker starting at the same time (or this one's timer loop,
                # which runs already) may have played since the list was read. Its newer version is done work.
                match = await self.store.get_match(listed.id)
                if match is None or match.status != "active":
                    continue
                # A bot pausing between its moves (Tunj) goes on when its pause ends: that is the timer's.
                after = match if await self._bot_waiting(match) else await self._run_bots(match)
            if after.version != match.version:
                self._schedule(after, changed_seats=None, new_turn=True)
        await self._resume_deliveries()
        await self.deliver()

    async def close(self) -> None:
        """Shutting down: stop the timer loop after its tick, let running deliveries finish, free the render
        thread. The store is the caller's to close (after this)."""
        self.stop_timers()
        await self.settle()
        self.pictures.close()
        self.thinkers.close()

    async def warm_up(self) -> None:
        """Prepare the pictures of every playable game (the render thread, or every render process) before the
        first player arrives."""
        await self.pictures.warm(playable_games())
