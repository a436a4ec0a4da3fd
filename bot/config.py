"""Settings from the environment (and `.env`, loaded at start-up): tokens, database, webhook, dev guild."""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
from dataclasses import dataclass

from storage.coins import CoinGrants


class ConfigError(ValueError):
    """A setting that cannot be used as written; `reason` is a catalog key, so the line can be said in either
    language by whoever prints it."""

    def __init__(self, name: str, value: str, reason: str) -> None:
        super().__init__(f"{name}={value!r}: {reason}")
        self.name, self.value, self.reason = name, value, reason


PLATFORMS = ("telegram", "discord")
LOG_FORMATS = ("text", "json")
# Telegram's rule for setWebhook's secret_token: 1-256 characters, letters, digits, `_` and `-`.
WEBHOOK_SECRET = re.compile(r"[A-Za-z0-9_-]{1,256}")
_SECRET_LABEL = b"majlis telegram webhook secret"


def parse_operators(text: str) -> frozenset[tuple[str, str]] | None:
    """`telegram:123456, discord:987654321` -> {("telegram", "123456"), ...}; None when an item is not
    `platform:digits` (user ids are per platform, so a bare number could name two different people)."""
    out = set()
    for item in text.replace(";", ",").split(","):
        item = item.strip()
        if not item:
            continue
        platform, sep, user_id = item.partition(":")
        platform, user_id = platform.strip().lower(), user_id.strip()
        if not sep or platform not in PLATFORMS or not (user_id.isascii() and user_id.isdigit()):
            return None
        out.add((platform, user_id))
    return frozenset(out)


