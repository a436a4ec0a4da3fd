"""bench/pipeline.py under Telegram's limits, and with tables of 2 or 4 humans: how many calls a move costs against
the bot's budget, and how long each screen takes to come when the budget is tight.

    .venv/bin/python bench/pipeline.py --limits telegram [--humans 1|2|4] [--game kenza] [--matches 250]
                                       [--think 20] [--moves 30] [--duration SECONDS] [--render-processes N]
    .venv/bin/python bench/pipeline.py --limits none --humans 2 ...   (the same tables, no limiter: said loudly)

`--limits telegram` runs the PRODUCTION rate limiter, built as bot/runner.py builds it (`TelegramAdapter` with no
limiter given -> `bot.telegram_adapter.adapter.default_limiter`: the in-process `LocalRateLimiter`, its group
window kept in the bench's store), at Telegram's published limits: 1 message a second per chat, 20 a minute per
group, 30 a second for the bot; answerCallbackQuery (and getMe, setMyCommands) not counted. The fake Bot API
(tests/tg_harness.py) answers every call at once, so every wait measured is the limiter's or the bot's own. The
tables are opened before the limits apply (a `Gate` in front of the production limiter lets the setup through;
then every call goes through that limiter object): opening 500 lobbies is not what is measured.

Each table has `--humans` simulated people (1: one human against a normal bot, as bench/pipeline.py's default
tables). Only the player to move thinks: when their rack shows move buttons for the current position, they
think U[0, 2 * think] seconds and press (Kenza: the rack's first move button, a pick followed by its first
choice) or type (the other games: `/m <move>` chosen by the engine's normal bot from the seat's view; the reply
to a typed move is a sendMessage, which a press would answer with the uncounted answerCallbackQuery, so it is
shown apart). Offered load is therefore about tables / think human moves a second.

It prints, per human move: counted calls (by method), the latency from the press to its answer, to the mover's
rack redrawn, to the next human's rack with move buttons (with one human: their rack after the bot's reply),
to the group's table showing it, and to the "your turn" ping when one was sent (p50/p99 each); served vs offered
moves a second; and, at the end, whether every screen was up to date (each table's match finished or stopped
after `--moves` or `--duration`, the turn timers stopped, then every owed delivery, coalesced table edits included,
run to the end before calls are counted). Timer moves during the run (a player whose rack came too late) count
against the human moves: a slow screen costs calls too. With --limits telegram the order the screens degrade in
past the budget shows in those latencies: the next player's rack first, then the mover's rack, then the table,
pings last (bot/telegram_adapter/local_limiter.py's priorities).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.checks import BrokenRun  # noqa: E402
from bench.pipeline import fresh_turns  # noqa: E402
from bench.pipeline_games import TypedHuman, moved  # noqa: E402
from bench.usage import CpuMeter  # noqa: E402
from bot.heap import freeze_startup_heap  # noqa: E402
from bot.service import Service  # noqa: E402
from storage import Store  # noqa: E402

UNCOUNTED = {"answerCallbackQuery", "getMe", "setMyCommands", "getUpdates", "deleteWebhook", "getWebhookInfo"}
PICTURES = ("sendPhoto", "editMessageMedia", "editMessageCaption")
LOUD = ("!" * 100 + "\n!!! NO RATE LIMITER: --limits none. Telegram allows ~30 messages/s per bot, 20/min per group, "
        "1/s per chat;\n!!! nothing here waits for them, so these latencies and capacities do NOT hold on Telegram.\n"
        + "!" * 100)


def tables_for(game: str, humans: int) -> tuple[str, dict[str, str]]:
    """The `/new` words of a table for `humans` people (1: against a normal bot): bench/pipeline_games.py's
    tables, with Canasta and Konkan tiles taking their variant for the seat count."""
    if game == "canasta":
        return game, {"variant": "duo", "target": "2500"} if humans <= 2 else {}
    if game == "tunj":
        return game, {"claim_seconds": "1"}
    if game == "konkan_tiles" and humans == 1:
        return game, {"mode": "private"}
    return game, {}


class Gate:
    """What the application's rate limiter is: during the setup, calls go straight out; from `close()` on, every
    call goes through `inner` — the production limiter object itself, not a copy."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.limited = False

    async def initialize(self) -> None:
        await self.inner.initialize()

    async def shutdown(self) -> None:
        await self.inner.shutdown()

    async def process_request(self, callback: Any, args: Any, kwargs: dict[str, Any], endpoint: str,
                              data: dict[str, Any], rate_limit_args: Any) -> Any:
        if not self.limited:
            return await callback(*args, **kwargs)
        return await self.inner.process_request(callback, args, kwargs, endpoint, data, rate_limit_args)


