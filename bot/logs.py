"""The bot's log lines: readable text by default, or one JSON object a line (MAJLIS_LOG_FORMAT=json) for a log
collector, each carrying the match, the platform and the worker it came from; and never a secret.

Which match and platform a line is about comes from the context of the work that logged it (`log_context`: the
service sets it around a move, a delivery, a timer, an update), so a line from deep inside the storage or a
platform library still names its match without every call site passing it.

Secrets: the tokens and the webhook secret are blanked from every line, its arguments and its traceback
(`Redactor`, on the handler, so it sees the records of every logger), and so is anything shaped like a Telegram or
Discord bot token, even one this process was not given (a token in a library's exception text).

Hidden cards: the service never logs a hand, a rack or a typed move's text, and the libraries that would (their
request bodies and SQL parameters at DEBUG) are held above those levels (`QUIET`); tests/test_ops_logs.py plays
moves with the bot's own loggers at DEBUG and looks for every held card in every line.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import socket
import time
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from typing import Any

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
HIDDEN = "[secret]"
# A Telegram bot token (bot id, a colon, 35 characters of its alphabet) and a Discord bot token (three base64url
# parts joined by dots, the first the base64 of the bot's numeric id).
TOKEN_SHAPES = re.compile(r"\b\d{5,}:[A-Za-z0-9_-]{30,}"
                          r"|\b[MNO][A-Za-z0-9_-]{22,}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,}")

_FIELDS: ContextVar[dict[str, Any]] = ContextVar("majlis-log-fields", default={})  # noqa: B039  (never mutated)


@contextlib.contextmanager
def log_context(**fields: Any) -> Iterator[None]:
    """Lines logged inside (and in tasks started inside) carry these fields (match=…, platform=…)."""
    token = _FIELDS.set({**_FIELDS.get(), **{key: value for key, value in fields.items() if value is not None}})
    try:
        yield
    finally:
        _FIELDS.reset(token)


def bind_log_fields(**fields: Any) -> None:
    """`log_context`'s fields for the rest of the current task (a task of its own: a match's delivery)."""
    _FIELDS.set({**_FIELDS.get(), **{key: value for key, value in fields.items() if value is not None}})


def worker_name() -> str:
    """MAJLIS_WORKER when set, else the host name and process id."""
    return (os.environ.get("MAJLIS_WORKER") or "").strip() or f"{socket.gethostname()}:{os.getpid()}"


class ContextFields(logging.Filter):
    """Puts the context's match and platform, and the worker's name, on each record (a record's own `extra`
    wins)."""

    def __init__(self, worker: str | None = None) -> None:
        super().__init__()
        self.worker = worker or worker_name()

    def filter(self, record: logging.LogRecord) -> bool:
        fields = _FIELDS.get()
        for key in ("match", "platform"):
            if not hasattr(record, key):
                setattr(record, key, fields.get(key))
        if not hasattr(record, "worker"):
            record.worker = self.worker
        return True


class Redactor(logging.Filter):
    """Blanks the secrets (and anything token-shaped) from a record's message and traceback, in place."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self.secrets = sorted({secret for secret in secrets if secret}, key=len, reverse=True)

    def clean(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, HIDDEN)
        return TOKEN_SHAPES.sub(HIDDEN, text)

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed call (arguments that do not fit): the handler reports it, as logging does
            return True
        cleaned = self.clean(message)
        if cleaned != message or record.args:
            record.msg, record.args = cleaned, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.clean(record.exc_text)
        if record.stack_info:
            record.stack_info = self.clean(record.stack_info)
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time (ISO 8601, UTC), level, logger, message, match, platform, worker, and the
    traceback as `exception` when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "match": getattr(record, "match", None),
            "platform": getattr(record, "platform", None),
            "worker": getattr(record, "worker", None),
        }
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            line["exception"] = record.exc_text
        if record.stack_info:
            line["stack"] = record.stack_info
        return json.dumps(line, ensure_ascii=False, default=str)


def handler_for(stream: Any, log_format: str = "text", secrets: Iterable[str] = (),
                worker: str | None = None) -> logging.Handler:
    """A stream handler writing `log_format` lines with the context fields on, and the secrets off, every record."""
    handler = logging.StreamHandler(stream)
    handler.addFilter(ContextFields(worker))
    handler.addFilter(Redactor(secrets))
    handler.setFormatter(JsonFormatter() if log_format == "json" else logging.Formatter(TEXT_FORMAT))
    return handler


def configure_logging(operators: bool, log_format: str = "text", secrets: Iterable[str] = (),
                      worker: str | None = None, stream: Any = None) -> None:
    """Operators of the chat bots read INFO lines (schema migrations, connections); a person playing in the terminal
    sees only what went wrong, not the migrations of the game's own throw-away database."""
    logging.basicConfig(level=logging.INFO if operators else logging.WARNING,
                        handlers=[handler_for(stream, log_format, secrets, worker)])
    quiet_libraries()


# Libraries whose lower levels print what a log must never hold: httpx each Bot API URL (the token) at INFO;
# aiosqlite each statement with its parameters (a move's stored state: every hand) at DEBUG, python-telegram-bot
# and discord.py each request's body (a rack's caption) at DEBUG, SQLAlchemy statements and parameters at INFO.
QUIET = {"httpx": logging.WARNING, "aiosqlite": logging.INFO, "telegram": logging.INFO, "discord": logging.INFO,
         "sqlalchemy.engine": logging.WARNING}


def quiet_libraries() -> dict[str, int]:
    """Keep QUIET's loggers at their levels at least, however low the root's; returns their levels before."""
    before = {}
    for name, level in QUIET.items():
        logger = logging.getLogger(name)
        before[name] = logger.level
        logger.setLevel(max(level, logger.level))
    return before
