"""Pictures at phone size (issue 25): most people see a table about 400 px wide, so every game's table, rack and
score sheet must stay readable shrunk to that width — text large enough there, secondary text light enough on its
panels, a tiles meld cell showing its owner's whole name, the last move's cards large enough to read, Canasta's
few melds filling their panel, a score sheet's side names not running into each other."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

import engine
import renderers
from renderers import canasta, konkan_tiles, score_sheet, text
from renderers.context import RenderContext
from tests.pictures import played

PHONE_W = 400
LEAST_PX = 7.5  # the smallest text a picture may draw, in pixels once shrunk to PHONE_W wide
BOTS = {"en": ["You", "Bot 2 (normal)", "Bot 3 (normal)", "Bot 4 (normal)"],
        "ar": ["أنت", "بوت 2 (عادي)", "بوت 3 (عادي)", "بوت 4 (عادي)"]}
# (game, players, seed, bot moves, options): tables with melds, piles, a last move and a turn to show
MATCHES = [("kenza", 4, 3, 14, {}), ("canasta", 4, 4, 60, {"variant": "classic4"}), ("tunj", 2, 1, 44, {}),
           ("konkan_cards", 4, 11, 40, {}), ("konkan_tiles", 4, 31, 100, {"mode": "quick"})]


@contextmanager
def drawn_sizes() -> Iterator[list[tuple[int, str]]]:
    """Every text drawn meanwhile, as (font size, text): each label's mask is rasterised at its font's size."""
    seen: list[tuple[int, str]] = []
    real = text._mask

    def mask(shown: str, face: Any, direction: str | None, anchor: str) -> Any:
        seen.append((int(face.size), shown))
        return real(shown, face, direction, anchor)

    text._mask = mask
    try:
        yield seen
    finally:
        text._mask = real


def _contrast(a: tuple[int, ...], b: tuple[int, ...]) -> float:
    """WCAG contrast ratio of two sRGB colours."""
    def luminance(colour: tuple[int, ...]) -> float:
        def channel(v: int) -> float:
            c = v / 255
            return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
        r, g, b_ = (channel(v) for v in colour[:3])
        return 0.2126 * r + 0.7152 * g + 0.0722 * b_
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("game_id", ["kenza", "canasta", "tunj", "konkan_cards", "konkan_tiles"])
def test_secondary_text_is_light_enough_on_its_panels(game_id):
    """The "small grey labels are faint": MUTED text reaches WCAG AA (4.5:1) on the felt and the panels."""
    module = importlib.import_module(f"renderers.{game_id}")
    for name in ("FELT", "PANEL", "BOARD"):
        if hasattr(module, name):
            assert _contrast(module.MUTED, getattr(module, name)) >= 4.5, name


@pytest.mark.parametrize("lang", ["ar", "en"])
@pytest.mark.parametrize("game_id,players,seed,moves,options", MATCHES)
def test_every_text_is_readable_at_phone_width(game_id, players, seed, moves, options, lang):
    game = engine.get(game_id)
    state = played(game_id, players, seed, moves, options)
    names = BOTS[lang][:players]
    seat = game.to_move(state) or 0
    module = importlib.import_module(f"renderers.{game_id}")
    ctx = RenderContext(lang=lang, names=tuple(names))
    for kind, draw, view in (("table", module.render_table, game.view(state, None)),
                             ("rack", module.render_rack, game.view(state, seat))):
        text._mask.cache_clear()
        with drawn_sizes() as seen:
            width = draw(view, ctx).width
        assert seen, kind
        size, shown = min(seen)
        assert size * PHONE_W / width >= LEAST_PX, (kind, size, width, shown)


@pytest.mark.parametrize("game_id,players,seed,moves,options", [m for m in MATCHES if m[0] != "tunj"])
def test_last_move_cards_are_large_enough_to_read(game_id, players, seed, moves, options, monkeypatch):
    """The "last move" mini cards (40 px on a 720-760 px table) could not be read on a phone: at 400 px wide they
    are at least 26 px high."""
    from renderers import kenza, layout, widgets

    heights: list[int] = []
    real = layout.flow

    def flow(image: Any, draw: Any, sides: Any, offset: float, middle: float, items: Any, *args: Any,
             **kwargs: Any) -> float:
        heights.extend(item.height for item in items if not isinstance(item, str))
        return real(image, draw, sides, offset, middle, items, *args, **kwargs)

    pasted: list[int] = []
    real_paste = konkan_tiles._Table.paste

    def paste(self: Any, image: Any, offset: float, top: float) -> None:
        pasted.append(image.height)
        real_paste(self, image, offset, top)

    for module in (widgets, kenza):
        monkeypatch.setattr(module, "flow", flow)
    monkeypatch.setattr(konkan_tiles._Table, "paste", paste)
    game = engine.get(game_id)
    state = played(game_id, players, seed, moves, options)
    view = game.view(state, None)
    moves_with_cards = {"canasta": "meld 9H 9D 9S", "konkan_cards": "discard 6C"}  # the bots' last may be a draw
    if game_id in moves_with_cards:
        view = dict(view, last_move={"seat": 1, "move": moves_with_cards[game_id]})
    assert view.get("last_move")
    picture = importlib.import_module(f"renderers.{game_id}").render_table(view, RenderContext(lang="en"))
    shown = pasted[-1:] if game_id == "konkan_tiles" else heights  # the tiles' last move is the last thing pasted
    assert shown and min(shown) * PHONE_W / picture.width >= 26, (shown, picture.width)


def test_a_tiles_meld_cell_shows_its_owners_whole_name():
    """A 3-tile meld cell cut its owner's name ("بوت 1 (..."): the cell is as wide as its head line needs."""
    state = played("konkan_tiles", 4, 31, 100, {"mode": "quick"})
    view = engine.get("konkan_tiles").view(state, None)
    assert any(len(meld["cards"]) == 3 for meld in view["melds"])
    for lang in ("ar", "en"):
        text._mask.cache_clear()
        with drawn_sizes() as seen:
            renderers.render_table("konkan_tiles", view, lang, BOTS[lang])
        drawn = [shown for _, shown in seen]
        assert not [shown for shown in drawn if "…" in shown], lang


