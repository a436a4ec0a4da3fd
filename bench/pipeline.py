"""End-to-end speed of one process: N concurrent matches, each one simulated human against one normal bot,
through the platform adapter, the service, SQLite storage (a temporary file), the real renderer and the
production turn-timer loop, with the platform's API recorded, not sent.

    .venv/bin/python bench/pipeline.py [--game kenza|canasta|tunj|konkan_cards|konkan_tiles] [--matches 50]
                                       [--moves 20] [--think SECONDS] [--platform telegram|discord] [--tracemalloc]
                                       [--render-processes N]
    .venv/bin/python bench/pipeline.py --workers N --database postgresql://... [--matches 20] [--moves 20]
                                       (N worker processes on one database: bench/workers.py)
    .venv/bin/python bench/pipeline.py --limits telegram|none [--humans 1|2|4] [--game G] [--matches 250]
                                       [--think 20] [--moves 30]   (bench/pipeline_limits.py)

WITHOUT `--limits` THIS BENCH RUNS WITH NO RATE LIMITER (it says so when it prints): its capacity is the process's,
not what one bot token may send. `--limits telegram` runs the production limiter at Telegram's published limits
(1 message/s per chat, 20/min per group, 30/s per bot; answerCallbackQuery not counted), with tables of 1, 2 or 4
humans, and prints counted calls per human move by method, press -> answer / mover's rack / next player's rack /
table / ping latencies and served vs offered (bench/pipeline_limits.py says how); `--limits none` runs those same
tables without the limiter, saying so loudly.

Pictures are drawn as production draws them (bot/core/pictures.py): in `cores - 1` render processes by default,
`--render-processes 0` for the single render thread of tests and the console.

Tables (bench/pipeline_games.py): Kenza for 2; Canasta `duo` (variant=duo target=2500); Tunj for 2; Konkan (cards)
for 2 (konkan51); Konkan tiles 1v1 (mode=private). Kenza's human presses the first move button of its rack, read from
the recorded API calls (a two-step "pick" is followed by the first choice). Canasta's, Tunj's and both Konkans' human
has its move chosen on the bench side by the engine's normal bot from its seat's view and TYPED (`/m <move>` in the
private chat on Telegram, the `m` slash command on Discord): the same pipeline, only the input is a command. The bot
answers inside the same update, as in production (Tunj's bot makes its first move there, the rest at its pace on the
turn-timer loop: rules/tunj.md, "Bots").

`--think 0` (the default) is a saturated process: every simulated player moves again the moment it is answered,
which shows capacity. `--think T` makes each player wait a random time uniform in [0, 2T] before every move, like
people; then the offered load is about N/T human moves per second and the latency is measured under it.

Each human input is checked: a pressed move must move the match version and be answered "✓ You …", a typed
move that moved the match must be answered so too, and the run must play at least one human move. Otherwise the
bench exits with code 1 and a one-line reason instead of printing figures for work that was not done.

Prints per-move latency (input -> answered, i.e. after commit, bot reply, renders and every API call), API calls
per human move, served vs offered moves per second, CPU seconds per human move (this process and its render
workers: steadier than wall time on a shared machine), bytes per live match, the most edits any group chat got in
a minute, and peak memory (bench/usage.py). Goals (issue 14): one table p50 <= 25 ms, p99 <= 80 ms; with
`--matches 1000 --think 20` served >= offered, p50 <= 60 ms, p99 <= 250 ms, peak RSS <= 300 MiB; <= 20 edits per
group chat per minute; <= 3 API calls per move.

A platform plugs in as a `PlatformDriver`: `TelegramDriver` is the real python-telegram-bot Application on
tests/tg_harness.py's recording request; bench/pipeline_discord.py is discord.py on tests/dc_harness.py's fake.
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
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.checks import BrokenRun, played, refuse  # noqa: E402
from bench.pipeline_games import TABLES, Table, TypedHuman, moved  # noqa: E402
from bench.usage import ChatWrites, CpuMeter, GcMeter, RssSampler, peak_rss_mib, rss_bytes  # noqa: E402
from bot.core.pictures import default_processes  # noqa: E402
from bot.heap import freeze_startup_heap  # noqa: E402
from bot.interpreter import share_the_interpreter  # noqa: E402
from bot.service import Service  # noqa: E402
from storage import Store  # noqa: E402
from storage.errors import StaleVersion  # noqa: E402


@dataclass
class Sample:
    latency_ms: list[float] = field(default_factory=list)  # every input that played a move
    pick_ms: list[float] = field(default_factory=list)  # first steps of two-step moves
    move_calls: list[int] = field(default_factory=list)  # API calls per human move, pick step included
    one_step_calls: list[int] = field(default_factory=list)  # the same, for moves made with a single input
    moves: int = 0
    rejected: int = 0  # typed moves the service refused (the position moved under them, e.g. a timer fired)
    timed_out: int = 0  # inputs answered after the turn timer had played for the seat (overload)
    all_moves: int = 0  # human, bot and timer moves committed during the timed part

    def record(self, elapsed: float, made: int, pick_calls: int = 0) -> None:
        """One human move that went through: its last input's latency and every call its inputs made."""
        self.latency_ms.append(elapsed)
        self.move_calls.append(pick_calls + made)
        if not pick_calls:
            self.one_step_calls.append(made)
        self.moves += 1


