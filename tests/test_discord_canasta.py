"""Canasta `duo` to 2500 through the real discord.py client: a human against a bot, from the /new slash command
through the lobby buttons, then played by clicking only the components of the ephemeral rack that "My hand"
opened — card toggles, meld/add/discard, draw/take — as buttons or, where the keyboard was folded, select menu
options. Every message Discord stores is checked for hand cards outside their owner's ephemeral.
"""

from __future__ import annotations

import random
from typing import Any

import engine
from bot.games.canasta import DIRECT_LIMIT, UI, card_label
from bot.service import Service
from storage import Store
from tests.dc_harness import (
    AMINA,
    EPHEMERAL,
    Call,
    FakeDiscord,
    SecretWatch,
    assert_answered,
    card_codes,
    controls,
    custom_ids,
    open_against_bot,
    open_hand,
    replays,
    start_adapter,
)
from tests.rack_players import DiscordRackPlayer, play_canasta
from tests.test_telegram_canasta import choose

GAME = engine.get("canasta")
SEED = 2  # deals a first hand in which the hoarding player reaches 32 cards (select menus) and takes the pile
MAX_MOVES = 2000
HOARD = 24  # first hand: hold back until the hand has this many cards (its keyboard then needs select menus)
PILE = 12  # ... and take the pile only once it holds this many



def hoarding(view: dict[str, Any], legal: list[str]) -> str:
    """The Telegram test's player, except that in the first hand, until it holds HOARD cards, it lets the pile
    grow to PILE cards before taking it and lays nothing it need not lay, so its rack outgrows Discord's 25
    components and must be played through select menus."""
    if view["round"] == 1 and len(view["hand"]) < HOARD:
        if view["phase"] == "draw" and "draw" in legal and view.get("pile_size", 0) < PILE:
            return "draw"
        lays = [m for m in legal if m.startswith(("meld", "add"))]
        if view["phase"] == "play" and not view["must_use"] and lays and len(lays) < len(legal):
            return next(m for m in legal if m.startswith("discard"))
    if view["must_use"] and len(legal) > DIRECT_LIMIT:
        # Without direct buttons the picker needs a hand card selected: the top card alone cannot be added (see
        # test_every_move_after_a_take_has_controls), so play a move that uses one.
        return next((m for m in legal if len(m.split()) > 4 or m.startswith("meld")), legal[0])
    return choose(view, legal, [])


async def _watch_catches_a_leak(watch: SecretWatch, store: Store, match_id: int, human: int) -> None:
    """The privacy check can fail: the human's own hand named in a channel message, or in the human's ephemeral
    a card only the bot holds, is reported."""
    match = await store.get_match(match_id)
    state = GAME.from_json(match.snapshot)
    own, other = state["hands"][human], state["hands"][1 - human]
    hidden = card_codes(match.snapshot) - card_codes(GAME.view(state, human))
    channel = Call(-1, "http", "POST", "/channels/1/messages", {"content": " ".join(card_label(c) for c in own)},
                   message={"flags": 0, "components": []})
    secret = next(c for c in other if c in hidden)
    private = Call(-1, "webhook", "PATCH", "/webhooks/1/t/messages/@original", {"content": card_label(secret)},
                   token=next(iter(watch.fake.users)), message={"flags": EPHEMERAL, "components": []})
    for probe in (channel, private):
        before = len(watch.problems)
        await watch(probe)
        assert len(watch.problems) > before, f"the watch missed {probe.payload}"
    watch.problems.clear()
    watch.channel = watch.private = 0