@dataclass
class Screens:
    """What the fake Telegram showed and when (perf_counter seconds): per private chat its recent racks with the
    versions their move buttons are for, pings; per group its table edits; every counted call by method."""

    # every one of the timed part (a few floats per move): a move's screens are looked up after the run
    racks: dict[str, list[tuple[float, frozenset[int]]]] = field(default_factory=lambda: defaultdict(list))
    pings: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    tables: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    counted: Counter[str] = field(default_factory=Counter)
    rack_count: Counter[str] = field(default_factory=Counter)  # racks shown per private chat, ever
    typed_replies: int = 0
    counting: bool = False
    changed: dict[str, asyncio.Event] = field(default_factory=lambda: defaultdict(asyncio.Event))
    ping_texts: set[str] = field(default_factory=set)
    waiting: dict[str, asyncio.Future[float]] = field(default_factory=dict)  # query id / private chat -> answer

    def answer(self, key: str) -> asyncio.Future[float]:
        """The time the press `key` (its query id) or the typed move in private chat `key` is answered."""
        future = self.waiting[key] = asyncio.get_running_loop().create_future()
        return future

    def _answered(self, key: str, now: float) -> None:
        future = self.waiting.pop(key, None)
        if future is not None and not future.done():
            future.set_result(now)

    async def record(self, call: Any) -> None:
        now = time.perf_counter()
        method, chat = call.method, call.chat_id
        if method == "answerCallbackQuery":
            self._answered(str(call.params.get("callback_query_id")), now)
        if self.counting and method not in UNCOUNTED:
            self.counted[method] += 1
        if chat is None:
            return
        private = not chat.startswith("-")
        if method in PICTURES:
            if private:
                keyboard = (call.markup or {}).get("inline_keyboard", [])
                versions = frozenset(int(b["callback_data"].split(":")[2]) for row in keyboard for b in row
                                     if b.get("callback_data", "").startswith(("m:", "p:")))
                self.racks[chat].append((now, versions))
                self.rack_count[chat] += 1
                self.changed[chat].set()
            else:
                self.tables[chat].append(now)
        elif method == "sendMessage" and private:
            if call.params.get("text") in self.ping_texts:
                self.pings[chat].append(now)
            else:
                self._answered(chat, now)
                self.typed_replies += self.counting

    def first_rack(self, chat: str, since: float, wanted: Any) -> float | None:
        return next((at for at, versions in self.racks[chat] if at >= since and wanted(versions)), None)

    async def wait_rack(self, chat: str, version: int, timeout: float) -> bool:
        """Until the chat's newest rack has move buttons for `version` (or later)."""
        deadline = time.perf_counter() + timeout
        while True:
            kept = self.racks[chat]
            if kept and kept[-1][1] and max(kept[-1][1]) >= version:
                return True
            left = deadline - time.perf_counter()
            if left <= 0:
                return False
            event = self.changed[chat]
            event.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), min(left, 1.0))


@dataclass
class Latencies:
    answer: list[float] = field(default_factory=list)
    mover: list[float] = field(default_factory=list)
    next: list[float] = field(default_factory=list)
    table: list[float] = field(default_factory=list)
    ping: list[float] = field(default_factory=list)
    moves: int = 0
    pending: list[tuple[float, str, str, str | None, str, int]] = field(default_factory=list)
    timed_out: int = 0


