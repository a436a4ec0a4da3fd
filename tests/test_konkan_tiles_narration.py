"""Konkan with tiles in chat, through the service and its fake transport (issue 25): the decider round says it is one
and who plays it in forced Konkan mode, its option is narrated as what happened, a round's sheet says who finished
and how, a take before opening is warned of and confirmed, and a Sulaymaniyah table names its rules once."""

from __future__ import annotations

import random

import pytest

import engine
from bot import callbacks, presenter
from bot.games.konkan_tiles import UI, tile_label
from bot.i18n import You, t
from bot.messages import Actor, ChatRef
from bot.summary import sheets
from engine.bots import get
from tests.chat import PickerPlayer, fake_service

GAME = engine.get("konkan_tiles")
GROUP = ChatRef("fake", "-320", private=False)
ALI = Actor("fake", "41", "Ali", language="en")


@pytest.fixture
async def setup(tmp_path):
    async with fake_service(tmp_path / "majlis.db", 13) as (service, transport, store, _clock):
        yield service, transport, store


def dealt_like(seed: int, players: int, **layout) -> dict:
    """A seeded deal's tiles as a layout, with `layout`'s changes (a round number, scores, the captain)."""
    state = GAME.new(players, {"mode": "quick" if players == 4 else "private"}, seed=seed)
    return {"hands": state["hands"], "stock": state["stock"], "indicator": state["indicator"], **layout}


async def start(service, store, monkeypatch, mode: str, bots: int, layout: dict) -> int:
    """Ali and `bots` normal bots at a `mode` table dealt `layout`; the match id."""
    players = bots + 1
    new = GAME.new
    monkeypatch.setattr(GAME, "new", lambda count, options=None, *, seed=None, layout_=None, **_:
                        new(count, options, seed=seed, layout=layout if count == players else None))
    await service.command(ALI, GROUP, "lang", ["en"])
    await service.command(ALI, GROUP, "new", ["konkan_tiles", f"mode={mode}"])
    match = await store.lobby_or_active_match("fake", GROUP.chat_id)
    for _ in range(bots):
        await service.press(ALI, GROUP, callbacks.encode("b", match.id, "normal"))
    await service.press(ALI, GROUP, callbacks.encode("s", match.id))
    assert (await store.get_match(match.id)).status == "active"
    return match.id


def group_text(transport) -> str:
    return "\n".join(message.text for (chat, _), message in transport.current.items() if chat == GROUP.chat_id)


async def test_the_decider_says_who_plays_forced_konkan_and_narrates_the_option(setup, monkeypatch):
    """konkan-tiles.md "Decider round": the trailing team (within 400) plays it in forced Konkan mode and chooses an
    option first. The caption says "decider round" and names that team (no "round 6 of 5"), and the bot's choice is
    told as what it did, not as the button's imperative ("Reshuffle the tiles")."""
    service, transport, store = setup
    match_id = await start(service, store, monkeypatch, "quick", 3, dealt_like(3, 4, round=6, scores=[300, 100]))
    match = await store.get_match(match_id)
    state = GAME.from_json(match.snapshot)
    view = GAME.view(state, None)
    assert view["decider"] and view["forced"] == [1, 3] and view["rounds"] == 5
    option = next(record.move for record in await store.moves(match_id) if record.move.startswith("option "))
    seats = await store.seats(match_id)
    for lang in ("ar", "en"):
        names = presenter.seat_names(seats, lang)
        note = t(lang, "kt.decider_forced", names=t(lang, "team", a=names[1], b=names[3]))
        assert UI.round_notes(view, lang, names) == [note]
        table = UI.describe_table(view, lang, names)
        assert table.splitlines()[0] == t(lang, "kt.table_decider", mode=t(lang, "opt.mode.quick"))
        assert "6 of 5" not in table and "6 من 5" not in table
        said = UI.describe_move(option, lang)
        assert said == t(lang, f"kt.m.option_{option.split()[1]}") != t(lang, f"kt.c.option_{option.split()[1]}")
    shown = group_text(transport)  # the group reads Arabic
    names = presenter.seat_names(seats, "ar")
    assert t("ar", "kt.decider_forced", names=t("ar", "team", a=names[1], b=names[3])) in shown, shown
    assert f"{names[1]}: {t('ar', 'kt.m.option_' + option.split()[1])}" in shown, shown
    tied = {**view, "forced": []}
    assert UI.round_notes(tied, "en", names) == [t("en", "kt.decider_tied")]
    assert UI.round_notes({**view, "decider": False, "round": 5}, "en", names) == []


