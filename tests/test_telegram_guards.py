"""Bad presses, unreachable players, restarts, rate limits and turn timers, through the real Application."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.i18n import t
from storage import Store
from tests.fakes import AFTER_A_MOVE, force_layout
from tests.tg_harness import (
    BOT_USERNAME,
    GROUP_ID,
    Bot,
    Clock,
    FakeTelegram,
    first_data,
    open_table,
    play_one,
    seat_to_move,
    user,
)

ALICE = user(111, "Alice")
BADR = user(222, "Badr", language="ar")
EVE = user(555, "Eve")
DINA = user(444, "Dina")
HUMANS = {0: ALICE, 1: BADR}
ENGLISH = {0: ALICE, 1: DINA}


@pytest.fixture
def db_path(tmp_path):
    return str(tmp_path / "db.sqlite")


@pytest.fixture
async def store(db_path):
    store = await Store.open(db_path)
    yield store
    await store.close()


async def forced(bot: Bot, match_id: int, layout: str) -> None:
    """Badr's plain opening move, then Alice's rack starts with a move or with a capture choice (`layout`)."""
    await force_layout(bot.store, match_id, AFTER_A_MOVE[layout])
    await bot.service.resume()
    await play_one(bot, match_id, HUMANS)
    _, seat = await seat_to_move(bot.store, match_id)
    assert seat == 0


@pytest.mark.parametrize("layout", sorted(AFTER_A_MOVE))
async def test_forged_stale_and_out_of_turn_presses_alert_only_the_presser_and_change_nothing(store, layout):
    server = FakeTelegram()
    async with Bot(server, store) as bot:
        match_id = await open_table(bot, ALICE, [BADR])
        await forced(bot, match_id, layout)  # so that an older version exists
        match, seat = await seat_to_move(store, match_id)
        mover, waiter = HUMANS[seat], HUMANS[1 - seat]
        rack_id, keyboard = server.rack(mover["id"])
        current = first_data(keyboard, "m:", "p:")
        assert current.startswith("m:" if layout == "move first" else "p:")
        parts = current.split(":")
        stale = ":".join([parts[0], parts[1], str(match.version - 1), *parts[3:]])
        move_code = first_data(keyboard, "m:")
        cases = [
            (mover, "zz:1:2", "err.bad_button"),  # made up
            (mover, "m:99999:0:0", "err.bad_button"),  # a match that does not exist
            (EVE, current, "err.not_your_seat"),  # a real code of a match Eve is not in
            (mover, stale, "err.stale"),  # a keyboard from before the last move
            (waiter, current, "err.not_your_turn"),  # the right version, the wrong player
        ]
        fields = move_code.split(":")  # a real move button's code with an index no button has
        cases.append((mover, ":".join([*fields[:3], "999", *fields[4:]]), "err.bad_button"))
        for who, data, key in cases:
            before = len(server.api_calls())
            answer = await bot.press(who, who["id"], rack_id, data)
            assert answer["show_alert"] is True and answer["text"] == t(who["language_code"], key), (data, answer)
            # Nothing but the answer to that user's own callback query went out.
            assert [c.method for c in server.api_calls()[before:]] == ["answerCallbackQuery"]
            after = await store.get_match(match_id)
            assert (after.version, after.snapshot) == (match.version, match.snapshot)
        # A double press of a real move applies once; the second press is answered as stale.
        first = await bot.press(mover, mover["id"], rack_id, current)
        if layout == "pick first":  # the takes of 6🪙 show; the first of them is the move
            rack_id, keyboard = server.rack(mover["id"])
            current = first_data(keyboard, "m:")
            first = await bot.press(mover, mover["id"], rack_id, current)
        assert not first.get("show_alert")
        moved = await store.get_match(match_id)
        again = await bot.press(mover, mover["id"], rack_id, current)
        assert again["show_alert"] is True
        assert (await store.get_match(match_id)).version == moved.version == match.version + 1


async def test_player_without_private_chat_gets_a_deep_link_and_start_waits_for_them(store):
    server = FakeTelegram(blocked={str(BADR["id"])})
    async with Bot(server, store) as bot:
        await bot.command(ALICE, GROUP_ID, "/new kenza")
        await bot.command(BADR, GROUP_ID, "/join")
        match = await store.lobby_or_active_match("telegram", str(GROUP_ID))
        reply = await bot.command(ALICE, GROUP_ID, "/start")
        assert reply is not None and "private chat" in reply.params["text"]
        note = [c for c in server.calls_to(GROUP_ID) if c.method == "sendMessage" and "Badr" in c.shown_text]
        assert note, "the group is told who must open a private chat"
        link = note[-1].markup["inline_keyboard"][0][0]
        assert link["url"] == f"https://t.me/{BOT_USERNAME}?start=m{match.id}"
        assert (await store.get_match(match.id)).status == "lobby"
        refused = [c for c in server.calls_to(BADR["id"]) if c.status == 403]
        assert refused, "the adapter tried the private chat and got Telegram's 403"
        # Badr follows the link: Telegram delivers `/start m<id>` in his private chat, which is now open.
        server.blocked.clear()
        welcome = await bot.command(BADR, BADR["id"], f"/start m{match.id}")
        assert welcome is not None and welcome.status == 200
        await bot.command(ALICE, GROUP_ID, "/start")
        assert (await store.get_match(match.id)).status == "active"
        assert server.rack(BADR["id"]) is not None and server.rack(ALICE["id"]) is not None


@pytest.mark.parametrize("layout", sorted(AFTER_A_MOVE))
async def test_restart_mid_match_keeps_editing_the_same_table_message(db_path, layout):
    server = FakeTelegram()
    store = await Store.open(db_path)
    async with Bot(server, store) as bot:
        match_id = await open_table(bot, ALICE, [BADR])
        await forced(bot, match_id, layout)
        table_id = next(c.sent_id for c in server.calls_to(GROUP_ID) if c.method == "sendPhoto")
        match, seat = await seat_to_move(store, match_id)
        mover = HUMANS[seat]
        old_rack_id, old_keyboard = server.rack(mover["id"])
    await store.close()

    store = await Store.open(db_path)
    try:
        async with Bot(server, store) as bot:
            await bot.service.resume()
            mark = len(server.calls)
            data = first_data(old_keyboard, "m:", "p:")
            assert data.split(":")[2] == str(match.version)
            assert data.startswith("m:" if layout == "move first" else "p:")
            answer = await bot.press(mover, mover["id"], old_rack_id, data)
            if layout == "pick first":
                rack_id, keyboard = server.rack(mover["id"])
                answer = await bot.press(mover, mover["id"], rack_id, first_data(keyboard, "m:"))
            assert not answer.get("show_alert"), answer
            assert (await store.get_match(match_id)).version > match.version
            group = [c for c in server.calls[mark:] if c.chat_id == str(GROUP_ID)]
            assert [c.method for c in group if c.method.startswith("send")] == [], "table must not be re-sent"
            edits = [c for c in group if c.method == "editMessageMedia" and c.status == 200]
            assert edits and all(int(c.params["message_id"]) == table_id for c in edits)
    finally:
        await store.close()


class LimiterClock:
    """Stands in for the `asyncio` module inside PTB's rate limiter: its waits are recorded, not slept."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(asyncio, name)

    async def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)


