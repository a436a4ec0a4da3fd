"""Scores, leaderboards and player statistics."""

from __future__ import annotations

import logging

import engine
from bot import presenter
from bot.core.state import ServiceState
from bot.games import playable_games
from bot.i18n import You, game_name, t, tn
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
        if match is None or match.snapshot is None:
            return Reply(t(lang, "err.no_game"))
        return await self._score_reply(match, lang)

    async def _cmd_top(self, actor: Actor, chat: ChatRef, player_id: int, lang: str, args: list[str]) -> Reply:
        game_id = args[0].lower() if args else None
        if game_id is not None and game_id not in playable_games():
            return Reply(t(lang, "err.unknown_game", games=", ".join(playable_games())))
        rows = await self.store.leaderboard(game_id, chat.platform, limit=10, lower_games=lower_is_better_games())
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
        for game_id, row in sorted(stats.items()):
            lines.append(t(lang, "stats.row", game=game_name(lang, game_id), games=tn(lang, "count.games", row.played),
                           wins=tn(lang, "count.wins", row.won), draws=tn(lang, "count.draws", row.drawn),
                           points=tn(lang, "count.points", row.points)))
            place = await self.store.player_rank(target_id, game_id, chat.platform, lower_is_better_games())
            if place is not None:
                lines.append(t(lang, "stats.rank", rank=place[0], total=place[1], game=game_name(lang, game_id)))
        return Reply("\n".join(lines))

    async def _score_reply(self, match: Match, lang: str) -> Reply:
        if match.snapshot is None:
            return Reply(t(lang, "err.no_game"), alert=True)
        seats = await self._seats(match.id)
        state = engine.get(match.game).from_json(match.snapshot)
        return Reply(presenter.scores(match, state, seats, lang), alert=True, kind=INFO)  # a box, not an error
