"""The service's `Transport` on Telegram: OutMessages become sendPhoto/sendAnimation/sendMessage/editMessageMedia/...
calls.

Pictures are uploaded once per content: Telegram answers an upload with a file id, kept here by the picture's
content digest (`OutMessage.picture_key`), and the same picture sent or edited in again is that file id, not its
bytes. An edit whose picture the message already shows (as this process last set it) changes only the caption and
keyboard; the answer names the photo the message shows, so a picture changed meanwhile by another worker is still
replaced.

It translates and never decides: which message to send or edit is the service's choice. Telegram's refusals are
mapped to the exceptions the service understands: a chat the bot may not write to (a private chat never opened, a
group where it has no right to post or was removed) -> `Unreachable`; a message that can no longer be edited
(deleted, too old, photo <-> text) -> `MessageGone`; a 429 that outlived the rate limiter's retries -> `Busy`.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from typing import Any

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, InputMediaPhoto, Message
from telegram.error import BadRequest, Forbidden, RetryAfter

from bot.messages import Busy, Keyboard, MessageGone, OutMessage, Unreachable

log = logging.getLogger(__name__)

PLATFORM = "telegram"
CAPTION_LIMIT = 1024
TEXT_LIMIT = 4096
ALERT_LIMIT = 200  # answerCallbackQuery text
GROUP_EDITS_PER_MINUTE = 20.0  # Telegram: about 20 messages a minute in one group
NO_RIGHTS = ("not enough rights", "have no rights", "chat_write_forbidden", "need administrator rights")
REMEMBERED = 50_000  # file ids, and messages' pictures, kept at most (least recently used dropped): ~10 MB


def retry_seconds(error: RetryAfter) -> float:
    value = error.retry_after
    return float(value.total_seconds()) if hasattr(value, "total_seconds") else float(value)


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def markup(keyboard: Keyboard) -> InlineKeyboardMarkup | None:
    """Rows of `Button`s -> inline keyboard; None (no keyboard, which also removes one on edit) when empty."""
    rows = []
    for row in keyboard:
        buttons = []
        for button in row:
            if button.url:
                buttons.append(InlineKeyboardButton(button.label, url=button.url))
            elif button.data:
                buttons.append(InlineKeyboardButton(button.label, callback_data=button.data))
            else:
                # (not its label: a rack's button names a card of the hand)
                log.warning("dropping a button with neither data nor url")
        if buttons:
            rows.append(buttons)
    return InlineKeyboardMarkup(rows) if rows else None


def is_private(chat_id: str) -> bool:
    """Telegram user (private chat) ids are positive; groups, supergroups and channels are negative."""
    try:
        return int(chat_id) > 0
    except ValueError:
        return False


def _chat(chat_id: str) -> int | str:
    try:
        return int(chat_id)
    except ValueError:
        return chat_id  # @channelusername


class TelegramTransport:
    platform = PLATFORM
    push_private = True
    group_queues = True  # `/play` typed in a group opens that group's own Quick queue (bot/core/matchmaking.py)
    group_edits_per_minute: float | None = GROUP_EDITS_PER_MINUTE

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self._file_ids: OrderedDict[str, tuple[str, str]] = OrderedDict()  # picture key -> (file_id, unique id)
        self._shown: OrderedDict[tuple[str, str], str] = OrderedDict()  # (chat, message) -> picture key shown
        self.uploads = 0  # pictures sent as bytes (the bench prints these)
        self.reused = 0  # pictures sent or edited in as an earlier upload's file id, or left in place

    async def send(self, chat_id: str, message: OutMessage) -> str:
        reply_markup = markup(message.keyboard)
        try:
            if message.image is not None and message.animated:
                sent = await self.bot.send_animation(
                    chat_id=_chat(chat_id), animation=message.image,
                    caption=clip(message.text, CAPTION_LIMIT) or None, reply_markup=reply_markup,
                    filename=f"{message.picture_name or 'majlis'}.gif",
                )
            elif message.image is not None:
                sent = await self._send_photo(chat_id, message, reply_markup)
            else:
                sent = await self.bot.send_message(
                    chat_id=_chat(chat_id), text=clip(message.text, TEXT_LIMIT), reply_markup=reply_markup
                )
        except Forbidden as error:
            raise Unreachable(str(error)) from error
        except BadRequest as error:
            text = error.message.lower()
            if (is_private(chat_id) and "chat not found" in text) or any(words in text for words in NO_RIGHTS):
                raise Unreachable(str(error)) from error
            raise
        except RetryAfter as error:
            raise Busy(retry_seconds(error), str(error)) from error
        return str(sent.message_id)

    async def check_private(self, chat_id: str) -> None:
        """Raise Unreachable when the user's private chat refuses the bot (they blocked it since joining the
        queue): a "typing" chat action is the cheapest call Telegram answers 403 to, and shows nothing lasting."""
        try:
            await self.bot.send_chat_action(chat_id=_chat(chat_id), action="typing")
        except Forbidden as error:
            raise Unreachable(str(error)) from error
        except BadRequest as error:
            if "chat not found" in error.message.lower():
                raise Unreachable(str(error)) from error
            raise

    async def edit(self, chat_id: str, message_id: str, message: OutMessage) -> None:
        reply_markup = markup(message.keyboard)
        try:
            if message.image is not None:
                if not await self._edit_caption(chat_id, message_id, message, reply_markup):
                    await self._edit_photo(chat_id, message_id, message, reply_markup)
            else:
                self._shown.pop((str(chat_id), str(message_id)), None)
                await self.bot.edit_message_text(
                    text=clip(message.text, TEXT_LIMIT), chat_id=_chat(chat_id), message_id=int(message_id),
                    reply_markup=reply_markup,
                )
        except BadRequest as error:
            if "not modified" in error.message.lower():
                return  # the message already shows exactly this
            # Deleted, too old, or a photo <-> text change Telegram cannot do in place: the service sends anew.
            raise MessageGone(str(error)) from error
        except Forbidden as error:
            if is_private(chat_id):
                raise Unreachable(str(error)) from error
            raise MessageGone(str(error)) from error
        except RetryAfter as error:
            raise Busy(retry_seconds(error), str(error)) from error

    async def delete(self, chat_id: str, message_id: str) -> None:
        self._shown.pop((str(chat_id), str(message_id)), None)
        try:
            await self.bot.delete_message(chat_id=_chat(chat_id), message_id=int(message_id))
        except (BadRequest, Forbidden) as error:
            raise MessageGone(str(error)) from error
        except RetryAfter as error:
            raise Busy(retry_seconds(error), str(error)) from error

    # ------------------------------------------------------------------------------------------------ pictures
    async def _send_photo(self, chat_id: str, message: OutMessage, reply_markup: Any) -> Message:
        caption = clip(message.text, CAPTION_LIMIT) or None
        known = self._file_ids.get(message.picture_key) if message.picture_key else None
        if known is not None:
            try:
                sent = await self.bot.send_photo(chat_id=_chat(chat_id), photo=known[0], caption=caption,
                                                 reply_markup=reply_markup)
            except BadRequest as error:
                if not _bad_file(error):
                    raise
                self._file_ids.pop(message.picture_key, None)  # expired or unknown there: uploaded below
            else:
                self.reused += 1
                self._remember(chat_id, sent, message.picture_key)
                return sent
        sent = await self.bot.send_photo(chat_id=_chat(chat_id), photo=message.image, caption=caption,
                                         reply_markup=reply_markup, filename="majlis.png")
        self.uploads += 1
        self._remember(chat_id, sent, message.picture_key)
        return sent

    async def _edit_caption(self, chat_id: str, message_id: str, message: OutMessage, reply_markup: Any) -> bool:
        """Only the caption and keyboard, when the message shows this picture already; False: the picture must be
        edited in (unknown here, changed by another worker meanwhile, or nothing else changed)."""
        key = message.picture_key
        known = self._file_ids.get(key) if key else None
        if known is None or self._shown.get((str(chat_id), str(message_id))) != key:
            return False
        try:
            edited = await self.bot.edit_message_caption(
                chat_id=_chat(chat_id), message_id=int(message_id), caption=clip(message.text, CAPTION_LIMIT) or None,
                reply_markup=reply_markup)
        except BadRequest as error:
            if "not modified" in error.message.lower():
                return False  # caption and keyboard as they were: only the media edit can tell about the picture
            raise
        photo = edited.photo if isinstance(edited, Message) else ()
        if photo and photo[-1].file_unique_id == known[1]:
            self.reused += 1
            return True
        return False

    async def _edit_photo(self, chat_id: str, message_id: str, message: OutMessage, reply_markup: Any) -> None:
        caption = clip(message.text, CAPTION_LIMIT) or None
        key = message.picture_key
        known = self._file_ids.get(key) if key else None
        if known is not None:
            try:
                edited = await self.bot.edit_message_media(
                    media=InputMediaPhoto(media=known[0], caption=caption), chat_id=_chat(chat_id),
                    message_id=int(message_id), reply_markup=reply_markup)
            except BadRequest as error:
                if not _bad_file(error):
                    raise
                self._file_ids.pop(key, None)
            else:
                self.reused += 1
                self._remember(chat_id, edited, key)
                return
        edited = await self.bot.edit_message_media(
            media=InputMediaPhoto(media=message.image, caption=caption, filename="majlis.png"),
            chat_id=_chat(chat_id), message_id=int(message_id), reply_markup=reply_markup)
        self.uploads += 1
        self._remember(chat_id, edited, key)

    def _remember(self, chat_id: str, shown: Message | bool, key: str) -> None:
        """The file id Telegram gave the picture (its largest size), and which picture the message now shows."""
        if not isinstance(shown, Message) or not shown.photo:
            return
        where = (str(chat_id), str(shown.message_id))
        if not key:
            self._shown.pop(where, None)
            return
        largest = shown.photo[-1]
        _keep(self._file_ids, key, (largest.file_id, largest.file_unique_id))
        _keep(self._shown, where, key)

    def deep_link(self, payload: str) -> str | None:
        try:
            username = self.bot.username
        except RuntimeError:  # not initialised yet: no getMe answer to take the name from
            return None
        return f"https://t.me/{username}?start={payload}" if username else None


def _bad_file(error: BadRequest) -> bool:
    """Telegram refused a file id (expired, or another bot's)."""
    text = error.message.lower()
    return "file identifier" in text or "file_id" in text or "wrong remote file" in text


def _keep(remembered: OrderedDict[Any, Any], key: Any, value: Any) -> None:
    remembered[key] = value
    remembered.move_to_end(key)
    while len(remembered) > REMEMBERED:
        remembered.popitem(last=False)
