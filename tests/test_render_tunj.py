"""Tunj board pictures: PNG out, the claim banner and rings, the rack's pick and turned card, rule codes."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from PIL import Image

import engine
import renderers
from engine.bots import decide
from engine.tunj.judge import PRIORITY_TEXT, TURNED_FIRST, building_faults
from engine.tunj.moves import parse
from renderers import tunj
from renderers.text import plain
from tests.pictures import open_png

GAME = engine.get("tunj")
NAMES = ["أحمد", "Sarah"]
LAYOUT = {
    "reserves": [["KS", "2C"], ["QD"]],
    "houses": [["9C"], ["5D", "4S"], ["JS"], ["2D"], ["3H"], ["4C"], ["8S"], []],
    "hands": [["8H"], ["3C"]],
    "foundations": [["AH"], [], [], [], [], [], [], []],
    "to_move": 0,
}


def _state(**changes: Any) -> dict[str, Any]:
    return GAME.new(2, {}, layout={**LAYOUT, **changes})


def _near(pixel: tuple[int, ...], colour: tuple[int, int, int], tolerance: int = 14) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, colour, strict=False))


def _house_badge(image: Image.Image, house: int, banner: bool) -> tuple[int, int, int]:
    """The colour of house `house`'s label badge (left of its first card), away from the letters."""
    row = (house - 1) % 4
    label_x = tunj._LEFT_LABEL if house <= 4 else tunj._RIGHT_LABEL
    top = tunj.HEADER_H + (tunj.BANNER_H if banner else 0) + tunj.STRIP_H + 10 + row * tunj.ROW_H + 16
    return image.getpixel((label_x + 3, top + tunj.CARD_H // 2))


def test_registry_finds_tunj():
    assert renderers.supports("tunj")


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_table_and_rack_are_small_pngs(lang):
    state = _state()
    table = renderers.render_table("tunj", GAME.view(state, None), lang, NAMES)
    rack = renderers.render_rack("tunj", GAME.view(state, 0), lang, NAMES)
    for png in (table, rack):
        image = open_png(png)
        assert image.width == tunj.WIDTH and 600 <= image.height <= 900
        assert len(png) < 80_000
    assert table != rack, "the rack is drawn from the seat's side"


def test_claim_adds_a_banner_and_rings_the_attempt():
    state = _state()
    plain = open_png(renderers.render_table("tunj", GAME.view(state, None), "en", NAMES))
    attempt = GAME.apply(state, 0, "move H3 F2")  # JS on an empty foundation: a building break
    claimed = open_png(renderers.render_table("tunj", GAME.view(attempt, None), "en", NAMES))
    assert claimed.height == plain.height + tunj.BANNER_H + tunj.LAST_H  # the fresh deal has no last move
    banner = claimed.getpixel((tunj.WIDTH // 2, tunj.HEADER_H + 8))
    assert _near(banner, tunj.CLAIM_TINT) or _near(banner, tunj.CLAIM)
    assert _near(_house_badge(claimed, 3, banner=True), tunj.CLAIM)
    assert not _near(_house_badge(plain, 3, banner=False), tunj.CLAIM)
    assert not _near(_house_badge(claimed, 1, banner=True), tunj.CLAIM), "only the attempt's piles are ringed"
    # the same claim once called: no banner, no rings
    called = open_png(renderers.render_table("tunj", GAME.view(GAME.apply(attempt, 1, "tunj"), None), "en", NAMES))
    assert called.height == plain.height + tunj.LAST_H
    assert not _near(_house_badge(called, 3, banner=False), tunj.CLAIM)


def test_claim_banner_differs_for_the_caller_and_the_public():
    attempt = GAME.apply(_state(), 0, "turn")  # H8 is empty and the reserve is not: priority 3
    assert attempt["claim"] is not None
    public = renderers.render_table("tunj", GAME.view(attempt, None), "en", NAMES)
    caller = renderers.render_rack("tunj", GAME.view(attempt, 1), "en", NAMES)
    offender = renderers.render_rack("tunj", GAME.view(attempt, 0), "en", NAMES)
    assert len({public, caller, offender}) == 3


def test_rack_rings_the_picked_source_and_a_run():
    view = GAME.view(_state(), 0)
    plain = open_png(renderers.render_rack("tunj", view, "en", NAMES))
    house = open_png(renderers.render_rack("tunj", view, "en", NAMES, selected=(tunj.SOURCE_INDEX["H2"],)))
    run = open_png(renderers.render_rack("tunj", view, "en", NAMES,
                                      selected=(tunj.SOURCE_INDEX["H2"], tunj.RUN_BASE + 2)))
    assert _near(_house_badge(house, 2, banner=False), tunj.PICK)
    assert not _near(_house_badge(plain, 2, banner=False), tunj.PICK)
    assert house.tobytes() != run.tobytes(), "a run lifts more cards than its outer one"
    reserve = open_png(renderers.render_rack("tunj", view, "en", NAMES, selected=(tunj.SOURCE_INDEX["R"],)))
    assert reserve.tobytes() != plain.tobytes()
    # the public table ignores a selection
    assert renderers.render_table("tunj", GAME.view(_state(), None), "en", NAMES) == renderers.render_table(
        "tunj", GAME.view(_state(), None), "en", NAMES)


def test_turned_card_and_turn_marks_follow_the_mover():
    layout = {**LAYOUT, "houses": [["9C"], ["5D", "4S"], ["JS"], ["2D"], ["3H"], ["4C"], ["8S"], ["7D"]]}
    state = GAME.new(2, {}, layout=layout)
    turned = GAME.apply(state, 0, "turn")
    assert turned["piles"]["T"] == ["8H"]
    before = open_png(renderers.render_rack("tunj", GAME.view(state, 0), "en", NAMES))
    after = open_png(renderers.render_rack("tunj", GAME.view(turned, 0), "en", NAMES))
    bottom = (0, after.height - tunj.STRIP_H - tunj.LAST_H - tunj.PAD, after.width, after.height - tunj.LAST_H)
    assert before.crop(bottom).tobytes() != after.crop(bottom).tobytes()
    waiting = open_png(renderers.render_rack("tunj", GAME.view(state, 1), "en", NAMES))
    corner = (tunj.WIDTH - 130, 5, tunj.WIDTH - 5, 40)
    assert before.crop(corner).tobytes() != waiting.crop(corner).tobytes(), "'your turn' only on your turn"


def test_finished_hand_shows_the_winner_banner():
    layout = {"reserves": [[], ["QD", "5C"]], "houses": [["9C"], [], [], [], [], [], [], []],
              "hands": [["AS"], ["3C"]], "to_move": 0}
    state = GAME.new(2, {}, layout=layout)
    state = GAME.apply(state, 0, "turn")
    state = GAME.apply(state, 0, "move T F1")
    assert state["over"] and state["winners"] == [0]
    image = open_png(renderers.render_table("tunj", GAME.view(state, None), "en", NAMES))
    assert _near(image.getpixel((20, tunj.HEADER_H + 12)), tunj.WIN)


@pytest.mark.parametrize("raqm", [None, False])
def test_views_from_bot_games_render(raqm):
    rng = random.Random(4)
    state = GAME.new(2, {"target": 100}, seed=8)
    sizes = set()
    for step in range(240):
        if GAME.result(state)["over"]:
            break
        seat = GAME.to_move(state)
        state = GAME.apply(state, seat, decide("tunj", state, seat, "random", rng))
        if step % 40 == 0 or state["claim"]:
            lang = "ar" if step % 2 else "en"
            sizes.add(open_png(renderers.render_table("tunj", GAME.view(state, None), lang, NAMES, raqm=raqm)).size)
            open_png(renderers.render_rack("tunj", GAME.view(state, GAME.to_move(state) or 0), lang, NAMES,
                                        selected=(3,), raqm=raqm))
    assert len(sizes) >= 2, "claims make the picture taller"


def test_every_engine_reason_has_a_rule_code():
    piles_state = _state()
    piles = piles_state["piles"]
    reasons = {
        "p1": PRIORITY_TEXT[1], "p2": PRIORITY_TEXT[2], "p3": PRIORITY_TEXT[3], "turned_first": TURNED_FIRST,
        "foundation": building_faults(piles, 0, parse("move H3 F2"))[0],
        "house": building_faults(piles, 0, parse("move H3 H1"))[0],
        "load": building_faults(piles, 0, parse("move H3 OR"))[0],
        "not_run": building_faults({**piles, "H1": ["9C", "4D"]}, 0, parse("move H1:2 H8"))[0],
        "run_target": building_faults(piles, 0, parse("move H2:2 F2"))[0],
        "run_space": building_faults({**piles, "H8": ["TH"]}, 0, parse("move H2:2 H8"))[-2],
        "load_empty": building_faults({**piles, "W1": []}, 0, parse("move H3 OW"))[0],
    }
    for code, reason in reasons.items():
        assert tunj.rule_code(reason) == code, reason
    assert tunj.rule_code("something new") == "other"
    assert tunj.rule_codes([PRIORITY_TEXT[2], PRIORITY_TEXT[2], TURNED_FIRST]) == ["p2", "turned_first"]


def test_short_move():
    assert tunj.short_move("move H3:2 H7") == "H3 ×2 → H7"
    assert tunj.short_move("move T OR") == "Turned → Their reserve"
    assert tunj.short_move("turn") == "turn"


def _told(view: dict[str, Any], lang: str, rack: bool) -> list[str]:
    """The sentences a board draws about moves (the claim banner, the last-move line), bidi controls removed."""
    board = tunj._Board(view, renderers.RenderContext(lang=lang, names=("أحمد", "ليلى")), rack)
    lines = [board._last_text(), *(board.claim_lines() if board.claim else [])]
    return [plain(line) for line in lines if line]


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_moves_are_told_in_words_not_engine_notation(lang):
    """Issue 25, defect 7: "أحمد حاول turn", "T → H3". Every move a Tunj picture tells of, in the reader's words:
    in Arabic no Latin word but the board's own pile names (H1-H8, F1-F8), in English none of the notation's."""
    slip = GAME.apply(_state(), 0, "turn")  # H8 is empty and the reserve is not: priority 3, a claim
    layout = {**LAYOUT, "houses": [["9C"], ["5D", "4S"], ["JS"], ["2D"], ["3H"], ["4C"], ["8S"], ["7D"]]}
    turned = GAME.apply(GAME.new(2, {}, layout=layout), 0, "turn")  # a legal turn: 8H turned
    played = GAME.apply(turned, 0, "move T H1")  # the turned 8H onto 9C
    views = [(GAME.view(slip, None), False), (GAME.view(slip, 1), True), (GAME.view(slip, 0), True),
             (GAME.view(GAME.apply(slip, 1, "tunj"), None), False),
             (GAME.view(GAME.apply(slip, 1, "expire"), None), False),
             (GAME.view(turned, None), False), (GAME.view(played, None), False)]
    told = [line for view, rack in views for line in _told(view, lang, rack)]
    assert len(told) >= 9, told  # three banner lines on each of the slip's boards and a last move on every board
    words = {word for line in told for word in re.findall(r"[A-Za-z][A-Za-z0-9]*", line)}
    if lang == "ar":
        assert all(re.fullmatch(r"[HF][1-8]", word) for word in words), told
    else:
        assert not words & {"turn", "tunj", "expire", "T", "R", "OR", "OW"}, told