class PlatformDriver(Protocol):
    """What the bench needs from a platform: open a table, make the human move once, count API calls."""

    name: str

    async def start(self, service: Service) -> None: ...

    async def open_match(self, index: int) -> int:
        """Open the human-vs-bot table number `index` in its own chat, start it; return the match id."""
        ...

    async def human_move(self, index: int, match_id: int, sample: Sample) -> bool:
        """Make the human's next move (pressed or typed, per the table); False when the match is over."""
        ...

    async def stop(self) -> None: ...


HISTORY = 6  # calls kept per chat: more than one table's update makes (its rack, table, ping, answer)
WRITES = ("sendMessage", "sendPhoto", "editMessageMedia", "editMessageText", "editMessageCaption",
          "editMessageReplyMarkup")  # what counts toward Telegram's per-chat message limits


class TelegramDriver:
    name = "telegram"

    def __init__(self, table: Table) -> None:
        from tests.tg_harness import FakeTelegram

        self.table = table
        self.typed = TypedHuman(table.game) if table.typed else None
        # Upload bodies counted, not kept, and each chat's newest calls only: the RSS and the collector's work are the
        # bot's, not a record of every call of the run.
        self.server = FakeTelegram(keep_uploads=False, history=HISTORY)
        self.adapter: Any = None
        self.writes = ChatWrites()  # every message sent or edited, per chat, with its time

        async def record(call: Any) -> None:
            if call.method in WRITES and call.chat_id is not None:
                self.writes.record(call.chat_id)

        self.server.on_call = record

    def _chat(self, index: int) -> int:
        return -1_000_000_000 - index

    def _user(self, index: int) -> dict:
        return {"id": 10_000 + index, "is_bot": False, "first_name": f"Player {index}", "language_code": "en"}

    async def start(self, service: Service) -> None:
        from bot.telegram_adapter import TelegramAdapter
        from tests.tg_harness import RecordingRequest, make_settings

        request = RecordingRequest(self.server)
        self.adapter = TelegramAdapter.for_tests(service, make_settings(), request)
        await self.adapter.start(receive=False)  # updates are handed in directly, as a webhook would

    async def _process(self, index: int, update: Any) -> tuple[float, list[Any]]:
        """Hand one update to the application; (milliseconds until it is done, the API calls it made). The calls
        are returned, not kept on the driver: the other matches' updates run meanwhile and would overwrite them."""
        # Other matches run meanwhile: count only this table's chats and this update's own callback answer.
        mine = (str(self._chat(index)), str(self._user(index)["id"]))
        before = [self.server.chat_mark(chat) for chat in mine]
        started = time.perf_counter()
        await self.adapter.process(update)
        elapsed = (time.perf_counter() - started) * 1000
        made = [call for chat, mark in zip(mine, before, strict=True) for call in self.server.calls_since(chat, mark)]
        answer = self.server.callback_answer(update.callback_query.id) if update.callback_query else None
        return elapsed, made if answer is None else [*made, answer]

    def _answer(self, index: int, made: list[Any]) -> str | None:
        """What an update told its user, from its own calls `made`: the callback answer, or the reply in the
        private chat. The "your turn" ping is not an answer: deliveries (this match's, run by whichever update
        gets to them first when several matches play) send it to the same private chat."""
        from bot.i18n import LANGUAGES, game_name, t

        user = str(self._user(index)["id"])
        pings = {t(lang, "ping.turn", game=game_name(lang, self.table.game)) for lang in LANGUAGES}
        for call in reversed(made):
            if call.method == "answerCallbackQuery" or (call.method == "sendMessage" and call.chat_id == user
                                                        and call.params.get("text") not in pings):
                return call.params.get("text")
        return None

    async def _press(self, index: int, chat_id: int, message_id: int, data: str) -> tuple[float, list[Any]]:
        bot = self.adapter.application.bot
        return await self._process(index, self.server.press(bot, self._user(index), chat_id, message_id, data))

    async def open_match(self, index: int) -> int:
        from tests.tg_harness import first_data

        bot = self.adapter.application.bot
        chat, who = self._chat(index), self._user(index)
        new = "/new " + " ".join(self.table.new_words())
        await self.adapter.process(self.server.command(bot, who, chat, new))
        for prefix in ("b:", "s:"):  # the first "add a bot" button adds a normal one
            for call in reversed(self.server.calls_to(chat)):
                data = first_data((call.markup or {}).get("inline_keyboard", []), prefix)
                if data:
                    await self._press(index, chat, int(call.params.get("message_id") or call.sent_id), data)
                    break
        match = await self.adapter.service.store.lobby_or_active_match("telegram", str(chat))
        assert match is not None and match.status == "active", f"the bench table did not start: {new}"
        return match.id

    async def human_move(self, index: int, match_id: int, sample: Sample) -> bool:
        if self.typed is not None:
            return await self._typed_move(index, match_id, sample)
        return await self._pressed_move(index, match_id, sample)

    async def _typed_move(self, index: int, match_id: int, sample: Sample) -> bool:
        store = self.adapter.service.store
        decision = await self.typed.decide(store, match_id)
        if decision is None:
            return False
        who = self._user(index)
        update = self.server.command(self.adapter.application.bot, who, who["id"], "/m " + decision.move)
        elapsed, made = await self._process(index, update)
        if not moved(decision, await store.get_match(match_id)):
            sample.rejected += 1
            return True
        answer = self._answer(index, made)
        if not played(answer) and await timed_out(store, match_id, decision.version):
            sample.timed_out += 1
            return True
        check_answer(match_id, "/m " + decision.move, answer)
        sample.record(elapsed, len(made))
        return True

    async def _pressed_move(self, index: int, match_id: int, sample: Sample) -> bool:
        from tests.tg_harness import PICTURE_CALLS, first_data

        store = self.adapter.service.store
        match = await store.get_match(match_id)
        if match is None or match.status != "active":
            return False
        user_id = self._user(index)["id"]
        message_id, keyboard = self.server.rack(user_id)
        data = first_data(keyboard, "m:", "p:")
        if data is None or data.split(":")[2] != str(match.version):
            # Another update is delivering this match right now (its own pass skips a match being delivered):
            # the player waits for the redrawn rack, as for a pick.
            await self.adapter.service.settle()
            message_id, keyboard = self.server.rack(user_id)
            data = first_data(keyboard, "m:", "p:")
        if data is None:
            raise BrokenRun(f"match {match_id}: the human's rack has no move button")
        calls = 0
        if data.startswith("p:"):
            shown = self.server.latest(user_id, *PICTURE_CALLS)
            elapsed, made = await self._press(index, user_id, message_id, data)
            sample.pick_ms.append(elapsed)
            calls += len(made)
            if self.server.latest(user_id, *PICTURE_CALLS) is shown:
                # Another update is delivering this match right now; the player waits for the redrawn rack.
                await self.adapter.service.settle()
            message_id, keyboard = self.server.rack(user_id)
            data = first_data(keyboard, "m:")
        elapsed, made = await self._press(index, user_id, message_id, data)
        answer = self._answer(index, made)
        if not played(answer) and await timed_out(store, match_id, match.version):
            sample.timed_out += 1
            return True
        check_applied(match_id, data, match.version, await store.get_match(match_id), answer)
        sample.record(elapsed, len(made), calls)
        return True

    def upload_counts(self) -> tuple[int, int, int]:
        """(pictures uploaded, pictures shown from an earlier upload or left in place, bytes uploaded) so far."""
        transport = self.adapter.transport
        return transport.uploads, transport.reused, self.server.uploaded_bytes

    async def stop(self) -> None:
        await self.adapter.stop()


