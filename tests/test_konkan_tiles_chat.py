"""Konkan tiles in chat: the mode picker (each mode opens, Kirkuk and a closed tournament refused, ranked only with
four humans, private rooms with their rules, invites and no stats), the picker's Arrange, and whole matches through
the service played by pressing buttons only."""

from __future__ import annotations

import pytest

import engine
from bot import callbacks
from bot.games import ui_for
from bot.games.konkan_tiles import UI, tile_label
from bot.games.rummy import Pick
from bot.i18n import t
from bot.messages import Actor, ChatRef
from renderers.konkan_tiles import arrange
from tests.chat import fake_service

GAME = engine.get("konkan_tiles")
GROUP = ChatRef("fake", "-300", private=False)
ALI = Actor("fake", "11", "Ali", language="en")
MONA = Actor("fake", "12", "Mona", language="en")
SAMI = Actor("fake", "13", "Sami", language="en")
HIND = Actor("fake", "14", "Hind", language="en")



@pytest.fixture
async def setup(tmp_path):
    async with fake_service(tmp_path / "majlis.db", 13) as (service, transport, store, _clock):
        yield service, transport, store
    await store.close()


def flat(keyboard):
    return [button for row in keyboard for button in row]


def mode_buttons(transport) -> dict[str, str]:
    message = transport.latest("-300")
    return {b.data.split(":")[2].split(".", 1)[1]: b.label for b in flat(message.keyboard)}


# ---- the mode picker ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["konkan_tiles", "konkan"])
async def test_new_konkan_shows_every_mode_as_a_button(setup, name):
    service, transport, store = setup
    await service.command(ALI, GROUP, "lang", ["en"])
    reply = await service.command(ALI, GROUP, "new", [name])
    assert not reply.alert and await store.lobby_or_active_match("fake", "-300") is None  # nothing opened yet
    buttons = mode_buttons(transport)
    assert list(buttons) == ["quick", "ranked", "sulaymaniyah", "turbo", "tournament", "kirkuk", "private"]
    assert buttons["kirkuk"] == t("ar", "kt.pick.kirkuk")  # the group's language: Arabic until set
    assert buttons["tournament"] == t("ar", "kt.pick.tournament_closed")


@pytest.mark.parametrize("mode", ["quick", "ranked", "sulaymaniyah", "turbo", "private"])
async def test_each_mode_opens_its_table_with_its_stats_mode(setup, mode):
    service, transport, store = setup
    await service.command(ALI, GROUP, "new", ["konkan"])
    reply = await service.press(ALI, GROUP, callbacks.encode("n", 0, f"konkan_tiles.{mode}"))
    assert not reply.alert, reply.text
    match = await store.lobby_or_active_match("fake", "-300")
    assert match.game == "konkan_tiles" and match.options == {"mode": mode} and match.mode == mode


@pytest.mark.parametrize("how", ["button", "typed"])
async def test_kirkuk_and_a_closed_tournament_are_refused_politely(setup, how):
    service, transport, store = setup
    for mode, key in (("kirkuk", "kt.kirkuk_soon"), ("tournament", "kt.no_tournament")):
        if how == "button":
            reply = await service.press(ALI, GROUP, callbacks.encode("n", 0, f"konkan_tiles.{mode}"))
        else:
            reply = await service.command(ALI, GROUP, "new", ["konkan_tiles", f"mode={mode}"])
        assert reply.text == t("en", key) and reply.alert
        assert await store.lobby_or_active_match("fake", "-300") is None


async def test_ranked_refuses_bots_and_starts_only_with_four_humans(setup):
    service, transport, store = setup
    await service.command(ALI, GROUP, "new", ["konkan_tiles", "mode=ranked"])
    match = await store.lobby_or_active_match("fake", "-300")
    lobby = transport.latest("-300")
    assert not any(b.data.startswith("b:") for b in flat(lobby.keyboard) if b.data)  # no bot buttons
    reply = await service.press(ALI, GROUP, callbacks.encode("b", match.id, "normal"))  # a forged one
    assert reply.alert and reply.text == t("en", "kt.no_bots_ranked")
    for actor in (MONA, SAMI):
        await service.press(actor, GROUP, callbacks.encode("j", match.id))
    reply = await service.press(ALI, GROUP, callbacks.encode("s", match.id))
    assert reply.alert and reply.text == t("en", "kt.ranked_four", n=3)
    await service.press(HIND, GROUP, callbacks.encode("j", match.id))
    reply = await service.press(ALI, GROUP, callbacks.encode("s", match.id))
    match = await store.get_match(match.id)
    assert match.status == "active", reply.text
    state = GAME.from_json(match.snapshot)
    assert GAME.view(state, None)["timers"] == {"discard": 30, "draw": 15}
    # the captain starts with 15 tiles and no draw: the discard's seconds run
    assert GAME.view(state, None)["phase"] == "play" and match.deadline == service.clock() + 30


