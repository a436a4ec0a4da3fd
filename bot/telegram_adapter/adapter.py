"""The Telegram adapter: a python-telegram-bot Application around one `Service`, as bot/runner.py starts it.

Long polling by default; a webhook when `Settings.telegram_webhook_url` is set; `TELEGRAM_BASE_URL` points the bot
at a self-hosted Bot API server. Tests build it with their own `BaseRequest` (no network) and, usually, a rate
limiter that never throttles, so a whole match runs in seconds while RetryAfter is still retried.
"""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urlparse

from telegram import Update
from telegram.error import TelegramError
from telegram.ext import (
    AIORateLimiter,
    Application,
    ApplicationBuilder,
    BaseRateLimiter,
    CallbackQueryHandler,
    MessageHandler,
    filters,
)
from telegram.request import BaseRequest, HTTPXRequest

from bot.config import Settings
from bot.platform_calls import MeteredRequest
from bot.service import Service
from bot.telegram_adapter import commands
from bot.telegram_adapter.handlers import AdminCache, Handlers
from bot.telegram_adapter.local_limiter import LocalRateLimiter, SendLog
from bot.telegram_adapter.transport import TelegramTransport

log = logging.getLogger(__name__)

MAX_RETRIES = 3  # RetryAfter (HTTP 429) is waited out and retried this many times before it surfaces
ALLOWED_UPDATES = [Update.MESSAGE, Update.CALLBACK_QUERY]


def api_urls(base: str) -> tuple[str, str]:
    """`http://host:8081` -> (`http://host:8081/bot`, `http://host:8081/file/bot`), the forms PTB appends a token to."""
    root = base.rstrip("/")
    root = root.removesuffix("/bot")
    return f"{root}/bot", f"{root}/file/bot"


def default_limiter(settings: Settings, sends: SendLog | None = None) -> BaseRateLimiter[Any]:
    """One worker: the in-process limiter, its per-group window kept in `sends` (the store) so a restart keeps it
    (bot/telegram_adapter/local_limiter.py). Several (MAJLIS_REDIS_URL set): the limiter they share through Redis
    (bot/telegram_adapter/limiter.py says why shared rather than chat affinity), its keys named after the bot's id
    so two bots on one Redis keep apart."""
    if settings.redis_url:
        from bot.telegram_adapter.limiter import SharedRateLimiter

        bot_id = (settings.telegram_token or "").partition(":")[0]
        return SharedRateLimiter.from_url(settings.redis_url, prefix=f"majlis:telegram:{bot_id}:",
                                          max_retries=MAX_RETRIES)
    return LocalRateLimiter(sends, max_retries=MAX_RETRIES)


class TelegramAdapter:
    def __init__(
        self,
        service: Service,
        settings: Settings,
        *,
        request: BaseRequest | None = None,
        get_updates_request: BaseRequest | None = None,
        rate_limiter: BaseRateLimiter[Any] | None = None,
        images: bool = True,
    ) -> None:
        if not settings.telegram_token:
            raise ValueError("TELEGRAM_BOT_TOKEN is not set")
        self.service = service
        self.settings = settings
        self.images = images
        builder = ApplicationBuilder().token(settings.telegram_token)
        if settings.telegram_base_url:
            base_url, base_file_url = api_urls(settings.telegram_base_url)
            builder = builder.base_url(base_url).base_file_url(base_file_url)
        metrics = getattr(service, "metrics", None)  # (a stand-in service without one counts nothing)
        if metrics is not None:
            # Every Bot API call counted by method and outcome (bot/platform_calls.py), around the request PTB
            # would build itself (its defaults: 256 connections, the default time-outs).
            request = MeteredRequest(request or HTTPXRequest(connection_pool_size=256), metrics)
        if request is not None:
            builder = builder.request(request)
        if get_updates_request is not None:
            builder = builder.get_updates_request(get_updates_request)
        # Updates of different tables run side by side; the service serialises each match with its own lock.
        # (A stand-in service without a store, as some tests build: the limits are kept in memory only.)
        builder = builder.rate_limiter(rate_limiter or default_limiter(settings, getattr(service, "store", None)))
        self.application: Application[Any, Any, Any, Any, Any, Any] = builder.concurrent_updates(True).build()
        self.transport = TelegramTransport(self.application.bot)
        self.handlers = Handlers(service, self.transport, AdminCache())
        self.application.add_handler(MessageHandler(filters.COMMAND & filters.UpdateType.MESSAGE,
                                                    self.handlers.on_command))
        self.application.add_handler(CallbackQueryHandler(self.handlers.on_press))
        self.application.add_error_handler(self.handlers.on_error)
        self._receiving = False

    @classmethod
    def for_tests(cls, service: Service, settings: Settings, request: BaseRequest,
                  get_updates_request: BaseRequest | None = None, **options: Any) -> TelegramAdapter:
        """One recording request for both API calls and getUpdates; never throttled, still retrying RetryAfter."""
        limiter = options.pop("rate_limiter", None) or AIORateLimiter(overall_max_rate=0, group_max_rate=0,
                                                                      max_retries=MAX_RETRIES)
        return cls(service, settings, request=request, get_updates_request=get_updates_request or request,
                   rate_limiter=limiter, **options)

    async def start(self, receive: bool = True) -> None:
        """Attach the transport, log in (getMe), publish the command menu, and start receiving updates."""
        self.service.attach(self.transport, images=self.images)
        await self.application.initialize()
        await self._publish_commands()
        await self.application.start()
        if receive:
            await self._start_receiving()

    async def _start_receiving(self) -> None:
        updater = self.application.updater
        if updater is None:
            return
        url = self.settings.telegram_webhook_url
        if url:
            try:
                import tornado  # noqa: F401  (PTB's webhook server)
            except ImportError as error:
                raise RuntimeError("webhook mode needs `pip install 'python-telegram-bot[webhooks]'`") from error
            await updater.start_webhook(
                listen=self.settings.telegram_webhook_listen,
                port=self.settings.telegram_webhook_port,
                url_path=urlparse(url).path.lstrip("/"),
                webhook_url=url,
                # One secret for every worker (Settings.webhook_secret): each worker calls setWebhook with the same
                # URL and secret, so registering again changes nothing and every worker accepts what Telegram sends.
                secret_token=self.settings.webhook_secret,
                allowed_updates=ALLOWED_UPDATES,
            )
        else:
            await updater.start_polling(allowed_updates=ALLOWED_UPDATES)
        self._receiving = True

    async def _publish_commands(self) -> None:
        """setMyCommands in Arabic and English, plus the Arabic default; a failure must not stop the bot."""
        for language, menu in commands.menus():
            try:
                await self.application.bot.set_my_commands(menu, language_code=language)
            except TelegramError:
                log.warning("setMyCommands (%s) failed", language or "default", exc_info=True)

    async def stop(self) -> None:
        """Stop in reverse order: updates first, then the application's workers, then the HTTP clients."""
        updater = self.application.updater
        if self._receiving and updater is not None and updater.running:
            await updater.stop()
        self._receiving = False
        if self.application.running:
            await self.application.stop()
        await self.application.shutdown()

    def connected(self) -> bool:
        """Whether the bot is logged in and receiving updates (for /readyz): the application runs, and its
        long polling or webhook server too."""
        updater = self.application.updater
        receiving = not self._receiving or (updater is not None and updater.running)
        return self.application.running and receiving

    async def process(self, update: Update) -> None:
        """Handle one update now (tests, and a webhook server of one's own)."""
        await self.application.process_update(update)
