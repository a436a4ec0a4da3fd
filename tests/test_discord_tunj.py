"""A whole Tunj hand through the real discord.py client: a human against a random bot, opened with /new and the
lobby buttons, then played by clicking only the components of the ephemeral rack that "My hand" opened — a
source then a target, "Turn a card", and the standing "Tunj!" control whenever the bot's slip is open to a call —
while the channel's table embed (which carries a Tunj! control of its own) is read: the slip reads like any move
until the call names what it broke; every stored message is checked for hidden cards.
"""

from __future__ import annotations

import random
from typing import Any

import engine
from bot import presenter
from bot.games import ui_for
from bot.games.tunj import card_label, pick_key
from bot.i18n import pick_language, t
from bot.service import Service
from storage import Store
from tests.clock import Clock
from tests.dc_harness import (
    AMINA,
    CHANNEL_ID,
    EPHEMERAL,
    FakeDiscord,
    SecretWatch,
    answers,
    assert_answered,
    click,
    controls,
    custom_ids,
    open_against_bot,
    open_hand,
    replays,
    start_adapter,
)
from tests.test_telegram_tunj import policy
from tests.tunj_tables import play_out_bot_turn

GAME = engine.get("tunj")
UI = ui_for("tunj")
SEED = 2  # the random bot's attempts are open to a call many times in this hand
MAX_MOVES = 1500
LABEL_LIMIT = 80  # Discord's button label length


async def position(store: Store, match_id: int) -> tuple[Any, dict[str, Any]]:
    match = await store.get_match(match_id)
    return match, GAME.from_json(match.snapshot)


def table_text(fake: FakeDiscord, table_id: str) -> str:
    """The channel table message as Discord shows it: its embed's description (the caption)."""
    return "\n".join(str(embed.get("description") or "") for embed in fake.messages[table_id]["embeds"])


async def click_move(fake: FakeDiscord, adapter: Any, store: Store, rack_id: str, match_id: int, seat: int,
                     want: str) -> int:
    """Play `want` by clicking the ephemeral rack's controls: its source, then its target (or its one button).

    The stored components are read as the player reads them: their labels must be the layout's for this state
    and picking state (however Discord's grid repacked them), and the control clicked is the one whose label the
    layout gives to `want`. Returns the number of clicks."""
    match, state = await position(store, match_id)
    pick = None
    for clicks in (1, 2):
        rack = fake.messages[rack_id]
        shown = controls(rack)
        drawn = [b for row in presenter.rack_buttons(match, state, seat, "en", pick) for b in row]
        assert sorted(c.label for c in shown) == sorted(b.label[:LABEL_LIMIT] for b in drawn), "other controls"
        assert all(c.code == f"t:{match_id}" if c.code.startswith("t:") else c.code.split(":")[2] ==
                   str(match.version) for c in shown), "the rack shows an old version"
        target = next((b for b in drawn if (b.kind == "move" and b.move == want)
                       or (b.kind == "call" and want == "tunj")), None)
        if target is None:  # first click: the source
            pick = pick_key(want.split()[1])
            target = next(b for b in drawn if b.kind == "pick" and b.arg == pick)
        matching = [c for c in shown if c.label == target.label[:LABEL_LIMIT]]
        assert len(matching) == 1, f"{target.label!r} is not one control: {[c.label for c in shown]}"
        payload = click(fake, AMINA, rack, matching[0])
        calls = await fake.feed(adapter.client, payload)
        assert_answered(fake, payload, calls)
        assert calls[0].payload["type"] == 6, "a click in the ephemeral is a deferred update"
        assert not [text for text in answers(calls) if text.startswith("⚠️")], answers(calls)
        rack = fake.messages[rack_id]
        assert int(rack["flags"]) & EPHEMERAL
        if target.kind in ("move", "call"):
            assert rack["content"].startswith("✓ You "), rack["content"]
            return clicks
    raise AssertionError(f"no control plays {want}")