async def test_private_room_rules_seats_invite_link_and_no_stats(setup):
    service, transport, store = setup
    await service.command(ALI, GROUP, "new", ["konkan_tiles", "mode=private"])
    match = await store.lobby_or_active_match("fake", "-300")
    lobby = transport.latest("-300")
    labels = [b.label for b in flat(lobby.keyboard)]
    invite = next(b for b in flat(lobby.keyboard) if b.url)
    assert invite.url.endswith(f"j{match.id}")
    assert any(label.startswith(t("en", "opt.name.rules")) or label.startswith(t("ar", "opt.name.rules"))
               for label in labels)
    reply = await service.press(ALI, GROUP, callbacks.encode("o", match.id, "rules"))
    assert (await store.get_match(match.id)).options == {"mode": "private", "rules": "sulaymaniyah"}
    # Mona follows the invite link: /start j<id> in her private chat seats her
    reply = await service.command(MONA, ChatRef("fake", MONA.user_id, private=True), "start", [f"j{match.id}"])
    assert reply.text == t("en", "lobby.invited")
    reply = await service.press(ALI, GROUP, callbacks.encode("s", match.id))
    match = await store.get_match(match.id)
    assert match.status == "active", reply.text
    state = GAME.from_json(match.snapshot)
    assert state["players"] == 2 and state["options"] == {"mode": "private", "rules": "sulaymaniyah"}
    assert match.deadline is None  # private rooms are untimed unless the chat set a timer
    # other modes never offer the rules or an invite
    assert UI.option_values("rules", GAME.info.options["rules"], {"mode": "quick"}) == ()
    assert UI.counts_in_stats({"mode": "quick"}) and not UI.counts_in_stats({"mode": "private"})


def test_timers_follow_the_mode_table_for_draw_and_discard():
    quick = GAME.new(4, {"mode": "quick"}, seed=3)
    turbo = GAME.new(4, {"mode": "turbo"}, seed=3)
    for state, (discard, draw) in ((quick, (30, 15)), (turbo, (25, 10))):
        view = GAME.view(state, None)
        assert UI.timer_seconds({**view, "phase": "draw"}, state["options"], 90) == draw
        assert UI.timer_seconds({**view, "phase": "play"}, state["options"], 90) == discard
    private = GAME.view(GAME.new(2, {"mode": "private"}, seed=3), None)
    assert UI.timer_seconds(private, {}, None) is None and UI.timer_seconds(private, {}, 45) == 45


# ---- the rack -----------------------------------------------------------------------------------------------
def test_arrange_groups_the_melds_in_buttons_and_picture_and_survives_a_move():
    state = GAME.new(4, {"mode": "quick"}, seed=5)
    seat = GAME.to_move(state)
    view, legal = GAME.view(state, seat), GAME.legal_moves(state, seat)
    keyboard = UI.rack_buttons(view, legal, "en", None)
    arrange_button = next(b for b in flat(keyboard) if b.label == t("en", "kt.c.arrange"))
    arranged = UI.rack_buttons(view, legal, "en", arrange_button.arg)
    plan = arrange(view["hand"], view["joker"])
    numbers = [int(b.label.split(".")[0]) - 1 for b in flat(arranged) if b.kind == "pick" and b.label[0].isdigit()]
    assert numbers == plan.order
    assert UI.rack_view(view, arrange_button.arg)["arranged"] is True
    assert UI.rack_view(view, None)["arranged"] is False
    assert UI.pick_of(view, UI.pick_after_move(arrange_button.arg)) == Pick(sort="a")
    assert any(b.label == t("en", "kt.c.unarrange") for b in flat(arranged))
    groups = "  ".join("[" + " ".join(str(p + 1) for p in group) + "]" for group in plan.groups)
    assert t("en", "kt.grouped_value", n=plan.value, groups=groups) in UI.describe_rack(view, "en")


