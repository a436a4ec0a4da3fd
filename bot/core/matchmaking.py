"""Matchmaking (issue 28): `/play`, the queue, and seating its players at a table with no group.

A player joins the queue of a game and mode from any chat, on either platform; whoever seats a queue (the `/play`
that completes a table, or the timer loop once a Quick queue's wait is over) does it in one database transaction
(`Store.seat_queue`: the entries locked, the table created in play, the entries deleted), so any worker may seat
any queue and nobody is seated twice. Who sits with whom is decided here, without I/O (`pick_tables`):

- Quick (an unrated queue): the first players waiting, first come first; when too few came within the mode's wait
  (`QUEUE_WAIT`, per mode), bots take the empty seats.
- Rated (Ranked): people only, never a bot. Players are matched by openskill's ordinal (a player still in placement
  counts as a new one); the allowed spread around the longest waiter widens the longer they wait; in a team game
  the strongest partners the weakest.

The table's screens are the service's (bot/core/delivery.py shows a matched table in each seat's private chat, on
the seat's own platform); a group may also have its own Quick queue (`/play` typed in the group, or its Join
button): its players are seated as that group's table, shown there like a `/new` table (racks privately), one
table at a time, and the global queue is untouched by it. This object only needs what it is given: the store,
the clock, the shuffle source, the platforms' transports, and two callbacks into the service.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import engine
from bot import callbacks
from bot.core.ladder import GAME_ALIASES
from bot.core.timers import turn_deadline
from bot.games import playable_games, ui_for
from bot.i18n import game_name, pick_language, t, tn
from bot.messages import ERROR, INFO, Button, ChatRef, OutMessage, Reply, Transport, Unreachable
from storage import Store
from storage.errors import AlreadyQueued
from storage.ladder import PLACEMENT_MATCHES
from storage.models import Match, Player, QueueEntry
from storage.queue import Deal, Table

log = logging.getLogger(__name__)

DEFAULT_WAIT = 30.0  # seconds a Quick queue waits for people before bots fill its table
SPREAD_START = 2.5  # openskill ordinal points (100 shown rating points) a rated match may span at first
SPREAD_GROWTH = 2.5 / 30  # ... widening by this many per second the longest waiter has waited
RATED_RECHECK = 5.0  # seconds between two looks at a rated queue whose spread still keeps it from a table
DOUBLE_TAP = 3.0  # seconds: a second /play this soon after joining is the same tap again, not "take me out"
NEW_ORDINAL = 0.0  # openskill's ordinal of a new rating (mu 25 - 3 x sigma 25/3): placement players count as this


@dataclass(frozen=True)
class QueueRule:
    """How one queue seats its players."""

    game: str
    mode: str
    options: dict[str, Any]  # the table options the queue's mode means (konkan_tiles: {"mode": "ranked"})
    seats: int
    rated: bool
    bots: bool  # Quick: bots fill the seats nobody came for within `wait`
    wait: float
    teams: bool  # partners {0, 2} and {1, 3}: the teams are balanced by rating

    def spread(self, waited: float) -> float:
        return SPREAD_START + SPREAD_GROWTH * max(0.0, waited)


def queue_modes(game_id: str) -> tuple[str, ...]:
    """The modes of a game one can queue for; the first is `/play GAME`'s default (a game without modes: one)."""
    return ui_for(game_id).queue_modes()


def rule_for(game_id: str, mode: str, waits: Mapping[str, float]) -> QueueRule:
    """The rule of the queue `game_id`/`mode`. `waits`: seconds per "game.mode", "mode" or "*" (MAJLIS_QUEUE_WAIT)."""
    ui = ui_for(game_id)
    game = engine.get(game_id)
    options = ui.queue_options(mode)
    checked = game.check_options(game.info.max_players, options)
    rated = ui.rated(checked, False)
    seats = game.info.max_players
    wait = waits.get(f"{game_id}.{mode}", waits.get(mode, waits.get("*", DEFAULT_WAIT)))
    return QueueRule(game_id, mode, options, seats, rated, bots=not rated and ui.bots_allowed(checked), wait=wait,
                     teams=seats in game.info.teams_at)