async def timed_out(store: Store, match_id: int, version: int) -> bool:
    """Whether the turn timer played for the seat after `version`: an answer that came too late for its turn
    (the process is overloaded: queued inputs outlast the timer). Counted and printed, not a broken run."""
    return any(record.actor == "timer" and record.seq > version for record in await store.moves(match_id))


def check_answer(match_id: int, what: str, answer: str | None) -> None:
    """A move that went through was answered with the service's "✓ You <move>" line."""
    if not played(answer):
        raise BrokenRun(f"match {match_id}: {what} was answered {answer!r}, not \"✓ You ...\"")


def check_applied(match_id: int, what: str, version: int, after: Any, answer: str | None) -> None:
    """A pressed move button moved the match past the version it was pressed on and was answered "Played"."""
    if after is None or after.version <= version:
        now = None if after is None else after.version
        raise BrokenRun(f"match {match_id}: pressing {what} left the match at version {now} (pressed on {version}); "
                        f"answered {answer!r}")
    check_answer(match_id, f"pressing {what}", answer)


def discord_driver(table: Table) -> PlatformDriver:
    """The discord.py client and DiscordAdapter on tests/dc_harness.py's fake Discord (bench/pipeline_discord.py)."""
    from bench.pipeline_discord import DiscordDriver

    return DiscordDriver(table)


