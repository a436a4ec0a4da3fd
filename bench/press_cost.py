"""What one button press costs the machine: a two-human Kenza match in a Telegram group, played by pressing the
racks' buttons, through the real python-telegram-bot Application on tests/tg_harness.py's recording Telegram, the
service, SQLite storage (a temporary file) and the render worker processes production starts.

    .venv/bin/python bench/press_cost.py [--presses 250] [--pace SECONDS] [--render-processes N]

The players alternate as the turn passes; each presses its rack's first move button (a two-step pick is followed
by its first choice: two presses). A finished match is followed by a new one in the same group until `--presses`
presses were made. Between two presses the service's clock moves on `--pace` seconds (default 3: a person's pace)
and its tick runs, so the group's table edits are coalesced as Telegram's ~20 edits a minute per group make
production do, and each press's screens are all delivered before the next press. The clock is the service's own
(tests/clock.py): nothing sleeps, and the figures do not depend on how long the machine takes. The SQLite file's
schema is made by an earlier start (another process), as a restarted bot finds it.

Prints, per press: CPU milliseconds of the main process and of the render workers (and together), API calls by
method; and after the presses the main process's resident memory (and the workers'). Goals (issue 27): CPU per
press, main process and render workers together, <= 12 ms; main-process RSS <= 80 MiB after 250 presses.

Not under Telegram's rate limits: the recording Telegram answers at once and the production limiter is not in the
path (bench/pipeline.py's limits mode is). Every press must be answered, a move press must move the match, and the
run must make its presses; otherwise the bench exits with code 1 and a one-line reason (bench/checks.py).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.checks import BrokenRun, refuse  # noqa: E402
from bench.usage import CpuMeter, _proc_status_kib, rss_bytes, workers  # noqa: E402
from bot.core.pictures import default_processes  # noqa: E402
from bot.heap import freeze_startup_heap  # noqa: E402
from bot.interpreter import share_the_interpreter  # noqa: E402

PLAYERS = ({"id": 501, "is_bot": False, "first_name": "Amal", "language_code": "ar"},
           {"id": 502, "is_bot": False, "first_name": "Badr", "language_code": "en"})
HISTORY = 8  # calls kept per chat by the recording Telegram: enough to find each rack's newest keyboard


@dataclass
class Result:
    presses: int = 0
    matches: int = 0
    main_seconds: float = 0.0
    worker_seconds: float = 0.0
    calls: Counter[str] = field(default_factory=Counter)
    rss_start: int = 0  # the main process's once started, before the first table (bytes)
    rss: int = 0  # the main process's, after the presses (bytes)
    worker_rss: int = 0  # the render workers', together (bytes)
    drawn: int = 0  # pictures drawn during the presses
    reused: int = 0  # pictures served from the cache


async def run(presses: int, pace: float, render_processes: int, seed: int = 7, warm: bool = True) -> Result:
    """`presses` presses (see the module's docstring); `warm=False` (the tests' tiny runs) skips learning every
    game's palette before the first table, as production does: the first Kenza picture learns Kenza's alone."""
    from storage import Store
    from tests.clock import Clock
    from tests.tg_harness import FakeTelegram, first_data, open_table, seat_to_move

    result = Result()
    clock = Clock(1_700_000_000.0)
    server = FakeTelegram(keep_uploads=False, history=HISTORY)
    counting = False

    async def count(call: Any) -> None:
        if counting:
            result.calls[call.method] += 1

    server.on_call = count
    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "bench.sqlite")
        made_earlier(path)
        store = await Store.open(path)
        bot = production_bot(server, store, clock, render_processes, seed)
        service = bot.service
        if warm:
            await service.warm_up()
        await bot.adapter.start(receive=False)
        freeze_startup_heap()  # as bot/runner.py does once its adapters are up
        share_the_interpreter()
        result.rss_start = rss_bytes()
        meter = CpuMeter()
        drawn = reused = 0
        try:
            while result.presses < presses:
                match_id = await open_table(bot, PLAYERS[0], [PLAYERS[1]], target_presses=0)
                result.matches += 1
                counting = True
                meter.start()
                drawn, reused = service.pictures.drawn, service.pictures.reused
                while result.presses < presses:
                    match, seat = await seat_to_move(store, match_id)
                    if seat is None:
                        break
                    result.presses += await play_turn(bot, match, PLAYERS[seat], first_data)
                    clock.advance(pace)
                    await service.tick()
                    await service.settle()
                clock.advance(60.0)  # the last coalesced table edit
                await service.tick()
                await service.settle()
                meter.stop()
                counting = False
                result.main_seconds += meter.seconds - meter.worker_seconds
                result.worker_seconds += meter.worker_seconds
                result.drawn += service.pictures.drawn - drawn
                result.reused += service.pictures.reused - reused
                clock.advance(60.0)
            result.rss = rss_bytes()
            result.worker_rss = sum(_proc_status_kib(pid, "VmRSS") for pid in workers()) * 1024
        finally:
            await service.close()
            with contextlib.suppress(Exception):
                await bot.adapter.stop()
            await store.close()
    return result


def made_earlier(path: str) -> None:
    """The database file, its schema made by an earlier start in another process: a bot restarts on its database
    (the first start on a new file also runs the migrations, and keeps Alembic in memory for that run)."""
    script = ("import asyncio, sys; sys.path.insert(0, sys.argv[2]); from storage import Store\n"
              "async def main():\n    await (await Store.open(sys.argv[1])).close()\nasyncio.run(main())")
    subprocess.run([sys.executable, "-c", script, path, str(Path(__file__).resolve().parent.parent)], check=True)


def production_bot(server: Any, store: Any, clock: Any, render_processes: int, seed: int) -> Any:
    """tests/tg_harness.py's `Bot` (the real Application on the recording Telegram), its service drawing in
    `render_processes` worker processes as production does, and the group's table edits paced as production paces
    them (about 20 a minute)."""
    from bot.service import Service
    from bot.telegram_adapter import TelegramAdapter
    from tests.tg_harness import Bot, RecordingRequest, make_settings

    class PressBot(Bot):
        async def press(self, who: dict[str, Any], chat_id: str | int, message_id: int, data: str) -> dict[str, Any]:
            """The harness's press, its answer read from the recording Telegram's kept answers (it keeps only each
            chat's newest calls, not every call of the run: the run's record would be part of the RSS measured)."""
            update = self.server.press(self.bot, who, chat_id, message_id, data)
            await self.adapter.process(update)
            answer = self.server.callback_answer(update.callback_query.id)
            if answer is None or answer.status != 200:
                raise BrokenRun(f"pressing {data!r} was not answered")
            return answer.params

    bot = PressBot.__new__(PressBot)
    bot.server, bot.store = server, store
    bot.service = Service(store, clock=clock, seed_source=random.Random(seed), render_processes=render_processes)
    bot.request = RecordingRequest(server)
    bot.adapter = TelegramAdapter.for_tests(bot.service, make_settings(), bot.request)
    return bot


async def play_turn(bot: Any, match: Any, who: dict[str, Any], first_data: Any) -> int:
    """The player to move presses its rack's first move button (and a pick's first choice); the presses made."""
    found = bot.server.rack(who["id"])
    if found is None:
        raise BrokenRun(f"match {match.id}: player {who['id']} has no rack")
    message_id, keyboard = found
    data = first_data(keyboard, "m:", "p:")
    if data is None or data.split(":")[2] != str(match.version):
        raise BrokenRun(f"match {match.id}: the rack to move shows no move button for version {match.version}")
    made = 1
    answer = await bot.press(who, who["id"], message_id, data)
    if data.startswith("p:"):
        message_id, keyboard = bot.server.rack(who["id"])
        data = first_data(keyboard, "m:")
        if data is None:
            raise BrokenRun(f"match {match.id}: a pick showed no choice")
        answer = await bot.press(who, who["id"], message_id, data)
        made += 1
    if answer.get("show_alert"):
        raise BrokenRun(f"match {match.id}: pressing {data} was refused: {answer.get('text')!r}")
    after = await bot.store.get_match(match.id)
    if after is None or after.version <= match.version:
        raise BrokenRun(f"match {match.id}: pressing {data} did not move the match")
    return made


def report(args: argparse.Namespace, result: Result) -> None:
    n = result.presses
    main, work = 1000 * result.main_seconds / n, 1000 * result.worker_seconds / n
    print(f"telegram · Kenza, two humans pressing buttons: {n} presses in {result.matches} matches, a press every "
          f"{args.pace:g} s of the service's clock, {args.render_processes} render processes")
    print("  not under Telegram's rate limits: the recording Telegram answers at once (bench/pipeline.py's limits "
          "mode has them)")
    print(f"  CPU per press: main process {main:.1f} ms + render workers {work:.1f} ms = {main + work:.1f} ms "
          f"(goal <= 12 ms together)")
    calls = sum(result.calls.values())
    by_method = ", ".join(f"{method} {count / n:.2f}" for method, count in result.calls.most_common())
    print(f"  API calls per press: {calls / n:.2f} ({by_method})")
    print(f"  pictures per press: drawn {result.drawn / n:.2f}, from the cache {result.reused / n:.2f}")
    print(f"  RSS after the presses: main process {result.rss / 2**20:.1f} MiB (goal <= 80 MiB; "
          f"{result.rss_start / 2**20:.1f} MiB once started), render workers {result.worker_rss / 2**20:.1f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=250)
    parser.add_argument("--pace", type=float, default=3.0, help="seconds of the service's clock between presses")
    parser.add_argument("--render-processes", type=int, default=default_processes(),
                        help="render worker processes (default: cores - 1, as production); 0 = the render thread")
    args = parser.parse_args()
    if args.presses < 1:
        parser.error("--presses must be >= 1")
    try:
        result = asyncio.run(run(args.presses, args.pace, args.render_processes))
    except BrokenRun as error:
        raise refuse(error) from None
    if not result.presses:
        raise refuse(BrokenRun("no press was made"))
    report(args, result)


if __name__ == "__main__":
    main()
