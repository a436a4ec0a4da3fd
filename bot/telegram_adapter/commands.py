"""The command words the bot answers, their menu entries, and how a Telegram message text becomes (name, args).

Telegram appends `@botname` to commands chosen from the menu in groups; a command addressed to another bot must be
left alone, and so must a bare command we do not know when it was typed in a group (it may belong to another bot).
"""

from __future__ import annotations

from dataclasses import dataclass

from telegram import BotCommand

from bot.i18n import DEFAULT_LANGUAGE, LANGUAGES, t

# In menu order; every one of these is answered by `Service.command`.
COMMANDS = ("new", "play", "queue", "join", "leave", "start", "cancel", "hand", "score", "top", "stats", "rules",
            "lang", "help", "m", "back", "timer", "coins", "rated", "replay", "tournament")

# The operators' commands (MAJLIS_OPERATORS; bot/core/operators.py): answered, but not in anyone's menu.
OPERATOR_COMMANDS = ("ban", "unban", "status")
ANSWERED = frozenset(COMMANDS) | frozenset(OPERATOR_COMMANDS)

# Commands whose outcome depends on the sender being a chat administrator (checked with getChatMember on demand).
ADMIN_COMMANDS = frozenset({"cancel", "lang", "timer", "rated"})

# Commands whose text names the sender's cards: deleted from a group where the bot may delete messages.
SECRET_COMMANDS = frozenset({"m"})


@dataclass(frozen=True)
class ParsedCommand:
    name: str
    args: list[str]
    addressed: bool  # `@ourbot` was written explicitly


def parse(text: str | None, bot_username: str | None) -> ParsedCommand | None:
    """`/new@Majlis_bot kenza target=101` -> ParsedCommand("new", ["kenza", "target=101"]); None when not for us."""
    if not text or not text.startswith("/"):
        return None
    head, *args = text.split()
    name, _, target = head[1:].partition("@")
    if not name:
        return None
    if target and (bot_username is None or target.lower() != bot_username.lower()):
        return None
    return ParsedCommand(name.lower(), args, addressed=bool(target))


def menu(lang: str) -> list[BotCommand]:
    return [BotCommand(name, t(lang, f"cmd.{name}")[:256]) for name in COMMANDS]


def menus() -> list[tuple[str | None, list[BotCommand]]]:
    """(language_code, commands) for setMyCommands: one per catalog, plus the default (Arabic) for everyone else."""
    return [(lang, menu(lang)) for lang in LANGUAGES] + [(None, menu(DEFAULT_LANGUAGE))]