class Bench:
    def __init__(self, args: argparse.Namespace) -> None:
        from tests.tg_harness import FakeTelegram

        self.args = args
        self.game, self.options = tables_for(args.game, args.humans)
        self.typed = None if self.game == "kenza" else TypedHuman(self.game)
        self.server = FakeTelegram(keep_uploads=False, history=8)
        self.screens = Screens()
        self.server.on_call = self.screens.record
        self.lat = Latencies()
        self.tasks: set[asyncio.Task[Any]] = set()
        self.deadline = float("inf")  # perf_counter time the players stop (--duration)

    def chat(self, table: int) -> int:
        return -1_000_000_000 - table

    def user(self, table: int, seat: int) -> dict[str, Any]:
        return {"id": 10_000 + 4 * table + seat, "is_bot": False, "first_name": f"P{table}.{seat}",
                "language_code": "en"}

    async def start(self, service: Service) -> None:
        from bot.i18n import LANGUAGES, game_name, t
        from bot.telegram_adapter import TelegramAdapter
        from bot.telegram_adapter.adapter import default_limiter
        from tests.tg_harness import RecordingRequest, make_settings

        settings = make_settings()
        if self.args.limits == "telegram":
            production = default_limiter(settings, service.store)  # as TelegramAdapter builds it without one given
        else:
            from telegram.ext import AIORateLimiter

            production = AIORateLimiter(overall_max_rate=0, group_max_rate=0, max_retries=3)
        self.gate = Gate(production)
        request = RecordingRequest(self.server)
        self.adapter = TelegramAdapter(service, settings, request=request, get_updates_request=request,
                                       rate_limiter=self.gate)  # type: ignore[arg-type]
        await self.adapter.start(receive=False)
        self.screens.ping_texts = {t(lang, "ping.turn", game=game_name(lang, self.game)) for lang in LANGUAGES}

    async def _process(self, update: Any) -> None:
        await self.adapter.process(update)

    def _spawn(self, update: Any) -> None:
        """Hand an update to the application without waiting for it: the player acts on what the screens show,
        not on when the bot's handler returns (it goes on delivering after the answer)."""
        task = asyncio.create_task(self._process(update))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def open_table(self, table: int) -> int:
        from tests.tg_harness import first_data

        bot = self.adapter.application.bot
        chat, creator = self.chat(table), self.user(table, 0)
        words = " ".join([self.game, *(f"{k}={v}" for k, v in self.options.items())])
        await self._process(self.server.command(bot, creator, chat, "/new " + words))
        presses = [(self.user(table, seat), "j:") for seat in range(1, self.args.humans)]
        presses += [(creator, "b:")] if self.args.humans == 1 else []
        for who, prefix in [*presses, (creator, "s:")]:
            for call in reversed(self.server.calls_to(chat)):
                data = first_data((call.markup or {}).get("inline_keyboard", []), prefix)
                if data:
                    message_id = int(call.params.get("message_id") or call.sent_id)
                    await self._process(self.server.press(bot, who, chat, message_id, data))
                    break
        match = await self.adapter.service.store.lobby_or_active_match("telegram", str(chat))
        if match is None or match.status != "active":
            raise BrokenRun(f"the bench table did not start: /new {words} with {self.args.humans} humans")
        return match.id

    async def play(self, table: int, match_id: int) -> None:
        """The table's players, one at a time: the one to move waits for their rack, thinks, presses."""
        import engine

        store = self.adapter.service.store
        game = engine.get(self.game)
        users: dict[int, dict[str, Any]] = {}  # seat -> the bench's user sitting there
        for seat in await store.seats(match_id):
            if seat.is_human:
                player = await store.get_player(seat.player_id)
                users[seat.seat] = next(self.user(table, k) for k in range(4)
                                        if str(self.user(table, k)["id"]) == player.user_id)
        thinking = random.Random(f"think:{table}")
        moves = 0
        while (not self.args.moves or moves < self.args.moves) and time.perf_counter() < self.deadline:
            match = await store.get_match(match_id)
            if match is None or match.status != "active":
                return
            state = game.from_json(match.snapshot)
            seat = game.to_move(state)
            if seat is None or seat not in users:  # a bot at its pace (Tunj): wait for its move
                await asyncio.sleep(0.2)
                continue
            who = users[seat]
            chat = str(who["id"])
            if not await self.screens.wait_rack(chat, match.version, 120.0):
                current = await store.get_match(match_id)
                if current is not None and current.version != match.version:
                    continue  # a timer or a bot moved meanwhile
                raise BrokenRun(f"match {match_id}: seat {seat}'s rack never showed version {match.version}")
            if self.args.think:
                delay = thinking.uniform(0, 2 * self.args.think)
                if time.perf_counter() + delay >= self.deadline:
                    return  # the run ends while this player thinks
                await asyncio.sleep(delay)
            await self.move(match_id, match.version, who, users, seat)
            moves += 1

    async def move(self, match_id: int, version: int, who: dict[str, Any], users: dict[int, dict[str, Any]],
                   seat: int) -> None:
        from tests.tg_harness import first_data

        bot = self.adapter.application.bot
        store = self.adapter.service.store
        chat = str(who["id"])
        if self.typed is not None:
            decision = await self.typed.decide(store, match_id, seat)
            if decision is None:
                return
            answered = self.screens.answer(chat)
            started = time.perf_counter()
            self._spawn(self.server.command(bot, who, who["id"], "/m " + decision.move))
            try:
                at = await asyncio.wait_for(answered, 600)
            except TimeoutError:
                raise BrokenRun(f"match {match_id}: a typed move was never answered") from None
            after = await store.get_match(match_id)
            if not moved(decision, after):
                return
            self.lat.answer.append(1000 * (at - started))
        else:
            rack = self.server.rack(who["id"])
            data = first_data(rack[1], "m:", "p:") if rack else None
            if data is None or int(data.split(":")[2]) != version:
                return  # the position moved meanwhile (a timer): the loop reads it again
            if data.startswith("p:"):
                update = self.server.press(bot, who, who["id"], rack[0], data)
                mark = self.screens.rack_count[chat]
                self._spawn(update)
                while self.screens.rack_count[chat] == mark:  # the rack redrawn with the choices
                    self.screens.changed[chat].clear()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self.screens.changed[chat].wait(), 60)
                rack = self.server.rack(who["id"])
                data = first_data(rack[1], "m:")
                if data is None:
                    return
            update = self.server.press(bot, who, who["id"], rack[0], data)
            answered = self.screens.answer(update.callback_query.id)
            started = time.perf_counter()
            self._spawn(update)  # answered first; its handler goes on delivering the screens
            try:
                at = await asyncio.wait_for(answered, 600)
            except TimeoutError:
                raise BrokenRun(f"match {match_id}: a press was never answered") from None
            after = await store.get_match(match_id)
            if after is None or after.version <= version:
                return
            self.lat.answer.append(1000 * (at - started))
        self.lat.moves += 1
        nxt = None
        if after.status == "active":
            import engine

            turn = engine.get(self.game).to_move(engine.get(self.game).from_json(after.snapshot))
            nxt = str(users[turn]["id"]) if turn in users else None
        self.lat.pending.append((started, chat, str(after.chat_id), nxt, after.status, version))

    def settle_latencies(self) -> None:
        """Each move's screens from the recorded times (read after the run: slow screens come late)."""
        for started, chat, group, nxt, _status, version in self.lat.pending:
            mover = self.screens.first_rack(chat, started, lambda v, old=version: v != frozenset({old}))
            if mover is not None:
                self.lat.mover.append(1000 * (mover - started))
            if nxt is not None:
                shown = self.screens.first_rack(nxt, started, lambda v, old=version: bool(v) and max(v) > old)
                if shown is not None:
                    self.lat.next.append(1000 * (shown - started))
                ping = next((at for at in self.screens.pings[nxt] if at >= started), None)
                if ping is not None:
                    self.lat.ping.append(1000 * (ping - started))
            table = next((at for at in self.screens.tables[group] if at >= started), None)
            if table is not None:
                self.lat.table.append(1000 * (table - started))

    async def idle(self, service: Service, limit: float = 300.0) -> bool:
        """Wait until nothing is owed (coalesced table edits included): every screen up to date."""
        deadline = time.perf_counter() + limit
        while time.perf_counter() < deadline:
            tables = getattr(service, "_tables", None)  # table edits behind the racks (absent in older code)
            if not service._due and not service._delivering and not tables and not self.tasks:
                return True
            await service.deliver()
            await asyncio.sleep(0.2)
        return False


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def spread(values: list[float]) -> str:
    if not values:
        return "none"
    return f"p50 {statistics.median(values):.0f} ms  p99 {percentile(values, 0.99):.0f} ms  (n {len(values)})"