def test_describe_move_covers_every_move_kind():
    for move, key in (("draw", "kt.m.draw"), ("take", "kt.m.take")):
        assert UI.describe_move(move, "ar") == t("ar", key)
    assert UI.describe_move("discard R9", "en") == t("en", "kt.m.discard", tile=tile_label("R9"))
    assert UI.describe_move("lock K5 to 2 left", "en") == t("en", "kt.m.lock_left", tile="⬛5", n="2")
    assert UI.describe_move("swap B4 for 1", "en") == t("en", "kt.m.swap", tiles="🟦4", n="1")
    assert UI.describe_move("finish F", "en") == t("en", "kt.m.finish", tile="✳")
    assert UI.describe_move("option joker", "en") == t("en", "kt.m.option_joker")  # what happened, not the button
    assert "🟥8=🟦6" in UI.describe_move("meld R8:B6 B7 B8", "en")


# ---- whole matches by buttons -------------------------------------------------------------------------------
def choose(view: dict, legal: list[str]) -> str:
    """The test's player: the listed whole opening / Konkan when there is one, else a lay-off, lock, steal or (once
    opened) a single meld, else a discard; draws from the pile."""
    if view["phase"] == "option":
        return legal[0]
    if view["phase"] == "draw":
        return "draw"
    seat = view["seat"]
    whole = [m for m in legal if m.startswith("meld ") and " | " in m]
    if whole:
        return whole[0]
    opened = view["opened"][seat] is not None
    lays = [m for m in legal if m.startswith(("lock", "add", "swap")) or (opened and m.startswith("meld "))]
    if lays and not view["konkan"][seat]:
        return lays[0]
    locks = [m for m in legal if m.startswith("lock")]
    if locks:
        return locks[0]
    return next(m for m in legal if m.startswith("discard"))


class Player:
    """Presses buttons in a private chat, checking every keyboard on the way."""

    def __init__(self, service, transport, actor, chat=None):
        self.service, self.transport, self.actor = service, transport, actor
        self.chat = chat or ChatRef("fake", actor.user_id, private=True)
        self.presses = 0

    def keyboard(self):
        return self.transport.latest(self.actor.user_id).keyboard

    async def press(self, button) -> str:
        self.presses += 1
        reply = await self.service.press(self.actor, self.chat, button.data)
        assert not reply.alert, reply.text
        return reply.text

    def find(self, label: str, exact: bool = False):
        found = [b for row in self.keyboard() for b in row
                 if (b.label == label if exact else b.label.startswith(label))]
        assert found, (label, [b.label for row in self.keyboard() for b in row])
        return found[0]

    async def toggle(self, view, tiles: list[str]) -> None:
        used: set[int] = set()
        for tile in tiles:
            position = next(p for p, c in enumerate(view["hand"]) if c == tile and p not in used)
            used.add(position)
            await self.press(self.find(f"{position + 1}. "))
            assert self.find(f"✓ {position + 1}. ")

    async def play(self, move: str, view: dict) -> None:
        words = move.split()
        bare = [cell.split(":")[0] for cell in words[1:]]
        if words[0] == "option":
            text = await self.press(self.find(t("en", f"kt.c.option_{words[1]}"), exact=True))
        elif words[0] == "draw":
            text = await self.press(self.find("🀫"))
        elif words[0] == "meld" and " | " in move:
            key = "kt.c.konkan" if view["konkan"][view["seat"]] else "kt.c.open"
            text = await self.press(self.find(t("en", key, melds=UI._melds_text(move)), exact=True))
        elif words[0] == "meld":
            await self.toggle(view, bare)
            text = await self.press(self.find("Meld "))
        elif words[0] == "discard":
            await self.toggle(view, bare)
            text = await self.press(self.find(t("en", "rummy.discard", card=tile_label(words[1])), exact=True))
        elif words[0] == "add":
            await self.toggle(view, bare[:-2])
            text = await self.press(self.find(t("en", "rummy.add", n=words[-1]), exact=True))
        elif words[0] == "swap":
            await self.toggle(view, bare[:-2])
            text = await self.press(self.find(t("en", "kt.c.steal", n=words[-1]), exact=True))
        elif words[0] == "lock":
            await self.toggle(view, [words[1]])
            text = await self.press(self.find(t("en", f"kt.c.lock_{words[-1]}", n=words[-2]), exact=True))
        else:
            raise AssertionError(move)
        assert text.startswith("✓ You "), text


