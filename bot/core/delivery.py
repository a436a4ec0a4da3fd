"""Showing a match: the table in the group, racks in private chats, turn notices; edits in place."""

from __future__ import annotations

import logging
from typing import Any

import engine
from bot import presenter
from bot.core.state import ServiceState
from bot.i18n import t
from bot.messages import Actor, ChatRef, MessageGone, OutMessage, Reply, Unreachable
from storage.models import Match, Seat

log = logging.getLogger(__name__)


class Delivery(ServiceState):
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

    async def _rack_message(self, match: Match, state: dict[str, Any], seat: Seat) -> OutMessage:
        seats = await self._seats(match.id)
        lang = await self._player_lang(match, seat)
        pick = self._picks.get((match.id, seat.seat))
        return await self._render(presenter.rack, match, state, seat, seats, lang, pick,
                                  self.images[match.platform])

    async def _show_rack(self, match: Match, seat: Seat, message: OutMessage, new: bool) -> None:
        player = await self._player(seat.player_id) if seat.player_id else None
        if player is None:
            return
        try:
            await self._show(match, "rack", seat.seat, player.user_id, message, new=new)
        except Unreachable:
            log.info("rack for player %s could not be delivered", player.id)

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
