"""The ladder on the real adapters: /top pages with inline buttons edited in place on Telegram and on a Discord
ephemeral, /stats as a picture posted where it was asked, /rated for administrators only."""

from __future__ import annotations

import logging

import pytest
from telegram.ext import AIORateLimiter

from bot.i18n import t
from storage import Store
from storage.ladder import PLACEMENT_MATCHES, sides_and_places
from tests import dc_harness, tg_harness
from tests.tg_harness import GROUP_ID, Bot, FakeTelegram


@pytest.fixture
async def store(tmp_path):
    store = await Store.open(str(tmp_path / "db.sqlite"))
    yield store
    await store.close()


async def seed_board(store: Store, platform: str, chat_id: str, players: int, first_user: int = 500) -> None:
    """`players` placed players of `platform` on the Kenza ladder (five rated matches each in `chat_id`), user ids
    counting from `first_user`."""
    ids = [(await store.upsert_player(platform, str(first_user + n), f"P{n:02d}")).id for n in range(players)]
    for _ in range(PLACEMENT_MATCHES):
        for n in range(0, players - 1, 2):
            match = await store.create_match("kenza", "casual", {}, platform, chat_id, ids[n], 1, rated=True)
            for player in (ids[n], ids[n + 1]):
                await store.add_seat(match.id, player_id=player)
            await store.start_match(match.id, {}, None)
            result = {"over": True, "scores": [150, 50], "winners": [0], "draw": False}
            await store.apply_move(match.id, 0, 0, "human", "x", {}, None, result,
                                   sides=sides_and_places(result, 2, False))


async def test_telegram_top_pages_in_place_and_stats_is_a_photo(store):
    await seed_board(store, "telegram", str(GROUP_ID), 14)
    server = FakeTelegram()
    alice = tg_harness.user(111, "Alice")
    async with Bot(server, store) as bot:
        await bot.command(alice, GROUP_ID, "/lang en")
        board = await bot.command(alice, GROUP_ID, "/top kenza")
        assert board is not None and board.params["text"].splitlines()[1].startswith("1. P")
        keyboard = board.markup["inline_keyboard"]
        nxt = tg_harness.first_data(keyboard, "g:")
        assert nxt is not None and keyboard[0][0]["text"] == t("en", "btn.next")
        before = len(server.calls)
        answer = await bot.press(alice, GROUP_ID, board.sent_id, nxt)
        assert not answer.get("show_alert")
        edits = [c for c in server.calls[before:] if c.method == "editMessageText"]
        assert len(edits) == 1 and int(edits[0].params["message_id"]) == board.sent_id
        assert edits[0].params["text"].splitlines()[1].startswith("11. P") and "page 2/2" in edits[0].params["text"]
        forged = await bot.press(alice, GROUP_ID, board.sent_id, "g:0:kenza:-:g:99999999999999999999")
        assert forged.get("show_alert") and forged["text"] == t("en", "err.bad_button")
        before = len(server.calls)
        await bot.command(tg_harness.user(500, "P00"), GROUP_ID, "/stats")
        photos = [c for c in server.calls[before:] if c.method == "sendPhoto" and c.chat_id == str(GROUP_ID)]
        assert len(photos) == 1 and photos[0].files.get("photo", b"").startswith(b"\x89PNG")
        assert "🏅" in photos[0].params["caption"]


async def test_telegram_a_429_on_a_page_edit_tells_the_presser_to_try_again(store, caplog):
    """Issue 26: `Busy` (a 429 beyond the limiter's retries on the in-place page edit) escaped the press handler:
    PTB's error handler logged a traceback and the presser had already been answered with nothing."""
    await seed_board(store, "telegram", str(GROUP_ID), 14)
    server = FakeTelegram()
    alice = tg_harness.user(111, "Alice")
    limiter = AIORateLimiter(overall_max_rate=0, group_max_rate=0, max_retries=0)  # the 429 surfaces at once
    async with Bot(server, store, limiter=limiter) as bot:
        await bot.command(alice, GROUP_ID, "/lang en")
        board = await bot.command(alice, GROUP_ID, "/top kenza")
        nxt = tg_harness.first_data(board.markup["inline_keyboard"], "g:")
        server.failures.append(tg_harness.Failure("editMessageText", 429, "Too Many Requests: retry after 5",
                                                  chat_id=str(GROUP_ID), retry_after=5))
        caplog.clear()
        with caplog.at_level(logging.INFO):
            answer = await bot.press(alice, GROUP_ID, board.sent_id, nxt)
        assert answer.get("show_alert") and answer["text"] == t("en", "err.busy")
        ours = [r for r in caplog.records if r.name.startswith("bot.")]  # (the limiter's own lines: issue 26 e)
        assert not [r for r in ours if r.levelno >= logging.ERROR or r.exc_info], caplog.text
        assert any("wait 5 s" in r.getMessage() for r in ours if r.levelno == logging.WARNING)
        # A moment later the same press turns the page.
        before = len(server.calls)
        assert not (await bot.press(alice, GROUP_ID, board.sent_id, nxt)).get("show_alert")
        (edit,) = [c for c in server.calls[before:] if c.method == "editMessageText"]
        assert edit.status == 200 and "page 2/2" in edit.params["text"]


