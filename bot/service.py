"""The platform-independent bot: lobby, turns, bots, timers, leaderboards.

Adapters hand in normalised commands and button presses (`command`, `press`) and get back a `Reply` meant for
the acting user only; everything others should see goes out through the platform's `Transport`, as edits of the
messages recorded in storage, so a restart keeps editing the same table and racks.

Every state change of a match happens under that match's lock and through `Store.apply_move`, which checks the
version the caller saw: a double press, a stale keyboard or a timer racing a player applies once.
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

import engine
import renderers
from bot import callbacks, presenter, rules
from bot.games import playable_games, ui_for
from bot.i18n import LANGUAGES, You, game_name, normalize, pick_language, refusal, t, tn
from bot.messages import Actor, Button, ChatRef, MessageGone, OutMessage, Reply, Transport, Unreachable
from engine import IllegalMove
from engine.bots import decide
from engine.bots import levels as bot_levels
from storage import Store
from storage.errors import StaleVersion, TableBusy
from storage.models import Chat, Match, Player, Seat

log = logging.getLogger(__name__)

MAX_BOT_MOVES = 2000  # per wake-up: a guard, far above any real chain of bot turns
AWAY_AFTER_TIMEOUTS = 2


class Service:
    def __init__(
        self,
        store: Store,
        *,
        clock: Callable[[], float] = time.time,
        seed_source: random.Random | None = None,
        bot_delay: float = 0.0,
    ) -> None:
        self.store = store
        self.clock = clock
        self.transports: dict[str, Transport] = {}
        self.images: dict[str, bool] = {}
        self._locks: dict[int, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._picks: dict[tuple[int, int], str] = {}
        self._recent: dict[int, presenter.Recent] = defaultdict(list)  # moves not yet shown on the table
        self._last_turn: dict[int, int | None] = {}
        self._notice_for: dict[int, int] = {}
        self._seat_cache: dict[int, list[Seat]] = {}
        self._chat_cache: dict[tuple[str, str], Chat] = {}
        self._player_cache: dict[int, Player] = {}
        self._players_by_account: dict[tuple[str, str], Player] = {}  # match -> seat its standing turn notice names
        self._reachable: set[tuple[str, str]] = set()
        self._seeds = seed_source or random.Random()
        self.bot_delay = bot_delay
        self._hand_sizes: dict[int, list[int] | None] = {}
        self._no_call: dict[tuple[int, int], int] = {}  # (match, seat) -> version of a refused Tunj! call
        self._render_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="render")

    def attach(self, transport: Transport, *, images: bool = True) -> None:
        self.transports[transport.platform] = transport
        self.images[transport.platform] = images

    # ================================================================================================ entry points
    async def command(self, actor: Actor, chat: ChatRef, name: str, args: list[str] | None = None) -> Reply:
        """A text command (`/new`, `/join`, ...) from `actor` in `chat`."""
        if actor.platform != chat.platform:  # players are per platform: never act on another platform's chat
            return Reply(t(pick_language(actor.language), "err.bad_button"), alert=True)
        self._fresh_seats()
        args = args or []
        player = await self._actor_player(actor)
        lang = await self._lang_for(actor, chat, player.language)
        handler = {
            "new": self._cmd_new, "join": self._cmd_join, "leave": self._cmd_leave, "start": self._cmd_start,
            "cancel": self._cmd_cancel, "hand": self._cmd_hand, "score": self._cmd_score, "top": self._cmd_top,
            "stats": self._cmd_stats, "rules": self._cmd_rules, "lang": self._cmd_lang, "help": self._cmd_help,
            "m": self._cmd_move, "back": self._cmd_back, "timer": self._cmd_timer,
        }.get(name)
        if handler is None:
            return Reply(t(lang, "err.unknown_command"))
        try:
            return await handler(actor, chat, player.id, lang, args)
        except IllegalMove as error:
            return Reply(t(lang, "err.illegal", reason=refusal(lang, error)), alert=True)

    async def press(self, actor: Actor, chat: ChatRef, data: str | None) -> Reply:
        """A button press carrying an action code from `bot.callbacks`."""
        if actor.platform != chat.platform:
            return Reply(t(pick_language(actor.language), "err.bad_button"), alert=True)
        self._fresh_seats()
        player = await self._actor_player(actor)
        lang = await self._lang_for(actor, chat, player.language)
        try:
            action = callbacks.decode(data)
        except callbacks.BadAction:
            return Reply(t(lang, "err.bad_button"), alert=True)
        if action.op == "n":
            game_id = action.args[0] if action.args else ""
            return await self._open_table(actor, chat, player.id, lang, game_id, {})
        match = await self.store.get_match(action.match_id)
        if match is None or match.platform != actor.platform:
            return Reply(t(lang, "err.bad_button"), alert=True)
        try:
            return await self._route(action, match, actor, player.id, lang)
        except IllegalMove as error:
            return Reply(t(lang, "err.illegal", reason=refusal(lang, error)), alert=True)

    async def _route(self, action: callbacks.Action, match: Match, actor: Actor, player_id: int, lang: str) -> Reply:
        op = action.op
        if op in ("o", "j", "l", "b", "r", "s", "x"):
            return await self._lobby_action(op, match, actor, player_id, lang, action.args)
        if op == "h":
            return await self._show_hand(match, player_id, lang)
        if op == "c":
            return await self._score_reply(match, lang)
        if op == "i":
            return await self._back_in(match, player_id, lang)
        if op == "t":
            return await self._human_move(match.id, player_id, lang, call=True)
        if len(action.args) < 1 or not action.args[0].isdigit():
            return Reply(t(lang, "err.bad_button"), alert=True)
        version = int(action.args[0])
        if op == "m":
            if len(action.args) < 3 or not action.args[1].isdigit():
                return Reply(t(lang, "err.bad_button"), alert=True)
            return await self._human_move(match.id, player_id, lang, version=version, index=int(action.args[1]),
                                          tag=action.args[2])
        if op in ("p", "k"):
            return await self._pick(match.id, player_id, lang, version, action.args[1] if op == "p" and
                                    len(action.args) > 1 else None)
        return Reply(t(lang, "err.bad_button"), alert=True)

    async def tick(self) -> int:
        """Play for every seat whose turn timer has run out; returns how many timeouts fired."""
        self._fresh_seats()
        fired = 0
        for match_id, version in await self.store.due_timers(self.clock()):
            fired += await self._timeout(match_id, version)
        return fired

    async def resume(self) -> None:
        """After a restart: let bots finish any turn they owe, and bring every table message up to date."""
        self._fresh_seats()
        for match in await self.store.active_matches():
            async with self._locks[match.id]:
                match = await self._run_bots(match)
                await self._refresh(match, changed_seats=None, new_turn=False)

    async def warm_up(self) -> None:
        """Prepare the pictures of every playable game on the render thread before the first player arrives."""
        await asyncio.get_running_loop().run_in_executor(self._render_pool, renderers.warm, playable_games())

    async def run_timers(self, interval: float = 1.0) -> None:
        """The production timer loop (tests call `tick` with a controlled clock instead)."""
        while True:
            try:
                await self.tick()
            except Exception:  # a bad match must not stop every other table's timers
                log.exception("timer tick failed")
            await asyncio.sleep(interval)

    # ================================================================================================ commands
    async def _cmd_help(self, actor: Actor, chat: ChatRef, player_id: int, lang: str, args: list[str]) -> Reply:
        games = t(lang, "sep.list").join(f"{game_name(lang, g)} ({g})" for g in playable_games())
        return Reply(t(lang, "help", games=games))

    async def _cmd_rules(self, actor: Actor, chat: ChatRef, player_id: int, lang: str, args: list[str]) -> Reply:
        """`/rules [game] [part]`: a page of the game's rules file (bot/rules), the rules in short by default."""
        words = [word.lower() for word in args]
        number = int(words.pop()) if words and words[-1].isdigit() else 1
        game_id = words[0] if words else None
        if game_id is None:
            match = await self.store.lobby_or_active_match(chat.platform, chat.chat_id)
            game_id = match.game if match else playable_games()[0]
        if game_id not in playable_games():
            return Reply(t(lang, "err.unknown_game", games=", ".join(playable_games())))
        page = rules.page_text(game_id, lang, number)
        if page is None:
            return Reply(t(lang, "rules.no_part", game=game_name(lang, game_id), total=rules.page_count(game_id, lang)))
        return Reply(page)

    async def _cmd_lang(self, actor: Actor, chat: ChatRef, player_id: int, lang: str, args: list[str]) -> Reply:
        choice = args[0].lower() if args else ""
        if choice not in LANGUAGES:
            return Reply(t(lang, "lang.usage"))
        await self._player_write(self.store.set_player_language, player_id, choice)
        if not chat.private and actor.is_admin:
            await self._chat_write(self.store.set_chat_language, chat.platform, chat.chat_id, choice)
            return Reply(t(choice, "lang.chat_set"))
        return Reply(t(choice, "lang.set"))

    async def _cmd_timer(self, actor: Actor, chat: ChatRef, player_id: int, lang: str, args: list[str]) -> Reply:
        """`/timer SECONDS` (admins): this chat's turn timer; 0 switches it off, `default` gives each game's own."""
        if chat.private:
            return Reply(t(lang, "err.group_only"))
        if not actor.is_admin:
            return Reply(t(lang, "err.admin_only"))
        choice = args[0].lower() if args else ""
        if choice == "default":
            await self._chat_write(self.store.set_chat_defaults, chat.platform, chat.chat_id, {"turn_timer": None})
            return Reply(t(lang, "timer.default"))
        if not choice.isdigit() or not (int(choice) == 0 or 10 <= int(choice) <= 3600):
            return Reply(t(lang, "timer.usage"))
        await self._chat_write(self.store.set_chat_defaults, chat.platform, chat.chat_id, {"turn_timer": int(choice)})
        return Reply(t(lang, "timer.off") if int(choice) == 0 else tn(lang, "timer.set", int(choice)))

    async def _cmd_new(self, actor: Actor, chat: ChatRef, player_id: int, lang: str, args: list[str]) -> Reply:
        if chat.private:
            return Reply(t(lang, "err.group_only"))
        games = playable_games()
        if not args:
            existing = await self.store.lobby_or_active_match(chat.platform, chat.chat_id)
            if existing is not None:
                return Reply(t(lang, "err.table_open"))
            chat_lang = await self._chat_lang(chat)
            await self._send(chat.platform, chat.chat_id, presenter.game_picker(chat_lang, games))
            return Reply(t(lang, "new.picker_sent"))
        game_id = args[0].lower()
        options: dict[str, Any] = {}
        for word in args[1:]:
            key, sep, value = word.partition("=")
            if not sep:
                return Reply(t(lang, "err.option_syntax"))
            options[key.lower()] = value.lower()
        return await self._open_table(actor, chat, player_id, lang, game_id, options)

    async def _open_table(
        self, actor: Actor, chat: ChatRef, player_id: int, lang: str, game_id: str, options: dict[str, Any]
    ) -> Reply:
        if game_id not in playable_games():
            return Reply(t(lang, "err.unknown_game", games=", ".join(playable_games())), alert=True)
        game = engine.get(game_id)
        try:
            checked = game.check_options(game.info.max_players, options)
        except ValueError as error:
            return Reply(t(lang, "err.bad_option", reason=refusal(lang, error)), alert=True)
        # Only what the creator chose is stored; the rest follows the game's defaults for the seats at start
        # (Canasta: two players play duo, four classic4).
        options = {name: checked[name] for name in options}
        try:
            match = await self.store.create_match(
                game_id, "casual", options, chat.platform, chat.chat_id, player_id, self._seeds.getrandbits(62)
            )
        except TableBusy:
            return Reply(t(lang, "err.table_open"), alert=True)
        await self._seat_write(self.store.add_seat, match.id, player_id=player_id)
        await self._show_lobby(match)
        return Reply(t(lang, "lobby.created", game=game_name(lang, game_id)))

    async def _chat_match(self, chat: ChatRef, player_id: int) -> Match | None:
        if not chat.private:
            return await self.store.lobby_or_active_match(chat.platform, chat.chat_id)
        return await self.store.player_active_match(chat.platform, player_id)

    async def _lobby_command(self, op: str, actor: Actor, chat: ChatRef, player_id: int, lang: str,
                             args: list[str]) -> Reply:
        match = await self._chat_match(chat, player_id)
        if match is None:
            return Reply(t(lang, "err.no_table"))
        return await self._lobby_action(op, match, actor, player_id, lang, tuple(args))

    async def _cmd_join(self, actor: Actor, chat: ChatRef, player_id: int, lang: str, args: list[str]) -> Reply:
        return await self._lobby_command("j", actor, chat, player_id, lang, args)

    async def _cmd_leave(self, actor: Actor, chat: ChatRef, player_id: int, lang: str, args: list[str]) -> Reply:
        return await self._lobby_command("l", actor, chat, player_id, lang, args)

    async def _cmd_start(self, actor: Actor, chat: ChatRef, player_id: int, lang: str, args: list[str]) -> Reply:
        if chat.private:
            self._reachable.add((actor.platform, actor.user_id))
            return Reply(t(lang, "dm.welcome"))
        return await self._lobby_command("s", actor, chat, player_id, lang, args)

    async def _cmd_cancel(self, actor: Actor, chat: ChatRef, player_id: int, lang: str, args: list[str]) -> Reply:
        return await self._lobby_command("x", actor, chat, player_id, lang, args)

    async def _cmd_hand(self, actor: Actor, chat: ChatRef, player_id: int, lang: str, args: list[str]) -> Reply:
        match = await self._chat_match(chat, player_id)
        if match is None or match.status != "active":
            return Reply(t(lang, "err.no_game"))
        return await self._show_hand(match, player_id, lang)

    async def _cmd_score(self, actor: Actor, chat: ChatRef, player_id: int, lang: str, args: list[str]) -> Reply:
        match = await self._chat_match(chat, player_id)
        if (match is None or match.status != "active") and not chat.private:
            match = await self.store.latest_match(chat.platform, chat.chat_id)  # the final score of the last one
        if match is None or match.snapshot is None:
            return Reply(t(lang, "err.no_game"))
        return await self._score_reply(match, lang)

    async def _cmd_top(self, actor: Actor, chat: ChatRef, player_id: int, lang: str, args: list[str]) -> Reply:
        game_id = args[0].lower() if args else None
        if game_id is not None and game_id not in playable_games():
            return Reply(t(lang, "err.unknown_game", games=", ".join(playable_games())))
        rows = await self.store.leaderboard(game_id, chat.platform, limit=10)
        title = t(lang, "top.title", game=game_name(lang, game_id) if game_id else t(lang, "top.all"))
        if not rows:
            return Reply(title + "\n" + t(lang, "top.empty"))
        lines = [t(lang, "top.row", rank=row.rank, name=row.display_name or t(lang, "console.you"),
                   wins=tn(lang, "count.wins", row.won), games=tn(lang, "count.games", row.played),
                   rate=round(100 * row.win_rate)) for row in rows]
        return Reply("\n".join([title, *lines]))

    async def _cmd_stats(self, actor: Actor, chat: ChatRef, player_id: int, lang: str, args: list[str]) -> Reply:
        target_id, name = player_id, actor.name or You(t(lang, "console.you"))  # the terminal's nameless player
        if args:
            other = await self.store.find_player(chat.platform, args[0].lstrip("@"))
            if other is None:
                return Reply(t(lang, "err.no_player"))
            target_id, name = other.id, other.display_name
        stats = await self.store.player_stats(target_id)
        if not stats:
            return Reply(t(lang, "stats.none", name=name))
        lines = [t(lang, "stats.title", name=name)]
        lines += [t(lang, "stats.row", game=game_name(lang, g), games=tn(lang, "count.games", s.played),
                    wins=tn(lang, "count.wins", s.won), draws=tn(lang, "count.draws", s.drawn),
                    points=tn(lang, "count.points", s.points)) for g, s in sorted(stats.items())]
        return Reply("\n".join(lines))

    async def _cmd_move(self, actor: Actor, chat: ChatRef, player_id: int, lang: str, args: list[str]) -> Reply:
        match = await self._chat_match(chat, player_id)
        if match is None or match.status != "active":
            return Reply(t(lang, "err.no_game"))
        if not args:
            return Reply(t(lang, "err.move_syntax"))
        return await self._human_move(match.id, player_id, lang, text=" ".join(args))

    async def _cmd_back(self, actor: Actor, chat: ChatRef, player_id: int, lang: str, args: list[str]) -> Reply:
        match = await self._chat_match(chat, player_id)
        if match is None or match.status != "active":
            return Reply(t(lang, "err.no_game"))
        return await self._back_in(match, player_id, lang)

    # ================================================================================================ lobby
    async def _lobby_action(self, op: str, match: Match, actor: Actor, player_id: int, lang: str,
                            args: tuple[str, ...]) -> Reply:
        async with self._locks[match.id]:
            match = await self.store.get_match(match.id) or match
            if op == "x":
                return await self._cancel(match, actor, player_id, lang)
            if match.status != "lobby":
                return Reply(t(lang, "err.not_lobby"), alert=True)
            game = engine.get(match.game)
            seats = await self._seats(match.id)
            mine = [seat for seat in seats if seat.player_id == player_id]
            if op == "o":
                if player_id != match.creator_id:
                    return Reply(t(lang, "err.creator_only"), alert=True)
                name = args[0] if args else ""
                spec = game.info.options.get(name)
                values = list(ui_for(match.game).option_values(name, spec)) if spec is not None else []
                if not values:
                    return Reply(t(lang, "err.bad_button"), alert=True)
                current = presenter.effective_options(match, len(seats)).get(name, spec.default)
                nxt = values[(values.index(current) + 1) % len(values)] if current in values else spec.default
                match = await self.store.set_match_options(match.id, {**match.options, name: nxt})
                reply = Reply(t(lang, "lobby.option_set", value=presenter.option_text(match.game, {name: nxt}, lang)))
            elif op == "j":
                if mine:
                    return Reply(t(lang, "err.already_seated"), alert=True)
                if len(seats) >= game.info.max_players:
                    return Reply(t(lang, "err.table_full"), alert=True)
                await self._seat_write(self.store.add_seat, match.id, player_id=player_id)
                reply = Reply(t(lang, "lobby.joined"))
            elif op == "l":
                if not mine:
                    return Reply(t(lang, "err.not_seated"), alert=True)
                await self._seat_write(self.store.remove_seat, match.id, mine[0].seat)
                reply = Reply(t(lang, "lobby.left"))
            elif op == "b":
                level = args[0] if args else "normal"
                if level not in bot_levels(match.game):
                    return Reply(t(lang, "err.bad_button"), alert=True)
                if not mine and player_id != match.creator_id:
                    return Reply(t(lang, "err.not_seated"), alert=True)
                if len(seats) >= game.info.max_players:
                    return Reply(t(lang, "err.table_full"), alert=True)
                await self._seat_write(self.store.add_seat, match.id, bot_level=level)
                reply = Reply(t(lang, "lobby.bot_added"))
            elif op == "r":
                bots = [seat for seat in seats if not seat.is_human]
                if not bots:
                    return Reply(t(lang, "err.no_bot"), alert=True)
                if not mine and player_id != match.creator_id:
                    return Reply(t(lang, "err.not_seated"), alert=True)
                await self._seat_write(self.store.remove_seat, match.id, bots[-1].seat)
                reply = Reply(t(lang, "lobby.bot_removed"))
            else:  # "s"
                return await self._start(match, seats, actor, player_id, lang)
            await self._show_lobby(match)
            return reply

    async def _cancel(self, match: Match, actor: Actor, player_id: int, lang: str) -> Reply:
        if not match.is_open:
            return Reply(t(lang, "err.not_open"), alert=True)
        if player_id != match.creator_id and not actor.is_admin:
            return Reply(t(lang, "err.creator_only"), alert=True)
        match = await self.store.cancel_match(match.id)
        self._forget(match.id)
        chat_lang = await self._chat_lang(ChatRef(match.platform, match.chat_id))
        seats = await self._seats(match.id)
        await self._show(match, "lobby", None, match.chat_id, presenter.lobby(match, seats, chat_lang))
        table_msg = await self.store.get_message(match.platform, "table", match_id=match.id)
        if table_msg is not None:
            await self._send(match.platform, match.chat_id, OutMessage(t(chat_lang, "table.cancelled")))
        return Reply(t(lang, "lobby.cancelled"))

    async def _start(self, match: Match, seats: list[Seat], actor: Actor, player_id: int, lang: str) -> Reply:
        game = engine.get(match.game)
        if not any(seat.player_id == player_id for seat in seats) and player_id != match.creator_id:
            return Reply(t(lang, "err.not_seated"), alert=True)
        if len(seats) < game.info.min_players:
            return Reply(tn(lang, "err.need_players", game.info.min_players), alert=True)
        missing = await self._unreachable_humans(match, seats)
        chat_lang = await self._chat_lang(ChatRef(match.platform, match.chat_id))
        if missing:
            link = self.transports[match.platform].deep_link(f"m{match.id}")
            keyboard = [[Button(t(chat_lang, "btn.open_private"), url=link)]] if link else []
            await self._send(match.platform, match.chat_id, OutMessage(
                t(chat_lang, "lobby.need_private", names=", ".join(s.display_name or "?" for s in missing)),
                keyboard=keyboard))
            return Reply(t(lang, "lobby.waiting_private"), alert=True)
        try:
            state = game.new(len(seats), match.options, seed=match.seed)
        except ValueError as error:  # e.g. a variant for another number of players
            return Reply(t(lang, "err.bad_option", reason=refusal(lang, error)), alert=True)
        deadline = await self._deadline_for(match, state, seats)
        match = await self._seat_write(self.store.start_match, match.id, game.to_json(state), deadline)
        await self._show(match, "lobby", None, match.chat_id, presenter.lobby(match, seats, chat_lang))
        match = await self._run_bots(match)
        await self._refresh(match, changed_seats=None, new_turn=True)
        return Reply(t(lang, "lobby.started"))

    async def _unreachable_humans(self, match: Match, seats: list[Seat]) -> list[Seat]:
        transport = self.transports[match.platform]
        if not transport.push_private:
            return []
        missing = []
        for seat in seats:
            if not seat.is_human:
                continue
            player = await self._player(seat.player_id)
            if player is None or (player.platform, player.user_id) in self._reachable:
                continue
            lang = pick_language(player.language)
            try:
                await transport.send(player.user_id, OutMessage(t(lang, "dm.table_starting",
                                                                  game=game_name(lang, match.game))))
                self._reachable.add((player.platform, player.user_id))
            except Unreachable:
                missing.append(seat)
        return missing

    async def _show_lobby(self, match: Match) -> None:
        seats = await self._seats(match.id)
        lang = await self._chat_lang(ChatRef(match.platform, match.chat_id))
        await self._show(match, "lobby", None, match.chat_id, presenter.lobby(match, seats, lang))

    # ================================================================================================ play
    async def _seat_of(self, match: Match, player_id: int) -> Seat | None:
        for seat in await self._seats(match.id):
            if seat.player_id == player_id:
                return seat
        return None

    async def _human_move(self, match_id: int, player_id: int, lang: str, *, version: int | None = None,
                          index: int | None = None, tag: str = "", text: str | None = None,
                          call: bool = False) -> Reply:
        async with self._locks[match_id]:
            match = await self.store.get_match(match_id)
            if match is None or match.status != "active":
                return Reply(t(lang, "err.stale"), alert=True)
            seat = await self._seat_of(match, player_id)
            if seat is None:
                return Reply(t(lang, "err.not_your_seat"), alert=True)
            if version is not None and version != match.version:
                return Reply(t(lang, "err.stale"), alert=True)
            game = engine.get(match.game)
            state = game.from_json(match.snapshot)
            if call or (text is not None and ui_for(match.game).is_call(text)):
                refusal = self._call_refusal(match, state, seat.seat, lang)
                if refusal is not None:
                    return refusal
                text = "tunj"
            if game.to_move(state) != seat.seat:
                return Reply(t(lang, "err.not_your_turn"), alert=True)
            if index is not None:
                # Rebuild the keyboard this button was drawn on (same state, same picking state) to find its move.
                pick, known = presenter.pick_of_code(tag, self._picks.get((match.id, seat.seat)))
                if not known:
                    return Reply(t(lang, "err.stale"), alert=True)
                player_lang = await self._player_lang(match, seat)
                moves = presenter.button_moves(presenter.rack_buttons(match, state, seat.seat, player_lang, pick))
                if not 0 <= index < len(moves):
                    return Reply(t(lang, "err.bad_button"), alert=True)
                move = game.parse_move(state, seat.seat, moves[index])
            else:
                move = game.parse_move(state, seat.seat, text or "")
            new_state = game.apply(state, seat.seat, move)
            try:
                match = await self._commit(match, seat.seat, "human", move, state, new_state)
            except StaleVersion:
                return Reply(t(lang, "err.stale"), alert=True)
            if seat.timeouts_in_a_row:
                await self._seat_write(self.store.set_seat_flags, match.id, seat.seat, timeouts_in_a_row=0)
            self._keep_pick_after_move(match, seat.seat)
            match = await self._run_bots(match)
            await self._refresh(match, changed_seats={seat.seat}, new_turn=True)
            done = t(lang, "move.done", move=presenter.describe_move(match.game, move, lang, game.view(new_state, None),
                                                                     You("")))
            if self.transports[match.platform].push_private:
                return Reply(done)
            # On-demand platforms (Discord) update the private hand in the reply itself.
            seat = await self._seat_of(match, player_id) or seat
            rack = await self._rack_message(match, game.from_json(match.snapshot), seat)
            return Reply(done, message=rack)

    def _call_refusal(self, match: Match, state: dict[str, Any], seat: int, lang: str) -> Reply | None:
        """Why a Tunj! call cannot be made now, or None. A call with no claim open locks that seat's calls
        until the mover's next move (rules/tunj.md, "Calling Tunj")."""
        game = engine.get(match.game)
        if presenter.shown_turn(match, state) == seat:
            return Reply(t(lang, "call.own_turn"), alert=True)
        if self._no_call.get((match.id, seat)) == match.version:
            return Reply(t(lang, "call.wait"), alert=True)
        if game.to_move(state) != seat:  # no claim is open for this seat to call
            self._no_call[(match.id, seat)] = match.version
            return Reply(t(lang, "call.none"), alert=True)
        return None

    async def _pick(self, match_id: int, player_id: int, lang: str, version: int, key: str | None) -> Reply:
        async with self._locks[match_id]:
            match = await self.store.get_match(match_id)
            if match is None or match.status != "active" or version != match.version:
                return Reply(t(lang, "err.stale"), alert=True)
            seat = await self._seat_of(match, player_id)
            if seat is None:
                return Reply(t(lang, "err.not_your_seat"), alert=True)
            game = engine.get(match.game)
            state = game.from_json(match.snapshot)
            if game.to_move(state) != seat.seat:
                return Reply(t(lang, "err.not_your_turn"), alert=True)
            if key is None:
                self._picks.pop((match.id, seat.seat), None)
            else:
                self._picks[(match.id, seat.seat)] = key
            message = await self._rack_message(match, state, seat)
            if self.transports[match.platform].push_private:
                await self._show_rack(match, seat, message, new=False)
                return Reply(t(lang, "pick.choose") if key is not None else "")
            return Reply("", message=message)

    async def _commit(self, match: Match, seat: int, actor: str, move: str, state: dict[str, Any],
                      new_state: dict[str, Any]) -> Match:
        game = engine.get(match.game)
        seats = await self._seats(match.id)
        result = game.result(new_state)
        deadline = None if result["over"] else await self._deadline_for(match, new_state, seats)
        match = await self.store.apply_move(match.id, match.version, seat, actor, move, game.to_json(new_state),
                                            deadline, finished_result=result if result["over"] else None)
        recent = self._recent[match.id]
        recent.append((seat, move, game.view(new_state, None)))
        if len(recent) > 8:  # keep the newest, and any move the game wants seen (a Tunj claim)
            ui = ui_for(match.game)
            self._recent[match.id] = [entry for number, entry in enumerate(recent)
                                      if number >= len(recent) - 8 or ui.notable(entry[1], entry[2])][-16:]
        return match

    async def _deadline_for(self, match: Match, state: dict[str, Any], seats: list[Seat]) -> float | None:
        seat = engine.get(match.game).to_move(state)
        if seat is None:
            return None
        if not seats[seat].is_human or seats[seat].away:
            # A bot seat never waits; but a window the rules time (a Tunj claim) still needs its deadline.
            if ui_for(match.game).forced_timeout_move(engine.get(match.game).view(state, None)) is None:
                return None
        chat = await self._chat(match.platform, match.chat_id)
        game = engine.get(match.game)
        seconds = ui_for(match.game).timer_seconds(game.view(state, None), match.options, chat.turn_timer)
        return self.clock() + seconds if seconds else None

    async def _run_bots(self, match: Match) -> Match:
        """Play every bot turn (and every seat a bot covers for an absent player) until a human is to move."""
        game = engine.get(match.game)
        for _ in range(MAX_BOT_MOVES):
            if match.status != "active":
                return match
            state = game.from_json(match.snapshot)
            seat_index = game.to_move(state)
            if seat_index is None:
                return match
            seats = await self._seats(match.id)
            seat = seats[seat_index]
            if seat.is_human and not seat.away:
                return match
            level = seat.bot_level or "normal"
            chooser = random.Random(f"{match.seed}:{match.version}")
            move = decide(match.game, state, seat_index, level, chooser, slips=not seat.is_human)
            if self.bot_delay:
                await asyncio.sleep(self.bot_delay)
            new_state = game.apply(state, seat_index, move)
            match = await self._commit(match, seat_index, "bot", move, state, new_state)
        return match

    async def _timeout(self, match_id: int, seen_version: int) -> int:
        async with self._locks[match_id]:
            match = await self.store.get_match(match_id)
            if match is None or match.status != "active" or match.version != seen_version:
                return 0
            if match.deadline is None or match.deadline > self.clock():
                return 0
            game = engine.get(match.game)
            state = game.from_json(match.snapshot)
            seat_index = game.to_move(state)
            if seat_index is None:
                return 0
            seats = await self._seats(match.id)
            seat = seats[seat_index]
            self._keep_pick_after_move(match, seat_index)
            forced = ui_for(match.game).forced_timeout_move(game.view(state, None))
            move = forced or decide(match.game, state, seat_index, "normal",
                                    random.Random(f"{match.seed}:{match.version}"), slips=False)
            new_state = game.apply(state, seat_index, move)
            try:
                match = await self._commit(match, seat_index, "timer", move, state, new_state)
            except StaleVersion:
                return 0
            if forced is not None:  # a rules window closing is nobody's absence
                match = await self._run_bots(match)
                await self._refresh(match, changed_seats={seat_index}, new_turn=True)
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
                new_deadline = await self._deadline_for(match, game.from_json(match.snapshot),
                                                        await self._seats(match.id))
                match = await self.store.set_deadline(match.id, new_deadline)
            match = await self._run_bots(match)
            await self._refresh(match, changed_seats={seat_index}, new_turn=True)
            return 1

    async def _back_in(self, match: Match, player_id: int, lang: str) -> Reply:
        async with self._locks[match.id]:
            match = await self.store.get_match(match.id) or match
            seat = await self._seat_of(match, player_id)
            if seat is None:
                return Reply(t(lang, "err.not_your_seat"), alert=True)
            if not seat.away:
                return Reply(t(lang, "back.not_away"))
            await self._seat_write(self.store.set_seat_flags, match.id, seat.seat, timeouts_in_a_row=0, away=False)
            if match.status == "active":
                game = engine.get(match.game)
                seats = await self._seats(match.id)
                match = await self.store.set_deadline(match.id, await self._deadline_for(
                    match, game.from_json(match.snapshot), seats))
                await self._refresh(match, changed_seats={seat.seat}, new_turn=False)
            return Reply(t(lang, "back.welcome"))

    async def _notify_player(self, match: Match, seat: Seat, key: str, **values: Any) -> None:
        transport = self.transports[match.platform]
        player = await self._player(seat.player_id) if seat.player_id else None
        if player is None:
            return
        lang = await self._player_lang(match, seat)
        values = {**values, "move": ui_for(match.game).describe_move(values.get("move", ""), lang)}
        text = t(lang, key, **values)
        target = player.user_id if transport.push_private else match.chat_id
        mention = None
        if not transport.push_private:
            text = t(lang, "mention", user=player.user_id) + " " + text
            mention = player.user_id
        try:
            await transport.send(target, OutMessage(text, mention=mention))
        except Unreachable:
            log.info("could not tell player %s about %s", player.id, key)

    # ================================================================================================ showing
    async def _refresh(self, match: Match, changed_seats: set[int] | None, new_turn: bool) -> None:
        """Edit the table message; update racks: a new message for the human now to move (so their phone
        rings), an edit for every other human whose rack changed."""
        game = engine.get(match.game)
        state = game.from_json(match.snapshot)
        seats = await self._seats(match.id)
        transport = self.transports[match.platform]
        chat_lang = await self._chat_lang(ChatRef(match.platform, match.chat_id))
        recent = self._recent.pop(match.id, [])
        table = await self._render(presenter.table, match, state, seats, chat_lang, recent,
                                   self.images[match.platform])
        await self._show(match, "table", None, match.chat_id, table)
        if not transport.push_private:
            await self._turn_notice(match, state, seats, chat_lang, recent)
            return
        turn = presenter.shown_turn(match, state)
        previous_hands = self._hand_sizes.get(match.id)
        sizes = game.view(state, None).get("hand_sizes")
        for seat in seats:
            if not seat.is_human:
                continue
            is_turn = seat.seat == turn and not seat.away
            # A new message (the phone rings) when the turn comes to this seat, or comes back after another
            # human played; after instant bot replies or within one player's chain of moves, an edit is enough.
            others_played = any(s != turn and seats[s].is_human for s, _, _ in recent)
            turn_began = is_turn and new_turn and (self._last_turn.get(match.id, -1) != turn or others_played)
            redealt = previous_hands is not None and sizes is not None and sizes[seat.seat] > previous_hands[
                seat.seat]
            touched = changed_seats is None or seat.seat in changed_seats or redealt or match.status != "active"
            if not (is_turn or touched):
                continue
            message = await self._rack_message(match, state, seat)
            await self._show_rack(match, seat, message, new=turn_began)
        self._hand_sizes[match.id] = sizes
        self._last_turn[match.id] = turn

    async def _turn_notice(self, match: Match, state: dict[str, Any], seats: list[Seat], lang: str,
                           recent: presenter.Recent) -> None:
        """On platforms without pushed racks, one short mention of the player to move, replaced each turn —
        and left in place while the same player stays to move with no other human playing meanwhile."""
        transport = self.transports[match.platform]
        turn = presenter.shown_turn(match, state)
        old = await self.store.get_message(match.platform, "notice", match_id=match.id)
        others_played = any(seat != turn and seats[seat].is_human for seat, _, _ in recent)
        if old is not None and turn is not None and self._notice_for.get(match.id) == turn and not others_played \
                and not seats[turn].away:
            return
        self._notice_for.pop(match.id, None)
        if old is not None:
            try:
                await transport.delete(old.chat_id, old.message_id)
            except MessageGone:
                pass
            await self.store.delete_message(old.id)
        if turn is None or not seats[turn].is_human or seats[turn].away:
            return
        player = await self._player(seats[turn].player_id)
        if player is None:
            return
        text = t(lang, "notice.turn", user=t(lang, "mention", user=player.user_id))
        message_id = await transport.send(match.chat_id, OutMessage(text, mention=player.user_id))
        await self.store.save_message(match.platform, match.chat_id, message_id, "notice", match_id=match.id)
        self._notice_for[match.id] = turn

    async def _player_lang(self, match: Match, seat: Seat) -> str:
        """The language of a seat's private messages: the player's choice, else the chat's."""
        player = await self._player(seat.player_id) if seat.player_id else None
        chat_lang = await self._chat_lang(ChatRef(match.platform, match.chat_id))
        if player is None:
            return chat_lang
        return pick_language(player.language, player.client_language, chat_lang)

    async def _rack_message(self, match: Match, state: dict[str, Any], seat: Seat) -> OutMessage:
        seats = await self._seats(match.id)
        lang = await self._player_lang(match, seat)
        pick = self._picks.get((match.id, seat.seat))
        return await self._render(presenter.rack, match, state, seat, seats, lang, pick,
                                  self.images[match.platform])

    async def _render(self, build: Callable[..., OutMessage], *args: Any) -> OutMessage:
        """Build a message with its picture on the render thread: the event loop keeps answering other chats
        meanwhile, and one thread means Pillow's font objects are never used by two threads at once."""
        return await asyncio.get_running_loop().run_in_executor(self._render_pool, functools.partial(build, *args))

    async def _show_rack(self, match: Match, seat: Seat, message: OutMessage, new: bool) -> None:
        player = await self._player(seat.player_id) if seat.player_id else None
        if player is None:
            return
        try:
            await self._show(match, "rack", seat.seat, player.user_id, message, new=new)
        except Unreachable:
            log.info("rack for player %s could not be delivered", player.id)

    async def _show_hand(self, match: Match, player_id: int, lang: str) -> Reply:
        if match.status != "active":
            return Reply(t(lang, "err.no_game"), alert=True)
        seat = await self._seat_of(match, player_id)
        if seat is None:
            return Reply(t(lang, "err.not_your_seat"), alert=True)
        game = engine.get(match.game)
        message = await self._rack_message(match, game.from_json(match.snapshot), seat)
        if self.transports[match.platform].push_private:
            try:
                await self._show(match, "rack", seat.seat, (await self._player(player_id)).user_id,
                                 message, new=True)
            except Unreachable:
                link = self.transports[match.platform].deep_link(f"m{match.id}")
                return Reply(t(lang, "err.open_private", link=link or ""), alert=True)
            return Reply(t(lang, "hand.sent"))
        return Reply("", message=message)

    async def _score_reply(self, match: Match, lang: str) -> Reply:
        if match.snapshot is None:
            return Reply(t(lang, "err.no_game"), alert=True)
        seats = await self._seats(match.id)
        state = engine.get(match.game).from_json(match.snapshot)
        return Reply(presenter.scores(match, state, seats, lang), alert=True)

    async def _show(self, match: Match, kind: str, seat: int | None, chat_id: str, message: OutMessage,
                    new: bool = False) -> None:
        """Edit the message in this slot, or send it (and remember it) when there is none or it is gone."""
        transport = self.transports[match.platform]
        old = await self.store.get_message(match.platform, kind, match_id=match.id, seat=seat)
        if old is not None and not new and old.chat_id == str(chat_id):
            try:
                await transport.edit(old.chat_id, old.message_id, message)
                return
            except MessageGone:
                pass
        message_id = await transport.send(chat_id, message)
        await self.store.save_message(match.platform, chat_id, message_id, kind, match_id=match.id, seat=seat)

    async def _send(self, platform: str, chat_id: str, message: OutMessage) -> str:
        return await self.transports[platform].send(chat_id, message)

    # ================================================================================================ caches
    # The service is the only writer of seats, chats and players, so it keeps them in memory and drops an entry
    # whenever it writes one: a button press then costs a few database round trips instead of dozens.
    def _fresh_seats(self) -> None:
        """Each update starts from the database's seats (another tool may have changed them); within one update
        the cache saves the repeated reads."""
        self._seat_cache.clear()

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

    # ================================================================================================ helpers
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

    def _keep_pick_after_move(self, match: Match, seat: int) -> None:
        kept = ui_for(match.game).pick_after_move(self._picks.pop((match.id, seat), None))
        if kept is not None:
            self._picks[(match.id, seat)] = kept

    def _forget(self, match_id: int) -> None:
        for key in [key for key in self._no_call if key[0] == match_id]:
            del self._no_call[key]
        self._recent.pop(match_id, None)
        self._last_turn.pop(match_id, None)
        self._hand_sizes.pop(match_id, None)
        self._notice_for.pop(match_id, None)
        for key in [key for key in self._picks if key[0] == match_id]:
            del self._picks[key]
