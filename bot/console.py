"""The terminal adapter: the full service (lobby, bots, storage) played at a prompt, no token needed.

It is a third platform like Telegram and Discord: the group chat is the terminal, your private chat is the
terminal too. Type a number to press the button with that number, a move in notation (`play 6O take 4C 5E`), or a
command (`/score`, `/hand`, `/rules`, `/lang en`). Ctrl-C or Ctrl-D leaves.

Turn timers are off (a player at the terminal may think as long as they like), but windows the rules time — a
Tunj claim's call window, and a Tunj bot's pause after each of its moves — run on the service's clock, so a bot's
uncalled slip is refused and play goes on. What they bring is printed while the prompt waits for your line: it
starts on a line of its own and the prompt comes again under it.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import logging
import re
import sys
import threading
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TextIO

import engine
from bot import callbacks
from bot.i18n import LANGUAGES, t
from bot.messages import Actor, Button, ChatRef, OutMessage, Reply
from bot.move_examples import move_examples
from bot.service import Service

PLATFORM = "console"
TABLE_CHAT = "table"
YOU = "you"
QUIT = ("q", "quit", "exit", "/quit", "/q")  # what leaves the table at the prompt
# A card or tile toggle of a rack keyboard (bot/games/rummy.py): its rack number, after a set-aside or selected mark.
TOGGLE = re.compile(r"^((?:📌|✓) )?(\d+)\. (.*)$", re.DOTALL)

log = logging.getLogger(__name__)


class ConsoleTransport:
    """Prints messages; remembers the buttons of your latest private message so a number can press them."""

    platform = PLATFORM
    push_private = True

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stdout
        self._ids = itertools.count(1)
        # Pass-and-play (a coin table: no bots): every seat is a player at this terminal, each with a private chat
        # here; only the player whose turn it is sees theirs, the others' newest one waits for their turn.
        self.local: set[str] = {YOU}
        self.current = YOU
        self._buttons: dict[str, dict[int, Button]] = {}
        self._latest: dict[str, OutMessage] = {}
        self.table_message: OutMessage | None = None  # the table's newest message, printed again after a clear
        self.lobby_buttons: list[Button] = []
        self.quiet = False  # while the table is being set up: the lobby's intermediate states are noise here
        self.private_shown = 0  # private messages printed so far (a command that printed one needs no reply)
        # The prompt printed and waiting for a line, if any: what the timers print meanwhile (a bot's Tunj move, a
        # closed Tunj! window) must not run on after it, and leaves the prompt under it again.
        self.prompt: str | None = None

    async def send(self, chat_id: str, message: OutMessage) -> str:
        self._remember(chat_id, message)
        if not message.ping:  # the rack printed just above already says whose turn it is
            self._print(chat_id, message)
        return str(next(self._ids))

    async def edit(self, chat_id: str, message_id: str, message: OutMessage) -> None:
        self._remember(chat_id, message)
        self._print(chat_id, message)

    def _remember(self, chat_id: str, message: OutMessage) -> None:
        if chat_id == TABLE_CHAT and not message.ping:
            self.table_message = message

    async def delete(self, chat_id: str, message_id: str) -> None:
        return None

    def deep_link(self, payload: str) -> str | None:
        return None

    async def table_chat(self, user_id: str) -> str:
        """A matched table (`majlis play --queue`) is printed where the terminal prints tables, the hand under it."""
        return TABLE_CHAT

    @property
    def buttons(self) -> list[Button]:
        """The buttons a number presses, by number: those of the newest private message of the player at the
        keyboard."""
        numbered = self._buttons.get(self.current, {})
        return [numbered[number] for number in sorted(numbered)]

    def button(self, number: int) -> Button | None:
        return self._buttons.get(self.current, {}).get(number)

    @property
    def highest(self) -> int:
        """The highest number a button of the keyboard's player has (0: none)."""
        return max(self._buttons.get(self.current, {}), default=0)

    def switch(self, chat_id: str, name: str) -> None:
        """Pass the keyboard to another local player: their newest private message is shown again."""
        if chat_id == self.current:
            return
        self.current = chat_id
        print("═" * 60 + "\n" + name, file=self.out, flush=True)
        if chat_id in self._latest:
            self._print(chat_id, self._latest[chat_id])

    def _print(self, chat_id: str, message: OutMessage) -> None:
        if self.quiet:
            return
        private = chat_id in self.local
        buttons = [button for row in message.keyboard for button in row if button.data]
        numbered = numbers(buttons)
        if private:
            self._buttons[chat_id] = {number: button for number, button, _label in numbered}
            self._latest[chat_id] = message
            if chat_id != self.current:
                return  # another local player's cards: shown when the keyboard is theirs
        self.private_shown += private
        bar = "─" * 60
        lines = [bar, message.text]
        if message.alt:
            lines.append(message.alt)
        if private:
            lines += [f"  [{number}] {label}" for number, _button, label in numbered]
        elif buttons and any(button.data.startswith(("j:", "s:", "n:")) for button in buttons):
            self.lobby_buttons = buttons
        if self.prompt is None:
            print("\n".join(lines), file=self.out, flush=True)
        else:
            # The cursor waits after the prompt: a terminal clears that line (the prompt comes again below, so a
            # run of bot moves leaves one prompt under the last), anything else gets a new line.
            tty = getattr(self.out, "isatty", lambda: False)()
            print(("\r\x1b[K" if tty else "\n") + "\n".join(lines) + "\n" + self.prompt, end="", file=self.out,
                  flush=True)


