"""Kenza rack and table pictures through the registry: PNG out, sizes, selection, players 2-4, RTL, game over."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageChops

import engine
import renderers
from renderers import kenza
from renderers.cards_spanish import CODES
from renderers.text import plain
from tests.pictures import NAMES, open_png


def _view(players: int = 2, **changes: Any) -> dict[str, Any]:
    teams = players == 4
    view = {
        "game": "kenza", "variant": "kenza", "target": 151, "players": players, "teams": teams, "seat": 0,
        "dealer": players - 1, "to_move": 0, "round": 2, "hand": ["6O", "12C", "3E"],
        "hand_sizes": [3] * players, "table": ["4C", "5E", "10B", "1O"], "stock_size": 12,
        "captured_counts": [4] * players, "sweeps": [0] * players, "scores": [40] * (2 if teams else players),
        "last_move": {"seat": players - 1, "move": "play 6B take 4O 5C"}, "last_capturer": players - 1,
        "over": False, "winners": [],
    }
    view.update(changes)
    return view


def _open(png: bytes) -> Image.Image:
    return open_png(png, rgb=False)


def _ink_box(image: Image.Image, box: tuple[int, int, int, int]) -> tuple[int, int, int, int] | None:
    """Bounding box (in `box` coordinates) of pixels brighter than the felt: text and cards."""
    region = image.convert("L").crop(box)
    return region.point(lambda v: 255 if v > 150 else 0).getbbox()


# ---- registry ----------------------------------------------------------------------------------------------


def test_registry_finds_kenza_by_module_name():
    assert renderers.supports("kenza")


@pytest.mark.parametrize("game_id", ["text", "labels", "cards_spanish", "no_such_game", "../kenza", "Kenza", ""])
def test_registry_refuses_what_is_not_a_game_renderer(game_id):
    assert not renderers.supports(game_id)
    with pytest.raises(renderers.UnknownGame):
        renderers.render_table(game_id, _view())


# ---- rack --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_rack_is_a_small_png(lang):
    png = renderers.render_rack("kenza", _view(), lang=lang, names=NAMES)
    image = _open(png)
    assert 400 <= image.width <= 480 and 200 <= image.height <= 260
    assert len(png) < 60_000


def test_rack_selection_lifts_and_rings_the_chosen_card():
    png_plain = renderers.render_rack("kenza", _view(), "en")
    assert png_plain != renderers.render_rack("kenza", _view(), "en", selected=(1,))
    ctx = renderers.RenderContext(lang="en")
    plain = kenza.render_rack(_view(), ctx)
    chosen = kenza.render_rack(_view(), renderers.RenderContext(lang="en", selected=frozenset({1})))
    assert plain.size == chosen.size
    third = plain.width // 3
    # only the middle card's column changes
    left = (0, 0, third - 10, plain.height)
    middle = (third + 10, 0, 2 * third - 10, plain.height)
    assert plain.crop(left).tobytes() == chosen.crop(left).tobytes()
    assert plain.crop(middle).tobytes() != chosen.crop(middle).tobytes()


def test_rack_numbers_every_card():
    """Each card has a number badge under it: count the bright discs along a row below the digits."""
    image = kenza.render_rack(_view(), renderers.RenderContext(lang="en")).convert("L")
    y = image.height - 40 + 20 + 10  # badge centre (40 px strip, centre 20 px down) plus 10 px
    row = image.crop((0, y, image.width, y + 1)).tobytes()
    runs, inside = 0, False
    for value in row:
        if value > 200 and not inside:
            runs += 1
        inside = value > 200
    assert runs == 3


@pytest.mark.parametrize("lang,side", [("en", "left"), ("ar", "right")])
def test_rack_title_follows_reading_direction(lang, side):
    image = _open(renderers.render_rack("kenza", _view(to_move=1), lang)).convert("RGB")
    box = _ink_box(image, (0, 0, image.width, 40))
    assert box is not None
    if side == "left":
        assert box[0] < 30 and box[2] < image.width * 0.75
    else:
        assert box[2] > image.width - 30 and box[0] > image.width * 0.25


def test_rack_shows_your_turn_only_on_your_turn():
    mine = _open(renderers.render_rack("kenza", _view(to_move=0), "en")).convert("RGB")
    theirs = _open(renderers.render_rack("kenza", _view(to_move=1), "en")).convert("RGB")
    corner = (mine.width - 130, 5, mine.width - 5, 40)
    assert mine.crop(corner).tobytes() != theirs.crop(corner).tobytes()


def test_empty_hand_rack():
    image = _open(renderers.render_rack("kenza", _view(hand=[]), "ar"))
    assert image.width >= 400


# ---- table -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("lang", ["ar", "en"])
def test_table_for_each_player_count(players, lang):
    image = _open(renderers.render_table("kenza", _view(players, seat=None, hand=None), lang, NAMES[:players]))
    assert image.width == kenza.TABLE_WIDTH
    assert 350 <= image.height <= 700


def test_more_players_make_a_taller_table():
    heights = [_open(renderers.render_table("kenza", _view(n), "en")).height for n in (2, 3, 4)]
    assert heights[0] < heights[1]
    assert heights[2] > heights[0]


def test_many_table_cards_wrap_into_rows():
    few = _open(renderers.render_table("kenza", _view(table=CODES[:4]), "en"))
    many = _open(renderers.render_table("kenza", _view(table=CODES[:20]), "en"))
    assert many.height >= few.height + 2 * (kenza.TABLE_CARD_H + 28)


@pytest.mark.parametrize("raqm", [None, False])
def test_arabic_table_renders_on_both_text_paths(raqm):
    ar = _open(renderers.render_table("kenza", _view(3), "ar", NAMES, raqm=raqm)).convert("RGB")
    en = _open(renderers.render_table("kenza", _view(3), "en", NAMES, raqm=raqm)).convert("RGB")
    assert ar.size == en.size
    assert ar.tobytes() != en.tobytes()


def test_turn_highlight_moves_with_to_move():
    first = _open(renderers.render_table("kenza", _view(3, to_move=0), "en")).convert("RGB")
    second = _open(renderers.render_table("kenza", _view(3, to_move=1), "en")).convert("RGB")
    assert first.tobytes() != second.tobytes()

    def has_turn_colour(image: Image.Image) -> bool:
        """The turn band (hundreds of sampled pixels), not a few gold pixels of a coin card's art."""
        raw = image.tobytes()
        return sum(abs(raw[i] - kenza.TURN[0]) < 8 and abs(raw[i + 1] - kenza.TURN[1]) < 8
                   and abs(raw[i + 2] - kenza.TURN[2]) < 8 for i in range(0, len(raw), 3 * 7)) > 50

    assert has_turn_colour(first)
    over = _open(renderers.render_table("kenza", _view(3, over=True, winners=[0], to_move=None), "en"))
    assert not has_turn_colour(over.convert("RGB"))


