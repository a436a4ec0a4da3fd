"""The adapter's own duties: command menu and parsing, admin checks, answering every press, error mapping."""

from __future__ import annotations

import random

import pytest

from bot.i18n import t
from bot.messages import Button, MessageGone, OutMessage, Reply, Unreachable
from bot.rules import page_text
from bot.telegram_adapter import TelegramAdapter, commands
from bot.telegram_adapter.adapter import api_urls
from tests.tg_harness import BOT_USERNAME, GROUP_ID, Bot, FakeTelegram, RecordingRequest, make_settings, user

ALICE = user(111, "Alice")
BADR = user(222, "Badr")
PNG = b"\x89PNG fake picture"


def test_parse_strips_our_name_and_ignores_other_bots():
    assert commands.parse("/new@Majlis_Test_Bot kenza target=101", BOT_USERNAME) == commands.ParsedCommand(
        "new", ["kenza", "target=101"], addressed=True)
    assert commands.parse("/Top", BOT_USERNAME) == commands.ParsedCommand("top", [], addressed=False)
    assert commands.parse("/new@other_bot", BOT_USERNAME) is None
    assert commands.parse("hello /new", BOT_USERNAME) is None
    assert commands.parse("/", BOT_USERNAME) is None


def test_api_urls_for_a_self_hosted_server():
    assert api_urls("http://localhost:8081") == ("http://localhost:8081/bot", "http://localhost:8081/file/bot")
    assert api_urls("http://localhost:8081/bot/") == ("http://localhost:8081/bot", "http://localhost:8081/file/bot")


async def test_start_publishes_menus_polls_and_stop_ends_polling(store):
    server = FakeTelegram()
    async with Bot(server, store) as bot:
        await server.polled.wait()
        menus = server.api_calls("setMyCommands")
        assert sorted(str(c.params.get("language_code")) for c in menus) == ["None", "ar", "en"]
        for call in menus:
            names = [entry["command"] for entry in call.params["commands"]]
            assert names == list(commands.COMMANDS)
            lang = call.params.get("language_code") or "ar"
            assert call.params["commands"][0]["description"] == t(lang, "cmd.new")
        assert server.api_calls("deleteWebhook"), "polling starts by dropping any webhook"
        assert [c for c in server.calls if c.method == "getUpdates"], "the updater polls"
        assert bot.adapter.transport.deep_link("m7") == f"https://t.me/{BOT_USERNAME}?start=m7"
        assert server.open_polls == 1, "a long poll is waiting for updates"
    assert server.open_polls == 0 and not bot.adapter.application.updater.running, "stop() ended polling"


async def test_base_url_points_the_bot_at_a_self_hosted_server(store):
    from bot.service import Service

    adapter = TelegramAdapter(Service(store, seed_source=random.Random(1)), make_settings(base_url="http://localhost:8081"),
                              request=RecordingRequest(), get_updates_request=RecordingRequest())
    assert adapter.application.bot.base_url.startswith("http://localhost:8081/bot")


async def test_commands_in_groups_addressed_and_not(store):
    server = FakeTelegram()
    async with Bot(server, store) as bot:
        reply = await bot.command(ALICE, GROUP_ID, f"/help@{BOT_USERNAME}")
        assert reply is not None and "/new" in reply.params["text"]
        assert reply.params["reply_parameters"]["message_id"], "a group reply quotes the command"
        before = len(server.api_calls())
        await bot.command(ALICE, GROUP_ID, "/help@another_bot")
        await bot.command(ALICE, GROUP_ID, "/weather")  # some other bot's command: not ours to answer
        assert len(server.api_calls()) == before
        unknown = await bot.command(ALICE, ALICE["id"], "/weather")
        assert unknown.params["text"] == t("en", "err.unknown_command")
        rules = await bot.command(ALICE, GROUP_ID, "/rules kenza")
        assert rules.params["text"] == page_text("kenza", "en")
        await bot.command(BADR, GROUP_ID, "/help")
        stats = await bot.command(ALICE, GROUP_ID, "/stats", reply_to=BADR)  # "/stats" answering Badr's message
        assert stats.params["text"] == t("en", "stats.none", name="Badr")


