"""Who may act, and what a forged, stale, doubled or out-of-turn interaction does: an ephemeral answer to that
user, and no change to the match."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.discord_adapter.interactions import actor_of
from storage import Store
from tests.dc_harness import (
    AMINA,
    BADR,
    EPHEMERAL,
    MANAGE_GUILD,
    FakeDiscord,
    answers,
    custom_ids,
    open_table,
    start_adapter,
    user,
    whose_turn,
)
from tests.fakes import LAYOUTS, force_layout

CHAMS = user(3, "Chams")


@pytest.fixture
async def table(store):
    """A running two-player Kenza table; yields (fake, adapter, match_id)."""
    fake = FakeDiscord()
    adapter = await start_adapter(store, fake)
    match_id = await open_table(fake, adapter, store)
    yield fake, adapter, match_id
    await adapter.client.close()


async def snapshot(store: Store, match_id: int) -> tuple[Any, ...]:
    match = await store.get_match(match_id)
    seats = await store.seats(match_id)
    return match.version, match.status, len(await store.moves(match_id)), [(s.player_id, s.away) for s in seats]


async def open_hand(fake: FakeDiscord, adapter: Any, who: dict[str, Any]) -> dict[str, Any]:
    table = fake.last_with_button("h:")
    payload = fake.press(who, table["id"], custom_ids(table, "h:")[0])
    await fake.feed(adapter.client, payload)
    return fake.original(payload["token"])


async def test_outsider_gets_an_ephemeral_no_and_changes_nothing(store, table):
    fake, adapter, match_id = table
    before = await snapshot(store, match_id)
    rack = await open_hand(fake, adapter, CHAMS)
    assert rack["flags"] & EPHEMERAL and "not playing" in rack["content"] and not rack["attachments"]
    _, who = await whose_turn(store, match_id)
    own = await open_hand(fake, adapter, who)
    move = (custom_ids(own, "m:") or custom_ids(own, "p:"))[0]
    calls = await fake.feed(adapter.client, fake.press(CHAMS, own["id"], move))
    assert any("not playing" in text for text in answers(calls))
    assert fake.messages[own["id"]]["attachments"], "the owner's ephemeral was not touched"
    assert await snapshot(store, match_id) == before


async def test_seated_player_out_of_turn_is_refused(store, table):
    fake, adapter, match_id = table
    _, who = await whose_turn(store, match_id)
    other = BADR if who is AMINA else AMINA
    before = await snapshot(store, match_id)
    own = await open_hand(fake, adapter, who)
    move = (custom_ids(own, "m:") or custom_ids(own, "p:"))[0]
    calls = await fake.feed(adapter.client, fake.press(other, own["id"], move))
    assert answers(calls) == ["⚠️ It is not your turn."]
    theirs = await open_hand(fake, adapter, other)
    assert not custom_ids(theirs, "m:") and not custom_ids(theirs, "p:"), "no move buttons off turn"
    assert await snapshot(store, match_id) == before


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
async def test_double_press_applies_once_and_old_buttons_are_stale(store, table, layout):
    """Both first controls a rack can start with: a move, and a capture choice whose takes then show."""
    fake, adapter, match_id = table
    await force_layout(store, match_id, LAYOUTS[layout])
    await adapter.service.resume()
    _, who = await whose_turn(store, match_id)
    assert who is AMINA
    own = await open_hand(fake, adapter, who)
    first_control = [code for code in custom_ids(own) if code.startswith(("m:", "p:"))][0]
    if layout == "move first":
        move = first_control
        assert move.startswith("m:")
    else:
        assert first_control.startswith("p:")
        await fake.feed(adapter.client, fake.press(who, own["id"], first_control))
        own = fake.messages[own["id"]]
        assert len(custom_ids(own, "m:")) == 2, "the two takes of 6🪙 show"
        move = custom_ids(own, "m:")[0]
    first, second = fake.press(who, own["id"], move), fake.press(who, own["id"], move)
    version = (await store.get_match(match_id)).version
    await fake.feed(adapter.client, first)
    after = await snapshot(store, match_id)
    assert after[0] == version + 1
    calls = await fake.feed(adapter.client, second)
    assert answers(calls) == ["⚠️ That button is out of date."]
    assert await snapshot(store, match_id) == after


@pytest.mark.parametrize("code", ["m:{id}:{version}:99", "m:4040:1:0", "zz:top", "c:{id}:" + "x" * 90, "n:0:chess"])
async def test_forged_codes_get_an_answer_and_change_nothing(store, table, code):
    fake, adapter, match_id = table
    match = await store.get_match(match_id)
    code = code.format(id=match_id, version=match.version)[:100]
    before = await snapshot(store, match_id)
    table_message = fake.last_with_button("h:")
    _, who = await whose_turn(store, match_id)
    calls = await fake.feed(adapter.client, fake.press(who, table_message["id"], code, forge=True))
    told = answers(calls)
    assert told and told[0].startswith("⚠️"), f"{code}: {told}"
    assert await snapshot(store, match_id) == before


async def test_admin_from_permissions_may_cancel_and_others_may_not(store):
    fake = FakeDiscord()
    adapter = await start_adapter(store, fake)
    try:
        await fake.feed(adapter.client, fake.command(AMINA, "new", {"game": "kenza"}))
        lobby = fake.last_with_button("x:")
        cancel = custom_ids(lobby, "x:")[0]
        calls = await fake.feed(adapter.client, fake.press(BADR, lobby["id"], cancel))
        assert answers(calls) == ["⚠️ Only the table's creator (or a chat admin) can do that."]
        payload = fake.press(CHAMS, lobby["id"], cancel, permissions=MANAGE_GUILD)
        assert actor_of(interaction_of(adapter, payload)).is_admin
        await fake.feed(adapter.client, payload)
        match = (await store.active_matches("discord")) or [None]
        assert match[0] is None
        assert "cancelled" in fake.messages[lobby["id"]]["content"] or "أُلغيت" in fake.messages[lobby["id"]]["content"]
        assert not fake.messages[lobby["id"]]["components"]
    finally:
        await adapter.client.close()


def interaction_of(adapter: Any, payload: dict[str, Any]) -> Any:
    import discord

    return discord.Interaction(data=payload, state=adapter.client._connection)


async def test_direct_message_cannot_open_a_table_and_a_failing_service_still_answers(store, monkeypatch):
    fake = FakeDiscord()
    adapter = await start_adapter(store, fake)
    try:
        payload = fake.command(AMINA, "new", {"game": "kenza"}, guild=False, channel_id=42)
        await fake.feed(adapter.client, payload)
        assert fake.original(payload["token"])["content"] == "Open tables in a group chat."

        async def broken(*args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("database on fire")

        monkeypatch.setattr(adapter.service, "command", broken)
        payload = fake.command(AMINA, "help")
        await fake.feed(adapter.client, payload)
        assert fake.original(payload["token"])["content"].startswith("⚠️ Something went wrong")
    finally:
        await adapter.client.close()


async def test_a_timer_notice_pings_the_player_it_names(store):
    from bot.service import Service

    now = [1_000.0]
    fake = FakeDiscord()
    adapter = await start_adapter(store, fake, Service(store, clock=lambda: now[0], seed_source=random.Random(1)))
    try:
        match_id = await open_table(fake, adapter, store)
        _, who = await whose_turn(store, match_id)
        start = len(fake.calls)
        now[0] += 3_600
        assert await adapter.service.tick() == 1
        told = [c for c in fake.calls[start:] if c.method == "POST" and f"<@{who['id']}>" in (c.payload or {}).get(
            "content", "") and "notice" not in (c.payload or {}).get("content", "") and c.message]
        timer = [c for c in told if "Time" in c.payload["content"] or "الوقت" in c.payload["content"]]
        assert timer, [c.payload.get("content") for c in fake.calls[start:] if c.payload]
        assert timer[0].payload["allowed_mentions"].get("users") == [int(who["id"])]
    finally:
        await adapter.client.close()
