"""Opening a table, its lobby (seats, bots, options), starting and cancelling it; help, rules and language."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

import engine
from bot import callbacks, presenter, rules
from bot.coin_tables import COIN_GAMES, next_stake, parse_stake
from bot.core.coins import Coins
from bot.core.matchmaking import play_now, play_now_button, table_label
from bot.games import playable_games, ui_for
from bot.i18n import LANGUAGES, game_name, pick_language, refusal, t, tn
from bot.messages import ERROR, INFO, Actor, Button, ChatRef, OutMessage, Reply, Unreachable
from bot.move_examples import move_examples
from engine.bots import levels as bot_levels
from storage.errors import AlreadySeated, NotEnoughCoins, TableBusy, TableFull, WrongStatus
from storage.models import Match, Seat

log = logging.getLogger(__name__)

# Typed game names that mean another id: "Konkan" in the chat is the tile game (the cards one is konkan_cards).
GAME_ALIASES = {"konkan": "konkan_tiles"}


class Lobby(Coins):
    async def _cmd_help(self, actor: Actor, chat: ChatRef, player_id: int, lang: str, args: list[str]) -> Reply:
        """The chat's commands; the typed-move example is in the notation of the game being played here."""
        games = t(lang, "sep.list").join(f"{game_name(lang, g)} ({g})" for g in playable_games())
        match = await self._chat_match(chat, player_id)
        example = " · ".join("/m " + move for move in move_examples(match.game if match else None))
        return Reply(t(lang, "help", games=games, example=example))

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

    async def _cmd_new(self, actor: Actor, chat: ChatRef, player_id: int, lang: str, args: list[str]) -> Reply:
        if chat.private:
            return Reply(t(lang, "err.group_only"))
        if self.closing.draining:  # bot/drain.py: the tables in play go on, no new one opens
            return Reply(t(lang, "run.draining"), alert=True)
        games = playable_games()
        if not args:
            existing = await self.store.lobby_or_active_match(chat.platform, chat.chat_id)
            if existing is not None:
                return Reply(t(lang, "err.table_open"))
            chat_lang = await self._chat_lang(chat)
            try:
                pinned = [(found.id, found.game) for found in await self._open_tournaments(chat.platform)]
                picker = presenter.game_picker(chat_lang, games, pinned)
                picker = replace(picker, keyboard=[*picker.keyboard, [play_now_button(chat_lang)]])
                await self._send(chat.platform, chat.chat_id, picker)
            except Unreachable:
                return Reply(t(lang, "err.cannot_post"), alert=True, kind=ERROR)
            return Reply("")  # the picker is the one message the group sees
        game_id = GAME_ALIASES.get(args[0].lower(), args[0].lower())
        if len(args) == 1 and game_id in playable_games() and ui_for(game_id).mode_choices(lang):
            return await self._mode_picker(chat, lang, game_id)
        options: dict[str, Any] = {}
        for word in args[1:]:
            key, sep, value = word.partition("=")
            if not sep:
                return Reply(t(lang, "err.option_syntax"))
            options[key.lower()] = value.lower()
        stake = 0
        if "stake" in options:  # a table option of the bot, not a rule of the game
            parsed = parse_stake(options.pop("stake"))
            if parsed is None:
                return Reply(t(lang, "coins.bad_stake"), alert=True, kind=ERROR)
            stake = parsed
        reply = await self._open_table(actor, chat, player_id, lang, game_id, options, stake)
        return reply if reply.is_error else Reply("")  # the lobby just posted is the one group message

    async def _mode_picker(self, chat: ChatRef, lang: str, game_id: str) -> Reply:
        """The game's modes as buttons (`n:0:<game>.<mode>`); the one group message, as the game picker is."""
        chat_lang = await self._chat_lang(chat)
        keyboard = [[Button(label, callbacks.encode("n", 0, f"{game_id}.{mode}"))]
                    for label, mode in ui_for(game_id).mode_choices(chat_lang)]
        try:
            await self._send(chat.platform, chat.chat_id, OutMessage(t(chat_lang, "kt.pick.title"), keyboard=keyboard))
        except Unreachable:
            return Reply(t(lang, "err.cannot_post"), alert=True, kind=ERROR)
        return Reply("")

    async def _picked(self, actor: Actor, chat: ChatRef, player_id: int, lang: str, choice: str) -> Reply:
        """A game picker or mode picker button: `game` (its mode picker, if it has one) or `game.mode`."""
        if self.closing.draining:
            return Reply(t(lang, "run.draining"), alert=True)
        game_id, _, mode = choice.partition(".")
        if not mode and game_id in playable_games() and ui_for(game_id).mode_choices(lang):
            existing = await self.store.lobby_or_active_match(chat.platform, chat.chat_id)
            if existing is not None:
                return Reply(t(lang, "err.table_open"), alert=True)
            return await self._mode_picker(chat, lang, game_id)
        return await self._open_table(actor, chat, player_id, lang, game_id, {"mode": mode} if mode else {})

    async def _open_table(
        self, actor: Actor, chat: ChatRef, player_id: int, lang: str, game_id: str, options: dict[str, Any],
        stake: int = 0,
    ) -> Reply:
        if game_id not in playable_games():
            return Reply(t(lang, "err.unknown_game", games=", ".join(playable_games())), alert=True)
        ui = ui_for(game_id)
        closed = ui.mode_refusal(str(options.get("mode", "")).lower(), lang) if "mode" in options else None
        if closed is not None:
            return Reply(closed, alert=True)
        if stake and game_id not in COIN_GAMES:
            return Reply(t(lang, "coins.not_this_game", game=game_name(lang, game_id)), alert=True, kind=ERROR)
        if stake:
            balance = await self.store.coins(player_id, self.coin_grants)
            if balance < stake:
                return Reply(tn(lang, "coins.short", stake, balance=balance), alert=True, kind=ERROR)
        game = engine.get(game_id)
        try:
            checked = game.check_options(game.info.max_players, options)
        except ValueError as error:
            return Reply(t(lang, "err.bad_option", reason=refusal(lang, error)), alert=True)
        # Only what the creator chose is stored; the rest follows the game's defaults for the seats at start
        # (Canasta: two players play duo, four classic4).
        options = {name: checked[name] for name in options}
        chat_rates = bool((await self._chat(chat.platform, chat.chat_id)).defaults.get("rated"))  # /rated on
        try:
            match = await self.store.create_match(
                game_id, ui.store_mode(checked), options, chat.platform, chat.chat_id, player_id,
                self._seeds.getrandbits(62),
                stake=stake, rated=ui.rated(checked, chat_rates),
            )
        except TableBusy:
            return Reply(t(lang, "err.table_open"), alert=True)
        await self._seat_write(self.store.add_seat, match.id, player_id=player_id)
        match = await self.store.get_match(match.id) or match
        try:
            await self._post_lobby(match)
        except Unreachable:
            # The bot may not post here (no right to send messages, removed): a lobby nobody can see must not
            # hold the chat's one open table.
            await self.store.cancel_match(match.id)
            await self.store.mark_lobby_shown(match.id, match.lobby_version + 1)  # nothing to show: never posted
            return Reply(t(lang, "err.cannot_post"), alert=True, kind=ERROR)
        except Exception as error:  # a 5xx, a time-out, a 429: the lobby is stored and owed, the delivery retries
            log.warning("match %s: the new lobby could not be posted yet (%s: %s)", match.id,
                        type(error).__name__, error)
            self._owe_lobby(match.id, failed=error)
        return Reply(t(lang, "lobby.created", game=game_name(lang, game_id)))

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
            return await self._private_chat_opened(player_id, lang, args)
        return await self._lobby_command("s", actor, chat, player_id, lang, args)

    async def _private_chat_opened(self, player_id: int, lang: str, args: list[str]) -> Reply:
        """`/start m<match>` from the lobby's deep link: the player is ready; their lobby shows it at once."""
        payload = args[0] if args else ""
        try:
            match_id = callbacks.number(payload[1:]) if payload.startswith("m") else 0
        except callbacks.BadAction:
            match_id = 0
        invite = payload.startswith("j")
        if invite:
            try:
                match_id = callbacks.number(payload[1:])
            except callbacks.BadAction:
                match_id = 0
        match = await self.store.get_match(match_id) if match_id else None
        if invite and match is not None:
            return await self._invited(match, player_id, lang)
        if match is None or await self._seat_of(match, player_id) is None or not match.is_open:
            game_id, mode = play_now()
            return Reply("", message=OutMessage(t(lang, "dm.welcome_play", table=table_label(lang, game_id, mode)),
                                                keyboard=[[play_now_button(lang)]]))
        if match.status == "lobby":
            self._owe_lobby(match.id)  # their seat shows them ready
        return Reply(t(lang, "dm.ready", game=game_name(lang, match.game)))

    async def _invited(self, match: Match, player_id: int, lang: str) -> Reply:
        """`/start j<match>` from a private room's invite link: a seat at that room while it has one free."""
        if not ui_for(match.game).invites(match.options) or match.status != "lobby":
            return Reply(t(lang, "dm.welcome"))
        async with self._locks[match.id]:
            seats = await self._seats(match.id)
            if all(seat.player_id != player_id for seat in seats):
                if len(seats) >= engine.get(match.game).info.max_players:
                    return Reply(t(lang, "err.table_full"))
                await self._seat_write(self.store.add_seat, match.id, player_id=player_id)
            self._owe_lobby(match.id)
        return Reply(t(lang, "lobby.invited"))

    async def _cmd_cancel(self, actor: Actor, chat: ChatRef, player_id: int, lang: str, args: list[str]) -> Reply:
        return await self._lobby_command("x", actor, chat, player_id, lang, args)

    async def _lobby_action(self, op: str, match: Match, actor: Actor, player_id: int, lang: str,
                            args: tuple[str, ...]) -> Reply:
        """One lobby button or command. The in-process lock orders this worker's presses; another worker's press
        on the same lobby is ordered by the store (the lobby row is locked by each change), and losing that race
        gets the answer the winner's outcome calls for. The answer comes from what was stored; the lobby message
        (and after a start the racks and the table) is owed to the delivery (bot/core/delivery.py), which retries
        what the platform refuses, so a platform error on it is never the presser's."""
        try:
            return await self._lobby_change(op, match, actor, player_id, lang, args)
        except TableFull:
            return Reply(t(lang, "err.table_full"), alert=True)
        except AlreadySeated:
            return Reply(t(lang, "err.already_seated"), alert=True)
        except WrongStatus:
            match = await self.store.get_match(match.id) or match
            return Reply(t(lang, "err.not_lobby" if match.status != "lobby" else "err.stale"), alert=True)

    async def _lobby_unseat(self, match_id: int, seat_index: int) -> None:
        """Free a lobby seat whose player may no longer play (an operator banned them), as their Leave would."""
        async with self._locks[match_id]:
            match = await self.store.get_match(match_id)
            if match is None or match.status != "lobby":
                return
            await self._seat_write(self.store.remove_seat, match.id, seat_index)
            self._owe_lobby(match.id)

    async def _lobby_change(self, op: str, match: Match, actor: Actor, player_id: int, lang: str,
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
                if name == "stake" and match.game in COIN_GAMES:
                    return await self._cycle_stake(match, seats, lang)
                spec = game.info.options.get(name)
                effective = presenter.effective_options(match, len(seats))
                values = list(ui_for(match.game).option_values(name, spec, effective)) if spec is not None else []
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
                if match.stake:
                    balance = await self.store.coins(player_id, self.coin_grants)
                    if balance < match.stake:
                        return Reply(tn(lang, "coins.short", match.stake, balance=balance), alert=True,
                                     kind=ERROR)
                await self._seat_write(self.store.add_seat, match.id, player_id=player_id,
                                       max_seats=game.info.max_players)
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
                if not ui_for(match.game).bots_allowed(match.options):
                    return Reply(t(lang, "kt.no_bots_ranked"), alert=True)
                if match.stake:  # rules: bots sit only at free tables
                    return Reply(t(lang, "coins.no_bots"), alert=True, kind=ERROR)
                if not mine and player_id != match.creator_id:
                    return Reply(t(lang, "err.not_seated"), alert=True)
                if len(seats) >= game.info.max_players:
                    return Reply(t(lang, "err.table_full"), alert=True)
                await self._seat_write(self.store.add_seat, match.id, bot_level=level, max_seats=game.info.max_players)
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
            self._owe_lobby(match.id)
            return reply

    async def _cancel(self, match: Match, actor: Actor, player_id: int, lang: str) -> Reply:
        if not match.is_open:
            return Reply(t(lang, "err.not_open"), alert=True)
        if player_id != match.creator_id and not actor.is_admin:
            return Reply(t(lang, "err.creator_only"), alert=True)
        match = await self.store.cancel_match(match.id)
        self._forget(match.id)
        self._owe_lobby(match.id)  # the lobby shows it cancelled (and a table that was out gets its note)
        return Reply(t(lang, "lobby.cancelled"))

    async def _start(self, match: Match, seats: list[Seat], actor: Actor, player_id: int, lang: str) -> Reply:
        game = engine.get(match.game)
        if not any(seat.player_id == player_id for seat in seats) and player_id != match.creator_id:
            return Reply(t(lang, "err.not_seated"), alert=True)
        if len(seats) < game.info.min_players:
            return Reply(tn(lang, "err.need_players", game.info.min_players), alert=True)
        humans = sum(1 for seat in seats if seat.is_human)
        not_yet = ui_for(match.game).start_refusal(match.options, humans, len(seats) - humans, lang)
        if not_yet is not None:
            return Reply(not_yet, alert=True)
        if match.stake and any(not seat.is_human for seat in seats):
            return Reply(t(lang, "coins.no_bots"), alert=True, kind=ERROR)
        missing = await self._unreachable_humans(match, seats)
        chat_lang = await self._chat_lang(ChatRef(match.platform, match.chat_id))
        if missing:
            link = self.transports[match.platform].deep_link(f"m{match.id}")
            keyboard = [[Button(t(chat_lang, "btn.open_private"), url=link)]] if link else []
            await self._send(match.platform, match.chat_id, OutMessage(
                t(chat_lang, "lobby.need_private", names=", ".join(s.display_name or "?" for s in missing)),
                keyboard=keyboard))
            return Reply(t(lang, "lobby.waiting_private"), alert=True, kind=INFO)
        try:
            state = game.new(len(seats), match.options, seed=match.seed)
        except ValueError as error:  # e.g. a variant for another number of players
            return Reply(t(lang, "err.bad_option", reason=refusal(lang, error)), alert=True)
        deadline = await self._deadline_for(match, state, seats)
        for seat in seats if match.stake else []:  # today's daily grants count before the stakes are taken
            await self.store.coins(seat.player_id, self.coin_grants)
        try:
            match = await self._seat_write(self.store.start_match, match.id, game.to_json(state), deadline,
                                           seat_count=len(seats))
            self._timer_due(match.deadline)
        except NotEnoughCoins as short:
            short_seats = [seat for seat in seats if seat.player_id in short.player_ids]
            names = t(lang, "sep.list").join(presenter.seat_names(short_seats, lang))
            return Reply(tn(lang, "coins.short_at_start", match.stake, names=names), alert=True, kind=ERROR)
        self._owe_lobby(match.id)
        match = await self._run_bots(match)
        self._schedule(match, changed_seats=None, new_turn=True)
        return Reply(t(lang, "lobby.started"))

    async def _cycle_stake(self, match: Match, seats: list[Seat], lang: str) -> Reply:
        """The creator's stake button: free → 10 → 50 → 100 → 250 → free. Raising it from free is refused while
        a bot sits (bots sit only at free tables); seated players short of coins are told at /start."""
        stake = next_stake(match.stake)
        if stake and any(not seat.is_human for seat in seats):
            return Reply(t(lang, "coins.remove_bots"), alert=True, kind=ERROR)
        await self.store.set_match_stake(match.id, stake)
        self._owe_lobby(match.id)
        return Reply(tn(lang, "coins.stake_set", stake) if stake else t(lang, "coins.free_set"))

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
        invite = None
        if match.status == "lobby" and ui_for(match.game).invites(match.options):
            invite = self.transports[match.platform].deep_link(f"j{match.id}")
        await self._show(match, "lobby", None, match.chat_id, presenter.lobby(
            match, seats, lang, await self._ready_seats(match, seats), invite=invite))

    async def _ready_seats(self, match: Match, seats: list[Seat]) -> frozenset[int] | None:
        """Seats whose player has opened the private chat (where cards are pushed); None where none is needed."""
        if not self.transports[match.platform].push_private:
            return None
        ready = set()
        for seat in seats:
            player = await self._player(seat.player_id) if seat.player_id else None
            if player is not None and (player.platform, player.user_id) in self._reachable:
                ready.add(seat.seat)
        return frozenset(ready)