async def run(args: argparse.Namespace) -> None:
    bench = Bench(args)
    with tempfile.TemporaryDirectory() as folder:
        store = await Store.open(str(Path(folder) / "bench.sqlite"))
        service = Service(store, seed_source=random.Random(2024), render_processes=args.render_processes)
        await service.warm_up()
        await bench.start(service)
        freeze_startup_heap()
        timers = asyncio.create_task(service.run_timers(), name="bench-timers")
        try:
            ids, opened = [], []
            for index in range(args.matches):
                ids.append(await bench.open_table(index))
                opened.append(time.time())
            await bench.idle(service)
            await fresh_turns(store, ids, opened)
            bench.gate.limited = True
            bench.screens.counting = True
            cpu = CpuMeter()
            cpu.start()
            started = time.perf_counter()
            if args.duration:
                bench.deadline = started + args.duration
            players = [asyncio.create_task(bench.play(index, match_id)) for index, match_id in enumerate(ids)]
            try:
                await asyncio.gather(*players)
            finally:
                for player in players:
                    player.cancel()
                await asyncio.gather(*players, return_exceptions=True)
            wall = time.perf_counter() - started
            # The players are done: no turn timer plays on for them (its moves' screens would be counted as theirs).
            service.stop_timers()
            timers.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await timers
            settled = await bench.idle(service)
            settle_wall = time.perf_counter() - started - wall
            cpu.stop()
            bench.settle_latencies()
            finished = [(await store.get_match(match_id)).status for match_id in ids].count("finished")
        finally:
            await service.close()
            timers.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await timers
            await bench.adapter.stop()
            await store.close()
    report(args, bench, wall, settle_wall, settled, finished, cpu)


