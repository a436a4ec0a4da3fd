"""The fast palette PNG writer (renderers/png.py): what it writes decodes to exactly the picture Pillow's writer
would have saved, and pictures it does not handle go to Pillow's writer."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

import engine
import renderers
from renderers import png
from tests.pictures import NAMES


def _pillow_png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, "PNG", compress_level=3)
    return buffer.getvalue()


def _decoded(data: bytes) -> tuple[str, tuple[int, int], bytes, list[int]]:
    with Image.open(io.BytesIO(data)) as image:
        image.load()
        return image.mode, image.size, image.tobytes(), image.getpalette() or []


def _random_palette_picture(seed: int, size: tuple[int, int], colours: int) -> Image.Image:
    rng = random.Random(seed)
    image = Image.new("P", size)
    image.putdata([rng.randrange(colours) for _ in range(size[0] * size[1])])
    image.putpalette([rng.randrange(256) for _ in range(3 * colours)])
    return image


@pytest.mark.skipif(png.isal_zlib is None, reason="isal is not installed")
@pytest.mark.parametrize(("seed", "size", "colours"), [(1, (1, 1), 2), (2, (37, 5), 16), (3, (300, 211), 256)])
def test_fast_png_decodes_to_the_same_indices_and_palette(seed, size, colours):
    image = _random_palette_picture(seed, size, colours)
    fast = png.fast_palette_png(image)
    assert fast is not None
    mode, got_size, pixels, palette = _decoded(fast)
    assert (mode, got_size, pixels) == ("P", size, image.tobytes())
    assert palette[:3 * colours] == image.getpalette()[:3 * colours]
    assert _decoded(fast)[:3] == _decoded(_pillow_png(image))[:3]


@pytest.mark.skipif(png.isal_zlib is None, reason="isal is not installed")
def test_a_game_picture_is_written_fast_with_the_pixels_pillow_would_write():
    game = engine.get("tunj")
    view = game.view(game.new(2, {}, seed=4), None)
    picture = renderers.render_table("tunj", view, "ar", NAMES[:2])
    pillow = _pillow_png(Image.open(io.BytesIO(picture)))
    assert _decoded(picture)[:3] == _decoded(pillow)[:3]
    with Image.open(io.BytesIO(picture)) as fast, Image.open(io.BytesIO(pillow)) as slow:
        assert fast.convert("RGB").tobytes() == slow.convert("RGB").tobytes()


def test_pictures_it_does_not_handle_go_to_pillows_writer(monkeypatch):
    rgb = Image.new("RGB", (8, 8), (10, 20, 30))
    assert png.fast_palette_png(rgb) is None
    clear = _random_palette_picture(5, (8, 8), 4)
    clear.info["transparency"] = 0
    assert png.fast_palette_png(clear) is None
    monkeypatch.setattr(png, "isal_zlib", None)
    image = _random_palette_picture(6, (20, 9), 8)
    assert png.fast_palette_png(image) is None
    assert _decoded(renderers.encode_png(image))[:3] == ("P", (20, 9), image.tobytes())
