"""Konkan tiles pictures through the registry: PNG out, numbered and selected tiles, the auto-arrange helper and
the grouped value counter (red in Konkan mode), the false joker's and the joker's designs, locked ends, seat
markers, both languages, and views from real play."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageChops

import engine
import renderers
from renderers import konkan_tiles as R
from tests.pictures import NAMES, changed, open_png, played, rack_with_ends_selected, render_every_view

GAME = engine.get("konkan_tiles")


def _played(players: int, seed: int, moves: int) -> dict[str, Any]:
    return played("konkan_tiles", players, seed, moves)


def _layout(**layout: Any) -> dict[str, Any]:
    layout.setdefault("indicator", "Y5")
    layout.setdefault("stock", ["B5", "R1"])
    layout.setdefault("hands", [["R9", "K9", "Y9", "B2", "B3", "B4", "K13", "F", "Y4"], ["R2"], ["R3"], ["R5"]])
    return GAME.new(4, {}, layout=layout)


def test_registry_finds_konkan_tiles():
    assert renderers.supports("konkan_tiles")


def test_arrange_groups_melds_and_keeps_positions():
    hand = ["K13", "R9", "B3", "Y9", "B2", "K9", "B4", "F"]
    plan = R.arrange(hand, "Y4")
    assert sorted(plan.order) == list(range(len(hand)))
    groups = [[hand[p] for p in group] for group in plan.groups]
    assert sorted(groups) == [["B2", "B3", "B4"], ["R9", "K9", "Y9"]] and plan.value == 27 + 9
    assert [hand[p] for p in plan.loose] == ["K13", "F"]
    assert R.arrange([], None).value == 0


def test_rack_png_numbers_selection_and_arranged_order():
    view = GAME.view(_layout(), 0)
    plain, first, last = rack_with_ends_selected("konkan_tiles", view, NAMES)
    assert plain.size == first.size == last.size
    box_first, box_last = changed(plain, first), changed(plain, last)
    assert box_first and box_last and box_first != box_last
    arranged = open_png(renderers.render_rack("konkan_tiles", dict(view, arranged=True), "en", NAMES))
    assert ImageChops.difference(plain.crop((0, 100, 600, 200)), arranged.crop((0, 100, 600, 200))).getbbox()


def _counter_colour(image: Image.Image, lang: str) -> tuple[int, int, int]:
    x = image.width - R.PAD - 22 if lang == "en" else R.PAD + 22
    return image.getpixel((x, 46 + 56 / 2 - 4 - 12))


def test_grouped_counter_turns_red_in_konkan_mode():
    for lang in ("en", "ar"):
        normal = open_png(renderers.render_rack("konkan_tiles", GAME.view(_layout(), 0), lang))
        konkan = open_png(renderers.render_rack("konkan_tiles", GAME.view(
            _layout(konkan=[True, False, False, False]), 0), lang))
        near = lambda a, b: all(abs(x - y) < 30 for x, y in zip(a, b, strict=True))  # noqa: E731
        assert near(_counter_colour(normal, lang), R.COUNTER)
        assert near(_counter_colour(konkan, lang), R.KONKAN)


def test_false_joker_and_joker_have_their_own_faces():
    plain = R.face("Y4", 60).convert("RGB")
    starred = R.face("Y4", 60, wild=True).convert("RGB")
    rosette = R.face("F", 60).convert("RGB")
    assert ImageChops.difference(plain, starred).getbbox()
    assert ImageChops.difference(plain, rosette).getbbox()
    colours = {tile: R.face(tile, 60).convert("RGB").getpixel((20, 62 * 38 // 100)) for tile in ("R5", "K5", "B5")}
    assert len(set(colours.values())) >= 2


def test_locked_end_and_seat_markers_change_the_table():
    melds = [{"seat": 1, "cards": ["K7", "K8", "K9"]}]
    open_end = GAME.view(_layout(melds=melds), None)
    locked = GAME.view(_layout(melds=[{**melds[0], "locked": [False, True]}]), None)
    assert locked["melds"][0]["locked"] == [False, True]
    a = open_png(renderers.render_table("konkan_tiles", open_end, "en", NAMES))
    b = open_png(renderers.render_table("konkan_tiles", locked, "en", NAMES))
    assert a.size == b.size and ImageChops.difference(a, b).getbbox()
    marked = GAME.view(_layout(melds=melds, konkan=[False, False, True, False],
                               eliminated=[False, False, False, True]), None)
    c = open_png(renderers.render_table("konkan_tiles", marked, "en", NAMES))
    assert ImageChops.difference(a, c).getbbox()


def test_table_both_languages_and_the_finished_match():
    view = GAME.view(_played(4, 3, 120), None)
    en = open_png(renderers.render_table("konkan_tiles", view, "en", NAMES))
    ar = open_png(renderers.render_table("konkan_tiles", view, "ar", NAMES, raqm=False))
    assert en.width == ar.width == R.TABLE_W
    en_box = en.convert("L").crop((0, 0, R.TABLE_W, 48)).point(lambda v: 255 if v > 200 else 0).getbbox()
    ar_box = ar.convert("L").crop((0, 0, R.TABLE_W, 48)).point(lambda v: 255 if v > 200 else 0).getbbox()
    assert en_box[0] < 40 and ar_box[2] > R.TABLE_W - 40
    over = dict(view, over=True, winners=[1], phase="over", to_move=None)
    done = open_png(renderers.render_table("konkan_tiles", over, "en", NAMES))
    assert done.height == en.height + 46


@settings(max_examples=15, deadline=None)
@given(players=st.sampled_from([2, 4]), seed=st.integers(0, 10_000), moves=st.integers(0, 300),
       lang=st.sampled_from(["ar", "en"]))
def test_any_reachable_view_renders(players, seed, moves, lang):
    render_every_view("konkan_tiles", _played(players, seed, moves), lang, NAMES[:players],
                      lambda seat, view: dict(view, arranged=seat % 2 == 0))
