"""Fixed per-game palettes (renderers/palette.py): learned once, exact key colours, pictures mapped onto them stay
close to what was drawn, and a selection still shows."""

from __future__ import annotations

import io
import random
from types import ModuleType
from typing import Any

import pytest
from PIL import Image, ImageChops, ImageStat

import engine
import renderers
from engine.bots import decide
from renderers import canasta, card_base, kenza, konkan_cards, konkan_tiles, palette, tunj
from renderers.context import RenderContext
from tests.pictures import NAMES

GAMES = {"kenza": kenza, "canasta": canasta, "tunj": tunj, "konkan_cards": konkan_cards, "konkan_tiles": konkan_tiles}


def _played(game_id: str, players: int, seed: int, moves: int) -> dict[str, Any]:
    """A state after `moves` moves of normal bots: real views, unlike the synthetic ones the palettes learn from."""
    game = engine.get(game_id)
    options = {"variant": "duo" if players == 2 else "classic4"} if game_id == "canasta" else {}
    state = game.new(players, options, seed=seed)
    for step in range(moves):
        seat = game.to_move(state)
        if seat is None:
            break
        state = game.apply(state, seat, decide(game_id, state, seat, "normal", random.Random(step)))
    return state


def _pictures(game_id: str) -> list[tuple[Image.Image, ModuleType]]:
    """RGB tables and racks (with a selection) from played states, in both languages."""
    module, game = GAMES[game_id], engine.get(game_id)
    out = []
    for players, seed, moves in ((2, 3, 6), (4 if game_id != "tunj" else 2, 11, 25)):
        state = _played(game_id, players, seed, moves)
        seat = game.to_move(state) or 0
        for lang in ("en", "ar"):
            ctx = RenderContext(lang=lang, names=tuple(NAMES[:players]))
            out.append((module.render_table(game.view(state, None), ctx), module))
            picked = RenderContext(lang=lang, names=tuple(NAMES[:players]), selected=frozenset({0, 2, 3}))
            out.append((module.render_rack(game.view(state, seat), picked), module))
    return out


def _colours(image: Image.Image) -> set[tuple[int, ...]]:
    """Every colour an image holds (getcolors with room for one colour per pixel never gives up and says None)."""
    return {colour for _, colour in image.getcolors(image.width * image.height)}


def _entries(image: Image.Image) -> list[tuple[int, ...]]:
    flat = image.getpalette() or []
    return list(zip(flat[0::3], flat[1::3], flat[2::3], strict=True))


def test_a_palette_is_learned_once_and_kept():
    calls = []

    def samples() -> list[Image.Image]:
        calls.append(1)
        return [Image.new("RGB", (40, 30), (10, 20, 30)), Image.new("RGBA", (20, 20), (200, 0, 0, 255))]

    spec = palette.Spec(samples, (0, 90, 0))
    first = palette.build(spec)
    assert palette.build(spec) is first
    palette.apply(Image.new("RGB", (5, 5), (10, 20, 30)), spec)
    assert calls == [1]


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_each_game_has_one_palette_of_at_most_256_colours(game_id):
    spec = GAMES[game_id].PALETTE
    built = palette.build(spec)
    assert palette.build(spec) is built
    entries = _entries(built)
    assert 200 <= len(entries) <= 256  # the learned part is not starved by the exact colours
    assert set(spec.exact) <= set(entries)


def test_exact_colours_come_first_and_crowd_out_near_learned_ones():
    gold = (250, 198, 70)
    shades = [Image.new("RGB", (30, 30), (gold[0] - i, gold[1] - i, gold[2])) for i in range(1, 5)]
    far = Image.new("RGB", (30, 30), (20, 40, 200))
    learned = _entries(palette.learn([*shades, far], (0, 0, 0), exact=[gold, gold]))
    assert learned[0] == gold
    assert learned.count(gold) == 1
    assert not [c for c in learned[1:] if all(abs(a - b) <= palette.NEAR for a, b in zip(c, gold, strict=True))]
    assert (20, 40, 200) in learned