def pick_tables(waiting: Sequence[QueueEntry], rule: QueueRule, now: float) -> list[Table]:
    """The tables to seat now from a queue's entries (first come first), each in seat order, None for a bot."""
    rest = list(waiting)
    tables: list[Table] = []
    if not rule.rated:
        while len(rest) >= rule.seats:
            tables.append(rest[:rule.seats])
            rest = rest[rule.seats:]
        if rest and rule.bots and now - rest[0].queued >= rule.wait:
            tables.append([*rest, *[None] * (rule.seats - len(rest))])
        return tables
    while len(rest) >= rule.seats:
        found = _rated_table(rest, rule, now)
        if found is None:
            break
        tables.append(_balanced(found) if rule.teams else found)
        rest = [entry for entry in rest if entry not in found]
    return tables


def _rated_table(rest: list[QueueEntry], rule: QueueRule, now: float) -> list[QueueEntry] | None:
    """The longest waiter who has enough players within their spread, with the nearest of them."""
    for anchor in rest:
        spread = rule.spread(now - anchor.queued)
        near = sorted((entry for entry in rest if entry is not anchor
                       and abs(entry.ordinal - anchor.ordinal) <= spread),
                      key=lambda entry: (abs(entry.ordinal - anchor.ordinal), entry.queued, entry.id))
        if len(near) >= rule.seats - 1:
            return [anchor, *near[:rule.seats - 1]]
    return None


def _balanced(players: list[QueueEntry]) -> list[QueueEntry]:
    """Four players as two balanced teams (partners sit at seats 0 and 2, 1 and 3): strongest with weakest."""
    a, b, c, d = sorted(players, key=lambda entry: (-entry.ordinal, entry.queued, entry.id))
    return [a, b, d, c]


def next_look(waiting: Sequence[QueueEntry], rule: QueueRule, now: float) -> float | None:
    """When this queue should be looked at again with nobody new coming (None: only a new player changes it)."""
    if not waiting:
        return None
    if not rule.rated:
        return waiting[0].queued + rule.wait if rule.bots else None
    return now + RATED_RECHECK if len(waiting) >= rule.seats else None