async def test_admin_is_checked_only_for_admin_commands_and_cached(store):
    server = FakeTelegram(admins={str(BADR["id"])})
    async with Bot(server, store) as bot:
        await bot.command(ALICE, GROUP_ID, "/help")
        await bot.command(ALICE, GROUP_ID, "/new kenza")
        assert not server.api_calls("getChatMember")
        member = await bot.command(ALICE, GROUP_ID, "/lang en")
        assert member.params["text"] == t("en", "lang.set"), "a member sets only their own language"
        admin = await bot.command(BADR, GROUP_ID, "/lang en")
        assert admin.params["text"] == t("en", "lang.chat_set")
        await bot.command(BADR, GROUP_ID, "/lang en")
        asked = [(c.params["user_id"]) for c in server.api_calls("getChatMember")]
        assert sorted(asked) == [111, 222], "one getChatMember per user, then cached"
        # Badr is an admin but not the creator: he may cancel Alice's table.
        cancelled = await bot.command(BADR, GROUP_ID, "/cancel")
        assert cancelled.params["text"] == t("en", "lobby.cancelled")
        assert len(server.api_calls("getChatMember")) == 2


async def test_every_press_is_answered_even_when_the_service_fails(store, monkeypatch):
    server = FakeTelegram()
    async with Bot(server, store) as bot:
        async def broken(*args, **kwargs):
            raise RuntimeError("database on fire")

        monkeypatch.setattr(bot.service, "press", broken)
        answer = await bot.press(ALICE, ALICE["id"], 5, "m:1:0:0:0000")
        assert answer == {"callback_query_id": answer["callback_query_id"], "text": t("en", "err.generic"),
                          "show_alert": True}
        monkeypatch.setattr(bot.service, "command", broken)
        reply = await bot.command(ALICE, GROUP_ID, "/score")
        assert reply.params["text"] == t("en", "err.generic")


async def test_long_answers_go_to_the_private_chat_and_silent_ones_still_answer(store, monkeypatch):
    server = FakeTelegram()
    async with Bot(server, store) as bot:
        long_text = "Scores\n" + "\n".join(f"Deal {n}: Alice {n * 7} · Badr {n * 3}" for n in range(1, 20))

        async def long_reply(*args, **kwargs):
            return Reply(long_text, alert=True)

        monkeypatch.setattr(bot.service, "press", long_reply)
        answer = await bot.press(ALICE, GROUP_ID, 5, "c:1")
        assert answer["text"] == t("en", "reply.in_private") and len(long_text) > 200
        assert server.latest(ALICE["id"], "sendMessage").params["text"] == long_text

        async def silent(*args, **kwargs):
            return Reply("")

        monkeypatch.setattr(bot.service, "press", silent)
        answer = await bot.press(ALICE, ALICE["id"], 5, "k:1:0")
        assert "text" not in answer and not answer.get("show_alert")


async def test_transport_maps_telegram_refusals(store):
    server = FakeTelegram(blocked={"222"})
    async with Bot(server, store) as bot:
        transport = bot.adapter.transport
        with pytest.raises(Unreachable):
            await transport.send("222", OutMessage("your cards"))
        with pytest.raises(Unreachable):
            await transport.edit("222", "5", OutMessage("your cards", image=PNG))
        keyboard = [[Button("Go", data="j:1"), Button("Open", url="https://t.me/x?start=m1")], [Button("nothing")]]
        photo_id = await transport.send(str(GROUP_ID), OutMessage("table", image=PNG, keyboard=keyboard))
        sent = server.latest(GROUP_ID, "sendPhoto")
        assert sent.files and sent.params["caption"] == "table"
        assert sent.markup == {"inline_keyboard": [[{"text": "Go", "callback_data": "j:1"},
                                                    {"text": "Open", "url": "https://t.me/x?start=m1"}]]}
        # The same picture and caption again: Telegram says "not modified", which is success.
        await transport.edit(str(GROUP_ID), photo_id, OutMessage("table", image=PNG, keyboard=keyboard))
        assert server.calls_to(GROUP_ID)[-1].status == 400
        await transport.edit(str(GROUP_ID), photo_id, OutMessage("table 2", image=PNG))
        assert server.latest(GROUP_ID, "editMessageMedia").status == 200
        with pytest.raises(MessageGone):  # a photo cannot become a text message in place
            await transport.edit(str(GROUP_ID), photo_id, OutMessage("just text"))
        text_id = await transport.send(str(GROUP_ID), OutMessage("lobby"))
        with pytest.raises(MessageGone):
            await transport.edit(str(GROUP_ID), text_id, OutMessage("lobby", image=PNG))
        await transport.delete(str(GROUP_ID), text_id)
        with pytest.raises(MessageGone):
            await transport.edit(str(GROUP_ID), text_id, OutMessage("lobby 2"))
        with pytest.raises(MessageGone):
            await transport.delete(str(GROUP_ID), text_id)
        long_caption = "x" * 3000
        await transport.send("111", OutMessage(long_caption, image=PNG))
        assert len(server.latest(111, "sendPhoto").params["caption"]) == 1024
