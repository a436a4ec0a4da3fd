"""A stored move reaches every screen on Discord, whatever the REST API answers (issue 10).

A 503 on the table's edit, a 403 on the turn notice and on /new: the mover is answered from the commit, the failed
screen is retried on the service's clock, a turn whose notice never arrived is not counted as the player's absence,
and the rest of the match is played by interactions.
"""

from __future__ import annotations

import random

import pytest

from bot.service import Service
from storage import Store
from tests.clock import Clock
from tests.dc_harness import (
    AMINA,
    BADR,
    CHANNEL_ID,
    FakeDiscord,
    answers,
    open_table,
    play_turn,
    start_adapter,
    whose_turn,
)

TABLE_EDIT = rf"/channels/{CHANNEL_ID}/messages/\d+"
CHANNEL_POST = rf"/channels/{CHANNEL_ID}/messages"


@pytest.fixture
async def store(tmp_path):
    store = await Store.open(str(tmp_path / "db.sqlite"))
    yield store
    await store.close()


async def play_out(fake: FakeDiscord, adapter, store: Store, match_id: int) -> int:
    for turns in range(600):
        _, who = await whose_turn(store, match_id)
        if who is None:
            return turns
        await play_turn(fake, adapter, store, match_id, who)
    raise AssertionError("the match did not end")


def notices(fake: FakeDiscord) -> list[dict]:
    return [m for m in fake.channel_messages() if "<@" in (m.get("content") or "")]


async def test_a_503_on_the_table_edit_is_retried_and_the_match_goes_on(store):
    clock = Clock()
    fake = FakeDiscord()
    adapter = await start_adapter(store, fake, Service(store, clock=clock, seed_source=random.Random(4)))
    try:
        match_id = await open_table(fake, adapter, store)
        table_id = fake.last_with_button("h:")["id"]
        before, who = await whose_turn(store, match_id)
        fake.failures.append(["PATCH", rf"/channels/{CHANNEL_ID}/messages/{table_id}", 503, 1])
        start = len(fake.calls)
        await play_turn(fake, adapter, store, match_id, who)
        calls = fake.calls[start:]
        said = answers(calls)
        assert said and not any("⚠️" in text for text in said), said  # answered from the commit, not an error
        after, nxt = await whose_turn(store, match_id)
        assert after.version > before.version
        assert [c.status for c in calls if c.method == "PATCH" and c.path.endswith(table_id)] == [503]
        assert len(notices(fake)) == 1 and f"<@{nxt['id']}>" in notices(fake)[0]["content"], "the next player knows"
        mark = len(fake.calls)
        clock.advance(1.0)
        await adapter.service.tick()
        retried = [c for c in fake.calls[mark:] if c.method == "PATCH" and c.path.endswith(table_id)]
        assert [c.status for c in retried] == [200]
        assert (await store.get_match(match_id)).delivered_version == after.version
        assert await play_out(fake, adapter, store, match_id) > 5
    finally:
        await adapter.client.close()


async def test_a_403_on_the_turn_notice_is_retried_and_never_counts_as_absence(store):
    clock = Clock()
    fake = FakeDiscord()
    service = Service(store, clock=clock, seed_source=random.Random(4))
    adapter = await start_adapter(store, fake, service)
    try:
        match_id = await open_table(fake, adapter, store)
        _, who = await whose_turn(store, match_id)
        failure = ["POST", CHANNEL_POST, 403, 50]  # every channel message refused for a while
        fake.failures.append(failure)
        await play_turn(fake, adapter, store, match_id, who)
        match, nxt = await whose_turn(store, match_id)
        assert not [m for m in notices(fake) if f"<@{nxt['id']}>" in m["content"]], "the notice was refused"
        for _ in range(4):  # two timeouts in a row mark a player away — not when they were never told
            clock.advance(match.deadline - clock.now + 1)
            assert await service.tick() == 1, "the timer plays for the seat that was not told"
            match, _ = await whose_turn(store, match_id)
            if match.status != "active":
                break
        seats = await store.seats(match_id)
        assert all(s.timeouts_in_a_row == 0 and not s.away for s in seats), seats
        failure[3] = 0  # Discord accepts the bot's messages again
        clock.advance(60.0)
        await service.deliver()
        _, current = await whose_turn(store, match_id)
        assert len(notices(fake)) == 1 and f"<@{current['id']}>" in notices(fake)[0]["content"]
        assert await play_out(fake, adapter, store, match_id) > 5
    finally:
        await adapter.client.close()


async def test_new_where_the_bot_cannot_post_leaves_no_table_and_says_so(store):
    fake = FakeDiscord()
    adapter = await start_adapter(store, fake)
    try:
        failure = ["POST", CHANNEL_POST, 403, 1]
        fake.failures.append(failure)
        calls = await fake.feed(adapter.client, fake.command(AMINA, "new", {"game": "kenza", "target": "101"}))
        said = answers(calls)
        assert said and "cannot post" in said[-1] and said[-1].startswith("⚠️"), said
        assert await store.lobby_or_active_match("discord", str(CHANNEL_ID)) is None, "no table left behind"
        match_id = await open_table(fake, adapter, store)  # the permission is back: /new works at once
        assert await play_out(fake, adapter, store, match_id) > 5
    finally:
        await adapter.client.close()


async def test_information_is_never_styled_as_an_error(store):
    fake = FakeDiscord()
    adapter = await start_adapter(store, fake)
    try:
        match_id = await open_table(fake, adapter, store)
        _, who = await whose_turn(store, match_id)
        await play_turn(fake, adapter, store, match_id, who)
        score = answers(await fake.feed(adapter.client, fake.command(AMINA, "score")))
        assert score and "Amina" in score[-1] and "⚠️" not in score[-1], score
        refused = answers(await fake.feed(adapter.client, fake.command(BADR, "join")))
        assert refused and refused[-1].startswith("⚠️"), refused  # a real refusal keeps its warning
    finally:
        await adapter.client.close()
