"""Settings from the environment (and `.env`, loaded at start-up): tokens, database, webhook, dev guild."""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Settings:
    telegram_token: str | None
    telegram_base_url: str | None
    telegram_webhook_url: str | None
    telegram_webhook_port: int
    discord_token: str | None
    discord_guild_id: int | None
    database_url: str | None
    telegram_webhook_listen: str = "0.0.0.0"  # noqa: S104  (the address the webhook server binds)

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ

        def value(name: str) -> str | None:
            text = (env.get(name) or "").strip()
            return text or None

        guild = value("DISCORD_GUILD_ID")
        return cls(
            telegram_token=value("TELEGRAM_BOT_TOKEN"),
            telegram_base_url=value("TELEGRAM_BASE_URL"),
            telegram_webhook_url=value("TELEGRAM_WEBHOOK_URL"),
            telegram_webhook_port=int(value("TELEGRAM_WEBHOOK_PORT") or 8443),
            discord_token=value("DISCORD_BOT_TOKEN"),
            discord_guild_id=int(guild) if guild and guild.isdigit() else None,
            database_url=value("DATABASE_URL"),
            telegram_webhook_listen=value("TELEGRAM_WEBHOOK_LISTEN") or "0.0.0.0",  # noqa: S104
        )

    @property
    def any_platform(self) -> bool:
        return bool(self.telegram_token or self.discord_token)
