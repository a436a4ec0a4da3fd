"""Restarts and expired ephemerals: components are matched by their custom_id templates, not by view objects
held in memory, so a button sent by a previous process still plays; a rack that can no longer be edited is
replaced by a fresh ephemeral."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.discord_adapter.views import ActionButton, ActionSelect
from bot.service import Service
from storage import Store
from tests.dc_harness import EPHEMERAL, FakeDiscord, answers, custom_ids, open_table, start_adapter, whose_turn
from tests.fakes import LAYOUTS, force_layout


async def hand(fake: FakeDiscord, adapter: Any, who: dict[str, Any]) -> tuple[dict[str, Any] | None, list[Any]]:
    table = fake.last_with_button("h:")
    payload = fake.press(who, table["id"], custom_ids(table, "h:")[0])
    calls = await fake.feed(adapter.client, payload)
    return fake.original(payload["token"]), calls


def first_move(rack: dict[str, Any]) -> str:
    """The rack's first control that plays or opens a capture choice."""
    return [code for code in custom_ids(rack) if code.startswith(("m:", "p:"))][0]


async def forced(adapter: Any, store: Store, match_id: int, layout: str) -> None:
    await force_layout(store, match_id, LAYOUTS[layout])
    await adapter.service.resume()


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
async def test_restart_keeps_every_old_button_working(tmp_path, layout):
    path = str(tmp_path / "db.sqlite")
    fake = FakeDiscord()
    store = await Store.open(path)
    adapter = await start_adapter(store, fake)
    match_id = await open_table(fake, adapter, store)
    await forced(adapter, store, match_id, layout)
    _, who = await whose_turn(store, match_id)
    old_rack, _ = await hand(fake, adapter, who)  # shown before the restart, pressed after it
    version = (await store.get_match(match_id)).version
    await adapter.client.close()
    await store.close()

    store = await Store.open(path)
    service = Service(store, seed_source=random.Random(2))
    adapter = await start_adapter(store, fake, service)
    try:
        registered = set(adapter.client._connection._view_store._dynamic_items.values())
        assert registered == {ActionButton, ActionSelect}
        start = len(fake.calls)
        await service.resume()
        resumed = fake.calls[start:]
        # Every screen showed the latest version before the restart (no pending delivery): nothing is re-sent,
        # re-edited or re-pinged.
        assert (await store.get_match(match_id)).delivered_version == version
        assert not [c for c in resumed if c.method in ("POST", "PATCH", "DELETE")], resumed

        code = first_move(old_rack)
        assert code.startswith("m:" if layout == "move first" else "p:")
        calls = await fake.feed(adapter.client, fake.press(who, old_rack["id"], code))
        assert calls and calls[0].payload["type"] == 6
        if layout == "pick first":  # the same ephemeral now offers the takes
            calls = await fake.feed(adapter.client, fake.press(who, old_rack["id"], custom_ids(
                fake.messages[old_rack["id"]], "m:")[0]))
        assert (await store.get_match(match_id)).version == version + 1, "the pre-restart button played"
        _, nxt = await whose_turn(store, match_id)
        rack, _ = await hand(fake, adapter, nxt)  # "My hand" on the pre-restart table message
        assert rack["flags"] & EPHEMERAL and rack["attachments"] and first_move(rack)
    finally:
        await adapter.client.close()
        await store.close()


@pytest.fixture(params=sorted(LAYOUTS))
async def table(tmp_path, request):
    """A two-player table whose first rack control is a move, or a capture choice (one run each)."""
    store = await Store.open(str(tmp_path / "db.sqlite"))
    fake = FakeDiscord()
    adapter = await start_adapter(store, fake)
    match_id = await open_table(fake, adapter, store)
    await forced(adapter, store, match_id, request.param)
    yield fake, adapter, store, match_id
    await adapter.client.close()
    await store.close()


@pytest.mark.parametrize("status", [401, 404])
async def test_a_rack_that_can_no_longer_be_edited_comes_back_fresh(table, status):
    fake, adapter, store, match_id = table
    _, who = await whose_turn(store, match_id)
    rack, _ = await hand(fake, adapter, who)
    version = (await store.get_match(match_id)).version
    if status == 401:
        fake.frozen.add(rack["id"])  # its webhook token outlived 15 minutes
    else:
        fake.fail_original = (404, 10015, "Unknown Webhook")
    code = first_move(rack)  # a move with one layout, a capture choice with the other
    calls = await fake.feed(adapter.client, fake.press(who, rack["id"], code))
    failed = [c for c in calls if c.method == "PATCH" and c.path.endswith("@original")]
    assert failed and failed[0].status == status
    fresh = [c for c in calls if c.method == "POST" and c.via == "webhook" and c.path.count("/") == 3]
    assert len(fresh) == 1 and fresh[0].ephemeral and fresh[0].files[0]["filename"] == "hand.png"
    new_rack = fresh[0].message
    if code.startswith("m:"):
        assert (await store.get_match(match_id)).version == version + 1, "applied once"
        assert answers(calls)[-1].startswith("✓ You ")
    else:  # the fresh ephemeral holds the capture choices: they play
        await fake.feed(adapter.client, fake.press(who, new_rack["id"], custom_ids(new_rack, "m:")[0]))
        assert (await store.get_match(match_id)).version == version + 1


async def test_my_hand_whose_ephemeral_cannot_be_edited_sends_a_fresh_one(table):
    fake, adapter, store, match_id = table
    _, who = await whose_turn(store, match_id)
    fake.fail_original = (401, 50027, "Invalid Webhook Token")
    rack, calls = await hand(fake, adapter, who)
    fresh = [c for c in calls if c.method == "POST" and c.via == "webhook" and c.path.count("/") == 3]
    assert len(fresh) == 1 and fresh[0].ephemeral and fresh[0].files[0]["filename"] == "hand.png"
    version = (await store.get_match(match_id)).version
    new_rack = fake.messages[fresh[0].message["id"]]
    code = first_move(new_rack)
    await fake.feed(adapter.client, fake.press(who, new_rack["id"], code))
    if code.startswith("p:"):
        await fake.feed(adapter.client, fake.press(who, new_rack["id"], custom_ids(fake.messages[new_rack["id"]],
                                                                                    "m:")[0]))
    assert (await store.get_match(match_id)).version == version + 1