def parse_waits(text: str) -> tuple[tuple[str, float], ...] | None:
    """MAJLIS_QUEUE_WAIT's pairs ("*" for a bare number); None when a part is not `name=seconds` (0 to 3600)."""
    out = []
    for part in (part.strip() for part in text.split(",") if part.strip()):
        name, sep, seconds = part.rpartition("=") if "=" in part else ("*", "=", part)
        try:
            wait = float(seconds)
        except ValueError:
            return None
        if not sep or not name.strip() or not 0 <= wait <= 3600:
            return None
        out.append((name.strip().lower(), wait))
    return tuple(out)


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
    starting_coins: int = 500  # coins a player gets when first seen (coin tables, konkan-cards.md)
    daily_coins: int = 50  # coins added on a player's first coin action of each UTC day
    # Who may schedule and cancel tournaments: (platform, user id) pairs from MAJLIS_OPERATORS.
    operators: frozenset[tuple[str, str]] = frozenset()
    # Discord sharding across workers: the total number of shards, and the ones this worker runs (None: all of
    # them in this process, or no sharding at all when the count is None too).
    discord_shard_count: int | None = None
    discord_shard_ids: tuple[int, ...] | None = None
    # Several Telegram webhook workers: the Redis their shared rate limiter keeps Telegram's limits in (None: one
    # worker, python-telegram-bot's in-process limiter).
    redis_url: str | None = None
    # TELEGRAM_WEBHOOK_SECRET: the secret every webhook worker registers and checks (None: derived from the token).
    telegram_webhook_secret: str | None = None
    # MAJLIS_METRICS_PORT: the port of /metrics, /healthz and /readyz (bot/ops_server.py); None: not served.
    metrics_port: int | None = None
    metrics_listen: str = "0.0.0.0"  # noqa: S104  (MAJLIS_METRICS_LISTEN: the address that port binds)
    # MAJLIS_LOG_FORMAT: "text" (lines for people, the default) or "json" (one object a line, for log collectors).
    log_format: str = "text"
    # MAJLIS_WORKER: this worker's name in JSON log lines (default: host name and process id).
    worker: str | None = None
    # MAJLIS_QUEUE_WAIT: seconds a Quick queue waits for people before bots fill its table, per "game.mode", per
    # "mode" or for every queue ("*", or a bare number): "30" or "konkan_tiles.quick=20,turbo=15,*=30".
    queue_waits: tuple[tuple[str, float], ...] = ()

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ

        def value(name: str) -> str | None:
            text = (env.get(name) or "").strip()
            return text or None

        def number(name: str, low: int, high: int, reason: str) -> int | None:
            """A whole number in [low, high], or ConfigError naming the variable: a typo in `.env` must stop the
            start with a clear line, not a traceback, and must not be ignored in silence."""
            text = value(name)
            if text is None:
                return None
            if not (text.isascii() and text.isdigit() and low <= int(text) <= high):
                raise ConfigError(name, text, reason)
            return int(text)

        port = number("TELEGRAM_WEBHOOK_PORT", 1, 65535, "config.port")
        starting = number("STARTING_COINS", 0, 10**9, "config.coins")
        daily = number("DAILY_COINS", 0, 10**9, "config.coins")
        operators = parse_operators(value("MAJLIS_OPERATORS") or "")
        if operators is None:
            raise ConfigError("MAJLIS_OPERATORS", value("MAJLIS_OPERATORS") or "", "config.operators")
        shard_count = number("DISCORD_SHARD_COUNT", 1, 10**5, "config.shard_count")
        shard_ids = shards(value("DISCORD_SHARD_IDS"), shard_count)
        log_format = (value("MAJLIS_LOG_FORMAT") or "text").lower()
        if log_format not in LOG_FORMATS:
            raise ConfigError("MAJLIS_LOG_FORMAT", value("MAJLIS_LOG_FORMAT") or "", "config.log_format")
        waits = parse_waits(value("MAJLIS_QUEUE_WAIT") or "")
        if waits is None:
            raise ConfigError("MAJLIS_QUEUE_WAIT", value("MAJLIS_QUEUE_WAIT") or "", "config.queue_wait")
        secret = value("TELEGRAM_WEBHOOK_SECRET")
        if secret is not None and not WEBHOOK_SECRET.fullmatch(secret):
            raise ConfigError("TELEGRAM_WEBHOOK_SECRET", secret, "config.webhook_secret")
        return cls(
            telegram_token=value("TELEGRAM_BOT_TOKEN"),
            telegram_base_url=value("TELEGRAM_BASE_URL"),
            telegram_webhook_url=value("TELEGRAM_WEBHOOK_URL"),
            telegram_webhook_port=8443 if port is None else port,
            discord_token=value("DISCORD_BOT_TOKEN"),
            discord_guild_id=number("DISCORD_GUILD_ID", 1, 2**64 - 1, "config.guild"),
            database_url=value("DATABASE_URL"),
            telegram_webhook_listen=value("TELEGRAM_WEBHOOK_LISTEN") or "0.0.0.0",  # noqa: S104
            starting_coins=500 if starting is None else starting,
            daily_coins=50 if daily is None else daily,
            operators=operators,
            discord_shard_count=shard_count,
            discord_shard_ids=shard_ids,
            redis_url=value("MAJLIS_REDIS_URL"),
            telegram_webhook_secret=secret,
            metrics_port=number("MAJLIS_METRICS_PORT", 1, 65535, "config.port"),
            metrics_listen=value("MAJLIS_METRICS_LISTEN") or "0.0.0.0",  # noqa: S104
            log_format=log_format,
            worker=value("MAJLIS_WORKER"),
            queue_waits=waits,
        )

    @property
    def webhook_secret(self) -> str:
        """The secret_token of setWebhook, the same in every worker: Telegram keeps only the last one registered,
        so a random one per worker made every worker but the last answer 403. TELEGRAM_WEBHOOK_SECRET when set,
        else an HMAC-SHA256 keyed by the bot token (stable across restarts, unguessable without the token),
        url-safe base64 without padding: 43 characters of Telegram's allowed set."""
        if self.telegram_webhook_secret:
            return self.telegram_webhook_secret
        if not self.telegram_token:
            raise ValueError("TELEGRAM_BOT_TOKEN is not set")
        digest = hmac.new(self.telegram_token.encode(), _SECRET_LABEL, hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")

    @property
    def secrets(self) -> tuple[str, ...]:
        """What no log line may ever show (bot/logs.py blanks each): the tokens and the webhook secret."""
        found = [self.telegram_token, self.discord_token, self.telegram_webhook_secret]
        if self.telegram_token:
            found.append(self.webhook_secret)
        return tuple(secret for secret in found if secret)

    @property
    def discord_sharded(self) -> bool:
        return self.discord_shard_count is not None

    @property
    def coin_grants(self) -> CoinGrants:
        return CoinGrants(starting=self.starting_coins, daily=self.daily_coins)

    @property
    def any_platform(self) -> bool:
        return bool(self.telegram_token or self.discord_token)


def shards(text: str | None, count: int | None) -> tuple[int, ...] | None:
    """DISCORD_SHARD_IDS as written ("0,1" or "2-3"): the shards this worker runs, each below DISCORD_SHARD_COUNT
    (required with it, so every worker agrees on how guilds are split)."""
    if text is None:
        return None
    if count is None:
        raise ConfigError("DISCORD_SHARD_IDS", text, "config.shard_ids_need_count")
    chosen: set[int] = set()
    for part in text.replace(" ", "").split(","):
        low, _, high = part.partition("-")
        if not (low.isascii() and low.isdigit() and (not high or (high.isascii() and high.isdigit()))):
            raise ConfigError("DISCORD_SHARD_IDS", text, "config.shard_ids")
        first, last = int(low), int(high or low)
        if first > last or last >= count:
            raise ConfigError("DISCORD_SHARD_IDS", text, "config.shard_ids")
        chosen.update(range(first, last + 1))
    return tuple(sorted(chosen))