DRIVERS: dict[str, Callable[[Table], PlatformDriver]] = {"telegram": TelegramDriver, "discord": discord_driver}


@dataclass
class Run:
    sample: Sample
    wall: float
    choose_seconds: float  # bench-side choosing of typed moves, on the same event loop
    cpu: CpuMeter  # process (and worker) CPU seconds during the timed part
    gc: GcMeter  # the garbage collector's pauses during the timed part
    bytes_per_match: float  # memory held per live match: heap (with --tracemalloc) or RSS growth / matches
    heap: bool  # bytes_per_match was measured on the Python heap (tracemalloc), not RSS
    writes: ChatWrites | None  # per-chat writes, where the platform driver records them
    peak_rss: tuple[float, float]  # MiB: this process's peak, its live workers' peaks (read before they stop)
    peak_together: float  # MiB: the highest sampled RSS of this process and its workers at the same moment
    uploads: tuple[int, int, int] | None  # during the timed part: pictures uploaded, reused, bytes uploaded
    # The longest any one player spent thinking (its think times summed): the wall the run would take if every
    # move were answered at once. With --think, the moves over this span are what was offered on average: as
    # players finish their moves the load tails off, so N / think is only the peak.
    thinking: float = 0.0


async def run(matches: int, moves: int, platform: str, table: Table, think: float, render_processes: int = 0) -> Run:
    with tempfile.TemporaryDirectory() as folder:
        store = await Store.open(str(Path(folder) / "bench.sqlite"))
        service = Service(store, seed_source=random.Random(2024), render_processes=render_processes)
        await service.warm_up()  # as bot/runner.py does: palettes learned, render processes started
        driver = DRIVERS[platform](table)
        await driver.start(service)
        freeze_startup_heap()  # as bot/runner.py does once its adapters are up
        share_the_interpreter()  # as bot/runner.py does
        timers = asyncio.create_task(service.run_timers(), name="bench-timers")  # as bot/runner.py does
        sampler = RssSampler()
        sampling = asyncio.create_task(sampler.run(), name="bench-rss")
        heap = tracemalloc.is_tracing()
        memory_before = tracemalloc.get_traced_memory()[0] if heap else rss_bytes()
        cpu = CpuMeter()
        collector = GcMeter()
        try:
            ids, opened = [], []
            for index in range(matches):
                ids.append(await driver.open_match(index))
                opened.append(time.time())
            sample = Sample()
            thought = [0.0] * matches

            async def play(index: int, match_id: int) -> None:
                thinking = random.Random(f"think:{index}")
                for _ in range(moves):
                    if think:
                        delay = thinking.uniform(0, 2 * think)
                        thought[index] += delay
                        await asyncio.sleep(delay)
                    if not await driver.human_move(index, match_id, sample):
                        return

            await fresh_turns(store, ids, opened)
            versions = [(await store.get_match(match_id)).version for match_id in ids]
            counts = getattr(driver, "upload_counts", None)
            uploads_before = counts() if counts is not None else None
            cpu.start()
            collector.start()
            started = time.perf_counter()
            players = [asyncio.create_task(play(index, match_id)) for index, match_id in enumerate(ids)]
            try:
                await asyncio.gather(*players)
            finally:  # one refused move: the other players stop too, before the service and the store close
                for player in players:
                    player.cancel()
                await asyncio.gather(*players, return_exceptions=True)
            wall = time.perf_counter() - started
            collector.stop()
            cpu.stop()
            uploads = None if counts is None or uploads_before is None else tuple(
                after - before for after, before in zip(counts(), uploads_before, strict=True))
            # Every match is still live here (open in the service, its caches and platform objects held).
            memory_after = tracemalloc.get_traced_memory()[0] if heap else rss_bytes()
            peak = peak_rss_mib()
            sampling.cancel()
            after = [(await store.get_match(match_id)).version for match_id in ids]
            sample.all_moves = sum(after) - sum(versions)
            if not sample.moves:
                raise BrokenRun(f"no human move went through in {matches} matches "
                                f"({sample.rejected} typed moves refused)")
        finally:  # as bot/runner.py stops: the timer loop, then running deliveries, then the platform and store
            sampling.cancel()
            await service.close()
            timers.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await timers
            await driver.stop()
            await store.close()
    typed = getattr(driver, "typed", None)
    return Run(sample, wall, typed.choose_seconds if typed is not None else 0.0, cpu, collector,
               max(0, memory_after - memory_before) / matches, heap, getattr(driver, "writes", None), peak,
               sampler.peak / 2**20, uploads, max(thought, default=0.0))


