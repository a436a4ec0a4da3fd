"""Telegram updates -> service calls: command messages and button presses, normalised into Actor/ChatRef.

A handler never lets an exception escape: it logs and tells the user something generic, because an unanswered
callback query leaves the user's button spinning and an exception in PTB only reaches the error log anyway. A 429
that outlived the rate limiter's retries (`Busy`) is no fault: the user is told to try again in a moment, and the
log gets one line without a traceback.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from telegram import CallbackQuery, Chat, Message, ReplyParameters, Update, User
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import BadRequest, Forbidden, TelegramError
from telegram.ext import ContextTypes

from bot.i18n import pick_language, t
from bot.messages import ERROR, Actor, Busy, ChatRef, MessageGone, OutMessage, Reply, Unreachable
from bot.service import Service
from bot.telegram_adapter import commands
from bot.telegram_adapter.transport import ALERT_LIMIT, PLATFORM, TEXT_LIMIT, TelegramTransport, clip

log = logging.getLogger(__name__)

ADMIN_TTL = 300.0  # seconds an administrator check is trusted
USER_COMMANDS = frozenset({"stats", "ban", "unban"})  # commands naming a user: a reply to them names them too
ADMIN_STATUSES = frozenset({ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR})


class AdminCache:
    """Whether a user administers a group, asked with getChatMember only when a command needs it, then kept."""

    def __init__(self, ttl: float = ADMIN_TTL, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl = ttl
        self.clock = clock
        self._known: dict[tuple[int, int], tuple[bool, float]] = {}

    async def is_admin(self, context: ContextTypes.DEFAULT_TYPE, chat: Chat, user: User) -> bool:
        if chat.type == ChatType.PRIVATE:
            return False
        key = (chat.id, user.id)
        cached = self._known.get(key)
        now = self.clock()
        if cached is not None and cached[1] > now:
            return cached[0]
        try:
            member = await context.bot.get_chat_member(chat.id, user.id)
        except TelegramError:
            log.warning("getChatMember failed for chat %s user %s", chat.id, user.id, exc_info=True)
            return False  # not cached: ask again next time
        admin = member.status in ADMIN_STATUSES
        self._known[key] = (admin, now + self.ttl)
        return admin


def actor_for(user: User, is_admin: bool = False) -> Actor:
    return Actor(PLATFORM, str(user.id), user.full_name or user.username or str(user.id),
                 language=user.language_code, is_admin=is_admin, username=user.username)


def busy_reply(lang: str, busy: Busy, what: str) -> Reply:
    """Telegram asked to slow down beyond the limiter's retries: the presser or typer hears "busy, try again in a
    moment"; the log one line, as the condition it is, not an error with a traceback."""
    log.warning("%s not shown: Telegram asks to wait %.0f s (%s)", what, busy.retry_after, busy)
    return Reply(t(lang, "err.busy"), alert=True)


def button_label(data: str | None) -> str:
    """A pressed button for a log line: its action and match (`m:12`), never the rest of its code, where a picking
    state may name the presser's cards."""
    return ":".join((data or "").split(":")[:2]) or "?"


def chat_ref(chat: Chat) -> ChatRef:
    return ChatRef(PLATFORM, str(chat.id), private=chat.type == ChatType.PRIVATE)


