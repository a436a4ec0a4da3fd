"""Telegram for Majlis: python-telegram-bot 22 Application (adapter), Bot API calls (transport), update handlers,
and the command menu."""

from bot.telegram_adapter.adapter import TelegramAdapter
from bot.telegram_adapter.transport import TelegramTransport

__all__ = ["TelegramAdapter", "TelegramTransport"]