async def test_whole_hand_against_a_random_bot_by_ephemeral_components(store):
    fake = FakeDiscord()
    watch = SecretWatch(fake, store, "tunj", card_label, {})
    fake.watch = watch
    clock = Clock()
    adapter = await start_adapter(store, fake, service=Service(store, clock=clock,
                                                               seed_source=random.Random(SEED)))
    try:
        match_id, _ = await open_against_bot(fake, adapter, store, AMINA, {"game": "tunj"}, "random")
        human = next(s.seat for s in await store.seats(match_id) if s.is_human)
        watch.seats_by_user = {AMINA["id"]: human}
        watch.match_id = match_id
        lang = pick_language((await store.get_chat("discord", str(CHANNEL_ID))).language)
        table_id = fake.last_with_button("h:")["id"]
        rack_id = (await open_hand(fake, adapter, AMINA))["id"]
        moves = clicks = called = 0
        attempts_seen = calls_seen = paused = 0

        async def look() -> None:
            """During the bot's turn the channel's table keeps the Tunj! control; the ephemeral drawn with the
            bot's first move holds it too."""
            assert any(c.code == f"t:{match_id}" for c in controls(fake.messages[table_id]))
            assert [c.label for c in controls(fake.messages[rack_id])] == [t("en", "tunj.btn.call")]

        for moves in range(MAX_MOVES):  # noqa: B007 (reported below)
            ended = await play_out_bot_turn(adapter.service, clock, match_id, look=look)
            if ended:  # the ephemeral shows the bot's first move: "My hand" again for the human's own turn
                paused += ended
                rack_id = (await open_hand(fake, adapter, AMINA))["id"]
            match, state = await position(store, match_id)
            if match.status != "active":
                break
            assert GAME.to_move(state) == human, "the bot's paced turn is over"
            want = policy(GAME.legal_moves(state, human))
            if want == "tunj":
                called += 1
                assert [c.label for c in controls(fake.messages[rack_id])] == [t("en", "tunj.btn.call")]
                # The bot's slip is on the channel's table embed like any move; no rule is named yet.
                plain = UI.describe_move(state["claim"]["attempt"], lang)
                attempt = UI.describe_move(state["claim"]["attempt"], lang, GAME.view(state, None))
                shown = table_text(fake, table_id)
                attempts_seen += plain in shown and attempt not in shown
                assert any(c.code == f"t:{match_id}" for c in controls(fake.messages[table_id]))
            clicks += await click_move(fake, adapter, store, rack_id, match_id, human, want)
            record = (await store.moves(match_id))[match.version]
            assert (record.seat, record.actor, record.move) == (human, "human", want)
            if want == "tunj":
                named = UI.describe_move("tunj", lang, GAME.view(GAME.apply(state, human, "tunj"), None))
                calls_seen += f"Amina: {named}" in table_text(fake, table_id)
        match, state = await position(store, match_id)
        assert match.status == "finished", f"hand not over after {moves} moves"
        result = GAME.result(state)
        assert len(result["history"]) == 1, "one hand: the match without a target"
        print(f"tunj hand over Discord: {moves} human moves, {clicks} clicks, {called} calls "
              f"(attempt on the table {attempts_seen}, call {calls_seen})")
        assert called >= 1, "the random bot's attempts were called with the Tunj! button"
        assert paused > moves / 4, "the bot's turns were played a move at a time"
        assert attempts_seen == called and calls_seen == called, "each claim and call reached the table embed"
        assert clicks > moves, "moves took a source click and a target click"
        assert await replays(store, match_id)

        assert not watch.problems, watch.problems[:3]
        assert watch.channel > moves / 4 and watch.private >= clicks
        pictures = [c for c in fake.calls if c.via == "http" and c.files]
        assert all(f["filename"] in ("table.png", "score.png") for c in pictures for f in c.files)
        assert {c.path.rsplit("/", 1)[-1] for c in pictures if c.method == "PATCH"} == {table_id}
        assert [f["filename"] for c in pictures if c.method == "POST" for f in c.files].count("table.png") == 1
        racks = [c for c in fake.calls if any(f["filename"] == "hand.png" for f in c.files)]
        assert racks and all(c.via == "webhook" and c.ephemeral for c in racks)
        final = fake.messages[table_id]
        assert ("🏆" in final["embeds"][0]["description"] or "🤝" in final["embeds"][0]["description"]) and \
            custom_ids(final) == [f"y:{match_id}"]  # only the replay button
    finally:
        await adapter.client.close()
