"""Tournaments in the chat: the operator schedules one, groups register by button, the bracket is drawn at the start
time, each drawn game waits for its players to check in, then becomes an ordinary match in a group of one of its
entries; results move the bracket on at every timer tick, and the champion is announced.

Decisions (the rules only say "time-limited events, registration windows, team brackets, prizes announced per
event"):
- A tournament belongs to the platform it was scheduled on. It is announced in every group of that platform that
  has hosted a table, and in the operator's chat; `/new` lists it first while it takes registrations.
- An entry registers from a group (a player, or a team's first member who then waits for a partner); its matches are
  played in that group — the better seed's, or the other's when that one has a table open.
- Seeding: by the members' mean ladder rating in the game and mode, then by wins in the game, then by registration
  order.
- Check-in: a drawn game opens for `grace` seconds; a side whose players have not all pressed Ready by then forfeits.
  If neither side is complete, the better seed goes through (a bracket slot cannot stay empty). A drawn match (a
  tie on points) also sends the better seed through.
- A tournament match cancelled by an admin is drawn again: its game reopens for check-in.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import engine
from bot import callbacks, tournament
from bot.core.state import ServiceState
from bot.games import playable_games, ui_for
from bot.i18n import game_name, pick_language, t, tn
from bot.messages import ERROR, Actor, Button, ChatRef, Keyboard, OutMessage, Reply, Unreachable
from renderers import bracket as bracket_picture
from storage.errors import AlreadySeated, NotFound, TableBusy, WrongStatus
from storage.tournaments import BracketGame, Entry, Tournament

log = logging.getLogger(__name__)

MINUTE = 60.0
MAX_OPEN_TEAMS = 4  # "join X's team" buttons on a card at most (the newest teams waiting for a partner)


def clock_text(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(at))


def _minutes(text: str) -> float | None:
    if not (text.isascii() and text.isdigit()) or len(text) > 6:
        return None
    return int(text) * MINUTE


class Tournaments(ServiceState):
    # ---- commands --------------------------------------------------------------------------------------------
    async def _cmd_tournament(self, actor: Actor, chat: ChatRef, player_id: int, lang: str,
                              args: list[str]) -> Reply:
        """`/tournament [number]` shows one (its card while it takes registrations, else its bracket);
        `/tournament new ...` and `/tournament cancel N` are the operators'."""
        word = args[0].lower() if args else ""
        if word in ("new", "cancel"):
            if (actor.platform, str(actor.user_id)) not in self.operators:
                return Reply(t(lang, "tour.operator_only"), alert=True, kind=ERROR)
            if word == "new":
                return await self._schedule_tournament(actor, chat, player_id, lang, args[1:])
            return await self._cancel_tournament(chat, lang, args[1:])
        if len(args) > 1:
            return Reply(t(lang, "tour.usage"))
        if args:
            try:
                found = await self.store.get_tournament(callbacks.number(args[0].lstrip("#")))
            except callbacks.BadAction:
                return Reply(t(lang, "tour.usage"))
        else:
            found = await self.store.latest_tournament(chat.platform)
            current = await self.store.tournaments(chat.platform)
            found = current[0] if current else found
        if found is None or found.platform != chat.platform:
            return Reply(t(lang, "tour.none"), alert=True)
        return await self._show_tournament(found, chat)

    async def _schedule_tournament(self, actor: Actor, chat: ChatRef, player_id: int, lang: str,
                                   args: list[str]) -> Reply:
        """`/tournament new game=konkan_tiles mode=tournament teams=2 open=0 close=30 start=40 grace=5 prize=...`:
        times in minutes from now; `prize=` takes the rest of the line."""
        values: dict[str, str] = {}
        for index, word in enumerate(args):
            key, sep, value = word.partition("=")
            if not sep:
                return Reply(t(lang, "tour.new_usage"))
            if key.lower() == "prize":
                values["prize"] = " ".join([value, *args[index + 1:]]).strip()
                break
            values[key.lower()] = value
        prize = values.pop("prize", "")[:300]
        game_id = values.pop("game", "").lower()
        if game_id == "konkan":
            game_id = "konkan_tiles"
        if game_id not in playable_games():
            return Reply(t(lang, "err.unknown_game", games=", ".join(playable_games())), alert=True)
        teams = values.pop("teams", "1")
        if teams not in ("1", "2"):
            return Reply(t(lang, "tour.new_usage"))
        team_size = int(teams)
        seats = tournament.match_seats(team_size)
        game = engine.get(game_id)
        options: dict[str, Any] = {name: values.pop(name).lower() for name in list(values)
                                   if name in game.info.options}
        if team_size == 2 and seats not in game.info.teams_at:
            return Reply(t(lang, "tour.no_teams", game=game_name(lang, game_id)), alert=True, kind=ERROR)
        try:
            checked = game.check_options(seats, options)
        except ValueError:
            return Reply(t(lang, "tour.bad_seats", game=game_name(lang, game_id), n=seats), alert=True, kind=ERROR)
        options = {name: checked[name] for name in options}  # as the lobby stores them: checked values
        times = {name: _minutes(values.pop(name, default)) for name, default in
                 (("open", "0"), ("close", "30"), ("start", "40"), ("grace", "5"))}
        if values or any(value is None for value in times.values()):
            return Reply(t(lang, "tour.new_usage"))
        now = self.clock()
        opens, closes, starts = (now + (times[name] or 0) for name in ("open", "close", "start"))
        grace = times["grace"] or 0
        if not (opens < closes <= starts) or grace <= 0:
            return Reply(t(lang, "tour.bad_times"), alert=True, kind=ERROR)
        created = await self.store.create_tournament(
            chat.platform, chat.chat_id, game_id, ui_for(game_id).store_mode(checked), options, team_size, opens,
            closes, starts, grace, prize, player_id)
        await self._announce_tournament(created, chat)
        return Reply(t(lang, "tour.scheduled", id=created.id))

    async def _cancel_tournament(self, chat: ChatRef, lang: str, args: list[str]) -> Reply:
        try:
            found = await self.store.get_tournament(callbacks.number(args[0].lstrip("#"))) if len(args) == 1 else None
        except callbacks.BadAction:
            found = None
        if found is None or found.platform != chat.platform:
            return Reply(t(lang, "tour.none"), alert=True)
        if found.status in ("finished", "cancelled"):
            return Reply(t(lang, "tour.over", id=found.id), alert=True)
        found = await self.store.set_tournament_status(found.id, "cancelled")
        await self._say_everywhere(found, lambda chat_lang: OutMessage(t(chat_lang, "tour.cancelled", id=found.id)))
        return Reply(t(lang, "tour.cancelled", id=found.id))

    # ---- presses ---------------------------------------------------------------------------------------------
    async def _tournament_press(self, action: callbacks.Action, actor: Actor, chat: ChatRef, player_id: int,
                                lang: str) -> Reply:
        found = await self.store.get_tournament(action.match_id)
        if found is None or found.platform != chat.platform:
            return Reply(t(lang, "err.bad_button"), alert=True)
        if action.op == "a":  # the /new list's tournament row: its card here
            return await self._show_tournament(found, chat)
        if action.op == "v":
            try:
                round_number, slot = (callbacks.number(arg) for arg in action.args)
            except callbacks.BadAction:
                return Reply(t(lang, "err.bad_button"), alert=True)
            return await self._check_in(found, round_number, slot, player_id, lang)
        if chat.private:  # an entry plays in the group it registered from
            return Reply(t(lang, "tour.group_only"), alert=True)
        if not found.registering_at(self.clock()):
            return Reply(t(lang, "tour.closed", id=found.id), alert=True)
        try:
            if action.op == "u":
                if await self._cannot_reach(actor, chat):
                    return Reply(t(lang, "tour.open_private"), alert=True)
                await self.store.add_entry(found.id, chat.chat_id, player_id)
                said = t(lang, "tour.registered" if found.team_size == 1 else "tour.team_created", id=found.id)
            elif action.op == "e":
                if await self._cannot_reach(actor, chat):
                    return Reply(t(lang, "tour.open_private"), alert=True)
                entry_id = callbacks.number(action.args[0])
                team = await self.store.join_entry(found.id, entry_id, player_id, found.team_size)
                said = t(lang, "tour.team_joined", team=team.name())
            else:  # "w"
                left = await self.store.withdraw(found.id, player_id)
                if left is None:
                    return Reply(t(lang, "tour.not_registered"), alert=True)
                said = t(lang, "tour.withdrawn", id=found.id)
        except AlreadySeated:
            return Reply(t(lang, "tour.already"), alert=True)
        except (WrongStatus, NotFound, callbacks.BadAction):
            return Reply(t(lang, "tour.team_full"), alert=True)
        await self._refresh_cards(found)
        return Reply(said)

    async def _cannot_reach(self, actor: Actor, chat: ChatRef) -> bool:
        """Where cards go to private chats, a player must have opened the bot's: say hello there now, or refuse."""
        transport = self.transports[chat.platform]
        if not transport.push_private or (actor.platform, actor.user_id) in self._reachable:
            return False
        try:
            await transport.send(actor.user_id, OutMessage(t(pick_lang(actor), "tour.hello")))
        except Unreachable:
            return True
        self._reachable.add((actor.platform, actor.user_id))
        return False

    async def _check_in(self, found: Tournament, round_number: int, slot: int, player_id: int, lang: str) -> Reply:
        async with self._tournament_locks[found.id]:
            games = {(g.round, g.slot): g for g in await self.store.bracket(found.id)}
            game = games.get((round_number, slot))
            if game is None or found.status != "running":
                return Reply(t(lang, "err.bad_button"), alert=True)
            if game.winner is not None or game.match_id is not None or game.deadline is None:
                return Reply(t(lang, "err.stale"), alert=True)
            players = {p for entry_id in (game.entry_a, game.entry_b) if entry_id
                       for p in (await self._entry(found, entry_id)).player_ids}
            if player_id not in players:
                return Reply(t(lang, "tour.not_yours"), alert=True)
            if player_id in game.ready:
                return Reply(t(lang, "tour.ready_already"))
            await self.store.update_game(found.id, round_number, slot, ready=[*game.ready, player_id])
            await self._advance_unlocked(found)
        return Reply(t(lang, "tour.ready"))

    # ---- the clock -------------------------------------------------------------------------------------------
    async def _tournament_tick(self) -> None:
        """Draw the brackets whose start time has come and move every running one on (called by `tick`)."""
        for platform in list(self.transports):
            for found in await self.store.tournaments(platform):
                try:
                    if found.status == "registering" and self.clock() >= found.starts:
                        await self._draw(found)
                    elif found.status == "registering" and self.clock() >= found.closes \
                            and found.id not in self._cards_shut:
                        self._cards_shut.add(found.id)  # registration just closed: the cards lose their buttons
                        await self._refresh_cards(found)
                    elif found.status == "running":
                        await self._advance(found)
                except Exception:  # one broken tournament must not stop the others (or the turn timers)
                    log.exception("tournament %s failed to advance", found.id)

    async def _draw(self, found: Tournament) -> None:
        entries = await self.store.entries(found.id)
        complete = [entry for entry in entries if len(entry.members) == found.team_size]
        drop = [entry.id for entry in entries if len(entry.members) != found.team_size]
        if len(complete) < 2:
            await self.store.set_tournament_status(found.id, "cancelled")
            await self._say_everywhere(found, lambda lang: OutMessage(t(lang, "tour.too_few", id=found.id)))
            return
        strength = {entry.id: await self._strength(found, entry) for entry in complete}
        ranked = sorted(complete, key=lambda entry: (-strength[entry.id][0], -strength[entry.id][1], entry.registered,
                                                     entry.id))
        seeds = {entry.id: number for number, entry in enumerate(ranked, start=1)}
        await self.store.draw_bracket(found.id, seeds, drop, tournament.draw([entry.id for entry in ranked]))
        found = await self.store.get_tournament(found.id) or found
        await self._refresh_cards(found)  # the registration buttons go
        await self._say_everywhere(found, lambda lang: OutMessage(tn(lang, "tour.drawn", len(complete), id=found.id)))
        await self._advance(found)

    async def _strength(self, found: Tournament, entry: Entry) -> tuple[float, float]:
        """How strong an entry is for seeding, compared as (rating, wins): its members' mean ladder rating in this
        game and mode (storage.ratings; a player never rated has the starting rating), then their mean wins in this
        game over every mode as the tie-break."""
        ratings = wins = 0.0
        for player_id in entry.player_ids:
            ratings += (await self.store.rating_of(player_id, found.game, found.mode)).rating
            stats = await self.store.player_stats(player_id)
            wins += stats[found.game].won if found.game in stats else 0
        count = max(1, len(entry.player_ids))
        return ratings / count, wins / count

    async def _advance(self, found: Tournament) -> None:
        """Settle what can be settled, repeatedly: byes, finished matches, check-ins complete or timed out. Under
        the tournament's lock: a check-in press and the timer tick must not open the same game's match twice."""
        async with self._tournament_locks[found.id]:
            await self._advance_unlocked(found)

    async def _advance_unlocked(self, found: Tournament) -> None:
        for _ in range(64):  # each pass settles at least one game or stops; a bracket has fewer games than this
            if not await self._advance_once(found):
                return
            found = await self.store.get_tournament(found.id) or found
            if found.status != "running":
                return

    async def _advance_once(self, found: Tournament) -> bool:
        games = await self.store.bracket(found.id)
        now = self.clock()
        last_round = max(game.round for game in games)
        for game in games:
            if game.winner is not None:
                continue
            entries = [e for e in (game.entry_a, game.entry_b) if e is not None]
            feeders_done = game.round == 1 or all(
                g.winner is not None for g in games if g.round == game.round - 1 and (g.slot + 1) // 2 == game.slot)
            if len(entries) == 1 and feeders_done:
                await self._decide(found, game, entries[0], "bye", last_round)
                return True
            if len(entries) < 2:
                continue
            if game.match_id is not None:
                match = await self.store.get_match(game.match_id)
                if match is not None and match.status == "finished":
                    side = tournament.winning_side(match.result or {}, tournament.match_seats(found.team_size))
                    winner = [game.entry_a, game.entry_b][side] if side is not None else await self._better(
                        found, game.entry_a, game.entry_b)
                    await self._decide(found, game, winner, "played" if side is not None else "draw", last_round)
                    return True
                if match is not None and match.status == "cancelled":  # an admin cancelled it: check in again
                    await self.store.update_game(found.id, game.round, game.slot, match_id=None, deadline=None,
                                                 ready=[])
                    return True
                continue
            if game.deadline is None:
                await self.store.update_game(found.id, game.round, game.slot, deadline=now + found.grace)
                await self._call_players(found, game.round, game.slot)
                return True
            a, b = (await self._entry(found, game.entry_a), await self._entry(found, game.entry_b))
            a_ready, b_ready = (set(e.player_ids) <= set(game.ready) for e in (a, b))
            if a_ready and b_ready:
                if await self._open_match(found, game, a, b):
                    return True
                continue
            if now >= game.deadline:
                if a_ready != b_ready:
                    winner = a.id if a_ready else b.id
                else:
                    winner = await self._better(found, a.id, b.id)
                await self._decide(found, game, winner, "forfeit", last_round)
                return True
        return False

    async def _better(self, found: Tournament, first: int | None, second: int | None) -> int:
        a, b = await self._entry(found, first), await self._entry(found, second)
        return a.id if (a.seed or 10**6) <= (b.seed or 10**6) else b.id

    async def _decide(self, found: Tournament, game: BracketGame, winner: int, outcome: str, last_round: int) -> None:
        await self.store.update_game(found.id, game.round, game.slot, winner=winner, outcome=outcome)
        entry = await self._entry(found, winner)
        if game.round == last_round:
            found = await self.store.set_tournament_status(found.id, "finished", champion=winner)
            for chat_id in await self._announce_chats(found):
                lang = await self._chat_lang(ChatRef(found.platform, chat_id))
                shown = await self._bracket_message(found, lang)
                text = t(lang, "tour.champion", id=found.id, name=entry.name(), prize=found.prize or "—")
                try:
                    await self._post(found.platform, chat_id, OutMessage(text, image=shown.image,
                                                                         picture_name="bracket", alt=shown.alt))
                except Exception:
                    log.warning("tournament %s: could not tell %s", found.id, chat_id, exc_info=True)
            return
        next_round, next_slot, side = tournament.feeds(game.round, game.slot)
        await self.store.update_game(found.id, next_round, next_slot, **{side: winner})
        if outcome == "forfeit":
            loser = game.entry_b if winner == game.entry_a else game.entry_a
            lost = await self._entry(found, loser)
            for chat_id in {entry.chat_id, lost.chat_id}:
                lang = await self._chat_lang(ChatRef(found.platform, chat_id))
                await self._post(found.platform, chat_id, OutMessage(t(lang, "tour.forfeit", winner=entry.name(),
                                                                       loser=lost.name())))

    async def _call_players(self, found: Tournament, round_number: int, slot: int) -> None:
        """Post the check-in card of a drawn game in its entries' groups."""
        game = next(g for g in await self.store.bracket(found.id) if (g.round, g.slot) == (round_number, slot))
        a, b = await self._entry(found, game.entry_a), await self._entry(found, game.entry_b)
        for chat_id in dict.fromkeys((a.chat_id, b.chat_id)):
            lang = await self._chat_lang(ChatRef(found.platform, chat_id))
            rounds = max(g.round for g in await self.store.bracket(found.id))
            text = t(lang, "tour.call", id=found.id, round=self._round_name(rounds, round_number, lang), a=a.name(),
                     b=b.name(), until=clock_text(game.deadline or self.clock()))
            await self._post(found.platform, chat_id, OutMessage(text, keyboard=[[Button(
                t(lang, "tour.btn.ready"), callbacks.encode("v", found.id, round_number, slot))]]))

    async def _open_match(self, found: Tournament, game: BracketGame, a: Entry, b: Entry) -> bool:
        """Both sides checked in: their match, in the better seed's group or else the other's. False while both
        groups have a table open (tried again at the next tick)."""
        first, second = (a, b) if (a.seed or 0) <= (b.seed or 0) else (b, a)
        rules = engine.get(found.game)
        for chat_id in dict.fromkeys((first.chat_id, second.chat_id)):
            try:
                match = await self.store.create_match(found.game, found.mode, found.options, found.platform, chat_id,
                                                      None, self._seeds.getrandbits(62), lobby_screen=False)
            except TableBusy:
                continue
            for player_id in tournament.seat_players(a.player_ids, b.player_ids):
                await self._seat_write(self.store.add_seat, match.id, player_id=player_id)
            seats = await self._seats(match.id)
            state = rules.new(len(seats), match.options, seed=match.seed)
            deadline = await self._deadline_for(match, state, seats)
            match = await self._seat_write(self.store.start_match, match.id, rules.to_json(state), deadline)
            await self.store.update_game(found.id, game.round, game.slot, match_id=match.id)
            lang = await self._chat_lang(ChatRef(found.platform, chat_id))
            rounds = max(g.round for g in await self.store.bracket(found.id))
            await self._post(found.platform, chat_id, OutMessage(t(
                lang, "tour.match_started", id=found.id, round=self._round_name(rounds, game.round, lang),
                a=a.name(), b=b.name())))
            async with self._locks[match.id]:
                self._schedule(match, changed_seats=None, new_turn=True)
            return True
        return False

    # ---- what is shown ---------------------------------------------------------------------------------------
    async def _entry(self, found: Tournament, entry_id: int | None) -> Entry:
        for entry in await self.store.entries(found.id):
            if entry.id == entry_id:
                return entry
        raise NotFound(f"no entry {entry_id} in tournament {found.id}")

    @staticmethod
    def _round_name(rounds: int, round_number: int, lang: str) -> str:
        left = rounds - round_number
        if left == 0:
            return t(lang, "tour.final")
        if left == 1:
            return t(lang, "tour.semi")
        return t(lang, "tour.round", n=round_number)

    async def _card(self, found: Tournament, lang: str) -> OutMessage:
        entries = await self.store.entries(found.id)
        mode = t(lang, f"opt.mode.{found.mode}") if found.mode and t(lang, f"opt.mode.{found.mode}") != \
            f"opt.mode.{found.mode}" else ""
        lines = [
            t(lang, "tour.card.title", id=found.id, game=game_name(lang, found.game)) + (f" · {mode}" if mode else ""),
            t(lang, "tour.card.teams") if found.team_size == 2 else t(lang, "tour.card.solo"),
            t(lang, "tour.card.window", opens=clock_text(found.opens), closes=clock_text(found.closes)),
            t(lang, "tour.card.starts", starts=clock_text(found.starts)),
            t(lang, "tour.card.prize", prize=found.prize or "—"),
            tn(lang, "tour.card.entries", len(entries)),
        ]
        lines += [f"{number}. {entry.name()}" + ("" if len(entry.members) == found.team_size else
                                                 " " + t(lang, "tour.card.waiting"))
                  for number, entry in enumerate(entries, start=1)]
        keyboard: Keyboard = []
        if found.registering_at(self.clock()):
            first = t(lang, "tour.btn.register" if found.team_size == 1 else "tour.btn.new_team")
            keyboard.append([Button(first, callbacks.encode("u", found.id)),
                             Button(t(lang, "tour.btn.withdraw"), callbacks.encode("w", found.id))])
            waiting = [entry for entry in entries if len(entry.members) < found.team_size][-MAX_OPEN_TEAMS:]
            keyboard += [[Button(t(lang, "tour.btn.join", team=entry.name()), callbacks.encode("e", found.id,
                                                                                               entry.id))]
                         for entry in waiting]
        elif found.status == "registering":
            lines.append(t(lang, "tour.card.not_open") if self.clock() < found.opens else t(lang, "tour.card.shut"))
        else:
            lines.append(t(lang, "tour.card.drawn"))
        return OutMessage("\n".join(lines), keyboard=keyboard)

    async def _bracket_message(self, found: Tournament, lang: str) -> OutMessage:
        games = await self.store.bracket(found.id)
        entries = {entry.id: entry for entry in await self.store.entries(found.id)}
        rounds = max((game.round for game in games), default=0)
        columns: list[list[bracket_picture.Game]] = [[] for _ in range(rounds)]
        for game in games:
            def side(entry_id: int | None, game: BracketGame = game) -> bracket_picture.Side:
                if entry_id is None:
                    return bracket_picture.Side("")
                entry = entries.get(entry_id)
                label = f"{entry.seed}. {entry.name()}" if entry and entry.seed else (entry.name() if entry else "?")
                return bracket_picture.Side(label, won=game.winner == entry_id)
            note = t(lang, f"tour.note.{game.outcome}") if game.outcome in ("bye", "forfeit", "draw") else ""
            if game.outcome == "played" and game.match_id is not None:
                note = t(lang, "tour.note.played", id=game.match_id)
            if not note and game.winner is None and game.match_id is not None:
                note = t(lang, "tour.note.playing", id=game.match_id)
            elif not note and game.winner is None and game.deadline is not None:
                note = t(lang, "tour.note.check_in", until=time.strftime("%H:%M", time.gmtime(game.deadline)))
            columns[game.round - 1].append(bracket_picture.Game(side(game.entry_a), side(game.entry_b), note))
        heads = [self._round_name(rounds, number, lang) for number in range(1, rounds + 1)]
        champion = entries[found.champion].name() if found.champion in entries else ""
        title = t(lang, "tour.card.title", id=found.id, game=game_name(lang, found.game))
        subtitle = t(lang, "tour.card.prize", prize=found.prize or "—")
        png = None
        if self.images.get(found.platform, False) and rounds:
            png = await self._render_bytes(bracket_picture.render, title.removeprefix("🏆 "), subtitle, heads, columns,
                                           champion, lang)
        lines = [title, subtitle]
        for number, games_of_round in enumerate(columns, start=1):
            lines.append(heads[number - 1] + ":")
            lines += [f"  {g.a.name or '…'}{' ✓' if g.a.won else ''} — {g.b.name or '…'}{' ✓' if g.b.won else ''}"
                      + (f" ({g.note})" if g.note else "") for g in games_of_round]
        if champion:
            lines.append(t(lang, "tour.champion_line", name=champion))
        return OutMessage("\n".join(lines)[:1000], image=png, picture_name="bracket",
                          alt=t(lang, "tour.alt", id=found.id))

    async def _show_tournament(self, found: Tournament, chat: ChatRef) -> Reply:
        lang = await self._chat_lang(chat)
        if found.status == "registering":
            message = await self._card(found, lang)
            kind = f"tournament{found.id}"
            try:
                message_id = await self._post(chat.platform, chat.chat_id, message)
            except Unreachable:
                return Reply(t(lang, "err.cannot_post"), alert=True, kind=ERROR)
            await self.store.save_message(chat.platform, chat.chat_id, message_id, kind)
            return Reply("")
        if found.status == "cancelled":
            return Reply(t(lang, "tour.cancelled", id=found.id), alert=True)
        try:
            await self._post(chat.platform, chat.chat_id, await self._bracket_message(found, lang))
        except Unreachable:
            return Reply(t(lang, "err.cannot_post"), alert=True, kind=ERROR)
        return Reply("")

    async def _announce_tournament(self, found: Tournament, operator_chat: ChatRef) -> None:
        for chat_id in await self._announce_chats(found):
            if chat_id == operator_chat.chat_id and operator_chat.private:
                continue
            try:
                await self._show_tournament(found, ChatRef(found.platform, chat_id))
            except Exception:  # one group that refuses must not keep the others from hearing of it
                log.warning("could not announce tournament %s in %s", found.id, chat_id, exc_info=True)

    async def _announce_chats(self, found: Tournament) -> list[str]:
        chats = [found.chat_id, *await self.store.host_chats(found.platform)]
        chats += [entry.chat_id for entry in await self.store.entries(found.id)]
        return list(dict.fromkeys(chats))

    async def _refresh_cards(self, found: Tournament) -> None:
        """Every posted registration card shows the entries as they are now."""
        for chat_id in await self._announce_chats(found):
            shown = await self.store.get_message(found.platform, f"tournament{found.id}", chat_id=chat_id)
            if shown is None:
                continue
            lang = await self._chat_lang(ChatRef(found.platform, chat_id))
            try:
                await self.transports[found.platform].edit(chat_id, shown.message_id, await self._card(found, lang))
            except Exception:
                log.info("tournament %s: card in %s not edited", found.id, chat_id, exc_info=True)

    async def _say_everywhere(self, found: Tournament, build: Any) -> None:
        for chat_id in await self._announce_chats(found):
            lang = await self._chat_lang(ChatRef(found.platform, chat_id))
            try:
                await self._post(found.platform, chat_id, build(lang))
            except Exception:
                log.warning("tournament %s: could not tell %s", found.id, chat_id, exc_info=True)

    async def _post(self, platform: str, chat_id: str, message: OutMessage) -> str:
        return await self.transports[platform].send(chat_id, message)

    async def _open_tournaments(self, platform: str) -> list[Tournament]:
        """Tournaments taking registrations now: `/new` lists them first."""
        now = self.clock()
        return [found for found in await self.store.tournaments(platform, ("registering",))
                if found.registering_at(now)]


def pick_lang(actor: Actor) -> str:
    return pick_language(actor.language)
