"""Deploys without cutting matches off (issue 30 point 5): a drain in the middle of a four-player match, through the
real python-telegram-bot Application on the recorded Bot API, finishes the move under way and its screens, refuses a
new table with "the bot restarts in a moment", and the restarted service finishes the match; a drain whose screens
cannot go out stops at its bound and the restart shows them; `majlis drain` reaches a process by its pid file."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
from typing import Any

from bot.cli import main
from bot.drain import DRAIN_SECONDS, drain, drain_seconds, read_pid, write_pid_file
from bot.i18n import t
from storage import Store
from tests.tg_harness import (
    GROUP_ID,
    Bot,
    Call,
    FakeTelegram,
    first_data,
    open_table,
    play_one,
    replays,
    seat_to_move,
    user,
)

ALICE, BADR, CHAMS, DINA = user(111, "Alice"), user(222, "Badr"), user(333, "Chams"), user(444, "Dina")
EVE = user(555, "Eve")
OTHER_GROUP = -1009876543210
TABLE_CALLS = ("editMessageText", "editMessageMedia", "editMessageCaption")


async def humans_of(store: Store, match_id: int) -> dict[int, dict[str, Any]]:
    by_id = {str(who["id"]): who for who in (ALICE, BADR, CHAMS, DINA)}
    return {seat.seat: by_id[(await store.get_player(seat.player_id)).user_id]
            for seat in await store.seats(match_id)}


def rack_version(server: FakeTelegram, who: dict[str, Any]) -> int | None:
    _, keyboard = server.rack(who["id"])
    data = first_data(keyboard, "m:", "p:")
    return None if data is None else int(data.split(":")[2])


class HeldTable:
    """Telegram holding up the group's next table edit until released (a slow request, a rate limiter's wait)."""

    def __init__(self, server: FakeTelegram) -> None:
        self.armed, self.held, self.release = False, asyncio.Event(), asyncio.Event()
        server.on_call = self.on_call

    async def on_call(self, call: Call) -> None:
        if self.armed and call.method in TABLE_CALLS and call.chat_id == str(GROUP_ID):
            self.armed = False
            self.held.set()
            await self.release.wait()


async def press_as_received(bot: Bot, who: dict[str, Any], match_id: int) -> None:
    """The first move button of `who`'s rack pressed, the update queued as the updater queues a fetched one."""
    match = await bot.store.get_match(match_id)
    message_id, keyboard = bot.server.rack(who["id"])
    data = first_data(keyboard, "m:")
    assert data is not None and data.split(":")[2] == str(match.version)
    await bot.adapter.application.update_queue.put(bot.server.press(bot.bot, who, who["id"], message_id, data))


async def test_a_drain_mid_match_finishes_the_move_refuses_new_tables_and_the_restart_ends_the_match(tmp_path):
    path, server = str(tmp_path / "drain.db"), FakeTelegram()
    store = await Store.open(path)
    bot = Bot(server, store)
    await bot.adapter.start()
    match_id = await open_table(bot, ALICE, [BADR, CHAMS, DINA])
    humans = await humans_of(store, match_id)
    for _ in range(3):
        await play_one(bot, match_id, humans)
    before, seat = await seat_to_move(store, match_id)
    held = HeldTable(server)
    held.armed = True
    await press_as_received(bot, humans[seat], match_id)
    await held.held.wait()  # the move is stored and answered; its table edit is under way
    stored = await store.get_match(match_id)
    assert stored.version == before.version + 1 and server.callback_answer is not None

    draining = asyncio.create_task(drain(bot.service, [bot.adapter], None, seconds=3))
    while not bot.service.closing.draining:
        await asyncio.sleep(0)
    refused = await bot.command(EVE, OTHER_GROUP, "/new kenza")
    assert refused is not None and refused.params["text"] == t("en", "run.draining")
    picked = await bot.press(EVE, OTHER_GROUP, 1, "n:0:kenza")  # a game picker posted before the drain
    assert picked["show_alert"] and picked["text"] == t("en", "run.draining")
    assert await store.lobby_or_active_match("telegram", str(OTHER_GROUP)) is None
    assert not draining.done()  # the move's screens are still going out
    held.release.set()
    assert await draining  # drained within its bound
    after = await store.get_match(match_id)
    assert after.version == stored.version and after.delivered_version == after.version  # no screen owed
    _, next_seat = await seat_to_move(store, match_id)
    assert rack_version(server, humans[next_seat]) == after.version  # the next player was shown the move
    assert not bot.adapter.application.running
    await store.close()

    store = await Store.open(path)  # the new version starts: it resumes the match, and it is played to the end
    try:
        async with Bot(server, store) as restarted:
            await restarted.service.resume()
            for _ in range(1500):
                match, _ = await seat_to_move(store, match_id)
                if match.status != "active":
                    break
                await play_one(restarted, match_id, humans)
            assert match.status == "finished"
            assert len(await store.moves(match_id)) == match.version and await replays(store, match_id)
    finally:
        await store.close()


async def test_a_drain_whose_screens_cannot_go_out_stops_at_its_bound_and_the_restart_shows_them(tmp_path):
    path, server = str(tmp_path / "bound.db"), FakeTelegram()
    store = await Store.open(path)
    bot = Bot(server, store)
    await bot.adapter.start()
    match_id = await open_table(bot, ALICE, [BADR])
    humans = await humans_of(store, match_id)
    _, seat = await seat_to_move(store, match_id)
    held = HeldTable(server)
    held.armed = True
    await press_as_received(bot, humans[seat], match_id)
    await held.held.wait()
    assert not await drain(bot.service, [bot.adapter], None, seconds=0.05)  # Telegram never answers in time
    stored = await store.get_match(match_id)
    assert (stored.delivered_version or 0) < stored.version  # owed, in the database
    held.release.set()
    await store.close()

    store = await Store.open(path)
    try:
        async with Bot(server, store) as restarted:
            await restarted.service.resume()
            _, next_seat = await seat_to_move(store, match_id)
            assert rack_version(server, humans[next_seat]) == stored.version
            assert (await store.get_match(match_id)).delivered_version == stored.version
    finally:
        await store.close()


def test_majlis_drain_signals_the_process_of_the_pid_file_and_waits_for_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    pids = tmp_path / "majlis.pid"
    monkeypatch.setenv("MAJLIS_PID_FILE", str(pids))
    assert main(["drain"]) == 2
    assert t("en", "drain.no_process", path=pids) in capsys.readouterr().err
    # A process that, like `majlis run`, ends on SIGTERM (its default action) and writes its pid file first.
    child = subprocess.Popen([sys.executable, "-c", "import signal; signal.pause()"])
    reaper = threading.Thread(target=child.wait)  # as its parent would: an ended child is gone, not a zombie
    reaper.start()
    try:
        pids.write_text(f"{child.pid}\n")
        assert main(["drain"]) == 0
        reaper.join(5)
        assert child.returncode == -signal.SIGTERM
        assert t("en", "drain.stopped", pid=child.pid) in capsys.readouterr().out
    finally:
        if child.poll() is None:
            child.kill()
    write_pid_file(pids)  # this process: `majlis run` names itself
    assert read_pid(pids) == os.getpid()





def test_the_drain_bound_is_a_finite_positive_number_of_seconds():
    assert drain_seconds({}) == DRAIN_SECONDS == 20
    assert drain_seconds({"MAJLIS_DRAIN_SECONDS": "2.5"}) == 2.5
    for bad in ("0", "-3", "soon", "inf", "nan"):
        assert drain_seconds({"MAJLIS_DRAIN_SECONDS": bad}) == DRAIN_SECONDS
