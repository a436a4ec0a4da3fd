"""The operators' desk (MAJLIS_OPERATORS): `/ban`, `/unban` and `/status`, and the one short answer a banned user
gets to every press and command.

A ban is stored on the player row (`players.banned_at`), which every update reads already, so checking it costs
the other users nothing. Banning hands the user's open seats over at once: a seat at a match in play to the away
bot (the match goes on without waiting for a timer), a lobby seat is freed. Their finished matches, ratings and
coins stay as they were; `/unban` lets them play again (a seat the away bot took stays the bot's until they press
"I'm back" in that match, as for any away player).
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from bot.config import PLATFORMS
from bot.i18n import t, tn
from bot.logs import worker_name
from bot.messages import ERROR, INFO, Actor, ChatRef, Reply
from bot.metrics import Metrics
from storage import Store

COMMANDS = ("ban", "unban", "status")


def version() -> str:
    try:
        return importlib.metadata.version("majlis")
    except importlib.metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown"


@dataclass
class OperatorDesk:
    store: Store
    operators: frozenset[tuple[str, str]]
    metrics: Metrics
    # Hand a seat over: (match id, seat, the match's status: "lobby" or "active").
    release: Callable[[int, int, str], Awaitable[None]]
    pending: Callable[[], int]  # deliveries this worker still owes

    def is_operator(self, actor: Actor) -> bool:
        return (actor.platform, str(actor.user_id)) in self.operators

    def banned(self, lang: str) -> Reply:
        return Reply(t(lang, "ops.banned"), alert=True, kind=ERROR)

    async def command(self, name: str, actor: Actor, chat: ChatRef, lang: str, args: list[str]) -> Reply:
        """An operator's command; anyone else is told it is the operators'. What it did is answered privately in a
        group (who is banned, and the bot's state, are the operator's business); a mistyped one where it was
        typed."""
        if not self.is_operator(actor):
            return Reply(t(lang, "ops.only"), alert=True, kind=ERROR)
        if name == "status":
            reply = await self._status(lang)
        else:
            reply = await self._ban(actor, lang, args, banned=name == "ban")
        return Reply(reply.text, alert=reply.alert, kind=reply.kind, private=not chat.private and not reply.is_error)

    async def _ban(self, actor: Actor, lang: str, args: list[str], *, banned: bool) -> Reply:
        command = "ban" if banned else "unban"
        if len(args) != 1:
            return Reply(t(lang, "ops.usage", command=command), kind=ERROR)
        target = await self._target(actor.platform, args[0])
        if target is None:
            return Reply(t(lang, "ops.not_found", who=args[0]), kind=ERROR)
        platform, user_id = target
        if banned and (platform, user_id) in self.operators:
            return Reply(t(lang, "ops.ban_operator"), kind=ERROR)
        before = await self.store.find_player(platform, user_id)
        was_banned = before is not None and before.user_id == user_id and before.banned_at is not None
        player = await self.store.set_banned(platform, user_id, banned)
        name = player.display_name if player.display_name != user_id else f"{platform}:{user_id}"
        if not banned:
            return Reply(t(lang, "ops.unbanned" if was_banned else "ops.not_banned", name=name), kind=INFO)
        seats = await self.store.open_seats_of(player.id)
        for match_id, seat, status in seats:
            await self.release(match_id, seat, status)
        return Reply(tn(lang, "ops.banned_user", len(seats), name=name), kind=INFO)

    async def _target(self, platform: str, word: str) -> tuple[str, str] | None:
        """`123`, `telegram:123` or `@name` (a player the bot has seen on this platform) -> (platform, user id)."""
        named, sep, rest = word.partition(":")
        if sep and named.lower() in PLATFORMS and rest.isascii() and rest.isdigit():
            return named.lower(), rest
        if word.isascii() and word.isdigit():
            return platform, word
        if word.startswith("@") and len(word) > 1:
            player = await self.store.find_player(platform, word)
            return None if player is None else (player.platform, player.user_id)
        return None

    async def _status(self, lang: str) -> Reply:
        counts = await self.store.operator_counts()
        none = t(lang, "ops.none")
        tables = ", ".join(f"{game} {mode}: {int(n)}" for (game, mode), n in sorted(counts.live_tables.items()))
        queues = ", ".join(f"{name}: {int(n)}" for name, n in sorted((await self.metrics.queue_lengths()).items()))
        return Reply(t(lang, "ops.status", version=version(), worker=worker_name(),
                       live=int(sum(counts.live_tables.values())), tables=tables or none, queues=queues or none,
                       pending=self.pending()), kind=INFO)
