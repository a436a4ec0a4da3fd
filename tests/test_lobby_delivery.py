"""A lobby change is a stored fact: a platform error on the lobby's message is not the presser's (issue 26, point 4).

Start, cancel, join and add-bot commit first; the lobby message (and after Start the racks, the table and the bots'
first turn) is a delivery like a move's. Each test breaks the lobby's edit the way Telegram does (a 5xx, a time-out,
a 429 that outlives the rate limiter) and checks that the presser got the normal answer, that the lobby is shown
once the service retries on its own clock, and that a started match has its racks and table and a bot to move
moves. A worker killed with the lobby still owed (its post refused, then the kill) leaves it to the next start:
`resume` posts or edits it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from telegram.error import TimedOut
from telegram.ext import AIORateLimiter

import engine
from bot.i18n import t
from storage import Store
from tests.tg_harness import (
    GROUP_ID,
    Bot,
    Call,
    Clock,
    Failure,
    FakeTelegram,
    flat_buttons,
    lobby_keyboard,
    open_lobby,
    user,
)

ALICE = user(111, "Alice")
BADR = user(222, "Badr")
GROUP = str(GROUP_ID)  # the group reads Arabic (the default); Alice and Badr English
FAULTS = ("5xx", "timeout", "429")
# The Bot seed whose first table (Alice and a bot) deals the bot the first turn (checked in the test).
BOT_FIRST_SEED = 1


@pytest.fixture
async def store(tmp_path):
    store = await Store.open(str(tmp_path / "db.sqlite"))
    yield store
    await store.close()


def limiter() -> AIORateLimiter:
    """A 429 reaches the bot at once (no real-time waiting in the limiter)."""
    return AIORateLimiter(overall_max_rate=0, group_max_rate=0, max_retries=0)


def break_next(server: FakeTelegram, method: str, fault: str) -> Callable[[], list[Call]]:
    """The next `method` call to the group fails with `fault`; returns a function listing the failed calls."""
    failed: list[Call] = []
    if fault == "5xx":
        server.failures.append(Failure(method, 502, "Bad Gateway", chat_id=GROUP))
    elif fault == "429":
        server.failures.append(Failure(method, 429, "Too Many Requests: retry after 3", chat_id=GROUP,
                                       retry_after=3))
    else:
        async def time_out(call: Call) -> None:
            if call.method == method and call.chat_id == GROUP and not failed:
                call.status = 0  # never answered
                failed.append(call)
                raise TimedOut("Timed out")

        server.on_call = time_out
    return lambda: [c for c in server.calls_to(GROUP) if c.method == method and c.status not in (200, 400)]


def lobby_text(server: FakeTelegram) -> str:
    """The group's lobby message as the server holds it now ("" while none was posted)."""
    posted = [c for c in server.calls_to(GROUP) if c.method == "sendMessage" and c.status == 200
              and "j:" in str(c.markup)]
    if not posted:
        return ""
    stored = server.messages.get((GROUP, posted[-1].sent_id))
    return "" if stored is None else stored.text or ""


async def press_lobby(bot: Bot, who: dict[str, Any], prefix: str) -> dict[str, Any]:
    message_id, keyboard = lobby_keyboard(bot.server)
    data = next(b["callback_data"] for b in flat_buttons(keyboard) if b.get("callback_data", "").startswith(prefix))
    return await bot.press(who, GROUP_ID, message_id, data)


async def retry_until_shown(bot: Bot, clock: Clock) -> None:
    """Let the service's own clock pass its retry times (a 429 asked for 3 s)."""
    for _ in range(4):
        clock.advance(4.0)
        await bot.service.tick()


async def table_and_racks(bot: Bot, match_id: int, humans: list[dict[str, Any]]) -> None:
    """A started match shows its table in the group and each human's rack in their private chat."""
    tables = [c for c in bot.server.calls_to(GROUP) if c.method == "sendPhoto" and c.status == 200]
    assert tables, "the table went out"
    for who in humans:
        assert bot.server.rack(who["id"]) is not None, f"{who['first_name']} has no rack"
    match = await bot.store.get_match(match_id)
    assert match.status == "active"


OPS = {  # op -> (lobby button, the presser, the answer, what the lobby shows after)
    "join": ("j:", BADR, "lobby.joined", "Badr"),
    "add-bot": ("b:", ALICE, "lobby.bot_added", "2. "),
    "start": ("s:", ALICE, "lobby.started", None),
    "cancel": ("x:", ALICE, "lobby.cancelled", None),
}