async def play_turns(store, match_id, players: dict[int, Player], limit: int) -> tuple[int, dict[str, int]]:
    """Human moves until the match ends (or `limit`); returns how many and how many of each verb."""
    made, verbs = 0, {}
    while made < limit:
        match = await store.get_match(match_id)
        if match.status != "active":
            break
        state = GAME.from_json(match.snapshot)
        seat = GAME.to_move(state)
        assert seat in players, "bots never wait for a human press"
        view, legal = GAME.view(state, seat), GAME.legal_moves(state, seat)
        move = choose(view, legal)
        await players[seat].play(move, view)
        record = (await store.moves(match_id))[match.version]
        assert (record.seat, record.move.split()[0]) == (seat, move.split()[0])
        verbs[move.split()[0]] = verbs.get(move.split()[0], 0) + 1
        made += 1
    return made, verbs


async def test_quick_2v2_two_humans_two_bots_whole_match_by_buttons(setup):
    service, transport, store = setup
    for actor in (ALI, MONA):
        await service.command(actor, GROUP, "lang", ["en"])
    await service.command(ALI, GROUP, "new", ["konkan"])
    await service.press(ALI, GROUP, callbacks.encode("n", 0, "konkan_tiles.quick"))
    match = await store.lobby_or_active_match("fake", "-300")
    await service.press(ALI, GROUP, callbacks.encode("b", match.id, "normal"))
    await service.press(MONA, GROUP, callbacks.encode("j", match.id))
    await service.press(ALI, GROUP, callbacks.encode("b", match.id, "random"))
    await service.press(ALI, GROUP, callbacks.encode("s", match.id))
    players = {0: Player(service, transport, ALI), 2: Player(service, transport, MONA)}  # partners
    made, verbs = await play_turns(store, match.id, players, limit=3000)
    match = await store.get_match(match.id)
    assert match.status == "finished", made
    state = GAME.from_json(match.snapshot)
    assert GAME.result(state)["over"] and state["round"] >= 5
    assert verbs.get("meld") and verbs.get("discard"), verbs
    replay = GAME.new(4, match.options, seed=match.seed)
    for record in await store.moves(match.id):
        replay = GAME.apply(replay, record.seat, record.move)
    assert GAME.to_json(replay) == match.snapshot
    stats = await store.player_stats((await service._actor_player(ALI)).id)
    assert stats["konkan_tiles"].played == 1
    assert await store.leaderboard("konkan_tiles", "fake", mode="quick")
    assert not await store.leaderboard("konkan_tiles", "fake", mode="ranked")


async def test_private_1v1_against_a_bot_counts_in_no_stats(setup):
    service, transport, store = setup
    await service.command(ALI, GROUP, "lang", ["en"])
    await service.command(ALI, GROUP, "new", ["konkan_tiles", "mode=private"])
    match = await store.lobby_or_active_match("fake", "-300")
    await service.press(ALI, GROUP, callbacks.encode("b", match.id, "normal"))
    await service.press(ALI, GROUP, callbacks.encode("s", match.id))
    made, _ = await play_turns(store, match.id, {0: Player(service, transport, ALI)}, limit=3000)
    match = await store.get_match(match.id)
    assert match.status == "finished", made
    assert await store.player_stats((await service._actor_player(ALI)).id) == {}
    assert ui_for("konkan_tiles") is UI


