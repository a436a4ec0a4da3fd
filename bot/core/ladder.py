"""The ranked ladder in chat: `/top` (paged with buttons, this chat or global), `/stats` (a profile picture),
`/rated` (a chat's choice to rate its tables), and what a finished match tells the chat (rating changes, new
achievements).

A board answers the user where they asked (`Reply.in_place`): a message in the chat on Telegram and the terminal,
an ephemeral on Discord; its page buttons replace that same message. A board's button carries everything the page
needs (`g:0:game:mode:scope:page`), so a press never depends on memory the bot lost in a restart.

`/top` alone is the wins table over every game (the statistics); `/top GAME [MODE]` is the rating ladder of that
game and mode (default: the game's rated mode) once anyone is rated there, and the wins table of that game until
then (decision: a game no chat rates still has a leaderboard).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import engine
import renderers
from bot import achievements, callbacks, presenter
from bot.core.standings import lower_is_better_games
from bot.core.state import ServiceState, match_state
from bot.games import playable_games, ui_for
from bot.i18n import You, game_name, t, tn
from bot.messages import Actor, Button, ChatRef, OutMessage, Reply
from renderers.profile import Profile, RatingLine
from storage import ladder
from storage.ladder import PLACEMENT_MATCHES
from storage.models import Seat
from storage.ratings import PAGE_SIZE, RatingChange
from storage.stats import seat_outcomes

log = logging.getLogger(__name__)

GAME_ALIASES = {"konkan": "konkan_tiles"}
SCOPES = {"here": "h", "global": "g"}
ANY = "-"  # a board's button field for "all games" / "the default mode"
FORM_LENGTH = 10


@dataclass
class News:
    """What a finished match still has to tell its chat after the final table."""

    changes: list[RatingChange] = field(default_factory=list)
    # (seat, achievement code): the seat is named when the news is told, in the chat's language — the terminal's
    # player has no name of their own and is "You" there (presenter.seat_names), never a blank or a "?".
    awards: list[tuple[Seat, str]] = field(default_factory=list)


class Ladder(ServiceState):
    # ---- /rated -------------------------------------------------------------------------------------------------
    async def _cmd_rated(self, actor: Actor, chat: ChatRef, player_id: int, lang: str, args: list[str]) -> Reply:
        """`/rated on|off` (admins): whether this chat's new tables feed the ladder (Konkan tiles: only `ranked`,
        always). Without a word: which it is."""
        if chat.private:
            return Reply(t(lang, "err.group_only"))
        choice = args[0].lower() if args else ""
        if not choice:
            on = bool((await self._chat(chat.platform, chat.chat_id)).defaults.get("rated"))
            said = t(lang, "ladder.rated_on" if on else "ladder.rated_off")
            return Reply(said + "\n" + t(lang, "ladder.rated_usage"))
        if choice not in ("on", "off"):
            return Reply(t(lang, "ladder.rated_usage"))
        if not actor.is_admin:
            return Reply(t(lang, "err.admin_only"))
        await self._chat_write(self.store.set_chat_defaults, chat.platform, chat.chat_id,
                               {"rated": True if choice == "on" else None})
        return Reply(t(lang, "ladder.rated_set_on" if choice == "on" else "ladder.rated_set_off"))

    async def _chat_rates(self, chat: ChatRef) -> bool:
        return bool((await self._chat(chat.platform, chat.chat_id)).defaults.get("rated"))

    # ---- /top ---------------------------------------------------------------------------------------------------
    async def _cmd_top(self, actor: Actor, chat: ChatRef, player_id: int, lang: str, args: list[str]) -> Reply:
        game: str | None = None
        mode: str | None = None
        scope = "g"
        page = 0
        for word in (word.lower() for word in args):
            word = GAME_ALIASES.get(word, word)
            if word.isascii() and word.isdigit() and 0 < len(word) <= 4:
                page = int(word) - 1  # a page typed (the terminal has no page buttons)
            elif word in SCOPES:
                scope = SCOPES[word]
            elif game is None and word in playable_games():
                game = word
            elif game is not None and mode is None and word in ui_for(game).ladder_modes():
                mode = word
            elif game is None:
                return Reply(t(lang, "err.unknown_game", games=", ".join(playable_games())))
            else:
                return Reply(t(lang, "top.usage"))
        if chat.private:
            scope = "g"  # a private chat has no players of its own
        return Reply("", message=await self._board(chat, lang, game, mode, scope, page), in_place=True)

    async def _board_press(self, chat: ChatRef, lang: str, args: tuple[str, ...]) -> Reply:
        """A board's page or scope button: the same board at another page, drawn from what the button says."""
        game, mode, scope, page_text = args
        try:
            page = callbacks.number(page_text)
        except callbacks.BadAction:
            return Reply(t(lang, "err.bad_button"), alert=True)
        known_game = game == ANY or game in playable_games()
        known_mode = mode == ANY or (game != ANY and known_game and mode in ui_for(game).ladder_modes())
        if not (known_game and known_mode and scope in SCOPES.values()):
            return Reply(t(lang, "err.bad_button"), alert=True)
        message = await self._board(chat, lang, None if game == ANY else game, None if mode == ANY else mode,
                                    "g" if chat.private else scope, page)
        return Reply("", message=message, in_place=True)

    async def _board(self, chat: ChatRef, lang: str, game: str | None, mode: str | None, scope: str,
                     page: int) -> OutMessage:
        chat_id = chat.chat_id if scope == "h" else None
        where = t(lang, "top.scope.here" if scope == "h" else "top.scope.global")
        if game is not None:
            ladder_mode = mode or ui_for(game).ladder_modes()[0]
            board = await self.store.ladder(game, ladder_mode, chat.platform, chat_id, page)
            if board.placed or board.in_placement:
                lines = [t(lang, "top.ladder_title", game=game_name(lang, game), mode=mode_name(lang, ladder_mode),
                           scope=where)]
                lines += [t(lang, "top.ladder_row", rank=row.rank, name=row.display_name,
                            rating=row.standing.rating, tier=tier_name(lang, row.standing.tier),
                            wins=tn(lang, "count.wins", row.standing.wins),
                            losses=tn(lang, "count.losses", row.standing.losses), streak=row.standing.streak)
                          for row in board.rows]
                if not board.rows:
                    lines.append(t(lang, "top.nobody_placed"))
                if board.in_placement:
                    lines.append(tn(lang, "top.in_placement", board.in_placement, total=PLACEMENT_MATCHES))
                return self._paged(lang, lines, game, mode, scope, board.page, board.pages, chat.private)
        rows, page, pages = await self.store.standings_page(game, chat.platform, mode=mode,
                                                           lower_games=lower_is_better_games(), chat_id=chat_id,
                                                           page=page, per_page=PAGE_SIZE)
        if game is not None and mode is not None:  # the mode asked for is what the board counts: its title says so
            title = t(lang, "top.title_mode", game=game_name(lang, game), mode=mode_name(lang, mode))
        else:
            title = t(lang, "top.title", game=game_name(lang, game) if game else t(lang, "top.all"))
        lines = [f"{title} ({where})"]
        if not rows:
            lines.append(t(lang, "top.empty"))
        lines += [t(lang, "top.row", rank=row.rank, name=row.display_name or t(lang, "console.you"),
                    wins=tn(lang, "count.wins", row.won), games=tn(lang, "count.games", row.played),
                    rate=round(100 * row.win_rate)) for row in rows]
        return self._paged(lang, lines, game, mode, scope, page, pages, chat.private)

    @staticmethod
    def _paged(lang: str, lines: list[str], game: str | None, mode: str | None, scope: str, page: int,
               pages: int, private: bool) -> OutMessage:
        """The board's text with its page buttons, and (in a group) the button to the other scope."""
        def code(to_page: int, to_scope: str = scope) -> str:
            return callbacks.encode("g", 0, game or ANY, mode or ANY, to_scope, to_page)

        if pages > 1:
            lines = [*lines, t(lang, "top.page", page=page + 1, pages=pages)]
        row = []
        if page > 0:
            row.append(Button(t(lang, "btn.prev"), code(page - 1)))
        if page + 1 < pages:
            row.append(Button(t(lang, "btn.next"), code(page + 1)))
        other = "g" if scope == "h" else "h"
        scope_row = [] if private else [Button(t(lang, "btn.scope_here" if other == "h" else "btn.scope_global"),
                                               code(0, other))]
        return OutMessage("\n".join(lines), keyboard=[keys for keys in (row, scope_row) if keys])

    # ---- /stats -------------------------------------------------------------------------------------------------
    async def _cmd_stats(self, actor: Actor, chat: ChatRef, player_id: int, lang: str, args: list[str]) -> Reply:
        target_id, name = player_id, actor.name or You(t(lang, "console.you"))  # the terminal's nameless player
        if args:
            other = await self.store.find_player(chat.platform, args[0].lstrip("@"))
            if other is None:
                return Reply(t(lang, "err.no_player"))
            target_id, name = other.id, other.display_name
        stats = await self.store.player_stats(target_id)
        ratings = await self.store.player_ratings(target_id)
        if not stats and not ratings:
            return Reply(t(lang, "stats.none", name=name))
        lines = [t(lang, "stats.title", name=name)]
        for game_id, row in sorted(stats.items()):
            lines.append(t(lang, "stats.row", game=game_name(lang, game_id), games=tn(lang, "count.games", row.played),
                           wins=tn(lang, "count.wins", row.won), draws=tn(lang, "count.draws", row.drawn),
                           points=tn(lang, "count.points", row.points)))
            place = await self.store.player_rank(target_id, game_id, chat.platform, lower_is_better_games())
            if place is not None:
                lines.append(t(lang, "stats.rank", rank=place[0], total=place[1], game=game_name(lang, game_id)))
        rating_lines = []
        for rated in ratings:
            standing = rated.standing
            shown = (t(lang, "ladder.rating", rating=standing.rating, tier=tier_name(lang, standing.tier))
                     if standing.placed else t(lang, "ladder.placement", n=standing.placement, total=PLACEMENT_MATCHES))
            where = await self.store.ladder_rank(target_id, rated.game, rated.mode, chat.platform)
            lines.append(t(lang, "stats.ladder_line", game=game_name(lang, rated.game),
                           mode=mode_name(lang, rated.mode), shown=shown)
                         + (" · " + t(lang, "stats.ladder_rank", rank=where[0], total=where[1]) if where else ""))
            badge = tier_name(lang, standing.tier) if standing.placed else f"{standing.placement}/{PLACEMENT_MATCHES}"
            rating_lines.append(RatingLine(
                f"{game_name(lang, rated.game)} · {mode_name(lang, rated.mode)}",
                str(standing.rating) if standing.placed else shown, standing.tier, badge,
                t(lang, "stats.record", wins=tn(lang, "count.wins", standing.wins),
                  losses=tn(lang, "count.losses", standing.losses), draws=tn(lang, "count.draws", standing.draws)),
                t(lang, "stats.streaks", streak=standing.streak, best=standing.best_streak),
                t(lang, "stats.ladder_rank", rank=where[0], total=where[1]) if where else ""))
        codes = await self.store.achievements_of(target_id)
        for code in codes:
            lines.append(t(lang, "stats.achievement", name=t(lang, f"ach.{code}")))
        text = "\n".join(lines)
        if not self.images.get(chat.platform, True):
            return Reply("", message=OutMessage(text), in_place=True)
        played = sum(row.played for row in stats.values())
        won = sum(row.won for row in stats.values())
        favourite = max(stats.values(), key=lambda row: (row.played, row.won)).game if stats else None
        best = max((rated.standing.best_streak for rated in ratings), default=0)
        form = await self.store.recent_form(target_id, FORM_LENGTH)
        profile = Profile(
            title=t(lang, "stats.title", name=name),
            tiles=((t(lang, "stats.card_games"), str(played)),
                   (t(lang, "stats.card_win_rate"), f"{round(100 * won / played) if played else 0}%"),
                   (t(lang, "stats.card_favourite"), game_name(lang, favourite) if favourite else "—"),
                   (t(lang, "stats.card_best_streak"), str(best))),
            ladder_title=t(lang, "stats.card_ladder"), ratings=tuple(rating_lines),
            no_ratings=t(lang, "stats.card_no_ladder"),
            form_title=t(lang, "stats.card_form"), form=tuple(entry.outcome for entry in form),
            form_letters={outcome: t(lang, f"stats.form.{outcome}") for outcome in (ladder.WIN, ladder.DRAW,
                                                                                     ladder.LOSS)},
            achievements_title=t(lang, "stats.card_achievements"),
            achievements=tuple((t(lang, f"ach.{code}"), achievements.BY_CODE[code].colour) for code in codes
                               if code in achievements.BY_CODE),
            no_achievements=t(lang, "stats.card_no_achievements"),
        )
        image = await self._render_pool_call(renderers.render_profile, profile, lang)
        return Reply("", message=OutMessage(text, image=image, alt=profile.title, picture_name="stats"),
                     in_place=True)

    async def _render_pool_call(self, function: Callable[..., bytes], *args: Any) -> bytes:
        """A picture drawn off the loop by the render workers, as every other picture is (bot/core/pictures.py)."""
        return await self.pictures.call(function, *args)

    # ---- a finished match ---------------------------------------------------------------------------------------
    async def _after_finish(self, match_id: int) -> None:
        """Award the achievements a finished match earned and keep its rating changes and awards for the chat,
        told after the final table (`_tell_news`)."""
        match = await self.store.get_match(match_id)
        if match is None or match.status != "finished" or match.snapshot is None:
            return
        if not ui_for(match.game).counts_in_stats(match.options):
            return  # a private room earns nothing
        game = engine.get(match.game)
        state = match_state(match)
        result, view = game.result(state), game.view(state, None)
        seats = await self._seats(match.id)
        changes = await self.store.rating_changes(match.id) if match.rated else []
        by_player = {change.player_id: change for change in changes}
        sides = ladder.sides_and_places(result, len(seats), game.info.lower_is_better)
        outcomes = seat_outcomes(result, len(seats))
        news = News(changes=changes)
        for seat in seats:
            if seat.player_id is None or seat.away:
                continue
            change = by_player.get(seat.player_id)
            finish = achievements.Finish(
                match.game, match.mode, seat.seat, sides[seat.seat][0], outcomes[seat.seat][0], result, view,
                mode_wins=await self.store.mode_wins(seat.player_id, match.game, match.mode),
                standing=change.standing if change else None,
                placed_now=change is not None and change.standing.matches == PLACEMENT_MATCHES)
            for code in await self.store.award(seat.player_id, achievements.earned(finish), match.id):
                news.awards.append((seat, code))
        if news.changes or news.awards:
            self._news[match.id] = news

    async def _tell_news(self, match_id: int, platform: str, chat_id: str, lang: str) -> None:
        news = self._news.pop(match_id, None)
        if news is None:
            return
        match = await self.store.get_match(match_id)
        lines = []
        if news.changes and match is not None:
            lines.append(t(lang, "ladder.news_title", game=game_name(lang, match.game),
                           mode=mode_name(lang, match.mode)))
            for change in news.changes:
                lines.append(change_line(lang, change))
        for seat, code in news.awards:
            name = presenter.seat_names([seat], lang)[0]
            lines.append(t(lang, "ach.news", name=name, achievement=t(lang, f"ach.{code}")))
        try:
            await self._send(platform, chat_id, OutMessage("\n".join(lines)))
        except Exception as error:  # the ratings are stored; the announcement is a courtesy
            log.info("could not announce the ladder news of match %s: %s", match_id, error)


def mode_name(lang: str, mode: str) -> str:
    return t(lang, f"ladder.mode.{mode}")


def tier_name(lang: str, tier: str | None) -> str:
    return t(lang, f"tier.{tier}") if tier else ""


def change_line(lang: str, change: RatingChange) -> str:
    standing = change.standing
    if not standing.placed:
        line = t(lang, "ladder.news_placement", name=change.display_name, n=standing.placement,
                 total=PLACEMENT_MATCHES)
    elif standing.matches == PLACEMENT_MATCHES:
        line = t(lang, "ladder.news_placed", name=change.display_name, rating=standing.rating,
                 tier=tier_name(lang, standing.tier))
    else:
        delta = standing.rating - change.rating_before
        line = t(lang, "ladder.news_row", name=change.display_name, before=change.rating_before,
                 after=standing.rating, delta=f"+{delta}" if delta >= 0 else f"−{-delta}",
                 tier=tier_name(lang, standing.tier))
    if change.abandoned:
        line += " " + t(lang, "ladder.news_abandoned")
    elif standing.streak >= 2:
        line += " " + t(lang, "ladder.news_streak", n=standing.streak)
    return line
