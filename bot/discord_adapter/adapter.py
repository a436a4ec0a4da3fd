"""The Discord adapter: one client, its slash commands and persistent components, around the shared service."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import discord
from discord import app_commands

from bot.config import Settings
from bot.discord_adapter.commands import CatalogTranslator, build_all
from bot.discord_adapter.interactions import InteractionHandler
from bot.discord_adapter.transport import DiscordTransport
from bot.discord_adapter.views import ActionButton, ActionSelect
from bot.platform_calls import meter_discord
from bot.service import Service

log = logging.getLogger(__name__)

READY_TIMEOUT = 30.0


class MajlisClient(discord.Client):
    """A client that needs no privileged intent: everything arrives as interactions."""

    def __init__(self, handler: InteractionHandler, guild_id: int | None, **options: Any) -> None:
        super().__init__(intents=discord.Intents(guilds=True), **options)
        self.presser = handler  # read by the dynamic items (views.ActionButton / ActionSelect)
        self.guild_id = guild_id
        self.publishes_commands = True
        self.tree = app_commands.CommandTree(self)
        for command in build_all(handler):
            self.tree.add_command(command)

    async def setup_hook(self) -> None:
        # Buttons of messages sent before this start (even by a previous process) match these templates.
        self.add_dynamic_items(ActionButton, ActionSelect)
        await self.tree.set_translator(CatalogTranslator())
        if self.publishes_commands:
            await self.sync_commands()

    async def sync_commands(self) -> None:
        """Publish the commands: to the development guild at once when one is set, else globally."""
        guild = discord.Object(self.guild_id) if self.guild_id else None
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
        try:
            synced = await self.tree.sync(guild=guild)
        except discord.HTTPException:
            # Without the applications.commands scope sync fails; buttons and existing commands still work.
            log.exception("could not sync slash commands")
            return
        log.info("synced %d slash commands %s", len(synced), f"to guild {self.guild_id}" if guild else "globally")


class MajlisShardedClient(MajlisClient, discord.AutoShardedClient):
    """The same client over some of the bot's shards (DISCORD_SHARD_COUNT / DISCORD_SHARD_IDS): Discord sends each
    guild's interactions to the shard that guild hashes to, and any worker can answer them because a match lives in
    the shared database, not in the worker. The commands are published once, by the worker running shard 0."""

    def __init__(self, handler: InteractionHandler, guild_id: int | None, shard_count: int,
                 shard_ids: tuple[int, ...] | None) -> None:
        super().__init__(handler, guild_id, shard_count=shard_count,
                         shard_ids=None if shard_ids is None else list(shard_ids))
        self.publishes_commands = shard_ids is None or 0 in shard_ids


def make_client(handler: InteractionHandler, settings: Settings) -> MajlisClient:
    if settings.discord_shard_count is None:
        return MajlisClient(handler, settings.discord_guild_id)
    return MajlisShardedClient(handler, settings.discord_guild_id, settings.discord_shard_count,
                               settings.discord_shard_ids)


class DiscordAdapter:
    def __init__(self, service: Service, settings: Settings) -> None:
        self.service = service
        self.settings = settings
        self.handler = InteractionHandler(service)
        self.client = make_client(self.handler, settings)
        self.transport = DiscordTransport(self.client)
        self._connection: asyncio.Task[None] | None = None

    async def login(self) -> None:
        """Attach the transport and log in (which registers the components and syncs the commands)."""
        if not self.settings.discord_token:
            raise RuntimeError("DISCORD_BOT_TOKEN is not set")
        self.service.attach(self.transport, images=True)
        metrics = getattr(self.service, "metrics", None)
        if metrics is not None:  # every REST call counted by route and outcome (bot/platform_calls.py)
            meter_discord(self.client.http, metrics)
        await self.client.login(self.settings.discord_token)

    async def start(self) -> None:
        """Log in, connect to the gateway in the background, and return once ready (or after READY_TIMEOUT)."""
        await self.login()
        self._connection = asyncio.create_task(self.client.connect(reconnect=True), name="discord-gateway")
        ready = asyncio.create_task(self.client.wait_until_ready(), name="discord-ready")
        done, _ = await asyncio.wait({self._connection, ready}, timeout=READY_TIMEOUT,
                                     return_when=asyncio.FIRST_COMPLETED)
        if self._connection in done:
            ready.cancel()
            self._connection.result()  # a login/intent error surfaces here
            raise RuntimeError("the Discord gateway connection ended during start-up")
        if ready not in done:
            ready.cancel()
            log.warning("Discord is not ready after %.0f s; going on while the client keeps connecting", READY_TIMEOUT)

    def connected(self) -> bool:
        """Whether the gateway connection is up and ready (for /readyz)."""
        return self.client.is_ready() and not self.client.is_closed()

    async def stop(self) -> None:
        await self.client.close()
        if self._connection is not None:
            self._connection.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._connection
            self._connection = None