class Matchmaking:
    """The queue's commands and buttons, and seating. Its collaborators are handed in by the service:
    `table_started(match)` plays the bots a new table owes and schedules its screens; `timer_due(at)` wakes the
    timer loop for a queue's next look."""

    def __init__(self, store: Store, *, clock: Callable[[], float], seeds: random.Random,
                 transports: Mapping[str, Transport], table_started: Callable[[Match], Awaitable[None]],
                 timer_due: Callable[[float | None], None], waits: Mapping[str, float] | None = None) -> None:
        self.store = store
        self.clock = clock
        self.seeds = seeds
        self.transports = transports
        self.table_started = table_started
        self.timer_due = timer_due
        self.waits = dict(waits or {})

    # ------------------------------------------------------------------------------------------ commands
    async def play(self, chat: ChatRef, player: Player, lang: str, args: list[str]) -> Reply:
        """`/play [game] [mode]`: join that queue; `/play` again (the same queue) leaves it."""
        words = [word.lower() for word in args]
        games = playable_games()
        game_id = GAME_ALIASES.get(words[0], words[0]) if words else play_now()[0]
        if game_id not in games or len(words) > 2:
            return Reply(t(lang, "err.unknown_game", games=", ".join(games)), alert=True)
        modes = queue_modes(game_id)
        mode = words[1] if len(words) == 2 else modes[0]
        if mode not in modes:
            known = ui_for(game_id).ladder_modes() + tuple(m for _, m in ui_for(game_id).mode_choices(lang))
            key = "queue.mode_not_queued" if mode in known else "queue.unknown_mode"
            return Reply(t(lang, key, mode=mode[:32], game=game_name(lang, game_id), modes=", ".join(modes)),
                         alert=True)
        if self._group_queues(chat):
            return await self._join_group(chat, player, lang, game_id, mode)
        return await self._join(chat, player, lang, game_id, mode)

    def _group_queues(self, chat: ChatRef) -> bool:
        """Whether `/play` here opens this group's own queue: in a group whose platform says so (Telegram, where a
        group command is public, like `/new`). A Discord slash command is a personal, privately answered action
        used from any server channel to reach the global queue (both platforms' players), so it stays that."""
        return not chat.private and bool(getattr(self.transports.get(chat.platform), "group_queues", False))

    async def _join_group(self, chat: ChatRef, player: Player, lang: str, game_id: str, mode: str,
                          pressed: bool = False) -> Reply:
        """`/play` in a group (or its queue's Join button): the group's own Quick queue. Only a queue bots may
        fill is a group's (a rated one draws from everywhere: it is played from the private chat)."""
        if not rule_for(game_id, mode, self.waits).bots:
            return Reply(t(lang, "queue.group_quick_only", table=table_label(lang, game_id, mode)), alert=True)
        return await self._join(chat, player, lang, game_id, mode, pressed=pressed, group_chat=chat.chat_id)

    async def from_link(self, chat: ChatRef, player: Player, lang: str, payload: str) -> Reply | None:
        """`/start q<game>-<mode>`: the private chat opened from the link a refused `/play` gave (Telegram's
        start payloads allow no dot): the player joins the queue they asked for. None: not such a payload."""
        game_id, _, mode = payload[1:].rpartition("-") if payload.startswith("q") else ("", "", "")
        if game_id not in playable_games() or mode not in queue_modes(game_id):
            return None
        return await self._join(chat, player, lang, game_id, mode, pressed=True)

    def refuses_alone(self, game_id: str, mode: str | None) -> bool:
        """Whether one player alone could never be seated in this queue (a rated queue seats people only): the
        terminal, where nobody else comes, says so rather than wait for ever."""
        if game_id not in playable_games():
            return False
        modes = queue_modes(game_id)
        return (mode or modes[0]) in modes and not rule_for(game_id, mode or modes[0], self.waits).bots

    async def status(self, player: Player, lang: str) -> Reply:
        """`/queue`: where the player stands."""
        entry = await self.store.queue_entry_of(player.id)
        if entry is None:
            return Reply(t(lang, "queue.none"))
        return Reply(await self._standing_text(entry, lang), kind=INFO)

    async def press(self, chat: ChatRef, player: Player, lang: str, action: callbacks.Action) -> Reply:
        """`q:0:game.mode` (🎲 Play now) and `z:entry` (Leave queue)."""
        if action.op == "q":
            group = action.match_id == 1 and self._group_queues(chat)  # q:1: the Join of this group's own queue
            if action.match_id not in (0, 1) or (action.match_id == 1 and not group) or len(action.args) != 1:
                return Reply(t(lang, "err.bad_button"), alert=True)
            game_id, _, mode = action.args[0].partition(".")
            if game_id not in playable_games() or mode not in queue_modes(game_id):
                return Reply(t(lang, "err.bad_button"), alert=True)
            if group:
                return await self._join_group(chat, player, lang, game_id, mode, pressed=True)
            return await self._join(chat, player, lang, game_id, mode, pressed=True)
        if action.args:
            return Reply(t(lang, "err.bad_button"), alert=True)
        left = await self.store.leave_queue(player.id, action.match_id)
        if left is None:
            return Reply(t(lang, "queue.stale"), alert=True)
        said = t(lang, "queue.left", table=table_label(lang, left.game, left.mode))
        await self._edit_entry_message(left, said)
        return Reply(said)

    # ------------------------------------------------------------------------------------------ joining
    async def _join(self, chat: ChatRef, player: Player, lang: str, game_id: str, mode: str,
                    pressed: bool = False, group_chat: str | None = None) -> Reply:
        if await self.store.player_active_match(player.platform, player.id) is not None:
            return Reply(t(lang, "queue.in_match"), alert=True)
        rule = rule_for(game_id, mode, self.waits)
        ordinal = await self._ordinal(player.id, rule)
        try:
            entry = await self.store.enqueue(player.id, player.platform, game_id, mode, ordinal, self.clock(),
                                             group_chat=group_chat)
        except AlreadyQueued as queued:
            return await self._already(player, lang, queued.entry, game_id, mode, pressed, group_chat)
        try:
            await self._post_entry_message(entry, player, lang)
        except Unreachable:
            # Their private chat is closed to the bot: a table there could never reach them. Nothing is kept.
            await self.store.leave_queue(player.id, entry.id)
            # The link joins this queue on Start; a group's queue is joined in the group again (its Join button).
            payload = link_payload(game_id, mode) if group_chat is None else "play"
            link = self.transports[player.platform].deep_link(payload)
            if link is None:  # no link into the bot's chat (Discord): the user's privacy setting is what closes it
                return Reply(t(lang, "queue.open_dm"), alert=True, kind=ERROR)
            key = "queue.open_private" if group_chat is None else "queue.open_private_group"
            return Reply(t(lang, key, link=link), alert=True, kind=ERROR)
        except Exception as error:  # a 5xx or a 429 on the courtesy message: the queue place stands
            log.info("queue message for player %s not sent: %s", player.id, error)
        if group_chat is not None:
            await self._post_group_message(chat, entry, lang, rule)
        seated = await self.seat(game_id, mode, None if group_chat is None else (chat.platform, group_chat))
        if any(player.id in {e.player_id for e in table if e is not None} for table in seated):
            key = "queue.seated" if group_chat is None else "queue.seated_group"
            return Reply(t(lang, key, table=table_label(lang, game_id, mode)))
        return Reply(await self._standing_text(entry, lang, rule), kind=INFO)

    async def _post_group_message(self, chat: ChatRef, entry: QueueEntry, lang: str, rule: QueueRule) -> None:
        """The group's queue, shown in the group with its Join button, so other members may sit down too."""
        transport = self.transports.get(chat.platform)
        if transport is None:
            return
        message = OutMessage(await self._standing_text(entry, lang, rule), keyboard=[[
            Button(t(lang, "btn.join"), callbacks.encode("q", 1, f"{entry.game}.{entry.mode}"))]])
        try:
            await transport.send(chat.chat_id, message)
        except Exception as error:  # a courtesy message: the queue place is stored
            log.info("group queue message in %s not sent: %s", chat.chat_id, error)

    async def _already(self, player: Player, lang: str, entry: object, game_id: str, mode: str,
                       pressed: bool, group_chat: str | None = None) -> Reply:
        assert isinstance(entry, QueueEntry)
        label = table_label(lang, entry.game, entry.mode)
        if (entry.game, entry.mode, entry.group_chat) != (game_id, mode, group_chat):
            return Reply(t(lang, "queue.elsewhere", table=label), alert=True)
        if pressed or self.clock() - entry.queued < DOUBLE_TAP:
            return Reply(t(lang, "queue.already", table=label), alert=True, kind=INFO)
        left = await self.store.leave_queue(player.id, entry.id)
        if left is None:  # seated or gone meanwhile
            return Reply(t(lang, "queue.stale"), alert=True)
        await self._edit_entry_message(left, t(lang, "queue.left", table=label))
        return Reply(t(lang, "queue.left", table=label))

    async def _ordinal(self, player_id: int, rule: QueueRule) -> float:
        if not rule.rated:
            return NEW_ORDINAL
        standing = await self.store.rating_of(player_id, rule.game, rule.mode)
        if standing.matches < PLACEMENT_MATCHES:
            return NEW_ORDINAL
        return standing.mu - 3 * standing.sigma

    async def _post_entry_message(self, entry: QueueEntry, player: Player, lang: str) -> None:
        transport = self.transports[player.platform]
        chat_id = await private_chat(transport, player.user_id)
        rule = rule_for(entry.game, entry.mode, self.waits)
        message = OutMessage(await self._standing_text(entry, lang, rule), keyboard=[[
            Button(t(lang, "btn.leave_queue"), callbacks.encode("z", entry.id))]])
        message_id = await transport.send(chat_id, message)
        await self.store.set_queue_message(entry.id, chat_id, message_id)

    async def _edit_entry_message(self, entry: QueueEntry, text: str) -> None:
        """The queue message says it is over (left, seated): its Leave button goes."""
        transport = self.transports.get(entry.platform)
        if transport is None or entry.chat_id is None or entry.message_id is None:
            return
        try:
            await transport.edit(entry.chat_id, entry.message_id, OutMessage(text))
        except Exception as error:  # a courtesy edit: the queue itself is stored
            log.info("queue message of entry %s not edited: %s", entry.id, error)

    async def _standing_text(self, entry: QueueEntry, lang: str, rule: QueueRule | None = None) -> str:
        rule = rule or rule_for(entry.game, entry.mode, self.waits)
        waiting = await self.store.queue(entry.game, entry.mode, entry.group_chat)
        count = len(waiting)
        label = table_label(lang, entry.game, entry.mode)
        if entry.group_chat is not None:
            label = t(lang, "queue.in_group", table=label)
        if rule.rated:
            return t(lang, "queue.waiting_rated", table=label, count=count, seats=rule.seats)
        if not rule.bots:
            return t(lang, "queue.waiting_people", table=label, count=count, seats=rule.seats)
        first = waiting[0].queued if waiting else entry.queued
        left = max(0, round(first + rule.wait - self.clock()))
        return t(lang, "queue.waiting_quick", table=label, count=count, seats=rule.seats) + " " \
            + tn(lang, "queue.bots_in", left)

    # ------------------------------------------------------------------------------------------ seating
    async def seat(self, game_id: str, mode: str, group: tuple[str, str] | None = None) -> list[Table]:
        """Seat what can be seated of one queue now (`group`: that (platform, chat)'s own queue); the tables
        seated. Any worker may call it at any time."""
        rule = rule_for(game_id, mode, self.waits)
        now = self.clock()
        group_chat = None if group is None else group[1]
        if group is not None and await self.store.lobby_or_active_match(*group) is not None:
            # The group's one table is open (a /new lobby, or a table in play): its queue waits, checked at the
            # timer loop's passes, without probing anyone's chat or waking the loop early.
            return []
        await self._drop_unreachable(await self.store.queue(game_id, mode, group_chat, seatable=True), rule, now)
        seated = await self.store.seat_queue(game_id, mode, lambda waiting: pick_tables(waiting, rule, now),
                                             lambda table: self._deal(rule, table, now), group)
        for one in seated:
            await self.table_started(one.match)
            for entry in one.table:
                if entry is not None:
                    lang = await self._lang_of(entry.player_id)
                    key = "queue.found" if group is None else "queue.found_group"
                    await self._edit_entry_message(entry, t(lang, key, table=table_label(lang, game_id, mode),
                                                            players=who_sits(lang, one.table)))
        look = next_look(await self.store.queue(game_id, mode, group_chat), rule, now)
        self.timer_due(look)
        return [one.table for one in seated]

    async def _drop_unreachable(self, waiting: Sequence[QueueEntry], rule: QueueRule, now: float) -> None:
        """Take out of the queue, before any table is made, each player about to be seated whose private chat now
        refuses the bot (they blocked it after joining: Telegram answers 403 to a "typing" action, the cheapest
        call it has). Checking first, rather than seating them and handing a refused seat to the away bot, leaves
        nothing half-made: the table seated right after is made of the reachable players only (a Quick table's
        wait over: bots take the freed seats; otherwise the rest keep waiting for someone else). A platform with
        no cheap check (Discord: only a message tells whether DMs are open; the queue message did at joining)
        is not probed. The player is told where they can: in the group of a group's queue; a player of the
        global queue has no chat with the bot but the closed one, so their entry is only removed (and /queue
        says so once they open it again)."""
        tables = pick_tables(waiting, rule, now)
        for entry in (entry for table in tables for entry in table if entry is not None):
            check = getattr(self.transports.get(entry.platform), "check_private", None)
            if check is None or entry.chat_id is None:
                continue
            try:
                await check(entry.chat_id)
            except Unreachable:
                left = await self.store.leave_queue(entry.player_id, entry.id)
                log.info("player %s left queue %s/%s: their private chat refuses the bot", entry.player_id,
                         entry.game, entry.mode)
                if left is not None:
                    await self._tell_unreachable(left)
            except Exception as error:  # a 5xx or 429 on the probe says nothing about the chat: seat them
                log.info("private chat of player %s not checked: %s", entry.player_id, error)

    async def _tell_unreachable(self, entry: QueueEntry) -> None:
        """A player of a group's queue is told in that group why they were not seated (their rack could not
        reach them); the global queue's have no other chat with the bot."""
        transport = self.transports.get(entry.platform)
        if entry.group_chat is None or transport is None:
            return
        lang = await self._lang_of(entry.player_id)
        try:
            await transport.send(entry.group_chat, OutMessage(t(lang, "queue.unreachable_group",
                                                                name=entry.display_name)))
        except Exception as error:  # the group refuses too: the entry is gone all the same
            log.info("group %s not told of unreachable player %s: %s", entry.group_chat, entry.player_id, error)

    async def _lang_of(self, player_id: int) -> str:
        player = await self.store.get_player(player_id)
        return pick_language(player.language, player.client_language) if player else pick_language(None)

    def _deal(self, rule: QueueRule, table: Table, now: float) -> Deal:
        game = engine.get(rule.game)
        seed = self.seeds.getrandbits(62)
        state = game.new(len(table), rule.options, seed=seed)
        checked = game.check_options(len(table), rule.options)
        humans = [entry is not None for entry in table]
        return Deal(options=dict(rule.options), mode=ui_for(rule.game).store_mode(checked),
                    snapshot=game.to_json(state), seed=seed, rated=rule.rated,
                    deadline=turn_deadline(rule.game, rule.options, state, humans, now, None))

    async def lengths(self) -> dict[tuple[str, ...], float]:
        """Players waiting per (game, mode): the gauge `majlis_matchmaking_queue_players` and `/status` read it."""
        return {key: float(waiting) for key, (waiting, _first) in (await self.store.queue_sizes()).items()}

    async def longest_waits(self) -> dict[tuple[str, ...], float]:
        """Seconds the first player of each queue has waited (`majlis_matchmaking_queue_wait_seconds`)."""
        now = self.clock()
        return {key: max(0.0, now - first) for key, (_waiting, first) in (await self.store.queue_sizes()).items()}

    async def tick(self) -> int:
        """The timer loop's look at every waiting queue (a Quick wait over, a rated spread widened): how many
        tables it seated."""
        seated = 0
        for game_id, mode, group_chat, _ in await self.store.waiting_queues():
            if game_id not in playable_games() or mode not in queue_modes(game_id):
                continue
            if group_chat is None:
                seated += len(await self.seat(game_id, mode))
                continue
            waiting = await self.store.queue(game_id, mode, group_chat)
            if waiting:
                seated += len(await self.seat(game_id, mode, (waiting[0].platform, group_chat)))
        return seated