class Handlers:
    def __init__(self, service: Service, transport: TelegramTransport, admins: AdminCache | None = None) -> None:
        self.service = service
        self.transport = transport
        self.admins = admins or AdminCache()
        self.metrics = getattr(service, "metrics", None)  # press -> answer -> screens times (bot/metrics.py)

    def _timed(self, kind: str, started: float, *, screens: bool = False) -> None:
        if self.metrics is not None:
            self.metrics.answered(PLATFORM, kind, started, screens=screens)

    # ------------------------------------------------------------------------------------------------- commands
    async def on_command(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        started = time.perf_counter()
        message = update.effective_message
        user = update.effective_user
        chat = update.effective_chat
        if message is None or user is None or chat is None:
            return
        parsed = commands.parse(message.text, context.bot.username)
        if parsed is None:
            return
        private = chat.type == ChatType.PRIVATE
        if parsed.name not in commands.ANSWERED and not (private or parsed.addressed):
            return  # an unknown bare command in a group is probably another bot's
        try:
            is_admin = parsed.name in commands.ADMIN_COMMANDS and await self.admins.is_admin(context, chat, user)
            args = self._stats_target(message, parsed) if parsed.name in USER_COMMANDS else parsed.args
            reply = await self.service.command(actor_for(user, is_admin), chat_ref(chat), parsed.name, args,
                                               deliver=False)
        except Busy as busy:
            reply = busy_reply(pick_language(user.language_code), busy, f"/{parsed.name}")
        except Exception:
            log.exception("command /%s from %s in %s failed", parsed.name, user.id, chat.id)
            reply = Reply(t(pick_language(user.language_code), "err.generic"), kind=ERROR)
        if parsed.name in commands.SECRET_COMMANDS and not private:
            await self._delete_typed(context, chat, message.message_id)
        await self._answer_command(context, chat, message.message_id, user, reply)
        self._timed("command", started)
        await self.service.deliver()  # the screens others see, after the user has their answer
        self._timed("command", started, screens=True)

    @staticmethod
    async def _delete_typed(context: ContextTypes.DEFAULT_TYPE, chat: Chat, message_id: int) -> None:
        """A typed move names cards: take it out of the group where the bot may delete messages."""
        try:
            await context.bot.delete_message(chat.id, message_id)
        except TelegramError as error:  # not an administrator with the right to delete: the text stays
            log.info("could not delete a typed command in %s: %s", chat.id, error)

    @staticmethod
    def _stats_target(message: Message, parsed: commands.ParsedCommand) -> list[str]:
        """`/stats` as a reply to someone, or naming them by a text mention, means that user; a plain @username
        is looked up among the players the bot has seen."""
        replied = message.reply_to_message
        if not parsed.args and replied is not None and replied.from_user and not replied.from_user.is_bot:
            return [str(replied.from_user.id)]
        for entity in message.entities:
            if entity.type == "text_mention" and entity.user is not None:
                return [str(entity.user.id)]
        return parsed.args

    async def _answer_command(self, context: ContextTypes.DEFAULT_TYPE, chat: Chat, message_id: int, user: User,
                              reply: Reply) -> None:
        try:
            if reply.in_place and reply.message is not None:  # a leaderboard or a profile: shown right here
                try:
                    await self.transport.send(str(chat.id), reply.message)
                except Unreachable:  # the group refuses the bot's messages: the user gets it privately
                    await self.transport.send(str(user.id), reply.message)
                return
            if reply.text and reply.private and chat.type != ChatType.PRIVATE:
                await self._answer_privately(context, chat, user, reply)
            elif reply.text:
                quote = None if chat.type == ChatType.PRIVATE else ReplyParameters(
                    message_id, allow_sending_without_reply=True)
                try:
                    await context.bot.send_message(chat.id, clip(reply.text, TEXT_LIMIT), reply_parameters=quote)
                except (Forbidden, BadRequest):
                    if chat.type == ChatType.PRIVATE:
                        raise
                    # The group refuses the bot's messages (e.g. "I cannot post here"): say it privately.
                    await self.transport.send(str(user.id), OutMessage(reply.text))
            if reply.message is not None:  # never expected on Telegram (racks are pushed); keep it private anyway
                await self.transport.send(str(user.id), reply.message)
        except Busy as busy:
            log.warning("could not answer a command in chat %s: Telegram asks to wait %.0f s", chat.id,
                        busy.retry_after)
        except (TelegramError, Unreachable):
            log.warning("could not answer a command in chat %s", chat.id, exc_info=True)

    async def _answer_privately(self, context: ContextTypes.DEFAULT_TYPE, chat: Chat, user: User,
                                reply: Reply) -> None:
        """An answer that depends on the user's hidden cards goes to their private chat; the group learns at most
        that a typed move was refused (never why), and only when the private chat is closed to the bot."""
        try:
            await self.transport.send(str(user.id), OutMessage(reply.text))
        except Unreachable:
            if reply.is_error:
                lang = pick_language(user.language_code)
                name = user.full_name or user.username or str(user.id)
                await context.bot.send_message(chat.id, clip(t(lang, "move.refused_public", user=name), TEXT_LIMIT))

    # ------------------------------------------------------------------------------------------------- buttons
    async def on_press(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        started = time.perf_counter()
        query = update.callback_query
        if query is None:
            return
        user = query.from_user
        lang = pick_language(user.language_code)
        try:
            chat = query.message.chat if query.message is not None else None
            ref = chat_ref(chat) if chat is not None else ChatRef(PLATFORM, str(user.id), private=True)
            data = query.data or ""
            is_admin = chat is not None and data.split(":", 1)[0] == "x" and await self.admins.is_admin(
                context, chat, user)
            reply = await self.service.press(actor_for(user, is_admin), ref, data, deliver=False)
        except Busy as busy:
            reply = busy_reply(lang, busy, f"button {button_label(query.data)}")
        except Exception:
            log.exception("button %s from %s failed", button_label(query.data), user.id)
            reply = Reply(t(lang, "err.generic"), alert=True)
        await self._answer_press(context, query, user, lang, reply)
        self._timed("press", started)
        await self.service.deliver()  # the callback is answered: now the racks and the table
        self._timed("press", started, screens=True)

    async def _answer_press(self, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, user: User, lang: str,
                            reply: Reply) -> None:
        """Answer the callback query always (even with no text), so the client stops its spinner. A page shown in
        place of the pressed message is edited first: the answer then says whether it could be (a 429 on the edit
        is the one thing the presser should hear of, as "busy, try again in a moment")."""
        if reply.message is not None and reply.in_place and query.message is not None:
            reply = await self._show_page(query, lang, reply)
        text = reply.text
        if len(text) > ALERT_LIMIT:
            # Telegram refuses longer answers; the whole text goes to the user's private chat instead.
            try:
                await context.bot.send_message(user.id, clip(text, TEXT_LIMIT))
                text = t(lang, "reply.in_private")
            except TelegramError:
                text = clip(text, ALERT_LIMIT)
        try:
            await query.answer(text or None, show_alert=reply.alert and bool(text))
        except TelegramError:
            log.warning("answerCallbackQuery failed", exc_info=True)
        if reply.message is not None:  # a private message (a page whose message is unknown goes there too)
            try:
                await self.transport.send(str(user.id), reply.message)
            except Busy as busy:
                log.warning("could not deliver a private reply to %s: Telegram asks to wait %.0f s", user.id,
                            busy.retry_after)
            except (TelegramError, Unreachable):
                log.warning("could not deliver a private reply to %s", user.id, exc_info=True)

    async def _show_page(self, query: CallbackQuery, lang: str, reply: Reply) -> Reply:
        """A leaderboard page: the pressed message becomes the new page (sent anew if it can no longer change).
        Returns what the callback answer says: the reply's own text, or "busy" when Telegram refused with a 429."""
        assert query.message is not None and reply.message is not None
        chat_id, message_id = str(query.message.chat.id), str(query.message.message_id)
        try:
            try:
                await self.transport.edit(chat_id, message_id, reply.message)
            except MessageGone:
                await self.transport.send(chat_id, reply.message)
        except Busy as busy:
            return busy_reply(lang, busy, f"a page in {chat_id}")
        except (TelegramError, Unreachable, MessageGone):
            log.warning("could not show a page in %s", chat_id, exc_info=True)
        return Reply(reply.text, alert=reply.alert, kind=reply.kind)

    # ------------------------------------------------------------------------------------------------- errors
    async def on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        # The update's number, not the update: its text may be a typed move naming the typer's cards.
        log.error("unhandled error for update %s", getattr(update, "update_id", "?"), exc_info=context.error)