def test_over_shows_the_winner_banner():
    playing = _open(renderers.render_table("kenza", _view(2), "en", NAMES))
    won = _open(renderers.render_table("kenza", _view(2, over=True, to_move=None, winners=[1]), "en", NAMES))
    assert won.height == playing.height + 46
    pixel = won.convert("RGB").getpixel((20, 48 + 19))
    assert all(abs(a - b) < 10 for a, b in zip(pixel, kenza.WIN, strict=True))


@pytest.mark.parametrize("lang", ["ar", "en"])
def test_winner_and_draw_texts(lang):
    ctx = renderers.RenderContext(lang=lang, names=("Omar", "Sarah", "Nour", "Lina"))
    won = kenza._winner_text(_view(3, over=True, winners=[1]), ctx)
    assert "Sarah" in won and "Omar" not in won
    drawn = kenza._winner_text(_view(3, over=True, winners=[0, 2]), ctx)
    assert "Omar" in drawn and "Nour" in drawn and drawn != won
    teams = kenza._winner_text(_view(4, over=True, winners=[1]), ctx)
    assert "Sarah" in teams and "Lina" in teams and "Omar" not in teams


def test_last_move_parsing():
    assert kenza._parse_move("play 6O take 4C 5E") == ("6O", ["4C", "5E"])
    assert kenza._parse_move("play 7C") == ("7C", [])
    assert kenza._parse_move("play 9O") is None
    assert kenza._parse_move("draw") is None
    assert kenza._parse_move("play 6O take") is None