def play_now() -> tuple[str, str]:
    """The queue 🎲 Play now joins: the seed's "fastest way into a match", Konkan's Quick play (else the first
    playable game's first queue)."""
    games = playable_games()
    game_id = "konkan_tiles" if "konkan_tiles" in games else games[0]
    return game_id, queue_modes(game_id)[0]


def play_now_button(lang: str) -> Button:
    game_id, mode = play_now()
    return Button(t(lang, "btn.play_now"), callbacks.encode("q", 0, f"{game_id}.{mode}"))


def link_payload(game_id: str, mode: str) -> str:
    """The start payload of a link into the bot's private chat that joins this queue (`Matchmaking.from_link`)."""
    return f"q{game_id}-{mode}"


def table_label(lang: str, game_id: str, mode: str) -> str:
    """"Konkan (tiles) · Ranked"; a game with one queue is named alone."""
    if len(queue_modes(game_id)) < 2:
        return game_name(lang, game_id)
    return f"{game_name(lang, game_id)} · {t(lang, f'ladder.mode.{mode}')}"


def who_sits(lang: str, table: Table) -> str:
    """"Alia (Telegram), Amina (Discord), Bot 3": who the queue seated, each with the platform they play on."""
    names = []
    for index, entry in enumerate(table):
        if entry is None:
            names.append(t(lang, "bot.name", n=index + 1, level=t(lang, "level.normal")))
        else:
            names.append(t(lang, "queue.seated_on", name=entry.display_name,
                           platform=t(lang, f"platform.{entry.platform}")))
    return t(lang, "sep.list").join(names)


async def private_chat(transport: Transport, user_id: str) -> str:
    """The chat id of the user's private chat with the bot on that platform (Discord: their DM channel)."""
    opener = getattr(transport, "private_chat", None)
    return str(user_id) if opener is None else await opener(str(user_id))