def test_each_round_sheet_says_who_finished_and_how():
    """The round-end sheet names the finisher and the finish (normal, hidden, Konkan, Konkan-10) or the void, and
    the decider by name; the reader's own finish is in the second person."""
    names = ["Ali", "Bot 2", "Bot 3", "Bot 4"]
    view = {"rounds": 5, "teams": True, "details": []}
    cases = {"normal": 2, "hidden": 0, "konkan": 1, "konkan10": 3}
    for kind, finisher in cases.items():
        detail = {"round": 2, "finisher": finisher, "kind": kind, "points": [113, 0], "totals": [113, 0]}
        for lang in ("en", "ar"):
            sheet = UI.round_sheet(detail, 2, view, names, ["A", "B"], lang)
            assert sheet.title == t(lang, f"kt.sheet.{kind}", round=t(lang, "kt.sheet.round", n=2),
                                    name=names[finisher])
            assert names[finisher] in sheet.title
    assert UI.round_sheet({"round": 3, "finisher": None, "kind": "void", "points": [0, 0], "totals": [0, 0]}, 3, view,
                          names, ["A", "B"], "en").title == "Round 3: void — the pile ran out, no penalties"
    decider = UI.round_sheet({"round": 6, "finisher": 1, "kind": "konkan", "points": [0, 200], "totals": [1, 2]}, 6,
                             view, names, ["A", "B"], "en")
    assert decider.title == "Decider round: Bot 2 finished by Konkan"
    mine = UI.round_sheet({"round": 1, "finisher": 0, "kind": "hidden", "points": [100, 0], "totals": [100, 0]}, 1,
                          view, [You("You"), *names[1:]], ["A", "B"], "ar")
    assert mine.title.startswith("الجولة 1: أنهيتَ مخفيًا")
    # and every round of a bot-played match gets such a title
    state = GAME.new(4, {"mode": "turbo"}, seed=5)
    bots, rnd = [get("konkan_tiles", "normal") for _ in range(4)], random.Random(5)
    while (seat := GAME.to_move(state)) is not None:
        state = GAME.apply(state, seat, bots[seat].choose(GAME.view(state, seat), GAME.legal_moves(state, seat), rnd))
    view = GAME.view(state, None)
    for sheet, detail in zip(sheets("konkan_tiles", view, names, "en"), view["details"], strict=True):
        if detail["finisher"] is None:
            assert "void" in sheet.title
        else:
            assert names[detail["finisher"]] in sheet.title and "finished" in sheet.title, sheet.title


async def test_a_take_before_opening_warns_of_konkan_mode_and_needs_a_second_press(setup, monkeypatch):
    """konkan-tiles.md "Voluntary entry": a tile taken before opening puts the taker in Konkan mode unless they open
    with it. Like a discard that fails an opening, the first press only warns; the second takes."""
    service, transport, store = setup
    match_id = await start(service, store, monkeypatch, "private", 1, dealt_like(8, 2, captain=1))
    state = GAME.from_json((await store.get_match(match_id)).snapshot)
    assert GAME.to_move(state) == 0 and "take" in GAME.legal_moves(state, 0) and state["opened"][0] is None
    tile = tile_label(GAME.view(state, 0)["discard_top"])
    ali = PickerPlayer(service, transport, ALI)
    labels = [b.label for row in ali.keyboard() for b in row]
    assert t("en", "kt.c.take", tile=tile) not in labels
    warn = ali.find(t("en", "kt.c.take_warn", tile=tile), exact=True)
    assert (await ali.press(warn)) == ""  # only the rack changes
    before = (await store.get_match(match_id)).version
    confirm = ali.find(t("en", "kt.c.take_confirm", tile=tile), exact=True)
    assert (await ali.press(confirm)).startswith("✓ You ")
    match = await store.get_match(match_id)
    assert match.version == before + 1 and (await store.moves(match_id))[-1].move == "take"
    # an opened player (or one in Konkan mode already) takes with one press
    opened = GAME.view(state, 0) | {"opened": [61, None]}
    keyboard = UI.rack_buttons(opened, GAME.legal_moves(state, 0), "en", None)
    assert [b.move for row in keyboard for b in row if b.label == t("en", "kt.c.take", tile=tile)] == ["take"]


async def test_a_sulaymaniyah_table_names_its_rules_once(setup):
    service, transport, store = setup
    await service.command(ALI, GROUP, "new", ["konkan_tiles", "mode=sulaymaniyah"])
    match = await store.lobby_or_active_match("fake", GROUP.chat_id)
    assert match.options.get("mode") == "sulaymaniyah"
    for lang in ("en", "ar"):
        text = presenter.option_text("konkan_tiles", {"mode": "sulaymaniyah", "rules": "sulaymaniyah"}, lang)
        assert text == t(lang, "opt.mode.sulaymaniyah")
        private = presenter.option_text("konkan_tiles", {"mode": "private", "rules": "sulaymaniyah"}, lang)
        assert t(lang, "opt.rules.sulaymaniyah") in private
    lobby = transport.latest(GROUP.chat_id).text
    assert t("ar", "opt.rules.sulaymaniyah") not in lobby and t("ar", "opt.mode.sulaymaniyah") in lobby, lobby
