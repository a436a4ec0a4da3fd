"""An animated replay: a game's table pictures, one per chosen step, with a caption strip, as one GIF.

GIF because both platforms play it inline: Telegram's sendAnimation takes it (and loops it), a Discord embed
animates a GIF attachment. The file must stay under the platforms' upload limits (Discord's default is 10 MB), so
it is shrunk — smaller frames first, then every other frame dropped — until it fits `max_bytes`.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from PIL import Image, ImageDraw

from renderers import _context, _module
from renderers.text import draw_text, fit

STRIP_H = 52
STRIP_SIZE = 24
STRIP_BG = (24, 38, 31)
STRIP_INK = (244, 238, 222)
FRAME_MS = 900
LAST_MS = 4000  # the final table stays up before the loop starts again
MAX_BYTES = 8_000_000
SCALES = (1.0, 0.75, 0.55, 0.4)


def _frame(module: Any, view: dict[str, Any], caption: str, lang: str, names: Sequence[str]) -> Image.Image:
    table = module.render_table(view, _context(lang, names, (), None)).convert("RGB")
    image = Image.new("RGB", (table.width, table.height + STRIP_H), STRIP_BG)
    image.paste(table, (0, STRIP_H))
    draw = ImageDraw.Draw(image)
    rtl = lang == "ar"
    pad = 18
    shown = fit(caption, STRIP_SIZE, table.width - 2 * pad, rtl=rtl)
    draw_text(draw, (table.width - pad if rtl else pad, STRIP_H / 2), shown, STRIP_SIZE, STRIP_INK,
              anchor="rm" if rtl else "lm", rtl=rtl)
    return image


def _same_size(images: list[Image.Image]) -> list[Image.Image]:
    """Table pictures grow with the melds on the table; a GIF's frames share one canvas, so each is placed on the
    largest, filled with its own background colour (the top-left pixel below the strip)."""
    width = max(image.width for image in images)
    height = max(image.height for image in images)
    out = []
    for image in images:
        if image.size == (width, height):
            out.append(image)
            continue
        canvas = Image.new("RGB", (width, height), image.getpixel((0, min(image.height - 1, STRIP_H + 1))))
        canvas.paste(image, (0, 0))
        out.append(canvas)
    return out


def _encode(images: Sequence[Image.Image]) -> bytes:
    """One palette for every frame, learned from the last one (the fullest table, with the strip's colours), so
    the GIF carries a single global palette and unchanged areas stay byte-identical between frames."""
    shared = images[-1].quantize(256, method=Image.Quantize.FASTOCTREE)
    frames = [image.quantize(palette=shared, dither=Image.Dither.NONE) for image in images]
    durations = [FRAME_MS] * (len(frames) - 1) + [LAST_MS]
    buffer = io.BytesIO()
    frames[0].save(buffer, "GIF", save_all=True, append_images=list(frames[1:]), duration=durations, loop=0,
                   optimize=False, disposal=1)
    return buffer.getvalue()


def render_replay(game_id: str, frames: Sequence[tuple[dict[str, Any], str]], lang: str = "ar",
                  names: Sequence[str] | None = None, max_bytes: int = MAX_BYTES) -> bytes:
    """The replay as GIF bytes: `frames` are (public view, caption) pairs in order. ValueError when even the
    smallest version does not fit `max_bytes`."""
    if not frames:
        raise ValueError("a replay needs at least one frame")
    module = _module(game_id)
    full = _same_size([_frame(module, view, caption, lang, names or ()) for view, caption in frames])
    chosen = list(range(len(full)))
    while True:
        for scale in SCALES:
            picked = [full[i] for i in chosen]
            if scale != 1.0:
                size = (max(1, round(picked[0].width * scale)), max(1, round(picked[0].height * scale)))
                picked = [image.resize(size, Image.Resampling.LANCZOS) for image in picked]
            data = _encode(picked)
            if len(data) <= max_bytes:
                return data
        if len(chosen) <= 2:
            raise ValueError(f"a replay of {len(frames)} frames does not fit in {max_bytes} bytes")
        chosen = chosen[::2] if chosen[-1] in chosen[::2] else [*chosen[::2], chosen[-1]]
