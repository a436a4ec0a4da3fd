"""Turns Discord interactions into service calls, and service replies into ephemeral answers.

Every interaction is acknowledged first (defer), because the service may render pictures and let bots play
before it answers, and Discord drops an interaction not acknowledged within 3 seconds. What the service returns
is for the acting user only, so every answer is ephemeral; a private rack (`Reply.message`) replaces the
ephemeral it came from, or appears as a fresh ephemeral when that one can no longer be edited (its token
outlived Discord's 15 minutes, or the user dismissed it). When Discord still answers 429 after discord.py's own
waits, or the service met a `Busy`, the user is told "busy, try again in a moment", and the log gets one line.
"""

from __future__ import annotations

import enum
import logging
import time
from typing import Any

import discord

from bot import callbacks
from bot.discord_adapter.transport import HAND_FILE, PLATFORM, render
from bot.i18n import pick_language, t
from bot.messages import ERROR, Actor, Busy, ChatRef, OutMessage, Reply
from bot.service import Service

log = logging.getLogger(__name__)

HAND_OP = "h"  # the "My hand" action: answered with a new ephemeral rather than a silent acknowledgement


class Answer(enum.Enum):
    """Where the answer to an interaction goes."""

    ORIGINAL = "original"  # a "thinking" ephemeral we created: edit it
    SOURCE = "source"  # the ephemeral holding the pressed component: edit it in place
    FOLLOWUP = "followup"  # a public message's component: answer in a new ephemeral


def actor_of(interaction: discord.Interaction) -> Actor:
    user = interaction.user
    permissions = interaction.permissions
    admin = interaction.guild_id is not None and (permissions.administrator or permissions.manage_guild)
    return Actor(PLATFORM, str(user.id), user.display_name, language=str(interaction.locale), is_admin=bool(admin))


def chat_of(interaction: discord.Interaction) -> ChatRef:
    channel_id = interaction.channel_id or interaction.user.id
    return ChatRef(PLATFORM, str(channel_id), private=interaction.guild_id is None)


def _gone(error: discord.HTTPException) -> bool:
    """Unknown Webhook / Unknown Message (404) or Invalid Webhook Token (401): that ephemeral cannot be edited."""
    return error.status in (401, 404)


