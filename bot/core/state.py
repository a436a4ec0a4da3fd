"""What every part of the service shares: the store, the clock, the transports, and the caches of seats, chats
and players.

Several workers may serve one database, so nothing another worker can change is trusted beyond the update being
handled: every command, press, timer tick and resume starts from the database (`_fresh_reads`), and within it
the caches (bot/core/reads.py: each entry serves only the update that read it) save the repeated reads (a button
press costs a few database round trips instead of dozens).

What stays in memory across updates is presentation state, and what a second worker handling the next press does
to each (tests/test_workers_presentation.py plays a match through two services in turn):
- the table's recap (`_recent`): keyed by the match version it has reached; a worker whose log is behind the
  match rebuilds it from the stored move log (`Delivery._recap`), so the recap lists every worker's moves;
- message slots (`_slots`: which message is a seat's rack, the table, a ping): another worker may re-send one (a
  /hand, a gone message), so on PostgreSQL each delivery pass reads its match's slots again, in one query; and a
  new message goes out only under its slot's claim in the database (`Delivery._claimed`, which reads the slot
  again): two workers delivering one match at once send one table, one rack, one ping;
- pending deliveries (`_due`, `_delivering`): each worker shows the state it reads when its pass starts; one
  whose older screens may have landed after another worker's newer ones finds the match moved on when it marks
  the delivery (`mark_delivered` returns the stored version) and shows it again;
- picks (`_picks`): a pick press names its match version and a move button carries its whole move, so a press on
  another worker is never a wrong move; at worst a highlighted pick is redrawn without the highlight.
Still per worker (not wrong moves, only how a screen is told): whether a turn pings the player (`_last_turn`, a
worker's last shown turn, and the movers it scheduled: a worker may ping once more or once less than one worker
alone would); a finished round's score sheet (`_announce`: posted by the worker that stored the round's last move,
possibly after another worker's table edit; lost if that worker dies before posting it); a redeal redrawing every
rack (`_hand_sizes`); the table-edit pacing per group (`_table_at`: each worker paces its own edits; with
MAJLIS_REDIS_URL the shared rate limiter keeps the group within Telegram's limits); a refused Tunj call
(`_no_call`, keyed by version: another worker asks the engine again).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import random
import time
from collections import defaultdict
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import replace
from typing import Any

from bot import presenter
from bot.core.pictures import Pictures
from bot.core.reads import PerUpdate
from bot.core.thinking import Thinkers
from bot.drain import Closing
from bot.games import ui_for
from bot.i18n import normalize, pick_language
from bot.messages import Actor, ChatRef, OutMessage, Transport
from bot.metrics import Metrics, ServiceCollector
from storage import Store
from storage.coins import CoinGrants
from storage.models import CHAT_DEFAULTS, Chat, Match, Message, Player, Seat
from storage.queue import MATCHED

log = logging.getLogger(__name__)
MAX_RECAP = 400  # moves kept for the table's recap at most (a recap shows a folded summary of long runs)
WAKE_SLACK = 0.05  # seconds: a time this little before the timer loop's planned wake is its own plan (rounding)


def match_state(match: Match) -> dict[str, Any]:
    """The engine state of a match in play, for reading: its snapshot itself, not the private copy
    `Game.from_json` makes. A Match read from the store owns its snapshot (a fresh parse, or the state its own
    commit stored), and nothing the service hands a state to changes it: `Game.apply` copies before it plays, and
    views, legal moves, results, bots and the presenter only read (tests/test_states_unchanged.py). Copying a
    snapshot every time a move, a delivery or a timer looked at it was a tenth of the main process's work."""
    state = match.snapshot
    if not isinstance(state, dict) or state.get("game") != match.game:
        raise ValueError(f"match {match.id} holds no {match.game} state")
    return state


