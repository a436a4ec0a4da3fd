"""Moves: a human's typed or pressed move, two-step picks, bots playing their turns, the commit of each move."""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import replace
from typing import Any

import engine
from bot import presenter
from bot.coin_tables import finishing_places
from bot.core.state import MAX_RECAP, ServiceState, match_state
from bot.core.thinking import bot_move
from bot.games import ui_for
from bot.i18n import You, refusal, t
from bot.messages import ERROR, Actor, ChatRef, Reply
from engine import IllegalMove
from storage.errors import StaleVersion
from storage.ladder import sides_and_places
from storage.models import Match

log = logging.getLogger(__name__)

TAG = re.compile(r"[0-9a-f]{4}")  # presenter.pick_tag: a fingerprint of the picking state


def drawn_tag(tag: str) -> bool:
    """Whether a move code's last field is one `presenter.move_code` writes: the picking state after
    `presenter.PICK_MARK` (printable ASCII, as every game's picking keys are) or its fingerprint."""
    if tag.startswith(presenter.PICK_MARK):
        state = tag[len(presenter.PICK_MARK):]
        return state.isascii() and state.isprintable()
    return TAG.fullmatch(tag) is not None


MAX_BOT_MOVES = 2000  # per wake-up: a guard, far above any real chain of bot turns


