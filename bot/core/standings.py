"""Scores of a match in play (or the chat's last one), and the direction each game's totals rank in; the
leaderboards and profiles are bot/core/ladder.py."""

from __future__ import annotations

import logging

import engine
from bot import presenter
from bot.core.state import ServiceState, match_state
from bot.i18n import t
from bot.messages import INFO, Actor, ChatRef, Reply
from storage.models import Match

log = logging.getLogger(__name__)


def lower_is_better_games() -> frozenset[str]:
    """The games whose lowest total wins (engine `GameInfo.lower_is_better`): their points rank the other way."""
    return frozenset(game_id for game_id in engine.game_ids() if engine.get(game_id).info.lower_is_better)


class Standings(ServiceState):
    async def _cmd_score(self, actor: Actor, chat: ChatRef, player_id: int, lang: str, args: list[str]) -> Reply:
        match = await self._chat_match(chat, player_id)
        if (match is None or match.status != "active") and not chat.private:
            match = await self.store.latest_match(chat.platform, chat.chat_id)  # the final score of the last one
        elif match is None and chat.private:  # a matched table that ended: its final score
            match = await self.store.player_latest_match(player_id)
        if match is None or match.snapshot is None:
            return Reply(t(lang, "err.no_game"))
        return await self._score_reply(match, lang)

    async def _score_reply(self, match: Match, lang: str) -> Reply:
        if match.snapshot is None:
            return Reply(t(lang, "err.no_game"), alert=True)
        seats = await self._seats(match.id)
        state = match_state(match)
        return Reply(presenter.scores(match, state, seats, lang), alert=True, kind=INFO)  # a box, not an error