def test_too_many_exact_colours_are_refused():
    with pytest.raises(ValueError):
        palette.learn([Image.new("RGB", (2, 2))], (0, 0, 0), exact=[(i, 0, 0) for i in range(256)])


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_mapped_pictures_stay_close_to_the_drawn_ones(game_id):
    for image, module in _pictures(game_id):
        mapped = palette.apply(image, module.PALETTE)
        assert mapped.mode == "P" and mapped.size == image.size
        drawn = _colours(mapped.convert("RGB"))
        assert drawn <= set(_entries(palette.build(module.PALETTE))), "a colour outside the game's palette"
        assert 1 < len(drawn) <= 256
        diff = ImageChops.difference(image, mapped.convert("RGB"))
        assert max(ImageStat.Stat(diff).mean) < 1.5  # mean absolute error per channel
        off = diff.convert("L").point(lambda v: 255 if v > 24 else 0).histogram()[255]
        assert off / (image.width * image.height) < 0.01  # stray pixels only, at anti-aliased edges


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_key_colours_map_onto_themselves(game_id):
    spec = GAMES[game_id].PALETTE
    swatches = Image.new("RGB", (len(spec.exact), 1))
    for x, colour in enumerate(spec.exact):
        swatches.putpixel((x, 0), colour)
    mapped = palette.apply(swatches, spec).convert("RGB")
    assert [mapped.getpixel((x, 0)) for x in range(len(spec.exact))] == list(spec.exact)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_registry_saves_pictures_in_the_game_palette(game_id):
    game = engine.get(game_id)
    state = _played(game_id, 2, 5, 4)
    png = renderers.render_table(game_id, game.view(state, None), "en", NAMES[:2])
    image = Image.open(io.BytesIO(png))
    assert image.mode == "P"
    assert _entries(image) == _entries(palette.build(GAMES[game_id].PALETTE))
    assert image.convert("RGB").getpixel((1, 1)) == GAMES[game_id].FELT


@pytest.mark.parametrize("game_id", ["kenza", "canasta", "konkan_tiles"])
def test_selection_still_changes_the_rack_with_the_exact_ring_colour(game_id):
    game = engine.get(game_id)
    view = game.view(_played(game_id, 2, 8, 3), 0)

    def rack(selected: tuple[int, ...]) -> Image.Image:
        return Image.open(io.BytesIO(renderers.render_rack(game_id, view, "en", NAMES[:2], selected))).convert("RGB")

    plain, picked = rack(()), rack((0,))
    box = ImageChops.difference(plain, picked).getbbox()
    assert box is not None
    ring = card_base.SELECT[:3]
    region = picked.crop(box)
    assert ring in _colours(region)
    assert ring not in _colours(plain.crop(box))


def test_selection_still_rings_the_tunj_pick():
    game = engine.get("tunj")
    state = _played("tunj", 2, 8, 3)
    view = game.view(state, 0)
    plain = Image.open(io.BytesIO(renderers.render_rack("tunj", view, "en", NAMES[:2]))).convert("RGB")
    picked = Image.open(io.BytesIO(renderers.render_rack("tunj", view, "en", NAMES[:2],
                                                         (tunj.SOURCE_INDEX["H1"],)))).convert("RGB")
    box = ImageChops.difference(plain, picked).getbbox()
    assert box is not None
    assert tunj.PICK in _colours(picked.crop(box))



def test_warm_learns_every_palette_up_front():
    import renderers
    from renderers import palette as palettes

    palettes.build.cache_clear()
    renderers.warm(["kenza", "canasta", "tunj", "no_such_game"])
    assert palettes.build.cache_info().currsize == 3
    for game_id in ("kenza", "canasta", "tunj"):
        palettes.build(renderers._module(game_id).PALETTE)
    assert palettes.build.cache_info().misses == 3  # the pictures found every palette learned already


def test_an_adopted_palette_draws_the_learners_bytes_without_learning(monkeypatch):
    """Render processes take the palettes one learner process learned (bot/core/pictures.py): adopting its bytes
    must give the same PNG bytes as learning here, and must not learn again."""
    state = _played("tunj", 2, 5, 6)
    view = engine.get("tunj").view(state, None)
    learned = renderers.learned_palettes(["tunj", "no_such_game"])
    assert set(learned) == {"tunj"}
    learner_png = renderers.render_table("tunj", view, "ar", NAMES[:2])

    palette.build.cache_clear()

    def no_learning(*_: object, **__: object) -> Image.Image:
        raise AssertionError("an adopted palette was learned again")

    monkeypatch.setattr(palette, "learn", no_learning)
    monkeypatch.setattr(palette, "_given", {})
    renderers.adopt_palettes(learned)
    try:
        assert renderers.render_table("tunj", view, "ar", NAMES[:2]) == learner_png
    finally:
        palette.build.cache_clear()  # later tests learn their own again
