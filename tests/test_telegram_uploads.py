"""Pictures are uploaded to Telegram once per content: the same picture again is the file id Telegram gave it, a
changed picture is uploaded, and an edit whose picture the message already shows changes only caption and keyboard
(unless the answer shows another worker changed the picture meanwhile)."""

from __future__ import annotations

from bot.messages import Button, OutMessage
from bot.telegram_adapter.transport import TelegramTransport
from tests.tg_harness import GROUP_ID, Bot, FakeTelegram, user

ALICE = user(111, "Alice")
TABLE = b"\x89PNG the table at version 1"
TABLE_2 = b"\x89PNG the table at version 2"


def picture(text: str, image: bytes, key: str, keyboard: list | None = None) -> OutMessage:
    return OutMessage(text, image=image, picture_key=key, keyboard=keyboard or [])


async def test_the_same_picture_sent_again_is_its_file_id_and_a_changed_one_is_uploaded(store):
    server = FakeTelegram()
    async with Bot(server, store) as bot:
        transport = bot.adapter.transport
        first = await transport.send(str(GROUP_ID), picture("table", TABLE, "k1"))
        upload = server.latest(GROUP_ID, "sendPhoto")
        assert upload.files.get("photo") == TABLE
        second = await transport.send(str(ALICE["id"]), picture("table", TABLE, "k1"))
        again = server.latest(ALICE["id"], "sendPhoto")
        assert not again.files and again.params["photo"] == server.messages[(str(GROUP_ID), int(first))].as_json(
            server)["photo"][-1]["file_id"]
        assert server.picture(again) == TABLE  # the server shows the uploaded picture in the second chat
        await transport.edit(str(ALICE["id"]), second, picture("table", TABLE_2, "k2"))
        changed = server.latest(ALICE["id"], "editMessageMedia")
        assert changed.status == 200 and server.picture(changed) == TABLE_2 and changed.files
        await transport.edit(str(GROUP_ID), first, picture("table 2", TABLE_2, "k2"))  # now known: no upload
        edited = server.latest(GROUP_ID, "editMessageMedia")
        assert edited.status == 200 and not edited.files and server.picture(edited) == TABLE_2
        assert (transport.uploads, transport.reused) == (2, 2)


async def test_an_unchanged_picture_is_left_in_place_and_only_caption_and_keyboard_are_edited(store):
    server = FakeTelegram()
    async with Bot(server, store) as bot:
        transport = bot.adapter.transport
        message_id = await transport.send(str(GROUP_ID), picture("table", TABLE, "k1"))
        keyboard = [[Button("Go", data="j:1")]]
        await transport.edit(str(GROUP_ID), message_id, picture("table, Alice to play", TABLE, "k1", keyboard))
        calls = server.calls_to(GROUP_ID)
        assert [c.method for c in calls] == ["sendPhoto", "editMessageCaption"]
        shown = server.messages[(str(GROUP_ID), int(message_id))]
        assert shown.caption == "table, Alice to play" and shown.markup == {
            "inline_keyboard": [[{"text": "Go", "callback_data": "j:1"}]]}
        assert server.picture(calls[0]) == TABLE and shown.photo_digest == server.file_ids[
            shown.as_json(server)["photo"][-1]["file_id"]]


async def test_a_picture_changed_by_another_worker_meanwhile_is_edited_back_in(store):
    server = FakeTelegram()
    async with Bot(server, store) as bot:
        transport = bot.adapter.transport
        message_id = await transport.send(str(GROUP_ID), picture("table", TABLE, "k1"))
        # Another worker (its own transport and memory, the same bot) shows a newer picture in the same message.
        await TelegramTransport(bot.bot).edit(str(GROUP_ID), message_id, picture("table 2", TABLE_2, "k2"))
        assert server.messages[(str(GROUP_ID), int(message_id))].caption == "table 2"
        # This worker believes the message still shows k1: the caption edit's answer tells it otherwise.
        await transport.edit(str(GROUP_ID), message_id, picture("table again", TABLE, "k1"))
        methods = [c.method for c in server.calls_to(GROUP_ID)[-2:]]
        assert methods == ["editMessageCaption", "editMessageMedia"]
        shown = server.messages[(str(GROUP_ID), int(message_id))]
        assert shown.caption == "table again" and server.bodies[shown.photo_digest] == TABLE


async def test_a_file_id_telegram_no_longer_knows_is_uploaded_again(store):
    server = FakeTelegram()
    async with Bot(server, store) as bot:
        transport = bot.adapter.transport
        await transport.send(str(GROUP_ID), picture("table", TABLE, "k1"))
        server.file_ids.clear()  # expired on Telegram's side
        await transport.send(str(ALICE["id"]), picture("table", TABLE, "k1"))
        attempts = [c for c in server.calls_to(ALICE["id"]) if c.method == "sendPhoto"]
        assert [c.status for c in attempts] == [400, 200] and attempts[-1].files.get("photo") == TABLE


async def test_the_bench_server_counts_upload_bytes_without_keeping_them(store):
    server = FakeTelegram(keep_uploads=False)
    async with Bot(server, store) as bot:
        await bot.adapter.transport.send(str(GROUP_ID), picture("table", TABLE, "k1"))
        await bot.adapter.transport.send(str(GROUP_ID), picture("table", TABLE_2, "k2"))
        assert server.uploaded_bytes == len(TABLE) + len(TABLE_2)
        assert not server.bodies and all(not call.files for call in server.calls)
