"""Whole Kenza matches through the real discord.py client, by interactions only.

Every move is made the way a Discord user makes it: "My hand" on the table message opens an ephemeral rack, and a
button in that ephemeral plays (two presses for a capture choice). The buttons pressed are read from the messages
the fake Discord stored from the adapter's own calls, so a wrong custom_id, a lost component or a rack shown in the
channel breaks the match.
"""

from __future__ import annotations

import re

import engine
from bot.games.kenza import card_label
from storage import Store
from tests.dc_harness import (
    AMINA,
    BADR,
    EPHEMERAL,
    Call,
    FakeDiscord,
    answers,
    custom_ids,
    open_table,
    play_turn,
    start_adapter,
    whose_turn,
)

MAX_TURNS = 600


class PrivacyWatch:
    """Checks each message as Discord stores it: a channel message names no card held in any hand, an ephemeral
    none held by another seat (cards named by the last few moves are public, even after a redeal)."""

    def __init__(self, fake: FakeDiscord, store: Store, seats_by_user: dict[str, int]) -> None:
        self.fake = fake
        self.store = store
        self.seats_by_user = seats_by_user
        self.match_id: int | None = None
        self.checked = 0

    async def __call__(self, call: Call) -> None:
        if self.match_id is None:
            return
        match = await self.store.get_match(self.match_id)
        if match is None or match.snapshot is None:
            return
        recent = " ".join(record.move for record in (await self.store.moves(self.match_id))[-8:])
        hands: list[list[str]] = match.snapshot["hands"]
        if call.ephemeral:
            own = self.seats_by_user.get(self.fake.users.get(call.token or "", ""))
            secret = {card for seat, hand in enumerate(hands) if seat != own for card in hand}
        else:
            secret = {card for hand in hands for card in hand}
            assert all(f["filename"] != "hand.png" for f in call.files), "a rack picture in the channel"
        shown = call.text
        for card in secret - set(recent.split()):
            assert not re.search(rf"(?<![0-9]){re.escape(card_label(card))}", shown), f"{card} leaked by {call}"
        self.checked += 1


async def test_two_users_play_a_whole_match_by_interactions(store):
    fake = FakeDiscord()
    watch = PrivacyWatch(fake, store, {AMINA["id"]: 0, BADR["id"]: 1})
    fake.watch = watch
    adapter = await start_adapter(store, fake)
    try:
        match_id = await open_table(fake, adapter, store)
        watch.match_id = match_id
        table_id = fake.last_with_button("h:")["id"]
        turns = 0
        notices = 0
        for turns in range(MAX_TURNS):  # noqa: B007
            match, who = await whose_turn(store, match_id)
            if who is None:
                break
            start = len(fake.calls)
            notice = [m for m in fake.channel_messages() if "<@" in m["content"]]
            assert len(notice) == 1 and f"<@{who['id']}>" in notice[0]["content"], "one notice, for the right user"
            await play_turn(fake, adapter, store, match_id, who)
            sent = [c for c in fake.calls[start:] if c.method == "POST" and c.path.endswith("/messages")]
            for call in sent:
                if "<@" in ((call.payload or {}).get("content") or ""):  # a score sheet is an embed: no content
                    notices += 1
                    assert call.payload["allowed_mentions"]["users"], "the turn notice pings its user"
        else:
            raise AssertionError("the match did not end")
        match = await store.get_match(match_id)
        assert match.status == "finished" and turns > 20 and notices > 10
        # One table message, edited in place with a new picture after every move; the only other pictures in the
        # channel are the finished deals' score sheets, one each.
        assert fake.messages[table_id]["attachments"][0]["filename"] == "table.png"
        pictures = [c for c in fake.calls if c.via == "http" and c.files]
        assert {c.path.rsplit("/", 1)[-1] for c in pictures if c.method == "PATCH"} == {table_id}
        posted = [f["filename"] for c in pictures if c.method == "POST" for f in c.files]
        history = engine.get(match.game).result(engine.get(match.game).from_json(match.snapshot))["history"]
        assert posted.count("table.png") == 1 and posted.count("score.png") == len(history)
        final = fake.messages[table_id]
        assert "🏆" in final["embeds"][0]["description"] or "🤝" in final["embeds"][0]["description"]
        assert final["embeds"][0]["image"]["url"].endswith("/table.png")
        assert custom_ids(final) == [f"y:{match_id}"], "a finished table has only its replay button"
        payload = fake.command(BADR, "top", {"game": "kenza"})
        await fake.feed(adapter.client, payload)
        top = fake.original(payload["token"])
        assert top["flags"] & EPHEMERAL and "Amina" in top["content"] and "Badr" in top["content"]
        # /replay posts the match as an animated GIF in the channel, shown in an embed; the asker gets no answer text.
        before = len(fake.calls)
        payload = fake.command(AMINA, "replay", {"match": match_id})
        await fake.feed(adapter.client, payload)
        posted = [f for c in fake.calls[before:] if c.via == "http" and c.method == "POST" for f in c.files]
        assert [f["filename"] for f in posted] == ["replay.gif"] and posted[0]["data"][:6] == b"GIF89a"
        shown = next(m for m in fake.channel_messages() if m["attachments"]
                     and m["attachments"][0]["filename"] == "replay.gif")
        assert shown["embeds"][0]["image"]["url"].endswith("/replay.gif") and f"#{match_id}" in shown["embeds"][0][
            "description"] and not shown["flags"] & EPHEMERAL
        assert watch.checked > 2 * turns
    finally:
        await adapter.client.close()


async def test_slash_commands_reach_the_service_and_answer_ephemerally(store):
    fake = FakeDiscord()
    adapter = await start_adapter(store, fake)
    try:
        match_id = await open_table(fake, adapter, store)
        table = fake.last_with_button("c:")
        calls = await fake.feed(adapter.client, fake.press(AMINA, table["id"], custom_ids(table, "c:")[0]))
        assert any("Total:" in text for text in answers(calls)), "the Score button answers privately"
        match, who = await whose_turn(store, match_id)
        payload = fake.command(who, "hand")
        await fake.feed(adapter.client, payload)
        rack = fake.original(payload["token"])
        assert rack["flags"] & EPHEMERAL and rack["attachments"][0]["filename"] == "hand.png"
        seat = 0 if who is AMINA else 1
        hand = match.snapshot["hands"][seat]
        assert card_label(hand[0]) in rack["attachments"][0]["description"]
        game = engine.get("kenza")
        move = game.legal_moves(game.from_json(match.snapshot), seat)[0]
        calls = await fake.feed(adapter.client, fake.command(who, "m", {"move": move}))
        assert (await store.get_match(match_id)).version == match.version + 1
        assert answers(calls)[-1].startswith("✓ You ")
        for name, options, expected in [("rules", {"game": "kenza"}, "Kenza"), ("help", {}, "/new"),
                                        ("lang", {"language": "ar"}, "العربية"), ("score", {}, "المجموع")]:
            payload = fake.command(BADR, name, options)
            await fake.feed(adapter.client, payload)
            answer = fake.original(payload["token"])
            assert answer["flags"] & EPHEMERAL and expected in answer["content"], (name, answer["content"])
    finally:
        await adapter.client.close()