async def test_duo_match_to_2500_against_a_bot_by_ephemeral_components(store):
    fake = FakeDiscord()
    watch = SecretWatch(fake, store, "canasta", card_label, {})
    fake.watch = watch
    adapter = await start_adapter(store, fake, service=Service(store, seed_source=random.Random(SEED)))
    try:
        match_id, _ = await open_against_bot(fake, adapter, store, AMINA,
                                             {"game": "canasta", "variant": "duo", "target": "2500"}, "normal")
        match = await store.get_match(match_id)
        assert match.options == {"variant": "duo", "target": 2500}
        seats = await store.seats(match_id)
        human = next(s.seat for s in seats if s.is_human)
        assert [s.is_human for s in seats].count(True) == 1
        watch.seats_by_user = {AMINA["id"]: human}
        watch.match_id = match_id
        table_id = fake.last_with_button("h:")["id"]

        player = DiscordRackPlayer(fake, adapter, AMINA, await open_hand(fake, adapter, AMINA))
        await _watch_catches_a_leak(watch, store, match_id, human)
        moves = 0
        for moves in range(MAX_MOVES):  # noqa: B007 (moves is reported below)
            match = await store.get_match(match_id)
            if match.status != "active":
                break
            state = GAME.from_json(match.snapshot)
            assert GAME.to_move(state) == human, "the bot plays its turns at once"
            view, legal = GAME.view(state, human), GAME.legal_moves(state, human)
            move = hoarding(view, legal)
            await play_canasta(player, move, view, match.version, full_labels=True)
            record = (await store.moves(match_id))[match.version]
            assert (record.seat, record.actor, record.move) == (human, "human", move)
        match = await store.get_match(match_id)
        assert match.status == "finished", f"not over after {moves} human moves"
        result = GAME.result(GAME.from_json(match.snapshot))
        assert max(result["scores"]) >= 2500
        records = await store.moves(match_id)
        print(f"duo to 2500 over Discord: {len(result['history'])} hands, {moves} human moves, {len(records)} in "
              f"all, scores {result['scores']}, {player.presses} clicks "
              f"({player.selects} in select menus)")
        human_moves = [r.move for r in records if r.actor == "human"]
        for kind in ("meld", "add", "discard", "take", "draw"):
            assert any(m.startswith(kind) for m in human_moves), kind
        assert player.selects, "a folded keyboard (a hand over 25 controls) was played through its select menus"

        # Hand cards only in the ephemeral; the channel keeps one table message, edited in place.
        assert not watch.problems, watch.problems[:3]
        assert watch.channel > moves / 2 and watch.private >= player.presses
        pictures = [c for c in fake.calls if c.via == "http" and c.files]
        assert all(f["filename"] in ("table.png", "score.png") for c in pictures for f in c.files)
        assert {c.path.rsplit("/", 1)[-1] for c in pictures if c.method == "PATCH"} == {table_id}
        posted = [f["filename"] for c in pictures if c.method == "POST" for f in c.files]
        assert posted.count("table.png") == 1  # the table: once, then edited
        assert posted.count("score.png") == len(result["history"])  # each hand's score sheet, announced once
        racks = [c for c in fake.calls if any(f["filename"] == "hand.png" for f in c.files)]
        assert racks and all(c.via == "webhook" and c.ephemeral for c in racks)
        final = fake.messages[table_id]
        assert "🏆" in final["embeds"][0]["description"] and custom_ids(final) == [f"y:{match_id}"]
        assert not controls(player.rack), "a finished match leaves no controls in the rack"

        assert await replays(store, match_id)
        payload = fake.command(AMINA, "top", {"game": "canasta"})
        assert_answered(fake, payload, await fake.feed(adapter.client, payload))
        top = fake.original(payload["token"])
        assert top["flags"] & EPHEMERAL and "Amina" in top["content"], top["content"]
    finally:
        await adapter.client.close()


# The pile's top king goes onto the human's meld of kings (meld 1): with K♠ K♦ and a joker in hand that is eight
# legal additions, more than the take's direct buttons show, and the plainest of them adds the top card alone.
TAKE_ONTO_MELD = {
    "hands": [["KS", "KD", "X", "TD", "TC", "JD", "QC", "AD", "AC", "4H", "9C"],
              ["5C", "6C", "7C", "8H", "9H", "JH", "QH", "AH", "4D", "6D", "7D"]],
    "stock": ["8S", "8D", "9D", "TS", "JS", "QS", "KH"], "discard": ["KS", "5D", "6S"], "dealer": 1,
    "melds": [{"team": 0, "cards": ["KH", "KC", "2C"]}, {"team": 1, "cards": ["QD", "QD", "QC"]}],
}


def reachable_moves(view: dict[str, Any], legal: list[str], limit: int = 5000) -> set[str]:
    """Every move some sequence of clicks on the rack can play: the picking states reachable from none."""
    seen: set[str | None] = {None}
    queue: list[str | None] = [None]
    moves: set[str] = set()
    while queue and len(seen) < limit:
        pick = queue.pop()
        for button in (b for row in UI.rack_buttons(view, legal, "en", pick) for b in row):
            if button.kind == "move":
                moves.add(button.move)
            nxt = button.arg if button.kind == "pick" else None
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return moves


async def test_every_move_after_a_take_has_controls(store, monkeypatch):
    dealt = GAME.new
    monkeypatch.setattr(GAME, "new", lambda players, options=None, *, seed=None, layout=None:
                        dealt(players, options, seed=seed, layout=TAKE_ONTO_MELD))
    fake = FakeDiscord()
    adapter = await start_adapter(store, fake, service=Service(store, seed_source=random.Random(SEED)))
    try:
        match_id, _ = await open_against_bot(fake, adapter, store, AMINA,
                                             {"game": "canasta", "variant": "duo", "target": "2500"}, "normal")
        player = DiscordRackPlayer(fake, adapter, AMINA, await open_hand(fake, adapter, AMINA))
        match = await store.get_match(match_id)
        text = await player.press("Take the pile: K♠ (3 cards) onto meld 1", match.version)
        assert text.startswith("✓ You ")
        match = await store.get_match(match_id)
        state = GAME.from_json(match.snapshot)
        view, legal = GAME.view(state, 0), GAME.legal_moves(state, 0)
        assert view["must_use"] == "KS" and len(legal) > DIRECT_LIMIT and "add KS to 1" in legal
        shown = [c.label for c in controls(player.rack)]
        assert shown == [b.label for row in UI.rack_buttons(view, legal, "en", None) for b in row]
        assert await replays(store, match_id)
        assert set(legal) <= reachable_moves(view, legal), set(legal) - reachable_moves(view, legal)
    finally:
        await adapter.client.close()
