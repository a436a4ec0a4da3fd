"""Majlis on Discord: slash commands, a table message edited in place, private hands in ephemeral messages."""

from bot.discord_adapter.adapter import DiscordAdapter, MajlisClient
from bot.discord_adapter.transport import DiscordTransport

__all__ = ["DiscordAdapter", "DiscordTransport", "MajlisClient"]