class InteractionHandler:
    def __init__(self, service: Service) -> None:
        self.service = service
        self.metrics = getattr(service, "metrics", None)  # press -> answer -> screens times (bot/metrics.py)

    def _timed(self, kind: str, started: float, *, screens: bool = False) -> None:
        if self.metrics is not None:
            self.metrics.answered(PLATFORM, kind, started, screens=screens)

    # ------------------------------------------------------------------------------------------ entry points
    async def on_command(self, interaction: discord.Interaction, name: str, args: list[str]) -> None:
        started = time.perf_counter()
        if not await self._defer(interaction, ephemeral=True):
            return
        reply = await self._call(interaction, self.service.command(actor_of(interaction), chat_of(interaction),
                                                                   name, args, deliver=False))
        await self._answer(interaction, reply, Answer.ORIGINAL)
        self._timed("command", started)
        await self.service.deliver()  # the channel's table and notices, once the user has their answer
        self._timed("command", started, screens=True)

    async def on_press(self, interaction: discord.Interaction, code: str) -> None:
        started = time.perf_counter()
        message = interaction.message
        if message is not None and message.flags.ephemeral:
            mode = Answer.SOURCE
            acknowledged = await self._defer(interaction, ephemeral=False)
        elif action_op(code) == HAND_OP:
            mode = Answer.ORIGINAL
            acknowledged = await self._defer(interaction, ephemeral=True)
        else:
            mode = Answer.FOLLOWUP
            acknowledged = await self._defer(interaction, ephemeral=False)
        if not acknowledged:
            return
        reply = await self._call(interaction, self.service.press(actor_of(interaction), chat_of(interaction), code,
                                                                 deliver=False))
        await self._answer(interaction, reply, mode)
        self._timed("press", started)
        await self.service.deliver()
        self._timed("press", started, screens=True)

    # ------------------------------------------------------------------------------------------ steps
    async def _defer(self, interaction: discord.Interaction, *, ephemeral: bool) -> bool:
        """Acknowledge within Discord's 3 seconds; a thinking ephemeral when we will answer in a new message.

        When even this fails (the interaction is already unknown), nothing is applied: the user saw
        "interaction failed" and will press again, and an unacknowledged press must not move a card.
        """
        try:
            if ephemeral:
                await interaction.response.defer(ephemeral=True, thinking=True)
            else:
                await interaction.response.defer()
        except discord.HTTPException as error:
            log.warning("could not acknowledge interaction %s: %s", interaction.id, error)
            return False
        return True

    async def _call(self, interaction: discord.Interaction, call: Any) -> Reply:
        try:
            return await call
        except Busy as busy:  # a platform's 429: no fault of anyone's, so no traceback
            log.warning("interaction %s: asked to wait %.0f s (%s)", interaction.id, busy.retry_after, busy)
            return Reply(t(pick_language(str(interaction.locale)), "err.busy"), alert=True)
        except Exception:  # the user still gets an answer; the error goes to the log
            log.exception("service failed on interaction %s", interaction.id)
            return Reply(t(pick_language(str(interaction.locale)), "dc.error"), alert=True, kind=ERROR)

    async def _answer(self, interaction: discord.Interaction, reply: Reply, mode: Answer) -> None:
        text = ("⚠️ " + reply.text) if reply.is_error and reply.text else reply.text  # never on information
        try:
            if reply.message is not None:
                if mode is Answer.FOLLOWUP or not await self._edit_original(interaction, text, reply.message):
                    await self._followup(interaction, text, reply.message)
            elif mode is Answer.ORIGINAL:
                if not text:
                    await interaction.delete_original_response()
                elif not await self._edit_original(interaction, text, None):
                    await self._followup(interaction, text, None)
            elif text:
                await self._followup(interaction, text, None)
        except discord.HTTPException as error:
            log.warning("could not answer interaction %s: %s", interaction.id, error)
            if error.status == 429:  # discord.py's own waits are spent (e.g. a page edit): say so, briefly
                await self._say_busy(interaction)

    async def _say_busy(self, interaction: discord.Interaction) -> None:
        try:
            await interaction.followup.send(t(pick_language(str(interaction.locale)), "err.busy"), ephemeral=True)
        except discord.HTTPException as error:
            log.warning("could not tell interaction %s to try again: %s", interaction.id, error)

    async def _edit_original(self, interaction: discord.Interaction, text: str, rack: OutMessage | None) -> bool:
        """Edit the interaction's ephemeral; False when Discord says it can no longer be edited."""
        if rack is None:
            kwargs: dict[str, Any] = {"content": text, "allowed_mentions": discord.AllowedMentions.none()}
        else:
            kwargs = render(rack, filename=HAND_FILE, edit=True, content=text)
        try:
            await interaction.edit_original_response(**kwargs)
        except discord.HTTPException as error:
            if not _gone(error):
                raise
            log.info("ephemeral of interaction %s is gone (%s); sending a fresh one", interaction.id, error.status)
            return False
        return True

    async def _followup(self, interaction: discord.Interaction, text: str, rack: OutMessage | None) -> None:
        if rack is None:
            await interaction.followup.send(text, ephemeral=True, allowed_mentions=discord.AllowedMentions.none())
            return
        kwargs = render(rack, filename=HAND_FILE, content=text)
        view = kwargs.get("view")
        await interaction.followup.send(ephemeral=True, wait=True, **kwargs)
        if view is not None:
            # Presses are dispatched by the registered dynamic items, not by this view object: stopping it
            # releases the 15-minute timer discord.py starts for ephemeral views.
            view.stop()


def action_op(code: str) -> str:
    """The op letter of an action code ('' when it is not one)."""
    try:
        return callbacks.decode(code).op
    except callbacks.BadAction:
        return ""
