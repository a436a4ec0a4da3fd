"""Canasta rack and table pictures through the registry: PNG out, selection, long hands, 2/4 players, markers,
right-to-left labels, the finished match, and views from real play."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import ImageChops

import engine
import renderers
from renderers import canasta, card_base
from renderers.widgets import balanced_rows, rack_step
from tests.pictures import NAMES, changed, open_png, played, rack_with_ends_selected, render_every_view

GAME = engine.get("canasta")


def _played(players: int, seed: int, moves: int) -> dict[str, Any]:
    """A state after `moves` moves of normal bots (real views: melds, red 3s, frozen piles, taken piles)."""
    return played("canasta", players, seed, moves, {"variant": "duo" if players == 2 else "classic4"})


def _layout(**layout: Any) -> dict[str, Any]:
    hands = layout.pop("hands", [["7H", "7S", "9C", "5S"], ["4H", "4S", "5D", "6C"]])
    return GAME.new(2, {"variant": "duo"}, layout={"hands": hands, "dealer": 1, **layout})


def test_registry_finds_canasta():
    assert renderers.supports("canasta")


def test_rack_png_numbers_and_selection_is_distinct():
    state = _played(2, 1, 30)
    seat = GAME.to_move(state)
    view = GAME.view(state, seat)
    plain, first, last = rack_with_ends_selected("canasta", view, NAMES[:2])
    assert plain.size == first.size == last.size
    box_first, box_last = changed(plain, first), changed(plain, last)
    assert box_first and box_last and box_first != box_last
    assert box_first[0] < box_last[0] or box_first[1] < box_last[1]  # the marks are where the cards are


def test_long_hands_wrap_into_rows_of_overlapping_cards():
    deck = [c for c in engine.canasta.cards.DECK if c not in ("3H", "3D")]
    short = {"hand": deck[:5], "seat": 0, "to_move": 0, "phase": "play", "team": 0, "melds": []}
    long = dict(short, hand=deck[:40])
    a = open_png(renderers.render_rack("canasta", short, "en"))
    b = open_png(renderers.render_rack("canasta", long, "en"))
    assert b.height > 3 * (a.height - 60)  # four rows of cards
    step = rack_step(12, card_base.card_width(canasta.RACK_CARD_H))
    assert b.width <= 2 * canasta.PAD + (canasta.RACK_PER_ROW - 1) * step + 80
    rows = [balanced_rows(n, canasta.RACK_PER_ROW) for n in (40, 15)]
    assert rows == [[10, 10, 10, 10], [8, 7]]
    assert open_png(renderers.render_rack("canasta", dict(short, hand=[]), "ar")).width >= canasta.RACK_MIN_W


def test_rack_after_a_take_shows_the_card_to_meld_and_the_pile():
    state = _layout(stock=["6D", "8H"], discard=["7D", "QC", "TC"], melds=[{"team": 0, "cards": ["AH", "AS", "AC"]}])
    before = open_png(renderers.render_rack("canasta", GAME.view(state, 0), "en"))
    taken = GAME.apply(state, 0, "take")
    after = open_png(renderers.render_rack("canasta", GAME.view(taken, 0), "en"))
    assert after.height > before.height
    opponent = open_png(renderers.render_rack("canasta", GAME.view(taken, 1), "en"))
    assert opponent.height < after.height  # only the taker's rack shows the pending top card


def test_table_two_and_four_players_and_both_languages():
    two = GAME.view(_played(2, 2, 80), None)
    four = GAME.view(_played(4, 3, 80), None)
    for view, names in ((two, NAMES[:2]), (four, NAMES)):
        for lang in ("en", "ar"):
            image = open_png(renderers.render_table("canasta", view, lang, names))
            assert image.width == canasta.TABLE_W and image.height > 300
    # Arabic headers start at the right edge, English ones at the left.
    en = open_png(renderers.render_table("canasta", four, "en", NAMES)).convert("L").crop((0, 0, canasta.TABLE_W, 48))
    ar = open_png(renderers.render_table("canasta", four, "ar", NAMES)).convert("L").crop((0, 0, canasta.TABLE_W, 48))
    en_box = en.point(lambda v: 255 if v > 200 else 0).getbbox()
    ar_box = ar.point(lambda v: 255 if v > 200 else 0).getbbox()
    assert en_box[0] < 40 and ar_box[2] > canasta.TABLE_W - 40


def test_table_markers_frozen_pile_and_canastas_change_the_picture():
    melds = [{"team": 0, "cards": ["KH", "KS", "KC", "KD", "KH", "KS"]}]
    open_pile = _layout(stock=["6D"], discard=["7D", "QC"], melds=melds)
    frozen = _layout(stock=["6D"], discard=["7D", "2C", "QC"], melds=melds)
    canasta_melds = [{"team": 0, "cards": ["KH", "KS", "KC", "KD", "KH", "KS", "KC"]}]
    complete = _layout(stock=["6D"], discard=["7D", "QC"], melds=canasta_melds)
    mixed = _layout(stock=["6D"], discard=["7D", "QC"], melds=[{"team": 0, "cards": [
        "KH", "KS", "KC", "KD", "KH", "KS", "X"]}])
    views = [GAME.view(s, None) for s in (open_pile, frozen, complete, mixed)]
    assert [v["frozen"] for v in views] == [False, True, False, False]
    assert [m["canasta"] for v in views[2:] for m in v["melds"]] == ["natural", "mixed"]
    images = [open_png(renderers.render_table("canasta", v, "en", NAMES[:2])) for v in views]
    assert all(a.size == images[0].size for a in images)
    assert ImageChops.difference(images[0], images[1]).getbbox()  # frozen marker
    diff = ImageChops.difference(images[2], images[3]).getbbox()
    assert diff is not None  # natural and mixed canastas look different


def test_finished_match_shows_the_winner_banner():
    state = _layout(stock=["6D"], discard=["7D", "QC"])
    view = GAME.view(state, None)
    over = dict(view, over=True, phase="over", winners=[1], to_move=None, turn=None)
    a = open_png(renderers.render_table("canasta", view, "en", ["Ali", "Bot"]))
    b = open_png(renderers.render_table("canasta", over, "en", ["Ali", "Bot"]))
    assert b.height == a.height + 46
    banner = b.getpixel((canasta.PAD + 4, 48 + 6))
    assert all(abs(x - y) < 24 for x, y in zip(banner, canasta.WIN, strict=True))
    assert a.getpixel((canasta.PAD + 4, 48 + 6)) != banner


def test_answer_phase_rack_and_table_render():
    hands = [["7H", "7S", "7D", "9C"], ["4H", "4S", "5D", "6C"], ["8H", "8S", "QD", "JC"], ["5H", "6S", "TD", "TS"]]
    state = GAME.new(4, {}, layout={"hands": hands, "dealer": 3, "stock": ["KD", "8D"], "discard": ["QH"],
                                    "melds": [{"team": 0, "cards": ["KH", "KS", "KC", "KD", "KH", "KS", "KC"]}]})
    state = GAME.apply(GAME.apply(state, 0, "draw"), 0, "ask")
    partner = GAME.view(state, 2)
    asked = open_png(renderers.render_rack("canasta", partner, "ar", NAMES, raqm=False))
    plain = open_png(renderers.render_rack("canasta", dict(partner, phase="play", to_move=0), "ar", NAMES, raqm=False))
    assert asked.height == plain.height + 30  # the question line
    open_png(renderers.render_table("canasta", GAME.view(state, None), "ar", NAMES, raqm=False))


@settings(max_examples=25, deadline=None)
@given(players=st.sampled_from([2, 4]), seed=st.integers(0, 10_000), moves=st.integers(0, 400),
       lang=st.sampled_from(["ar", "en"]))
def test_any_reachable_view_renders(players, seed, moves, lang):
    render_every_view("canasta", _played(players, seed, moves), lang, NAMES[:players])


def test_a_mixed_canasta_shows_its_natural_rank_on_top(monkeypatch):
    """A mixed canasta of 8s is squared up under an 8, not under its wild 2 (it would read as a canasta of 2s)."""
    from renderers import cards_french
    from renderers.context import RenderContext

    tops: list[str] = []
    real_face, real_meld = cards_french.face, canasta._Table._meld
    in_meld = []

    def face(code: str, height: int, chosen: bool = False):
        if in_meld:
            tops.append(code)
        return real_face(code, height, chosen)

    def meld(*args, **kwargs):  # faces drawn for a meld cell, not for the piles or the last move
        in_meld.append(True)
        try:
            return real_meld(*args, **kwargs)
        finally:
            in_meld.pop()

    monkeypatch.setattr(canasta.cards_french, "face", face)
    monkeypatch.setattr(canasta._Table, "_meld", meld)
    view = dict(canasta._sample_views()[0], melds=[
        {"number": 1, "team": 0, "rank": "8", "cards": ["2C", "X", "8H", "8S", "8D", "8C", "8H"], "canasta": "mixed"},
        {"number": 2, "team": 1, "rank": "K", "cards": ["KH"] * 7, "canasta": "natural"}])
    for lang in ("en", "ar"):
        tops.clear()
        canasta.render_table(view, RenderContext(lang=lang))
        assert tops == ["8H", "KH"]


@pytest.mark.parametrize("lang,side", [("en", "left"), ("ar", "right")])
def test_rack_card_one_is_where_the_reader_starts(lang, side):
    view = {"hand": ["4C", "9H", "QS", "QD", "JH"], "seat": 0, "to_move": 1, "phase": "play", "team": 0, "melds": []}
    plain = open_png(renderers.render_rack("canasta", view, lang))
    first = open_png(renderers.render_rack("canasta", view, lang, selected=(0,)))
    box = ImageChops.difference(plain.convert("RGB"), first.convert("RGB")).getbbox()
    assert box is not None
    centre = (box[0] + box[2]) / 2
    assert centre < plain.width / 3 if side == "left" else centre > 2 * plain.width / 3
