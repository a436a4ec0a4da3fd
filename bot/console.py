"""The terminal adapter: the full service (lobby, bots, storage) played at a prompt, no token needed.

It is a third platform like Telegram and Discord: the group chat is the terminal, your private chat is the
terminal too. Type a number to press the button with that number, a move in notation (`play 6O take 4C 5E`), or a
command (`/score`, `/hand`, `/rules`, `/lang en`). Ctrl-C or Ctrl-D leaves.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import TextIO

from bot import callbacks
from bot.i18n import t
from bot.messages import Actor, Button, ChatRef, OutMessage, Reply
from bot.service import Service

PLATFORM = "console"
TABLE_CHAT = "table"
YOU = "you"


class ConsoleTransport:
    """Prints messages; remembers the buttons of your latest private message so a number can press them."""

    platform = PLATFORM
    push_private = True

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stdout
        self._ids = itertools.count(1)
        self.buttons: list[Button] = []
        self.lobby_buttons: list[Button] = []

    async def send(self, chat_id: str, message: OutMessage) -> str:
        self._print(chat_id, message)
        return str(next(self._ids))

    async def edit(self, chat_id: str, message_id: str, message: OutMessage) -> None:
        self._print(chat_id, message)

    async def delete(self, chat_id: str, message_id: str) -> None:
        return None

    def deep_link(self, payload: str) -> str | None:
        return None

    def _print(self, chat_id: str, message: OutMessage) -> None:
        private = chat_id == YOU
        bar = "─" * 60
        lines = [bar, message.text]
        if message.alt:
            lines.append(message.alt)
        buttons = [button for row in message.keyboard for button in row if button.data]
        if private:
            self.buttons = buttons
            lines += [f"  [{number}] {button.label}" for number, button in enumerate(buttons, start=1)]
        elif buttons and any(button.data.startswith(("j:", "s:", "n:")) for button in buttons):
            self.lobby_buttons = buttons
        print("\n".join(lines), file=self.out, flush=True)


class StdinReader:
    """Reads lines in a daemon thread, so a pending prompt never keeps the process alive after Ctrl-C."""

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._lines: asyncio.Queue[str | None] = asyncio.Queue()
        self._waiting = threading.Event()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        while True:
            self._waiting.wait()
            self._waiting.clear()
            try:
                line: str | None = input()
            except (EOFError, KeyboardInterrupt, OSError):
                line = None
            self._loop.call_soon_threadsafe(self._lines.put_nowait, line)
            if line is None:
                return

    async def __call__(self, prompt: str) -> str:
        print(prompt, end="", flush=True)
        self._waiting.set()
        line = await self._lines.get()
        if line is None:
            raise EOFError
        return line


async def play(
    service: Service,
    transport: ConsoleTransport,
    game_id: str,
    players: int,
    options: dict[str, str],
    lang: str,
    read: Callable[[str], str | Awaitable[str]] | None = None,
    name: str = "You",
) -> None:
    """Open a table with you and bots, then read moves until the match ends or you leave."""
    you = Actor(PLATFORM, YOU, name, language=lang, is_admin=True)
    table = ChatRef(PLATFORM, TABLE_CHAT)
    private = ChatRef(PLATFORM, YOU, private=True)
    say = _printer(transport)
    read = read or StdinReader()
    say(await service.command(you, table, "lang", [lang]))
    say(await service.command(you, table, "new", [game_id, *(f"{k}={v}" for k, v in options.items())]))
    match = await service.store.lobby_or_active_match(PLATFORM, TABLE_CHAT)
    if match is None:
        return
    for _ in range(players - 1):
        say(await service.press(you, table, callbacks.encode("b", match.id, "normal")))
    say(await service.press(you, table, callbacks.encode("s", match.id)))
    prompt = t(lang, "console.prompt")
    while True:
        match = await service.store.get_match(match.id)
        if match is None or match.status != "active":
            print(t(lang, "console.bye"), file=transport.out)
            return
        try:
            answer = read(prompt)
            text = (await answer if inspect.isawaitable(answer) else answer).strip()
        except (EOFError, KeyboardInterrupt):
            print("\n" + t(lang, "console.bye"), file=transport.out)
            return
        if not text:
            continue
        if text.lower() in ("q", "quit", "exit", "/quit"):
            print(t(lang, "console.bye"), file=transport.out)
            return
        if text.isdigit():
            number = int(text)
            if not 1 <= number <= len(transport.buttons):
                print(t(lang, "console.bad_number", count=len(transport.buttons)), file=transport.out)
                continue
            say(await service.press(you, private, transport.buttons[number - 1].data))
        elif text.startswith("/"):
            command, *args = text[1:].split()
            say(await service.command(you, table, command.lower(), args))
        else:
            say(await service.command(you, private, "m", text.split()))


def _printer(transport: ConsoleTransport) -> Callable[[Reply], None]:
    def say(reply: Reply) -> None:
        if reply.message is not None:
            transport._print(YOU, reply.message)
        if reply.text:
            print(("⚠ " if reply.alert else "» ") + reply.text, file=transport.out, flush=True)

    return say