class Play(ServiceState):
    async def _cmd_move(self, actor: Actor, chat: ChatRef, player_id: int, lang: str, args: list[str]) -> Reply:
        match = await self._chat_match(chat, player_id)
        if match is None or match.status != "active":
            return Reply(t(lang, "err.no_game"))
        if not args:
            return Reply(t(lang, "err.move_syntax"))
        try:
            reply = await self._human_move(match.id, player_id, lang, text=" ".join(args))
        except IllegalMove as error:
            reply = Reply(t(lang, "err.illegal", reason=refusal(lang, error)), alert=True, kind=ERROR)
        # "not in your hand" vs "not on the table" tells what the typer holds: in a group, only they may read it.
        return replace(reply, private=not chat.private)

    async def _cmd_back(self, actor: Actor, chat: ChatRef, player_id: int, lang: str, args: list[str]) -> Reply:
        match = await self._chat_match(chat, player_id)
        if match is None or match.status != "active":
            return Reply(t(lang, "err.no_game"))
        return await self._back_in(match, player_id, lang)

    async def _human_move(self, match_id: int, player_id: int, lang: str, *, version: int | None = None,
                          index: int | None = None, tag: str = "", text: str | None = None,
                          call: bool = False) -> Reply:
        async with self._locks[match_id]:
            match = await self.store.get_match(match_id)
            if match is None or match.status != "active":
                return Reply(t(lang, "err.stale"), alert=True)
            if version is not None and not drawn_tag(tag):
                return Reply(t(lang, "err.bad_button"), alert=True)  # no keyboard was ever drawn like this
            seat = await self._seat_of(match, player_id)
            if seat is None:
                return Reply(t(lang, "err.not_your_seat"), alert=True)
            if version is not None and version != match.version:
                return Reply(t(lang, "err.stale"), alert=True)
            game = engine.get(match.game)
            state = match_state(match)
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
            self._schedule(match, changed_seats={seat.seat}, new_turn=True)
            done = t(lang, "move.done", move=presenter.describe_move(match.game, move, lang, game.view(new_state, None),
                                                                     You("")))
            if self._pushes(match):
                return Reply(done)
            # On-demand platforms (Discord) update the private hand in the reply itself.
            seat = await self._seat_of(match, player_id) or seat
            rack = await self._rack_message(match, match_state(match), seat)
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
            game = engine.get(match.game)
            state = match_state(match)
            to_move = game.to_move(state)
            # Judge the code against the keyboard of the seat to move before asking who pressed it: a key no rack
            # offers is forged, whoever sends it. ("Back" is always harmless: it redraws the presser's own rack.)
            if to_move is None or (key is not None and key not in self._offered_picks(match, state, to_move, lang)):
                return Reply(t(lang, "err.bad_button"), alert=True)
            seat = await self._seat_of(match, player_id)
            if seat is None:
                return Reply(t(lang, "err.not_your_seat"), alert=True)
            if to_move != seat.seat:
                return Reply(t(lang, "err.not_your_turn"), alert=True)
            if key is None:
                self._picks.pop((match.id, seat.seat), None)
            else:
                self._picks[(match.id, seat.seat)] = key
            if self._pushes(match):
                # The rack is redrawn by the delivery, after this answer: the player's own screen, not the table.
                self._schedule(match, changed_seats={seat.seat}, new_turn=False, table=False)
                return Reply(ui_for(match.game).pick_hint(key, lang) if key is not None else "")
            return Reply("", message=await self._rack_message(match, state, seat))

    async def _commit(self, match: Match, seat: int, actor: str, move: str, state: dict[str, Any],
                      new_state: dict[str, Any]) -> Match:
        game = engine.get(match.game)
        seats = await self._seats(match.id)
        result = game.result(new_state)
        deadline = None if result["over"] else await self._deadline_for(match, new_state, seats)
        places = finishing_places(match.game, result, len(seats)) if result["over"] and match.stake else None
        sides = sides_and_places(result, len(seats), game.info.lower_is_better) \
            if result["over"] and match.rated else None
        match = await self.store.apply_move(match.id, match.version, seat, actor, move, game.to_json(new_state),
                                            deadline, finished_result=result if result["over"] else None,
                                            record_stats=ui_for(match.game).counts_in_stats(match.options),
                                            places=places, sides=sides)
        self._timer_due(match.deadline)  # the next turn's deadline, now stored
        self.metrics.moved(match.game, actor)
        if match.status == "finished":
            await self._after_finish(match.id)
        self._moved(match.id, seat)
        # Every seat's recap runs from its previous turn: older moves are nobody's news any more. The log grows
        # only from the version it has reached: after another worker's moves it is rebuilt from the move log when
        # the table is next drawn (bot.core.delivery._recap).
        if self._recent_at.get(match.id, 0) == match.version - 1:
            self._recent[match.id].add((seat, move, game.view(new_state, None), game.result(state)["round"]),
                                       lambda: game.view(state, None), len(seats), MAX_RECAP)
            self._recent_at[match.id] = match.version
        else:
            self._recent.pop(match.id, None)
            self._recent_at.pop(match.id, None)
        finished = len(game.result(state)["history"])
        if len(result["history"]) > finished:  # a round ended: its score sheet is announced with the table
            self._announce.setdefault(match.id, finished + 1)
        return match

    async def _run_bots(self, match: Match) -> Match:
        """Play every bot turn (and every seat a bot covers for an absent player) until a human is to move — or,
        in a game that shows each bot move (GameUI.bot_pause: Tunj), until a bot's move is stored: its pause is
        then the match's deadline, and the timer plays the next move when it ends (Timers._timeout). Every bot
        turn carries a due time (Timers._deadline_for), so turns a dead worker owed are played by another one."""
        game = engine.get(match.game)
        for _ in range(MAX_BOT_MOVES):
            if match.status != "active":
                return match
            state = match_state(match)
            seat_index = game.to_move(state)
            if seat_index is None:
                return match
            seats = await self._seats(match.id)
            seat = seats[seat_index]
            if seat.is_human and not seat.away:
                return match
            level = seat.bot_level or "normal"
            # An expert thinks in a worker process, so other tables' presses go on meanwhile (bot.core.thinking).
            move = await bot_move(self.thinkers, match.game, state, seat_index, level,
                                  f"{match.seed}:{match.version}", slips=not seat.is_human)
            if self.bot_delay:
                await asyncio.sleep(self.bot_delay)
            new_state = game.apply(state, seat_index, move)
            try:
                match = await self._commit(match, seat_index, "bot", move, state, new_state)
            except StaleVersion:
                # Another worker played this bot turn first (its timer loop claimed the owed turn, or it resumed
                # the same match at start-up): its move stands, and that worker goes on with the bots after it.
                return await self.store.get_match(match.id) or match
            if await self._bot_waiting(match):
                return match
        return match

    async def _bot_waiting(self, match: Match) -> bool:
        """Whether the bot to move is pausing after its last move (its next move is the timer's)."""
        if match.status != "active" or match.deadline is None:
            return False
        return self._bot_pause(match, match_state(match), await self._seats(match.id)) is not None

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
                seats = await self._seats(match.id)
                match = await self.store.set_deadline(match.id, await self._deadline_for(
                    match, match_state(match), seats))
                self._timer_due(match.deadline)
                self._schedule(match, changed_seats={seat.seat}, new_turn=False)
            return Reply(t(lang, "back.welcome"))

    def _offered_picks(self, match: Match, state: dict[str, Any], seat: int, lang: str) -> set[str]:
        """The picking keys the seat's rack offers now, or offered before any pick (a double tap on the first
        step): any other key comes from a forged press (or a keyboard of another picking state)."""
        offered: set[str] = set()
        for pick in {self._picks.get((match.id, seat)), None}:
            buttons = presenter.rack_buttons(match, state, seat, lang, pick)
            offered |= {button.arg for row in buttons for button in row if button.kind == "pick"}
        return offered
