"""What every part of the service shares: the store, the clock, the transports, and the caches of seats, chats
and players.

Several workers may serve one database, so nothing another worker can change is trusted beyond the update being
handled: every command, press, timer tick and resume starts from the database (`_fresh_reads`), and within it
the caches save the repeated reads (a button press costs a few database round trips instead of dozens). What
stays in memory across updates is this worker's own presentation state (recaps, pending deliveries, picks), which
no other worker writes; a button drawn from another worker's pick answers "out of date", never a wrong move.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
import time
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from bot import presenter
from bot.games import ui_for
from bot.i18n import normalize, pick_language
from bot.messages import Actor, ChatRef, OutMessage, Transport
from storage import Store
from storage.coins import CoinGrants
from storage.models import Chat, Match, Player, Seat

log = logging.getLogger(__name__)


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
        self._announce: dict[int, int] = {}  # match -> the first finished round whose score sheet is not out yet
        self._last_turn: dict[int, int | None] = {}
        self._seat_cache: dict[int, list[Seat]] = {}
        self._chat_cache: dict[tuple[str, str], Chat] = {}
        self._player_cache: dict[int, Player] = {}
        self._players_by_account: dict[tuple[str, str], Player] = {}
        self._reachable: set[tuple[str, str]] = set()
        self._seeds = seed_source or random.Random()
        self.bot_delay = bot_delay
        self._hand_sizes: dict[int, list[int] | None] = {}
        self._no_call: dict[tuple[int, int], int] = {}  # (match, seat) -> version of a refused Tunj! call
        self._render_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="render")
        # Delivery (bot.core.delivery): what each match still owes its screens, which are being shown now, and when
        # each group's table was last edited.
        self._due: dict[int, Any] = {}
        self._delivering: set[int] = set()
        self._table_at: dict[tuple[str, str], float] = {}
        # The ladder (bot.core.ladder): what each just-finished match still has to tell its chat after the table.
        self._news: dict[int, Any] = {}
        self._replayed: dict[tuple[str, str, int], float] = {}  # (platform, chat, match) -> when its replay was posted
        self._tournament_locks: dict[int, asyncio.Lock] = defaultdict(asyncio.Lock)  # one bracket change at a time
        self._cards_shut: set[int] = set()  # tournaments whose cards were redrawn when registration closed

    def _fresh_reads(self) -> None:
        """Each update starts from the database's seats, chats and players (another worker may have changed them);
        within one update the caches save the repeated reads."""
        self._seat_cache.clear()
        self._chat_cache.clear()
        self._player_cache.clear()
        self._players_by_account.clear()

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

    def _forget(self, match_id: int) -> None:
        for key in [key for key in self._no_call if key[0] == match_id]:
            del self._no_call[key]
        self._recent.pop(match_id, None)
        self._announce.pop(match_id, None)
        self._last_turn.pop(match_id, None)
        self._hand_sizes.pop(match_id, None)
        for key in [key for key in self._picks if key[0] == match_id]:
            del self._picks[key]

    async def _after_finish(self, match_id: int) -> None:
        """A match just finished (bot.core.ladder: achievements and the ladder's news)."""

    async def _tell_news(self, match_id: int, platform: str, chat_id: str, lang: str) -> None:
        """Post what a finished match has to tell after its final table (bot.core.ladder)."""

    async def _render(self, build: Callable[..., OutMessage], *args: Any) -> OutMessage:
        """Build a message with its picture on the render thread: the event loop keeps answering other chats
        meanwhile, and one thread means Pillow's font objects are never used by two threads at once."""
        return await asyncio.get_running_loop().run_in_executor(self._render_pool, functools.partial(build, *args))

    async def _render_bytes(self, draw: Callable[..., bytes], *args: Any) -> bytes:
        """A picture on the render thread, as `_render` does for whole messages."""
        return await asyncio.get_running_loop().run_in_executor(self._render_pool, functools.partial(draw, *args))