def numbers(buttons: list[Button]) -> list[tuple[int, Button, str]]:
    """Each button's number at this prompt and the label printed beside it, in keyboard order. A card or tile
    toggle ("2. 🟥5", "✓ 2. 🟥5") takes the number it has in the rack line, whatever order the keyboard shows (🧩
    Arrange regroups them, opening buttons come first), so `[2]` is always tile 2; the other buttons are numbered
    after the last tile. A keyboard without such toggles (or with a number twice) is numbered in order."""
    marks = [TOGGLE.match(button.label) for button in buttons]
    taken = [int(mark.group(2)) for mark in marks if mark]
    if not taken or len(set(taken)) != len(taken):
        return [(number, button, button.label) for number, button in enumerate(buttons, start=1)]
    after = itertools.count(max(taken) + 1)
    return [(int(mark.group(2)), button, (mark.group(1) or "") + mark.group(3)) if mark
            else (next(after), button, button.label) for button, mark in zip(buttons, marks, strict=True)]


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
            try:
                self._loop.call_soon_threadsafe(self._lines.put_nowait, line)
            except RuntimeError:  # the game already ended (Ctrl-C, q) and closed its loop: nobody waits for this line
                return
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
    name: str = "",
    bots: str = "normal",
    timer_interval: float = 0.5,
    stake: int = 0,
    linger: bool = False,
) -> Reply | None:
    """Open a table with you and bots of level `bots`, then read moves until the match ends or you leave. Returns
    the lobby's answer when the table did not open or start (a mode not opened from here, a stake nobody can pay),
    so that `majlis play` says it on stderr and exits 2 like every other refused start; None once it was played.

    With no `name` you appear as "You" in the language of the moment (presenter.seat_names), addressed in the
    second person.

    With a `stake` (a coin table, where bots may not sit) the other seats are players at this same terminal,
    passing the keyboard: each sees their own cards when their turn comes (pass-and-play).

    With `linger` (the `majlis play` command) the terminal stays after the end for commands such as /replay, until
    a line that is not a command."""
    if stake and not name:
        # Pass-and-play: every seat reads the one screen, so none of them is "You" — the keyboard's first player is
        # named like the others ("Player 1"), else the table would tell every player "You: …" of the first one's moves.
        name = t(lang, "console.player", n=1)
    you = Actor(PLATFORM, YOU, name, language=lang, is_admin=True)
    guests = [Actor(PLATFORM, f"player{number}", t(lang, "console.player", n=number), language=lang)
              for number in range(2, players + 1)] if stake else []
    transport.local |= {guest.user_id for guest in guests}
    table = ChatRef(PLATFORM, TABLE_CHAT)
    say = _printer(transport)
    read = read or StdinReader()
    # Set the table up quietly: the language is the one asked for on the command line (no "this chat now
    # speaks ..." line), your private chat is open (no "your cards will appear here"), and the lobby is shown once,
    # as it starts, instead of once per seat filled.
    transport.quiet = True
    try:
        await service.command(you, table, "lang", [lang])
        await service.command(you, table, "timer", ["0"])  # turn timers off; rule windows stay timed
        for actor in (you, *guests):
            await service.command(actor, ChatRef(PLATFORM, actor.user_id, private=True), "start")
        words = [game_id, *(f"{k}={v}" for k, v in options.items()), *([f"stake={stake}"] if stake else [])]
        opened = await service.command(you, table, "new", words)
        match = await service.store.lobby_or_active_match(PLATFORM, TABLE_CHAT)
        if match is not None:
            for guest in guests:
                await service.command(guest, table, "join")
            for _ in range(players - 1 - len(guests)):
                await service.press(you, table, callbacks.encode("b", match.id, bots))
    finally:
        transport.quiet = False
    if match is None:
        return opened
    await _say_coins(service, [you, *guests] if stake else [], say)  # before the stakes go into the pot
    started = await service.press(you, table, callbacks.encode("s", match.id))
    if started.alert:  # the lobby message already says that the game has started
        say(started)
    match = await service.store.get_match(match.id)
    if match is None or match.status != "active":
        return started
    timers = asyncio.create_task(service.run_timers(timer_interval))
    try:
        await _read_moves(service, transport, match.id, [you, *guests], lang, read, say, linger)
    finally:
        timers.cancel()
    return None