class ServiceState:
    def __init__(
        self,
        store: Store,
        *,
        clock: Callable[[], float] = time.time,
        seed_source: random.Random | None = None,
        bot_delay: float = 0.0,
        coin_grants: CoinGrants | None = None,
        operators: frozenset[tuple[str, str]] = frozenset(),
        render_processes: int = 0,
        metrics: Metrics | None = None,
    ) -> None:
        self.store = store
        self.operators = operators  # (platform, user id) of who may schedule tournaments (MAJLIS_OPERATORS)
        self.coin_grants = coin_grants or CoinGrants()  # the operator's starting and daily grants (bot/config.py)
        self.clock = clock
        self.transports: dict[str, Transport] = {}
        self.images: dict[str, bool] = {}
        self._locks: dict[int, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._picks: dict[tuple[int, int], str] = {}
        self._recent: dict[int, presenter.Recent] = defaultdict(presenter.Recent)  # moves a recap still shows
        self._recent_at: dict[int, int] = {}  # match -> the version its recap log has reached (absent: 0)
        self._announce: dict[int, int] = {}  # match -> the first finished round whose score sheet is not out yet
        # (match, platform, chat) -> the first round whose sheet that chat has not had (a matched table's chats)
        self._announced: dict[tuple[int, str, str], int] = {}
        self._last_turn: dict[int, int | None] = {}
        # The update being handled (its number; 0 outside any), inherited by the tasks it starts (its deliveries).
        self._update: ContextVar[int] = ContextVar(f"majlis-update-{id(self)}", default=0)
        self._updates = itertools.count(1)
        self._seat_cache: PerUpdate[int, list[Seat]] = PerUpdate(self._update)
        self._chat_cache: PerUpdate[tuple[str, str], Chat] = PerUpdate(self._update)
        self._player_cache: PerUpdate[int, Player] = PerUpdate(self._update)
        self._players_by_account: PerUpdate[tuple[str, str], Player] = PerUpdate(self._update)
        self._reachable: set[tuple[str, str]] = set()
        self._seeds = seed_source or random.Random()
        self.bot_delay = bot_delay
        self._hand_sizes: dict[int, list[int] | None] = {}
        # player id -> when they last pressed or typed anything here: a player active lately is looking at the
        # chat, and their turn comes without a "your turn" ping (bot/core/delivery.py `_wants_ping`; issue 27).
        self._seen: dict[int, float] = {}
        self._no_call: dict[tuple[int, int], int] = {}  # (match, seat) -> version of a refused Tunj! call
        # Pictures are drawn by worker processes (render_processes > 0: production uses the spare cores) or one
        # render thread (0: tests, the console); each distinct picture once (bot/core/pictures.py).
        self.pictures = Pictures(render_processes)
        # Expert bots think in processes of their own, as many as the pictures have (bot/core/thinking.py).
        self.thinkers = Thinkers(render_processes)
        # Delivery (bot.core.delivery): what each match still owes its screens, which are being shown now, and when
        # each group's table was last edited.
        # The message in each of a match's slots (platform, kind, match, seat) -> Message or None (none yet). The
        # service is the only writer of its slots, so they are read from the database once per live match.
        self._slots: dict[tuple[str, str, int, int | None], Message | None] = {}
        # Several workers (PostgreSQL): another worker may re-send a rack, a ping or the table, so each delivery
        # pass reads its match's slots again, all in one query; then a slot not found is empty, without a read.
        self.shared_store = store.dialect == "postgresql"
        self._slots_read: set[int] = set()
        self._due: dict[int, Any] = {}
        self._told_min = float("inf")  # the earliest time told to the timer loop while it was awake
        self._timers_wake_at = float("-inf")  # when the timer loop plans to wake; -inf: it is awake (or not run)
        self._delivering: set[int] = set()
        # match -> its group table edit running behind its racks (bot/core/delivery.py `_table_behind`)
        self._tables: dict[int, asyncio.Task[None]] = {}
        self._table_failures: dict[int, int] = {}  # match -> table edits refused in a row (its backoff)
        self._behind: dict[int, asyncio.Task[None]] = {}  # deliveries the timer loop started, not waited for
        self._table_at: dict[tuple[str, str], float] = {}
        # The ladder (bot.core.ladder): what each just-finished match still has to tell its chat after the table.
        self._news: dict[int, Any] = {}
        self._replayed: dict[tuple[str, str, int], float] = {}  # (platform, chat, match) -> when its replay was posted
        self._tournament_locks: dict[int, asyncio.Lock] = defaultdict(asyncio.Lock)  # one bracket change at a time
        self._cards_shut: set[int] = set()  # tournaments whose cards were redrawn when registration closed
        # A drain (bot/drain.py): no new tables once it starts, and the updates being handled, which it waits for.
        self.closing = Closing()
        # What Prometheus reads (bot/metrics.py): one Metrics per service, counting only this service's work; the
        # levels it holds (deliveries pending, the render queue) and the database's counts are read at each scrape.
        self.metrics = metrics or Metrics()
        self.metrics.watch(ServiceCollector(self))
        self.metrics.watch_store(store, clock)

    def pending_deliveries(self) -> int:
        """Matches whose screens this worker still owes (for /metrics and /status)."""
        return len(self._due) + len([match_id for match_id in self._delivering if match_id not in self._due])

    def _timer_due(self, at: float | None) -> None:
        """Something must happen at `at`: a turn deadline just written, a retry, a coalesced table edit. The
        timer loop is woken only when that is earlier than it planned to wake — not on every move; while it is
        awake the time is kept for its next plan (`_told_min`). Called after the write, so a woken loop reads it."""
        if at is None:
            return
        self._told_min = min(self._told_min, at)
        if at < self._timers_wake_at - WAKE_SLACK:
            wake = getattr(self, "_timers_changed", None)
            if wake is not None:
                wake.set()

    def _fresh_reads(self) -> None:
        """Each update starts from the database's seats, chats and players (another worker may have changed them);
        within one update the caches save the repeated reads. (A new update number: the entries other updates
        stored do not serve this one.)"""
        self._update.set(next(self._updates))
        for cache in (self._seat_cache, self._chat_cache, self._player_cache, self._players_by_account):
            cache.trim()

    async def _seats(self, match_id: int) -> list[Seat]:
        seats = self._seat_cache.get(match_id)
        if seats is None:
            seats = self._seat_cache[match_id] = await self.store.seats(match_id)
        return seats

    async def _seat_write(self, write: Callable[..., Any], match_id: int, *args: Any, **kwargs: Any) -> Any:
        self._seat_cache.pop(match_id, None)
        try:
            return await write(match_id, *args, **kwargs)
        finally:
            self._seat_cache.pop(match_id, None)

    async def _chat(self, platform: str, chat_id: str) -> Chat:
        if platform == MATCHED:  # a matched table has no group: nothing of a chat is stored for it
            return Chat(MATCHED, str(chat_id), None, dict(CHAT_DEFAULTS), 0.0)
        key = (platform, str(chat_id))
        chat = self._chat_cache.get(key)
        if chat is None:
            chat = self._chat_cache[key] = await self.store.get_chat(platform, chat_id)
        return chat

    async def _chat_write(self, write: Callable[..., Any], platform: str, chat_id: str, *args: Any) -> Chat:
        self._chat_cache.pop((platform, str(chat_id)), None)
        chat = await write(platform, chat_id, *args)
        self._chat_cache[(platform, str(chat_id))] = chat
        return chat

    async def _player(self, player_id: int) -> Player | None:
        player = self._player_cache.get(player_id)
        if player is None:
            player = await self.store.get_player(player_id)
            if player is not None:
                self._player_cache[player_id] = player
        return player

    async def _actor_player(self, actor: Actor) -> Player:
        """The acting user's player row, written only when something about them changed."""
        key = (actor.platform, str(actor.user_id))
        known = self._players_by_account.get(key)
        if known is None:
            found = await self.store.find_player(actor.platform, actor.user_id)
            known = found if found is not None and found.user_id == str(actor.user_id) else None
            if known is not None:
                self._players_by_account[key] = known
                if self._player_cache.get(known.id) is None:  # read in this update: the rack's reads reuse it
                    self._player_cache[known.id] = known
        language = normalize(actor.language)
        if known is not None and known.display_name == actor.name and (language in (None, known.client_language)) \
                and (actor.username in (None, known.username)):
            return self._player_cache.get(known.id, known)
        player = await self._player_write(self.store.upsert_player, actor.platform, actor.user_id, actor.name,
                                          client_language=language, username=actor.username)
        self._players_by_account[key] = player
        return player

    async def _player_write(self, write: Callable[..., Any], *args: Any, **kwargs: Any) -> Player:
        player = await write(*args, **kwargs)
        self._player_cache[player.id] = player
        return player

    async def _chat_lang(self, chat: ChatRef) -> str:
        record = await self._chat(chat.platform, chat.chat_id)
        return pick_language(record.language)

    async def _lang_for(self, actor: Actor, chat: ChatRef, player_language: str | None) -> str:
        """The language of a reply to this user: their choice, else their app's, else the chat's."""
        if player_language:
            return pick_language(player_language)
        if normalize(actor.language):
            return pick_language(actor.language)
        return await self._chat_lang(chat)

    async def _player_lang(self, match: Match, seat: Seat) -> str:
        """The language of a seat's private messages: the player's choice, else the chat's."""
        player = await self._player(seat.player_id) if seat.player_id else None
        chat_lang = await self._chat_lang(ChatRef(match.platform, match.chat_id))
        if player is None:
            return chat_lang
        return pick_language(player.language, player.client_language, chat_lang)

    def _pushes(self, match: Match, seat: Seat | None = None) -> bool:
        """Whether racks are pushed into private chats: at a matched table always (on Discord a DM with
        components), at a group's table where the platform may write to a player first (Telegram)."""
        if match.platform == MATCHED:
            return True
        transport = self.transports.get(match.platform)
        return transport is not None and transport.push_private

    def _shown_on(self, match: Match, seat: Seat) -> str:
        """The platform a seat is shown on: its own at a matched table, the group's elsewhere."""
        return (seat.platform or match.platform) if match.platform == MATCHED else match.platform

    def _shows(self, match: Match) -> bool:
        """Whether this process can show the match: a platform of it is attached."""
        return match.platform in self.transports or (match.platform == MATCHED and bool(self.transports))

    async def _private_chat(self, platform: str, user_id: str) -> str:
        """The user's private chat with the bot (Discord: their DM channel, opened on first use)."""
        opener = getattr(self.transports[platform], "private_chat", None)
        return str(user_id) if opener is None else await opener(str(user_id))

    async def _table_chat(self, platform: str, user_id: str) -> str:
        """Where a matched table's table picture goes for this user: their private chat, unless the platform shows
        tables elsewhere (the terminal prints the table above the prompt, the hand under it)."""
        opener = getattr(self.transports[platform], "table_chat", None)
        return await self._private_chat(platform, user_id) if opener is None else await opener(str(user_id))

    async def _seat_of(self, match: Match, player_id: int) -> Seat | None:
        for seat in await self._seats(match.id):
            if seat.player_id == player_id:
                return seat
        return None

    async def _chat_match(self, chat: ChatRef, player_id: int) -> Match | None:
        if not chat.private:
            return await self.store.lobby_or_active_match(chat.platform, chat.chat_id)
        return await self.store.player_active_match(chat.platform, player_id)

    def _keep_pick_after_move(self, match: Match, seat: int) -> None:
        kept = ui_for(match.game).pick_after_move(self._picks.pop((match.id, seat), None))
        if kept is not None:
            self._picks[(match.id, seat)] = kept

    async def _slot(self, platform: str, kind: str, match_id: int, seat: int | None) -> Message | None:
        key = (platform, kind, match_id, seat)
        if key not in self._slots:
            if match_id in self._slots_read:
                return None
            self._slots[key] = await self.store.get_message(platform, kind, match_id=match_id, seat=seat)
        return self._slots[key]

    async def _fresh_slots(self, match_id: int) -> None:
        """Read every message slot of a match again (one query), when other workers may have changed them."""
        if not self.shared_store:
            return
        found = await self.store.messages_for_match(match_id)
        for key in [key for key in self._slots if key[2] == match_id]:
            del self._slots[key]
        for message in found:
            self._slots[(message.platform, message.kind, match_id, message.seat)] = message
        self._slots_read.add(match_id)

    async def _slot_save(self, platform: str, chat_id: str, message_id: str, kind: str, match_id: int,
                         seat: int | None, claim: str | None = None) -> None:
        """Remember the message now in a slot (and release this worker's claim on it, `claim`, in the same write)."""
        key = (platform, kind, match_id, seat)
        self._slots.pop(key, None)  # unknown until written: a failed write must not leave a guess behind
        self._slots[key] = await self.store.save_message(platform, chat_id, message_id, kind, match_id=match_id,
                                                         seat=seat, claim=claim)

    async def _slot_delete(self, message: Message) -> None:
        for key in [key for key, known in self._slots.items() if known is not None and known.id == message.id]:
            del self._slots[key]
        await self.store.delete_message(message.id)

    def _finished(self, match_id: int) -> None:
        """A finished match whose last state is delivered: drop everything kept for it in memory (a later
        /hand or restart reads the database again)."""
        self._forget(match_id)
        self._due.pop(match_id, None)
        for key in [key for key in self._slots if key[2] == match_id]:
            del self._slots[key]
        self._slots_read.discard(match_id)
        lock = self._locks.get(match_id)
        if lock is not None and not lock.locked():
            del self._locks[match_id]

    def _forget(self, match_id: int) -> None:
        for key in [key for key in self._no_call if key[0] == match_id]:
            del self._no_call[key]
        self._recent.pop(match_id, None)
        self._recent_at.pop(match_id, None)
        self._announce.pop(match_id, None)
        for key in [key for key in self._announced if key[0] == match_id]:
            del self._announced[key]
        self._last_turn.pop(match_id, None)
        self._hand_sizes.pop(match_id, None)
        for key in [key for key in self._picks if key[0] == match_id]:
            del self._picks[key]

    async def _after_finish(self, match_id: int) -> None:
        """A match just finished (bot.core.ladder: achievements and the ladder's news)."""

    async def _queue_tick(self) -> None:
        """Seat the matchmaking queues whose time came (the service's Matchmaking)."""

    async def _tell_news(self, match_id: int, platform: str, chat_id: str, lang: str) -> None:
        """Post what a finished match has to tell after its final table (bot.core.ladder)."""

    async def _render(self, build: Callable[..., presenter.Parts], *args: Any) -> OutMessage:
        """Build a message (`presenter.*_parts`) and draw its picture off the event loop (bot/core/pictures.py):
        the loop keeps answering other chats meanwhile."""
        message, picture = build(*args)
        if picture is None:
            return message
        return replace(message, image=await self.pictures.draw(picture), picture_key=picture.key())

    async def _render_message(self, build: Callable[..., OutMessage], *args: Any) -> OutMessage:
        """A builder that draws inside the message it builds (a replay's animation): on the render thread."""
        return await self.pictures.in_thread(build, *args)

    async def _render_all(self, build: Callable[..., list[presenter.Parts]], *args: Any) -> list[OutMessage]:
        """`_render` for a builder of several messages (the score sheets of finished rounds), drawn at once."""
        parts = build(*args)
        images = await asyncio.gather(*(self.pictures.draw(picture) for _, picture in parts if picture is not None))
        drawn = iter(images)
        return [message if picture is None else replace(message, image=next(drawn), picture_key=picture.key())
                for message, picture in parts]

    async def _render_bytes(self, draw: Callable[..., bytes], *args: Any) -> bytes:
        """A picture drawn off the loop by the render workers, as `_render` does for whole messages."""
        return await self.pictures.call(draw, *args)