async def test_retry_after_during_a_move_is_waited_out_and_the_move_lands(store, monkeypatch):
    import telegram.ext._aioratelimiter as limiter_module

    limiter_clock = LimiterClock()
    monkeypatch.setattr(limiter_module, "asyncio", limiter_clock)
    server = FakeTelegram()
    async with Bot(server, store) as bot:
        match_id = await open_table(bot, ALICE, [BADR])
        match, seat = await seat_to_move(store, match_id)
        server.retry_once["editMessageMedia"] = 1
        await play_one(bot, match_id, HUMANS)
        assert len(limiter_clock.waits) == 1 and limiter_clock.waits[0] >= 1.0, "the limiter waited retry_after"
        assert "editMessageMedia" not in server.retry_once
        limited = [i for i, c in enumerate(server.calls) if c.status == 429]
        assert len(limited) == 1
        retried = server.calls[limited[0]]
        later = [c for c in server.calls[limited[0] + 1:] if c.method == retried.method and c.status == 200
                 and c.chat_id == retried.chat_id and c.params.get("message_id") == retried.params.get("message_id")]
        assert later, "the same edit was sent again and succeeded"
        assert (await store.get_match(match_id)).version == match.version + 1


async def test_timeouts_play_a_safe_move_then_a_bot_keeps_the_seat_until_im_back(store):
    server = FakeTelegram(admins={str(ALICE["id"])})
    clock = Clock()
    async with Bot(server, store, clock=clock) as bot:
        service = bot.service
        said = await bot.command(ALICE, GROUP_ID, "/lang en")  # an admin sets the group's language
        assert said.params["text"] == t("en", "lang.chat_set")
        match_id = await open_table(bot, ALICE, [DINA])
        assert await service.tick() == 0, "nothing is due before the deadline"
        match, seat = await seat_to_move(store, match_id)
        sleeper, player = ENGLISH[seat], ENGLISH[1 - seat]

        clock.advance(61)
        assert await service.tick() == 1
        after, _ = await seat_to_move(store, match_id)
        assert after.version == match.version + 1
        assert (await store.moves(match_id))[-1].actor == "timer"
        told = server.latest(sleeper["id"], "sendMessage")
        assert told is not None and "Time ran out" in told.shown_text

        async def until_turn_of(who: dict) -> None:
            for _ in range(60):
                current, turn = await seat_to_move(store, match_id)
                if ENGLISH[turn] is who:
                    return
                await play_one(bot, match_id, ENGLISH)
            raise AssertionError("turn never came")

        await until_turn_of(sleeper)
        clock.advance(61)
        assert await service.tick() == 1
        seats = await store.seats(match_id)
        assert seats[seat].away
        # From now on the sleeper's seat is played at once by a bot: after each of the other's moves it is
        # the other's turn again, and no timer runs for the absent seat.
        for _ in range(3):
            current, turn = await seat_to_move(store, match_id)
            assert ENGLISH[turn] is player and current.deadline is not None
            await play_one(bot, match_id, ENGLISH)
        assert "bot" in {m.actor for m in await store.moves(match_id)}
        rack_id, keyboard = server.rack(sleeper["id"])
        answer = await bot.press_button(sleeper, sleeper["id"], rack_id, keyboard, "i:")
        assert "Welcome back" in answer["text"]
        assert not (await store.seats(match_id))[seat].away
        await until_turn_of(sleeper)
        current, turn = await seat_to_move(store, match_id)
        assert ENGLISH[turn] is sleeper and current.deadline is not None
