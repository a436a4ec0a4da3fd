"""The service's Transport for Discord: channel messages sent, edited in place and deleted through the REST API.

A message with a picture becomes an embed (the text as its description) showing the PNG as an attachment, so the
table reads as one card that is edited after each move; a message without a picture is plain content. Only the
user named in `OutMessage.mention` can be pinged: user-chosen display names never ping anyone.
"""

from __future__ import annotations

import io
import logging
from typing import Any

import discord

from bot.discord_adapter.views import build_view
from bot.messages import MessageGone, OutMessage, Unreachable

log = logging.getLogger(__name__)

PLATFORM = "discord"
CONTENT_LIMIT = 2000
EMBED_LIMIT = 4096
ALT_LIMIT = 1024
EMBED_COLOUR = discord.Colour(0x1F6F4A)  # the green of a card table
TABLE_FILE = "table.png"
HAND_FILE = "hand.png"


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def mentions(message: OutMessage) -> discord.AllowedMentions:
    """Ping exactly the mentioned user (the turn notice); nobody, no role and no @everyone otherwise."""
    if message.mention and message.mention.isdigit():
        return discord.AllowedMentions(everyone=False, roles=False, replied_user=False,
                                       users=[discord.Object(int(message.mention))])
    return discord.AllowedMentions.none()


def render(message: OutMessage, *, filename: str = TABLE_FILE, edit: bool = False,
           content: str | None = None) -> dict[str, Any]:
    """Keyword arguments for discord.py's send/edit calls.

    `content` overrides the plain text shown above an embed (an ephemeral rack carries the "✓ You …" line
    there). For an edit every field is given, so a picture message can become text-only and back.
    """
    kwargs: dict[str, Any] = {"allowed_mentions": mentions(message)}
    if message.picture_name and filename == TABLE_FILE:
        filename = f"{message.picture_name}.{'gif' if message.animated else 'png'}"
    if message.image is not None:
        embed = discord.Embed(description=_clip(message.text, EMBED_LIMIT) or None, colour=EMBED_COLOUR)
        embed.set_image(url=f"attachment://{filename}")
        picture = discord.File(io.BytesIO(message.image), filename=filename,
                               description=_clip(message.alt, ALT_LIMIT) or None)
        kwargs["embed"] = embed
        kwargs["content"] = _clip(content, CONTENT_LIMIT) if content else None
        if edit:
            kwargs["attachments"] = [picture]
        else:
            kwargs["file"] = picture
    else:
        text = message.text if not content else f"{content}\n{message.text}"
        kwargs["content"] = _clip(text, CONTENT_LIMIT) or "\u200b"
        if edit:
            kwargs["embed"] = None
            kwargs["attachments"] = []
    view = build_view(message.keyboard)
    if view is not None or edit:
        kwargs["view"] = view
    return kwargs


class DiscordTransport:
    """Sends what the service decided; decides nothing itself."""

    platform = PLATFORM
    push_private = False  # hands are shown on demand in ephemeral messages
    group_edits_per_minute: float | None = None  # discord.py waits out each route's rate-limit bucket itself

    def __init__(self, client: discord.Client) -> None:
        self.client = client

    def _channel(self, chat_id: str) -> discord.PartialMessageable:
        return self.client.get_partial_messageable(int(chat_id))

    async def send(self, chat_id: str, message: OutMessage) -> str:
        try:
            sent = await self._channel(chat_id).send(**render(message))
        except discord.Forbidden as error:
            raise Unreachable(f"channel {chat_id}: {error}") from error
        return str(sent.id)

    async def edit(self, chat_id: str, message_id: str, message: OutMessage) -> None:
        target = self._channel(chat_id).get_partial_message(int(message_id))
        try:
            await target.edit(**render(message, edit=True))
        except (discord.NotFound, discord.Forbidden) as error:
            raise MessageGone(f"message {message_id}: {error}") from error

    async def delete(self, chat_id: str, message_id: str) -> None:
        target = self._channel(chat_id).get_partial_message(int(message_id))
        try:
            await target.delete()
        except (discord.NotFound, discord.Forbidden) as error:
            raise MessageGone(f"message {message_id}: {error}") from error

    def deep_link(self, payload: str) -> str | None:
        return None  # Discord has no deep link into a bot's DMs; hands are ephemeral instead

    async def private_chat(self, user_id: str) -> str:
        """The DM channel with the user, where a matched table (bot/core/matchmaking.py) is shown with its buttons;
        discord.py opens it once and keeps it. Unreachable when Discord refuses (the user allows no DMs from the
        bot, or shares no server with it)."""
        try:
            channel = await self.client.create_dm(discord.Object(int(user_id)))
        except discord.HTTPException as error:
            if isinstance(error, discord.Forbidden) or error.status == 400:
                raise Unreachable(f"the DM of user {user_id}: {error}") from error
            raise
        return str(channel.id)