async def lobby_for(bot: Bot, op: str) -> int:
    """A Kenza lobby of Alice, with a second seat where the op needs one (Badr for Start and Cancel)."""
    match_id = await open_lobby(bot, ALICE, "/new kenza target=101")
    if op in ("start", "cancel"):
        answer = await press_lobby(bot, BADR, "j:")
        assert answer.get("text") == t("en", "lobby.joined"), answer
    return match_id


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("op", list(OPS))
async def test_a_platform_error_on_the_lobby_edit_is_not_the_pressers(store, op: str, fault: str) -> None:
    clock = Clock()
    server = FakeTelegram()
    async with Bot(server, store, clock=clock, limiter=limiter()) as bot:
        match_id = await lobby_for(bot, op)
        button, who, answer_key, shown = OPS[op]
        failed = break_next(server, "editMessageText", fault)
        answer = await press_lobby(bot, who, button)
        assert answer.get("text") == t("en", answer_key) and not answer.get("show_alert"), answer
        assert failed(), "the lobby edit was refused"
        await retry_until_shown(bot, clock)
        text = lobby_text(server)
        if op == "join":
            assert shown in text and len(await store.seats(match_id)) == 2
        elif op == "add-bot":
            assert shown in text and len(await store.seats(match_id)) == 2
        elif op == "start":
            assert t("ar", "lobby.started") in text
            await table_and_racks(bot, match_id, [ALICE, BADR])
        else:
            assert t("ar", "lobby.cancelled") in text
            assert (await store.get_match(match_id)).status == "cancelled"


@pytest.mark.parametrize("fault", FAULTS)
async def test_a_bot_first_match_moves_although_the_lobby_edit_failed(store, fault: str) -> None:
    clock = Clock()
    server = FakeTelegram()
    async with Bot(server, store, clock=clock, limiter=limiter(), seed=BOT_FIRST_SEED) as bot:
        match_id = await open_lobby(bot, ALICE, "/new kenza target=101")
        answer = await press_lobby(bot, ALICE, "b:")
        assert answer.get("text") == t("en", "lobby.bot_added"), answer
        match = await store.get_match(match_id)
        game = engine.get("kenza")
        assert game.to_move(game.new(2, match.options, seed=match.seed)) == 1, "the bot (seat 1) is dealt first"
        failed = break_next(server, "editMessageText", fault)
        answer = await press_lobby(bot, ALICE, "s:")
        assert answer.get("text") == t("en", "lobby.started") and not answer.get("show_alert"), answer
        assert failed()
        assert (await store.get_match(match_id)).version >= 1, "the bot played its first turn"
        await retry_until_shown(bot, clock)
        assert t("ar", "lobby.started") in lobby_text(server)
        await table_and_racks(bot, match_id, [ALICE])


@pytest.mark.parametrize("op", ["new", "join", "start", "cancel"])
async def test_a_lobby_owed_when_the_worker_was_killed_is_shown_after_the_restart(store, op: str) -> None:
    """The post (or edit) is refused with a 429, then the worker dies before its retry: the next worker's resume
    shows it — a new lobby is posted, not left open and invisible."""
    clock = Clock()
    server = FakeTelegram()
    async with Bot(server, store, clock=clock, limiter=limiter()) as bot:
        if op == "new":
            failed = break_next(server, "sendMessage", "429")
            await bot.command(ALICE, GROUP_ID, "/new kenza target=101")
            assert failed(), "the lobby's post was refused"
            match = await store.lobby_or_active_match("telegram", GROUP)
            assert match is not None and match.status == "lobby", "the lobby is stored"
            assert lobby_text(server) == "", "and not shown"
        else:
            match_id = await lobby_for(bot, "start" if op != "join" else "join")
            failed = break_next(server, "editMessageText", "429")
            button, who, answer_key, _ = OPS[op]
            answer = await press_lobby(bot, who, button)
            assert answer.get("text") == t("en", answer_key), answer
            assert failed()
        before = lobby_text(server)
    # Killed: the retry it had planned never runs. The next worker starts on the same database.
    async with Bot(server, store, clock=clock, limiter=limiter(), seed=7) as bot:
        await bot.service.resume()
        text = lobby_text(server)
        assert text != before, "the owed lobby was shown"
        if op == "new":
            answer = await press_lobby(bot, BADR, "j:")
            assert answer.get("text") == t("en", "lobby.joined"), answer
            assert "Badr" in lobby_text(server)
        elif op == "join":
            assert "Badr" in text
        elif op == "start":
            assert t("ar", "lobby.started") in text
            await table_and_racks(bot, match_id, [ALICE, BADR])
        else:
            assert t("ar", "lobby.cancelled") in text