def report(args: argparse.Namespace, bench: Bench, wall: float, settle_wall: float, settled: bool, finished: int,
           cpu: CpuMeter) -> None:
    lat, screens = bench.lat, bench.screens
    if args.limits == "none":
        print(LOUD)
    else:
        print("limits: Telegram's, kept by the production limiter (bot/telegram_adapter/adapter.py default_limiter): "
              "1/s per chat, 20/min per group, 30/s per bot; answerCallbackQuery not counted")
    who = "one human vs a normal bot" if args.humans == 1 else f"{args.humans} humans"
    opts = " ".join(f"{k}={v}" for k, v in bench.options.items())
    print(f"telegram · {bench.game} {opts}: {args.matches} tables of {who}; {lat.moves} human moves; "
          f"{finished} matches finished")
    if not lat.moves:
        raise BrokenRun("no human move went through")
    counted = sum(screens.counted.values())
    by_method = ", ".join(f"{method} {n / lat.moves:.2f}" for method, n in screens.counted.most_common())
    print(f"  counted calls per human move: {counted / lat.moves:.2f} ({by_method})")
    if screens.typed_replies:
        what = ("replies to typed moves (a press answers with the uncounted answerCallbackQuery) and other private "
                "texts" if bench.typed is not None else "private texts other than pings (turn-timer notices)")
        print(f"    of which {what}: {screens.typed_replies / lat.moves:.2f} -> "
              f"{(counted - screens.typed_replies) / lat.moves:.2f} without them")
    print(f"  every screen up to date at the end: {'yes' if settled else 'NO'} (settling took {settle_wall:.1f} s)")
    print(f"  press -> answer:              {spread(lat.answer)}")
    print(f"  press -> mover's rack:        {spread(lat.mover)}")
    print(f"  press -> next player's rack:  {spread(lat.next)}")
    print(f"  press -> group table:         {spread(lat.table)}")
    print(f"  press -> ping (when sent):    {spread(lat.ping)}")
    served = lat.moves / wall
    if args.think:
        offered = args.matches / args.think
        print(f"  throughput: served {served:.2f} human moves/s, offered about {offered:.2f} (tables / think); "
              f"counted calls {counted / (wall + settle_wall):.1f}/s")
    else:
        print(f"  throughput: served {served:.2f} human moves/s (saturated); counted calls "
              f"{counted / (wall + settle_wall):.1f}/s")
    print(f"  CPU per human move: {1000 * cpu.seconds / lat.moves:.1f} ms; wall {wall:.1f} s")


def main(argv: list[str]) -> None:
    from bench.checks import refuse
    from bench.pipeline_games import TABLES
    from bot.core.pictures import default_processes

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limits", choices=("telegram", "none"), default="telegram")
    parser.add_argument("--platform", choices=("telegram",), default="telegram")
    parser.add_argument("--humans", type=int, choices=(1, 2, 4), default=2)
    parser.add_argument("--game", choices=sorted(TABLES), default="kenza")
    parser.add_argument("--matches", "-n", type=int, default=10)
    parser.add_argument("--moves", type=int, default=30, help="human moves per table at most; 0: to the match's end")
    parser.add_argument("--think", type=float, default=20.0)
    parser.add_argument("--duration", type=float, default=0.0,
                        help="seconds the players play (each table until then, or its --moves); 0: --moves only")
    parser.add_argument("--render-processes", type=int, default=default_processes())
    args = parser.parse_args(argv)
    try:
        asyncio.run(run(args))
    except BrokenRun as error:
        raise refuse(error) from None