def test_unparsable_last_move_still_renders():
    png = renderers.render_table("kenza", _view(last_move={"seat": 1, "move": "something else"}), "ar")
    assert _open(png).width == kenza.TABLE_WIDTH


def test_names_default_to_player_numbers():
    ctx = renderers.RenderContext(lang="en", names=("Omar",))
    assert plain(ctx.name(0)) == "Omar" and plain(ctx.name(2)) == "Player 3"


# ---- against the real engine -------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_views_from_the_engine_render_through_a_whole_match(players):
    game = engine.get("kenza")
    state = game.new(players=players, options={"variant": "kenza", "target": 101}, seed=players)
    rng = random.Random(players)
    rendered = 0
    for step in range(400):
        seat = game.to_move(state)
        if seat is None:
            break
        if step % 25 == 0:
            _open(renderers.render_rack("kenza", game.view(state, seat), "ar", NAMES, selected=(0,)))
            _open(renderers.render_table("kenza", game.view(state, None), "en", NAMES))
            rendered += 1
        state = game.apply(state, seat, rng.choice(game.legal_moves(state, seat)))
    final = game.view(state, None)
    _open(renderers.render_table("kenza", final, "ar", NAMES))
    assert rendered > 2


# ---- any view of the contract's shape ------------------------------------------------------------------------


@st.composite
def views(draw: st.DrawFn) -> dict[str, Any]:
    players = draw(st.integers(2, 4))
    sides = 2 if players == 4 else players
    cards = draw(st.permutations(CODES))
    hand_n, table_n = draw(st.integers(0, 3)), draw(st.integers(0, 24))
    over = draw(st.booleans())
    return _view(
        players,
        variant=draw(st.sampled_from(["kenza", "rabaeen"])),
        seat=draw(st.one_of(st.none(), st.integers(0, players - 1))),
        to_move=None if over else draw(st.integers(0, players - 1)),
        hand=list(cards[:hand_n]),
        table=list(cards[hand_n:hand_n + table_n]),
        stock_size=draw(st.integers(0, 36)),
        scores=draw(st.lists(st.integers(0, 400), min_size=sides, max_size=sides)),
        over=over,
        winners=draw(st.lists(st.integers(0, sides - 1), max_size=2, unique=True)) if over else [],
        last_move=draw(st.one_of(st.none(), st.just({"seat": 0, "move": f"play {cards[30]}"}))),
    )


@settings(max_examples=30, deadline=None)
@given(view=views(), lang=st.sampled_from(["ar", "en"]), raqm=st.sampled_from([None, False]))
def test_any_view_renders(view, lang, raqm):
    table = _open(renderers.render_table("kenza", view, lang, NAMES, raqm=raqm))
    assert table.width == kenza.TABLE_WIDTH
    rack = _open(renderers.render_rack("kenza", view, lang, NAMES, selected={0}, raqm=raqm))
    assert rack.width >= 400


@pytest.mark.parametrize("lang,side", [("en", "left"), ("ar", "right")])
def test_rack_and_table_card_one_is_where_the_reader_starts(lang, side):
    plain = _open(renderers.render_rack("kenza", _view(), lang)).convert("RGB")
    first = _open(renderers.render_rack("kenza", _view(), lang, selected=(0,))).convert("RGB")
    box = ImageChops.difference(plain, first).getbbox()
    assert box is not None
    centre = (box[0] + box[2]) / 2
    assert centre < plain.width / 3 if side == "left" else centre > 2 * plain.width / 3
    # the table's cards too: change only the first, then only the second, and see where each is drawn
    def table(cards: list[str]) -> Image.Image:
        return _open(renderers.render_table("kenza", _view(table=cards), lang)).convert("RGB")

    both = table(["4C", "5E"])
    slot_one = ImageChops.difference(both, table(["1O", "5E"])).getbbox()
    slot_two = ImageChops.difference(both, table(["4C", "1O"])).getbbox()
    assert slot_one is not None and slot_two is not None
    assert slot_one[2] <= slot_two[0] if side == "left" else slot_two[2] <= slot_one[0]