def test_a_discard_that_fails_the_opening_is_warned_and_needs_a_confirmation():
    """konkan-tiles.md: a failed opening eliminates, and "the interface must warn and ask for confirmation first"."""
    for seed in range(40):
        state = GAME.new(4, {"mode": "quick"}, seed=seed)
        seat = GAME.to_move(state)  # the captain: 15 tiles, no draw
        single = next((m for m in GAME.legal_moves(state, seat) if m.startswith("meld ") and " | " not in m), None)
        if single is not None:
            break
    state = GAME.apply(state, seat, single)
    view, legal = GAME.view(state, seat), GAME.legal_moves(state, seat)
    assert 0 < view["opening"] < view["minimum"][seat]
    position = 0
    tile = view["hand"][position]
    keyboard = UI.rack_buttons(view, legal, "en", None)
    picked = next(b for b in flat(keyboard) if b.kind == "pick" and b.label.startswith(f"{position + 1}. ")).arg
    values = {"card": tile_label(tile), "have": view["opening"], "n": view["minimum"][seat]}
    keyboard = UI.rack_buttons(view, legal, "en", picked)
    labels = {b.label: b for b in flat(keyboard)}
    assert t("en", "rummy.discard", card=tile_label(tile)) not in labels  # no one-press discard
    warn = labels[t("en", "kt.c.discard_warn", **values)]
    assert warn.kind == "pick" and UI.pick_of(view, warn.arg).confirm
    armed = UI.rack_buttons(view, legal, "en", warn.arg)
    confirm = next(b for b in flat(armed) if b.label == t("en", "kt.c.discard_confirm", **values))
    assert confirm.kind == "move" and confirm.move == f"discard {tile}"
    # any other press drops the pending confirmation
    for button in flat(armed):
        if button.kind == "pick" and button is not confirm:
            assert not UI.pick_of(view, button.arg).confirm
    after = GAME.apply(state, seat, confirm.move)
    assert after["eliminated"][seat]
    # once opened (or before any meld) a discard is one press
    fresh = GAME.new(4, {"mode": "quick"}, seed=seed)
    view, legal = GAME.view(fresh, seat), GAME.legal_moves(fresh, seat)
    keyboard = UI.rack_buttons(view, legal, "en", None)
    picked = next(b for b in flat(keyboard) if b.kind == "pick" and b.label.startswith("1. ")).arg
    keyboard = UI.rack_buttons(view, legal, "en", picked)
    assert any(b.kind == "move" and b.move == f"discard {view['hand'][0]}" for b in flat(keyboard))


async def test_the_turn_timer_uses_the_modes_draw_then_discard_seconds(setup):
    """Turbo: 10 s to draw, 25 s to discard; a timeout plays for the seat (the normal bot's choice)."""
    service, transport, store = setup
    await service.command(ALI, GROUP, "new", ["konkan_tiles", "mode=turbo"])
    match = await store.lobby_or_active_match("fake", "-300")
    for _ in range(3):
        await service.press(ALI, GROUP, callbacks.encode("b", match.id, "normal"))
    await service.press(ALI, GROUP, callbacks.encode("s", match.id))
    seen = set()
    for _ in range(40):
        match = await store.get_match(match.id)
        state = GAME.from_json(match.snapshot)
        phase = GAME.view(state, None)["phase"]
        assert GAME.to_move(state) == 0, "bots never wait"
        seconds = match.deadline - service.clock()
        assert seconds == {"draw": 10, "play": 25}[phase]
        seen.add(phase)
        service.clock.now += seconds - 1
        assert await service.tick() == 0  # not yet
        service.clock.now += 1
        assert await service.tick() == 1
        record = (await store.moves(match.id))[match.version]
        assert record.actor == "timer" and record.seat == 0
        if seen == {"draw", "play"}:
            break
    assert seen == {"draw", "play"}


# ---- a tile taken before opening (konkan-tiles.md, turn 1 [decision]) ----------------------------------------------
def test_the_prompt_asks_for_the_taken_tile_once_an_opening_is_started():
    """The discard is refused while the taken tile waits after an opening was started, so the prompt no longer offers
    a discard then: it names the tile to lay (in both languages), and every seat's view shows which tile it is."""
    layout = {"indicator": "Y5", "stock": ["B5", "B6"], "captain": 0,
              "hands": [["Y9", "R1"], ["R9", "K9", "B10", "B11", "B12", "B13", "K6", "K7", "K8", "Y13", "B3"],
                        ["R5", "R6"], ["R2", "R3"]]}
    state = GAME.apply(GAME.apply(GAME.new(4, {}, layout=layout), 0, "discard Y9"), 1, "take")
    assert UI.turn_prompt(GAME.view(state, 1), "en") == t("en", "kt.p.open", n=81, have=0)  # may still not open
    state = GAME.apply(state, 1, "meld B10 B11 B12 B13")
    view = GAME.view(state, 1)
    assert view["taken"] == "Y9" and GAME.view(state, None)["taken"] == "Y9"
    for lang in ("en", "ar"):
        prompt = UI.turn_prompt(view, lang)
        assert prompt == t(lang, "kt.p.taken", tile=tile_label("Y9"), n=81, have=40) and tile_label("Y9") in prompt
    state = GAME.apply(state, 1, "meld R9 K9 Y9 | K6 K7 K8")
    assert GAME.view(state, 1)["taken"] is None and UI.turn_prompt(GAME.view(state, 1), "en") == t("en", "kt.p.play")