def meld_card_heights(monkeypatch: pytest.MonkeyPatch, module: Any) -> list[int]:
    """The heights of the card faces a table module draws inside its meld boxes from now on (cards drawn elsewhere —
    piles, the last move — are not counted)."""
    from renderers import cards_french

    heights: list[int] = []
    real_face, real_meld = cards_french.face, module._Table._meld
    inside: list[bool] = []

    def face(code: str, height: int, chosen: bool = False) -> Any:
        if inside:
            heights.append(height)
        return real_face(code, height, chosen)

    def meld(*args: Any, **kwargs: Any) -> None:
        inside.append(True)
        try:
            real_meld(*args, **kwargs)
        finally:
            inside.pop()

    monkeypatch.setattr(module.cards_french, "face", face)
    monkeypatch.setattr(module._Table, "_meld", meld)
    return heights


def test_few_canasta_melds_fill_their_panel(monkeypatch):
    """Canasta's meld cards were tiny beside empty panel space: a side's two melds are drawn at 84 px or more,
    a side's eleven melds at the smallest size, in as few rows."""
    heights = meld_card_heights(monkeypatch, canasta)
    few = [{"number": 1, "team": 0, "rank": "6", "cards": ["6H", "6D", "6S"], "canasta": None},
           {"number": 2, "team": 0, "rank": "Q", "cards": ["QH", "QD", "QS", "X"], "canasta": None}]
    many = [dict(few[0], number=n, team=1, rank=r) for n, r in enumerate("456789TJQKA", start=3)]
    base = canasta._sample_views()[0]
    canasta.render_table(dict(base, melds=few), RenderContext(lang="en"))
    assert heights and min(heights) >= 84
    heights.clear()
    canasta.render_table(dict(base, melds=many), RenderContext(lang="en"))
    assert set(heights) == {canasta.MELD_CARD_H}


def test_few_konkan_melds_fill_their_panel(monkeypatch):
    """The same for Konkan with cards: a seat's two melds at 84 px, a seat's many melds at the smallest size."""
    from renderers import konkan_cards

    heights = meld_card_heights(monkeypatch, konkan_cards)
    base = konkan_cards.sample_views()[0]
    few = [{"number": 1, "seat": 1, "cards": ["3H", "4H", "5H"]}, {"number": 2, "seat": 1, "cards": ["KS", "KH", "KD"]}]
    konkan_cards.render_table(dict(base, melds=few), RenderContext(lang="en"))
    assert heights and min(heights) >= 84



@pytest.mark.parametrize("lang", ["ar", "en"])
def test_score_sheet_side_names_do_not_run_into_each_other(lang, monkeypatch):
    """A four-player sheet ran "Bot 2 (normBot 3 (norm…" together: no two texts of a row overlap."""
    sides = BOTS[lang]
    rows = [("Points" if lang == "en" else "النقاط", ["never opened", "cards in hand", "never opened", "went out"]),
            ("Total" if lang == "en" else "المجموع", ["100", "2", "100", "-30"])]
    placed: list[tuple[float, float, float, int]] = []  # (left, right, y, size) of every text drawn
    real = score_sheet.draw_text

    def draw_text(draw: Any, xy: tuple[float, float], shown: str, size: int, fill: Any, anchor: str = "la",
                  bold: bool = False, raqm: bool | None = None, rtl: bool | None = None) -> None:
        width = text.text_width(shown, size, bold, raqm, rtl)
        left = {"l": xy[0], "m": xy[0] - width / 2, "r": xy[0] - width}[anchor[0]]
        placed.append((left, left + width, xy[1], size))
        real(draw, xy, shown, size, fill, anchor, bold, raqm, rtl)

    monkeypatch.setattr(score_sheet, "draw_text", draw_text)
    image = score_sheet.render("Round 1", sides, rows, [], lang)
    for a in placed:
        for b in placed:
            if a is not b and abs(a[2] - b[2]) < 10:  # one line of one row
                assert a[1] + 4 <= b[0] or b[1] + 4 <= a[0], (a, b)
    assert min(size for *_, size in placed) * PHONE_W / image.width >= 10