async def play_queued(service: Service, transport: ConsoleTransport, game_id: str, mode: str | None, lang: str,
                      read: Callable[[str], str | Awaitable[str]] | None = None, name: str = "",
                      timer_interval: float = 0.5, linger: bool = False) -> Reply | None:
    """`majlis play --queue`: join the game's queue from your private chat, as `/play` does in a chat; the terminal
    is one more platform of the one queue. Alone at this terminal, the Quick queue's bots take the empty seats once
    its wait is over (the service's queue wait), and the table the queue seats is played here; the mode's turn timers
    run, as at any matched table. Returns the queue's refusal (a rated queue, which never seats bots, is one), or
    None once it was played."""
    you = Actor(PLATFORM, YOU, name, language=lang)
    private = ChatRef(PLATFORM, YOU, private=True)
    say = _printer(transport)
    transport.quiet = True
    try:
        await service.command(you, private, "lang", [lang])
        await service.command(you, private, "start")
    finally:
        transport.quiet = False
    player = await service.store.find_player(PLATFORM, YOU)
    assert player is not None
    words = [game_id, *([mode] if mode else [])]
    if service.matchmaking.refuses_alone(game_id, mode):
        return Reply(t(lang, "console.queue_people"), alert=True)
    answer = await service.command(you, private, "play", words)
    if answer.alert:
        return answer
    say(answer)
    timers = asyncio.create_task(service.run_timers(timer_interval))
    try:
        while (match := await service.store.player_active_match(PLATFORM, player.id)) is None:
            await asyncio.sleep(timer_interval)
        await _read_moves(service, transport, match.id, [you], lang, read or StdinReader(), say, linger)
    finally:
        timers.cancel()
    return None


def _called(player: Actor) -> str:
    """How the keyboard's player is named in pass-and-play lines: the unnamed terminal player is "You", as on the
    screens (presenter.seat_names)."""
    return player.name or t(player.language or "en", "console.you")


async def _say_coins(service: Service, players: list[Actor], say: Callable[[Reply], None]) -> None:
    for player in players:
        reply = await service.command(player, ChatRef(PLATFORM, player.user_id, private=True), "coins")
        say(Reply(f"{_called(player)}: {reply.text}"))


async def _at_keyboard(service: Service, match_id: int, players: list[Actor]) -> Actor:
    """The local player whose turn it is (the first one while a bot or nobody is to move)."""
    match = await service.store.get_match(match_id)
    if len(players) == 1 or match is None or match.snapshot is None:
        return players[0]
    game = engine.get(match.game)
    seat = game.to_move(game.from_json(match.snapshot))
    for record in await service.store.seats(match_id):
        if record.seat == seat and record.player_id is not None:
            player = await service.store.get_player(record.player_id)
            return next((actor for actor in players if player and actor.user_id == player.user_id), players[0])
    return players[0]


async def _read_moves(service: Service, transport: ConsoleTransport, match_id: int, players: list[Actor],
                      lang: str, read: Callable[[str], str | Awaitable[str]], say: Callable[[Reply], None],
                      linger: bool = False) -> None:
    while True:
        match = await service.store.get_match(match_id)
        if match is None or match.status != "active":
            finished = match is not None and match.status == "finished"
            if finished and match.stake:
                await _say_coins(service, players, say)  # the terminal's store ends with the game: where the pot went
            if finished and linger:
                print(t(lang, "console.over", id=match.id), file=transport.out, flush=True)
                await _after_the_end(service, transport, players[0], lang, read, say)
            else:
                print(t(lang, "console.bye"), file=transport.out)
            return
        you = await _at_keyboard(service, match_id, players)
        if you.user_id != transport.current and not await _hand_over(transport, you, lang, read):
            print(t(lang, "console.bye"), file=transport.out)
            return
        transport.switch(you.user_id, t(lang, "console.turn_of", name=_called(you)))
        prompt = t(lang, "console.prompt")
        if len(players) > 1:
            prompt = f"[{_called(you)}] {prompt}"
        try:
            transport.prompt = prompt
            answer = read(prompt)
            text = (await answer if inspect.isawaitable(answer) else answer).strip()
        except (EOFError, KeyboardInterrupt):
            print("\n" + t(lang, "console.bye"), file=transport.out)
            return
        finally:
            transport.prompt = None
        if not text:
            continue
        if text.lower() in QUIT:
            print(t(lang, "console.bye"), file=transport.out)
            return
        try:
            lang = await _answer(service, transport, you, text, lang, say)
        except Exception:  # a bug behind one input must not end the match: say so and keep the table
            log.exception("console input %r failed", text)
            print("⚠ " + t(lang, "err.generic"), file=transport.out, flush=True)


