"""The Discord adapter's parts: keyboard folding, select menus, the transport's mapping, command sync, start/stop."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.discord_adapter import DiscordAdapter, DiscordTransport
from bot.discord_adapter.views import MAX_OPTIONS, build_view, layout
from bot.messages import Button, MessageGone, OutMessage
from bot.service import Service
from tests.dc_harness import AMINA, APP_ID, BADR, CHANNEL_ID, GUILD_ID, FakeDiscord, answers, custom_ids, start_adapter
from tests.dc_harness import settings as dc_settings


def keyboard(shape: list[int], links: int = 0) -> list[list[Button]]:
    rows = [[Button(f"b{r}.{i}", f"m:1:2:{r * 100 + i}") for i in range(n)] for r, n in enumerate(shape)]
    if links:
        rows.append([Button(f"link{i}", url=f"https://example.org/{i}") for i in range(links)])
    return rows


def codes(blocks: Any) -> list[str]:
    return [b.data for block in blocks for b in block.buttons if b.data]


def test_fitting_keyboard_is_kept_and_a_tall_one_is_repacked():
    assert [len(b.buttons) for b in layout(keyboard([3, 3, 2]))] == [3, 3, 2]
    blocks = layout(keyboard([3] * 7))  # 21 buttons in 7 rows: too tall, few enough for 5 rows of 5
    assert [b.kind for b in blocks] == ["buttons"] * 5 and codes(blocks) == codes(layout(keyboard([3] * 7)))
    assert [len(b.buttons) for b in blocks] == [5, 5, 5, 5, 1]


def test_many_moves_fold_into_selects_and_controls_stay_buttons():
    rows = keyboard([4] * 10) + [[Button("meld", "p:1:2:meld"), Button("« back", "k:1:2")]]
    blocks = layout(rows)
    assert [b.kind for b in blocks].count("select") == 2 and blocks[-1].kind == "buttons"
    assert [b.label for b in blocks[-1].buttons] == ["meld", "« back"]
    assert sorted(codes(blocks)) == sorted(b.data for row in rows for b in row)
    view = build_view(rows)
    assert view is not None and len(blocks) == 3
    rows_sent = [[c["type"] for c in row["components"]] for row in view.to_components()]
    assert rows_sent == [[3], [3], [2, 2]]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(0, 14), max_size=12), st.integers(0, 3))
def test_layout_always_fits_discord_and_loses_nothing_that_could_fit(shape, links):
    rows = keyboard(shape, links)
    blocks = layout(rows)
    assert len(blocks) <= 5
    for block in blocks:
        assert len(block.buttons) <= (MAX_OPTIONS if block.kind == "select" else 5)
        if block.kind == "select":
            assert all(b.data for b in block.buttons)
    total = sum(shape)
    if total + links <= 25 or (total <= 75 and links <= 5):  # always room: 3 selects + a link row at worst
        assert sorted(codes(blocks)) == sorted(b.data for row in rows for b in row if b.data)
    view = build_view(rows)
    if total + links:
        assert view is not None and len(view.to_components()) == len(blocks)


async def test_a_select_menu_press_reaches_the_service(store):
    fake = FakeDiscord()
    adapter = await start_adapter(store, fake)
    try:
        await fake.feed(adapter.client, fake.command(AMINA, "new", {"game": "kenza"}))
        match = await store.lobby_or_active_match("discord", str(CHANNEL_ID))
        filler = [[Button(f"x{r}{i}", f"o:{match.id}:none{r}{i}") for i in range(5)] for r in range(6)]
        filler[3][2] = Button("Join", f"j:{match.id}")
        big = OutMessage("pick", keyboard=[*filler, [Button("Leave", f"l:{match.id}")]])
        message_id = await adapter.transport.send(str(CHANNEL_ID), big)
        stored = fake.messages[message_id]
        select = [c for row in stored["components"] for c in row["components"] if c["type"] == 3]
        assert select and select[0]["custom_id"].startswith("majlis-sel:")
        options = [o["value"] for s in select for o in s["options"]]
        assert f"j:{match.id}" in options and len(options) == MAX_OPTIONS  # five rows fill one menu
        assert custom_ids(stored) == [select[0]["custom_id"], *(b.data for b in filler[5]), f"l:{match.id}"]
        calls = await fake.feed(adapter.client, fake.press(BADR, message_id, select[-1]["custom_id"],
                                                           value=f"j:{match.id}"))
        assert answers(calls) == ["You joined the table."]
        assert len(await store.seats(match.id)) == 2
    finally:
        await adapter.client.close()


async def test_transport_maps_messages_mentions_and_errors(store):
    fake = FakeDiscord()
    adapter = await start_adapter(store, fake)
    transport: DiscordTransport = adapter.transport
    try:
        notice = await transport.send(str(CHANNEL_ID), OutMessage("<@42> your turn", mention="42"))
        call = fake.calls[-1]
        assert call.payload["allowed_mentions"] == {"parse": [], "users": [42]}
        plain = await transport.send(str(CHANNEL_ID), OutMessage("<@42> named by a user"))
        assert fake.calls[-1].payload["allowed_mentions"] == {"parse": []}, "no one else is ever pinged"
        picture = OutMessage("caption", image=b"\x89PNG fake", alt="the table", keyboard=[[Button("Hand", "h:1")]])
        table = await transport.send(str(CHANNEL_ID), picture)
        stored = fake.messages[table]
        assert stored["embeds"][0]["description"] == "caption" and stored["attachments"][0]["filename"] == "table.png"
        assert stored["attachments"][0]["description"] == "the table" and custom_ids(stored) == ["h:1"]
        await transport.edit(str(CHANNEL_ID), table, OutMessage("now text only"))
        stored = fake.messages[table]
        assert stored["content"] == "now text only" and not stored["embeds"] and not stored["attachments"]
        assert not stored["components"], "an edit without buttons removes them"
        await transport.delete(str(CHANNEL_ID), notice)
        with pytest.raises(MessageGone):
            await transport.delete(str(CHANNEL_ID), notice)
        with pytest.raises(MessageGone):
            await transport.edit(str(CHANNEL_ID), notice, OutMessage("x"))
        assert plain in fake.messages and transport.deep_link("m1") is None
    finally:
        await adapter.client.close()


async def test_commands_sync_to_the_guild_with_arabic_and_english_texts(store):
    fake = FakeDiscord()
    adapter = await start_adapter(store, fake)
    await adapter.client.close()
    commands = fake.commands[f"/applications/{APP_ID}/guilds/{GUILD_ID}/commands"]
    names = {c["name"] for c in commands}
    assert names == {"new", "join", "leave", "start", "cancel", "hand", "score", "top", "stats", "rules", "lang",
                     "help", "m", "back", "timer", "coins", "rated", "replay", "tournament", "play", "queue",
                     "ban", "unban", "status"}  # the last three the operators' (anyone else is told so)
    for command in commands:
        assert any("\u0600" <= ch <= "\u06ff" for ch in command["description"]), command["name"]
        english = command["description_localizations"]["en-US"]
        assert english and not any("\u0600" <= ch <= "\u06ff" for ch in english)
        assert len(command["description"]) <= 100
    new = next(c for c in commands if c["name"] == "new")
    options = {o["name"]: o for o in new["options"]}
    assert {"game", "variant", "target"} <= set(options)
    assert {c["value"] for c in options["game"]["choices"]} >= {"kenza"}
    kenza = next(c for c in options["game"]["choices"] if c["value"] == "kenza")
    assert kenza["name_localizations"]["en-US"] == "Kenza"
    assert {c["value"] for c in options["target"]["choices"]} >= {"101", "151", "301"}


async def test_global_sync_without_a_guild_and_a_slash_command_with_options(store):
    fake = FakeDiscord()
    adapter = DiscordAdapter(Service(store, seed_source=random.Random(1)), dc_settings(guild=False))
    await fake.login(adapter)
    try:
        assert f"/applications/{APP_ID}/commands" in fake.commands
        payload = fake.command(AMINA, "new", {"game": "kenza", "variant": "rabaeen", "target": "301"},
                               guild_command=False)
        await fake.feed(adapter.client, payload)
        match = await store.lobby_or_active_match("discord", str(CHANNEL_ID))
        assert match is not None and match.options == {"variant": "rabaeen", "target": 301}
    finally:
        await adapter.client.close()


async def test_start_connects_in_the_background_and_stop_ends_it(store, monkeypatch):
    fake = FakeDiscord()
    service = Service(store, seed_source=random.Random(1))
    adapter = DiscordAdapter(service, dc_settings())
    fake.install(adapter.client)
    connected = asyncio.Event()

    async def connect(*, reconnect: bool = True) -> None:  # the gateway: ready at once, then runs until closed
        adapter.client._ready.set()
        connected.set()
        await asyncio.Event().wait()

    monkeypatch.setattr(adapter.client, "connect", connect)
    await adapter.start()
    assert connected.is_set() and service.transports["discord"] is adapter.transport
    await adapter.stop()
    assert adapter.client.is_closed()
