"""Konkan (cards) rack and table pictures through the registry: PNG out, numbering and selection, markers that
must change the picture (opened, committed, reshuffles, round, taken card), both directions, and views from play."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageChops

import engine
import renderers
from renderers import konkan_cards
from renderers.widgets import CardRack
from tests.pictures import NAMES, changed, open_png, played, rack_with_ends_selected, render_every_view

GAME = engine.get("konkan_cards")


def _played(players: int, seed: int, moves: int) -> dict[str, Any]:
    return played("konkan_cards", players, seed, moves, level=lambda seat: "normal" if seat == 0 else "random")


def _layout(**layout: Any) -> dict[str, Any]:
    hands = layout.pop("hands", [["7H", "7S", "9C", "5S", "2D"], ["4H", "4S", "5D", "6C", "QC"]])
    return GAME.new(2, {}, layout={"hands": hands, "dealer": 0, **layout})


def _differ(a: Image.Image, b: Image.Image) -> bool:
    return a.size != b.size or ImageChops.difference(a, b).getbbox() is not None


def test_registry_finds_konkan_cards():
    assert renderers.supports("konkan_cards")


def test_rack_numbers_and_selection():
    state = _played(4, 1, 20)
    seat = GAME.to_move(state)
    view = GAME.view(state, seat)
    plain, first, last = rack_with_ends_selected("konkan_cards", view, NAMES)
    box_first, box_last = changed(plain, first), changed(plain, last)
    assert box_first and box_last and (box_first[0] < box_last[0] or box_first[1] < box_last[1])
    assert CardRack.of({"hand": ["AS"] * 15}, konkan_cards.RACK_CARD_H, konkan_cards.RACK_PER_ROW).rows == [8, 7]
    assert CardRack.of({"hand": ["AS"] * 9}, konkan_cards.RACK_CARD_H, konkan_cards.RACK_PER_ROW).rows == [9]


def test_rack_shows_a_taken_card_and_the_commit_hint():
    melds = [{"seat": 0, "cards": ["5H", "6H", "7H"]}]
    state = GAME.apply(_layout(stock=["KD"], melds=melds, hands=[["JC", "QD", "2S"], ["8H", "3C"]]), 1, "discard 8H")
    before = open_png(renderers.render_rack("konkan_cards", GAME.view(state, 0), "en"))
    taken = GAME.apply(state, 0, "take")
    after = open_png(renderers.render_rack("konkan_cards", GAME.view(taken, 0), "en"))
    assert after.height > before.height
    final = _layout(stock=["KD", "8C"], round=5)
    view = GAME.view(GAME.apply(final, 1, "discard QC"), 0)
    assert view["can_commit"]
    hinted = open_png(renderers.render_rack("konkan_cards", view, "ar"))
    quiet = open_png(renderers.render_rack("konkan_cards", dict(view, can_commit=False), "ar"))
    assert hinted.height == quiet.height + 26


def test_table_markers_change_the_picture():
    state = _layout(stock=["KD", "8C"], discard=["9S"], melds=[{"seat": 1, "cards": ["5H", "X:6H", "7H"]}])
    view = GAME.view(state, None)
    base = open_png(renderers.render_table("konkan_cards", view, "en", NAMES[:2]))
    for change in ({"opened": [True, True]}, {"committed": [True, False]}, {"reshuffles_left": 1},
                   {"round": 4}, {"discard_top": "QD"}, {"stock_size": 40}, {"scores": [30, -60]}):
        other = open_png(renderers.render_table("konkan_cards", dict(view, **change), "en", NAMES[:2]))
        assert _differ(base, other), change
    extra = open_png(renderers.render_table("konkan_cards", dict(view, round=6, final_round=True), "en", NAMES[:2]))
    assert _differ(base, extra)


def test_melds_are_numbered_in_their_owners_panels():
    melds = [{"seat": 1, "cards": ["5H", "6H", "7H"]}, {"seat": 0, "cards": ["KS", "KH", "KD"]}]
    with_melds = open_png(renderers.render_table("konkan_cards", GAME.view(_layout(melds=melds), None), "en"))
    without = open_png(renderers.render_table("konkan_cards", GAME.view(_layout(), None), "en"))
    assert with_melds.height > without.height
    assert [m["number"] for m in GAME.view(_layout(melds=melds), None)["melds"]] == [1, 2]


def test_both_directions_and_the_finished_match():
    view = GAME.view(_played(4, 3, 120), None)
    en = open_png(renderers.render_table("konkan_cards", view, "en", NAMES)).convert("L").crop((0, 0, 760, 48))
    ar = open_png(renderers.render_table("konkan_cards", view, "ar", NAMES)).convert("L").crop((0, 0, 760, 48))
    en_box = en.point(lambda v: 255 if v > 200 else 0).getbbox()
    ar_box = ar.point(lambda v: 255 if v > 200 else 0).getbbox()
    assert en_box[0] < 40 and ar_box[2] > konkan_cards.TABLE_W - 40
    over = dict(view, over=True, phase="over", winners=[2], to_move=None, turn=None, konkan_winner=2)
    a = open_png(renderers.render_table("konkan_cards", view, "en", NAMES))
    b = open_png(renderers.render_table("konkan_cards", over, "en", NAMES))
    assert b.height == a.height + 46


def test_sample_views_render():
    for view in konkan_cards.sample_views():
        for lang in ("en", "ar"):
            open_png(renderers.render_table("konkan_cards", view, lang, NAMES[: view["players"]]))
            open_png(renderers.render_rack("konkan_cards", view, lang, NAMES[: view["players"]], selected=(0, 2)))


@settings(max_examples=15, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 10_000), moves=st.integers(0, 300),
       lang=st.sampled_from(["ar", "en"]))
def test_any_reachable_view_renders(players, seed, moves, lang):
    render_every_view("konkan_cards", _played(players, seed, moves), lang, NAMES[:players])