async def _hand_over(transport: ConsoleTransport, player: Actor, lang: str,
                     read: Callable[[str], str | Awaitable[str]]) -> bool:
    """Pass-and-play: the next player's cards wait for their Enter, so they never print right under the cards of
    the player who just moved; on a real terminal the screen is cleared first. False: they left (q, Ctrl-D)."""
    print("═" * 60, file=transport.out, flush=True)
    try:
        answer = read(t(lang, "console.pass_to", name=_called(player)))
        text = (await answer if inspect.isawaitable(answer) else answer).strip()
    except (EOFError, KeyboardInterrupt):
        return False
    if text.lower() in QUIT:
        return False
    if transport.out.isatty():  # the cards of the player before scroll out of sight, scrollback included
        print("\033[H\033[2J\033[3J", end="", file=transport.out, flush=True)
        if transport.table_message is not None:  # what happened at the table stays in view
            transport._print(TABLE_CHAT, transport.table_message)
    return True


async def _after_the_end(service: Service, transport: ConsoleTransport, you: Actor, lang: str,
                         read: Callable[[str], str | Awaitable[str]], say: Callable[[Reply], None]) -> None:
    """The match is over: commands (/replay, /score, /stats...) still work until a line that is not one (or q)."""
    while True:
        try:
            answer = read(t(lang, "console.prompt"))
            text = (await answer if inspect.isawaitable(answer) else answer).strip()
        except (EOFError, KeyboardInterrupt):
            text = ""
        if not text.startswith("/") or text.lower() in ("/quit", "/q"):
            print(t(lang, "console.bye"), file=transport.out)
            return
        try:
            lang = await _answer(service, transport, you, text, lang, say)
        except Exception:
            log.exception("console input %r failed", text)
            print("⚠ " + t(lang, "err.generic"), file=transport.out, flush=True)


async def _answer(service: Service, transport: ConsoleTransport, you: Actor, text: str, lang: str,
                  say: Callable[[Reply], None]) -> str:
    """Act on one typed line (a button number, a /command or a move); returns the language from now on."""
    table = ChatRef(PLATFORM, TABLE_CHAT)
    private = ChatRef(PLATFORM, you.user_id, private=True)
    if text.isdigit():
        number = int(text)
        button = transport.button(number)
        if button is None:
            print(t(lang, "console.bad_number", count=transport.highest), file=transport.out)
        else:
            say(await service.press(you, private, button.data))
        return lang
    if not text.startswith("/"):
        say(await service.command(you, private, "m", text.split()))
        return lang
    command, *args = text[1:].split() or [""]
    command = command.lower()
    if not command or not command.isascii() or not command.isalpha():
        print("» " + t(lang, "err.unknown_command"), file=transport.out, flush=True)
        return lang
    if command == "timer":  # nothing runs turn timers here: the terminal waits for you
        print("» " + t(lang, "console.no_timer"), file=transport.out, flush=True)
        return lang
    if command == "help":  # the chats' /help lists commands that mean nothing here (/join, /back, /timer...)
        print("» " + await _terminal_help(service, lang), file=transport.out, flush=True)
        return lang
    shown = transport.private_shown
    reply = await service.command(you, table, command, args)
    if command == "hand" and transport.private_shown > shown and not reply.alert:
        reply = Reply("", message=reply.message)  # the hand is printed right here, not "sent to a private chat"
    say(reply)
    if command == "lang" and args and args[0].lower() in LANGUAGES:
        return args[0].lower()
    return lang


async def _terminal_help(service: Service, lang: str) -> str:
    """What works at this prompt, with a move example of the game at the table (and /coins at a coin table)."""
    from bot.coin_tables import COIN_GAMES

    match = await service.store.latest_match(PLATFORM, TABLE_CHAT)
    game = match.game if match is not None else None
    text = t(lang, "console.help", example=" · ".join(move_examples(game)))
    if match is not None and match.stake and game in COIN_GAMES:  # before the last line, "q — leave"
        *lines, leave = text.split("\n")
        text = "\n".join([*lines, t(lang, "console.help.coins"), leave])
    return text


def _printer(transport: ConsoleTransport) -> Callable[[Reply], None]:
    def say(reply: Reply) -> None:
        if reply.message is not None and reply.in_place:
            # A leaderboard or profile belongs to the table's chat; its page buttons are not numbered here (they
            # would take the rack's numbers): `/top ... 2` types a page instead.
            transport._print(TABLE_CHAT, replace(reply.message, keyboard=[]))
        elif reply.message is not None:
            transport._print(YOU, reply.message)
        if reply.text:
            print(("⚠ " if reply.is_error else "» ") + reply.text, file=transport.out, flush=True)

    return say
