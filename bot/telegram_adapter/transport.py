"""The service's `Transport` on Telegram: OutMessages become sendPhoto/sendAnimation/sendMessage/editMessageMedia/...
calls.

It translates and never decides: which message to send or edit is the service's choice. Telegram's refusals are
mapped to the exceptions the service understands: a chat the bot may not write to (a private chat never opened, a
group where it has no right to post or was removed) -> `Unreachable`; a message that can no longer be edited
(deleted, too old, photo <-> text) -> `MessageGone`; a 429 that outlived the rate limiter's retries -> `Busy`.
"""

from __future__ import annotations

import logging

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, InputMediaPhoto
from telegram.error import BadRequest, Forbidden, RetryAfter

from bot.messages import Busy, Keyboard, MessageGone, OutMessage, Unreachable

log = logging.getLogger(__name__)

PLATFORM = "telegram"
CAPTION_LIMIT = 1024
TEXT_LIMIT = 4096
ALERT_LIMIT = 200  # answerCallbackQuery text
GROUP_EDITS_PER_MINUTE = 20.0  # Telegram: about 20 messages a minute in one group
NO_RIGHTS = ("not enough rights", "have no rights", "chat_write_forbidden", "need administrator rights")


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
                log.warning("dropping a button with neither data nor url: %r", button.label)
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
    group_edits_per_minute: float | None = GROUP_EDITS_PER_MINUTE

    def __init__(self, bot: Bot) -> None:
        self.bot = bot

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
                sent = await self.bot.send_photo(
                    chat_id=_chat(chat_id), photo=message.image, caption=clip(message.text, CAPTION_LIMIT) or None,
                    reply_markup=reply_markup, filename="majlis.png",
                )
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

    async def edit(self, chat_id: str, message_id: str, message: OutMessage) -> None:
        reply_markup = markup(message.keyboard)
        try:
            if message.image is not None:
                media = InputMediaPhoto(media=message.image, caption=clip(message.text, CAPTION_LIMIT) or None,
                                        filename="majlis.png")
                await self.bot.edit_message_media(
                    media=media, chat_id=_chat(chat_id), message_id=int(message_id), reply_markup=reply_markup
                )
            else:
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
        try:
            await self.bot.delete_message(chat_id=_chat(chat_id), message_id=int(message_id))
        except (BadRequest, Forbidden) as error:
            raise MessageGone(str(error)) from error
        except RetryAfter as error:
            raise Busy(retry_seconds(error), str(error)) from error

    def deep_link(self, payload: str) -> str | None:
        try:
            username = self.bot.username
        except RuntimeError:  # not initialised yet: no getMe answer to take the name from
            return None
        return f"https://t.me/{username}?start={payload}" if username else None