async def fresh_turns(store: Store, ids: list[int], opened: list[float]) -> None:
    """Play starts now for every table: each turn timer is moved on by the time the table waited for the others
    to open (opening a thousand tables takes longer than a turn, and the first ones' timers would otherwise play
    for their humans before anyone thinks)."""
    now = time.time()
    for match_id, at in zip(ids, opened, strict=True):
        match = await store.get_match(match_id)
        if match is not None and match.status == "active" and match.deadline is not None:
            # A table whose timer already played for its human while the others opened is simply played on.
            with contextlib.suppress(StaleVersion):
                await store.set_deadline(match_id, match.deadline + (now - at), expected_version=match.version)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def report(args: argparse.Namespace, table: Table, result: Run) -> None:
    sample, wall = result.sample, result.wall
    from bench.pipeline_limits import LOUD

    print(LOUD)
    print(f"{args.platform} · {table.label}: {args.matches} concurrent matches, each one simulated human vs one "
          f"normal bot; {sample.moves} human moves")
    print(f"  input: {table.input}")
    if args.think:
        print(f"  load: each player thinks U[0, {2 * args.think:g}] s before every move -> offered about "
              f"{args.matches / args.think:.1f} human moves/s (N / think)")
    else:
        print("  load: saturated (each player moves again the moment it is answered): capacity")
    if not sample.moves:
        return
    lat = sample.latency_ms
    print(f"  per move input -> answered: p50 {statistics.median(lat):.1f} ms  p99 {percentile(lat, 0.99):.1f} ms"
          f"  (mean {statistics.fmean(lat):.1f}, max {max(lat):.1f})")
    if sample.pick_ms:
        print(f"  pick step ({len(sample.pick_ms)}x): p50 {statistics.median(sample.pick_ms):.1f} ms")
    calls = sample.move_calls
    line = f"  API calls per human move: {statistics.fmean(calls):.2f} (max {max(calls)})"
    if sample.pick_ms:
        one = sample.one_step_calls or [0]
        line += f"; one-press moves {statistics.fmean(one):.2f}, a two-step pick adds an edit and an answer"
    print(line)
    if sample.rejected:
        print(f"  typed moves refused (the position moved under them): {sample.rejected}")
    if sample.timed_out:
        print(f"  inputs that came after the turn timer had played for them (queued too long): {sample.timed_out}")
    offered = f"offered about {args.matches / args.think:.1f}" if args.think else "offered: saturated"
    print(f"  throughput: served {sample.moves / wall:.1f} human moves/s ({offered}), {sample.all_moves / wall:.1f} "
          f"moves/s with the bot's; wall {wall:.1f} s")
    if args.think and result.thinking:
        print(f"  offered over the run (moves / the longest player's summed think time {result.thinking:.1f} s): "
              f"{sample.moves / result.thinking:.1f} human moves/s; the run took {wall - result.thinking:+.1f} s "
              f"beyond its players' thinking (queue growth shows here, and in the latency)")
    cpu = result.cpu
    print(f"  CPU per human move (process CPU s / moves): {1000 * cpu.seconds / sample.moves:.1f} ms"
          f" (workers {1000 * cpu.worker_seconds / sample.moves:.1f} ms of it; bench-side choosing included);"
          f" capacity at 100% of one core {sample.moves / cpu.seconds if cpu.seconds else float('inf'):.0f}"
          f" human moves/CPU-s")
    if not args.think:
        note = (f"; with {args.matches} inputs in flight, latency is mostly queueing behind the others' renders"
                if args.matches > 1 else "")
        print(f"  service time per human move (wall / moves, one event loop): {1000 * wall / sample.moves:.1f} ms"
              f"{note}")
    collector = result.gc
    print(f"  garbage collector: {1000 * collector.seconds / sample.moves:.2f} ms per human move, longest pause "
          f"{1000 * collector.longest:.1f} ms (passes per generation {collector.passes})")
    if result.uploads is not None:
        uploaded, reused, sent_bytes = result.uploads
        print(f"  pictures per human move: uploaded {uploaded / sample.moves:.2f}, reused {reused / sample.moves:.2f}"
              f" (an earlier upload's file id, or left in place by a caption edit); uploaded "
              f"{sent_bytes / sample.moves / 1024:.1f} KiB per human move")
    if result.choose_seconds:
        print(f"  bench-side choosing of the typed moves (same event loop, not the service's): "
              f"{1000 * result.choose_seconds / sample.moves:.1f} ms per move, "
              f"{100 * result.choose_seconds / wall:.0f}% of wall")
    if args.tracemalloc:
        print(f"  peak Python heap: {tracemalloc.get_traced_memory()[1] / 2**20:.1f} MiB")
    what = "Python heap (tracemalloc)" if result.heap else "RSS growth"
    print(f"  bytes per live match ({what} after the run / matches): {result.bytes_per_match / 1024:.1f} KiB")
    if result.writes is not None and result.writes.times:
        groups = result.writes.groups()
        private = [chat for chat in result.writes.times if chat not in groups]
        print(f"  max edits per group chat per minute: {result.writes.max_in_window(60.0, groups)} "
              f"(in one second: {result.writes.max_in_window(1.0, groups)}); private chats in one second: "
              f"{result.writes.max_in_window(1.0, private)} (paced by the player's own presses)")
    own, workers = result.peak_rss
    pool = (f" + render workers {workers:.1f} MiB (each one's own peak; sampled together at most "
            f"{result.peak_together:.1f} MiB)") if workers else ""
    print(f"  peak RSS: {own:.1f} MiB{pool}")


