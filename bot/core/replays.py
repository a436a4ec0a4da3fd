"""`/replay <match>` and the finished table's replay button: a finished match played again from its move log.

Where the platform shows pictures, the replay is one animated GIF posted in the chat that asked (bot.replay picks
the frames, renderers.animation draws them); the terminal, which shows no pictures, gets the moves as text, round
by round. Frames are the public view only (see bot/replay.py for the privacy decision).
"""

from __future__ import annotations

import itertools
import logging

from bot import callbacks, presenter, replay
from bot.core.state import ServiceState
from bot.games.base import side_names
from bot.i18n import game_name, round_name, t, tn
from bot.messages import ERROR, Actor, ChatRef, OutMessage, Reply, Unreachable
from renderers.animation import render_replay
from storage.models import Match, MoveRecord, Seat
from storage.queue import MATCHED

log = logging.getLogger(__name__)

REPOST_AFTER = 60.0  # seconds before the same replay may be posted in the same chat again (a button pressed twice)


def replay_message(match: Match, seats: list[Seat], moves: list[MoveRecord], lang: str, images: bool) -> OutMessage:
    """The replay as one message: a GIF of the chosen frames with a caption, or the moves as text. Raises
    replay.ReplayMismatch when the log does not lead to the stored final state."""
    names = presenter.seat_names(seats, lang)
    all_steps = replay.steps(match, len(seats), moves)
    last = all_steps[-1]
    sides = side_names(last.view, names, lang)
    result = match.result or {}
    outcome = t(lang, "table.draw") if result.get("draw") else t(
        lang, "table.winner", name=" & ".join(sides[w] for w in result.get("winners", []) if w < len(sides)))
    title = tn(lang, "replay.title", len(moves), game=game_name(lang, match.game), id=match.id)
    if not images:
        return OutMessage("\n".join([title, *_move_lines(match, all_steps, names, lang), outcome]))
    total = len(all_steps) - 1
    frames = []
    for step in replay.pick_frames(all_steps):
        if step.move is None or step.seat is None:
            caption = t(lang, "replay.deal")
        else:  # who moved; what they played is the table's own "last move" line, drawn with the cards (engine
            # notation such as "play 6E" means nothing to a player, and the picture's fonts have no suit emoji)
            caption = t(lang, "replay.step", n=step.number, total=total, name=names[step.seat])
        frames.append((step.view, caption))
    gif = render_replay(match.game, frames, lang, names)
    return OutMessage(f"{title}\n{outcome}", image=gif, animated=True, picture_name="replay",
                      alt=t(lang, "replay.alt", frames=len(frames), moves=total))


def _move_lines(match: Match, all_steps: list[replay.Step], names: list[str], lang: str) -> list[str]:
    lines: list[str] = []
    heading = None
    for before, step in itertools.pairwise(all_steps):
        # A move belongs to the deal it was played in: the round of the state before it. The move that ends a deal
        # leads to the next deal's state, so `step.round` would put it under the next heading.
        if before.round != heading:
            heading = before.round
            lines.append(t(lang, "recap.round", round=round_name(lang, match.game, heading)))
        assert step.move is not None and step.seat is not None
        said = presenter.describe_move(match.game, step.move, lang, step.view, names[step.seat])
        lines.append(f"{step.number}. {names[step.seat]}: {said}")
    return lines


class Replays(ServiceState):

    async def _cmd_replay(self, actor: Actor, chat: ChatRef, player_id: int, lang: str, args: list[str]) -> Reply:
        """`/replay [match]`: the match numbered (a `#` in front is fine); without one, the chat's latest table."""
        if len(args) > 1:
            return Reply(t(lang, "replay.usage"))
        if args:
            try:
                match_id = callbacks.number(args[0].lstrip("#"))
            except callbacks.BadAction:
                return Reply(t(lang, "replay.usage"))
            match = await self.store.get_match(match_id)
        else:
            match = await self.store.latest_match(chat.platform, chat.chat_id)
            if chat.private:  # a matched table lives in no chat: the player's own latest one
                mine = await self.store.player_latest_match(player_id)
                if mine is not None and mine.platform == MATCHED and (match is None or mine.id > match.id):
                    match = mine
        return await self._post_replay(match, chat, lang)

    async def _press_replay(self, match: Match, chat: ChatRef, lang: str) -> Reply:
        return await self._post_replay(match, chat, lang)

    async def _post_replay(self, match: Match | None, chat: ChatRef, lang: str) -> Reply:
        if match is None or match.platform not in (chat.platform, MATCHED):
            return Reply(t(lang, "replay.no_match"), alert=True, kind=ERROR)
        if match.status != "finished":
            return Reply(t(lang, "replay.not_finished", id=match.id), alert=True, kind=ERROR)
        replayed = self._replayed
        key = (chat.platform, chat.chat_id, match.id)
        if self.clock() - replayed.get(key, float("-inf")) < REPOST_AFTER:
            return Reply(t(lang, "replay.just_posted"), alert=True)
        seats = await self.store.seats(match.id)
        moves = await self.store.moves(match.id)
        chat_lang = lang if chat.private else await self._chat_lang(chat)
        images = self.images.get(chat.platform, False)
        try:
            message = await self._render_message(replay_message, match, seats, moves, chat_lang, images)
        except replay.ReplayMismatch:
            log.warning("match %s: no replay", match.id, exc_info=True)
            return Reply(t(lang, "replay.broken", id=match.id), alert=True, kind=ERROR)
        except ValueError:  # too many frames for the upload limit even at the smallest size
            log.warning("match %s: replay too large", match.id, exc_info=True)
            return Reply(t(lang, "replay.too_big", id=match.id), alert=True, kind=ERROR)
        try:
            await self._send(chat.platform, chat.chat_id, message)
        except Unreachable:
            return Reply(t(lang, "err.cannot_post"), alert=True, kind=ERROR)
        replayed[key] = self.clock()
        return Reply("")