async def test_telegram_rated_is_for_administrators(store):
    server = FakeTelegram()
    server.admins.add("111")
    async with Bot(server, store) as bot:
        await bot.command(tg_harness.user(111, "Alice"), GROUP_ID, "/lang en")
        refused = await bot.command(tg_harness.user(222, "Badr"), GROUP_ID, "/rated on")
        assert refused.params["text"] == t("en", "err.admin_only")
        done = await bot.command(tg_harness.user(111, "Alice"), GROUP_ID, "/rated on")
        assert done.params["text"] == t("en", "ladder.rated_set_on")
        assert (await store.get_chat("telegram", str(GROUP_ID))).defaults["rated"] is True


async def test_discord_top_is_an_ephemeral_whose_buttons_turn_its_pages(store):
    await seed_board(store, "discord", str(dc_harness.CHANNEL_ID), 14, first_user=2_000_000_000_000_000_009)
    fake = dc_harness.FakeDiscord()
    adapter = await dc_harness.start_adapter(store, fake)
    try:
        payload = fake.command(dc_harness.AMINA, "top", {"game": "kenza", "scope": "global"})
        await fake.feed(adapter.client, payload)
        board = fake.original(payload["token"])
        assert board["flags"] & dc_harness.EPHEMERAL and board["content"].splitlines()[1].startswith("1. P")
        nxt = dc_harness.button_id(board, "g:")
        calls = await fake.feed(adapter.client, fake.press(dc_harness.AMINA, board["id"], nxt))
        assert not [text for text in dc_harness.answers(calls) if text.startswith("⚠")]
        page = fake.messages[board["id"]]
        assert page["content"].splitlines()[1].startswith("11. P"), page["content"]
        payload = fake.command(dc_harness.user(9, "P00"), "stats", {})
        await fake.feed(adapter.client, payload)
        card = fake.original(payload["token"])
        assert card["flags"] & dc_harness.EPHEMERAL and card["embeds"] and card["attachments"]
    finally:
        await adapter.client.close()


async def test_discord_a_429_on_a_page_edit_tells_the_presser_to_try_again(store, caplog):
    """Issue 26: a 429 that outlived discord.py's own waits on the board's page edit left the presser with no
    answer at all; now they are told to try again in a moment (and the next press turns the page)."""
    await seed_board(store, "discord", str(dc_harness.CHANNEL_ID), 14, first_user=2_000_000_000_000_000_009)
    fake = dc_harness.FakeDiscord()
    adapter = await dc_harness.start_adapter(store, fake)
    try:
        payload = fake.command(dc_harness.AMINA, "top", {"game": "kenza", "scope": "global"})
        await fake.feed(adapter.client, payload)
        board = fake.original(payload["token"])
        nxt = dc_harness.button_id(board, "g:")
        fake.fail_original = (429, 0, "You are being rate limited.")
        with caplog.at_level(logging.INFO):
            calls = await fake.feed(adapter.client, fake.press(dc_harness.AMINA, board["id"], nxt))
        assert t("en", "err.busy") in dc_harness.answers(calls)
        assert fake.messages[board["id"]]["content"].splitlines()[1].startswith("1. P"), "not turned"
        assert not [r for r in caplog.records if r.name.startswith("bot.") and r.exc_info], caplog.text
        await fake.feed(adapter.client, fake.press(dc_harness.AMINA, board["id"], nxt))
        assert fake.messages[board["id"]]["content"].splitlines()[1].startswith("11. P")
    finally:
        await adapter.client.close()