def main() -> None:
    if "--limits" in sys.argv or "--humans" in sys.argv:
        from bench.pipeline_limits import main as limits_main

        limits_main(sys.argv[1:])
        return
    if "--workers" in sys.argv or "--database" in sys.argv:
        # Several processes on one database: bench/workers.py (Kenza through the service, no platform adapter).
        from bench.workers import main as workers_main

        workers_main(sys.argv[1:])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=sorted(TABLES), default="kenza")
    parser.add_argument("--matches", "-n", type=int, default=50)
    parser.add_argument("--moves", type=int, default=20, help="human moves per match at most")
    parser.add_argument("--think", type=float, default=0.0,
                        help="mean think time in seconds, uniform in [0, 2x] before each move; 0 = saturated")
    parser.add_argument("--platform", choices=sorted(DRIVERS), default="telegram")
    parser.add_argument("--tracemalloc", action="store_true", help="peak Python heap (slower) instead of max RSS")
    parser.add_argument("--render-processes", type=int, default=default_processes(),
                        help="render worker processes, as production starts them (default: cores - 1); 0 = the "
                             "render thread")
    args = parser.parse_args()
    if args.think < 0:
        parser.error("--think must be >= 0")
    if args.tracemalloc:
        tracemalloc.start()
    table = TABLES[args.game]
    try:
        result = asyncio.run(run(args.matches, args.moves, args.platform, table, args.think,
                                     args.render_processes))
    except BrokenRun as error:
        raise refuse(error) from None
    report(args, table, result)


if __name__ == "__main__":
    main()
