"""Text drawing for the renderers: one bundled font, Arabic shaped right-to-left either way Pillow is built.

Pillow shapes Arabic itself only when it was built with libraqm. Without raqm, its basic layout draws isolated
letter forms left to right, so the fallback joins the letters with arabic-reshaper and reorders them with
python-bidi before drawing. Every caller goes through `draw_text` so the choice is made in one place; the
`raqm` parameter lets tests force the fallback on a machine that has raqm.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import arabic_reshaper
from bidi import get_display
from PIL import ImageDraw, ImageFont, features

FONT_DIR = Path(__file__).resolve().parent / "fonts"
REGULAR = FONT_DIR / "IBMPlexSansArabic-Regular.ttf"
BOLD = FONT_DIR / "IBMPlexSansArabic-Bold.ttf"

HAS_RAQM: bool = bool(features.check("raqm"))


@lru_cache(maxsize=128)
def font(size: int, bold: bool = False, raqm: bool = HAS_RAQM) -> ImageFont.FreeTypeFont:
    """Loaded once per (size, weight, engine): opening a TTF costs far more than drawing with it."""
    engine = ImageFont.Layout.RAQM if raqm else ImageFont.Layout.BASIC
    return ImageFont.truetype(str(BOLD if bold else REGULAR), size, layout_engine=engine)


def _needs_shaping(text: str) -> bool:
    return any("\u0590" <= ch <= "\u08ff" or "\ufb1d" <= ch <= "\ufefc" for ch in text)


@lru_cache(maxsize=2048)
def visual(text: str) -> str:
    """Joined letter forms in display order, for a layout engine that neither shapes nor reorders."""
    if not _needs_shaping(text):
        return text
    return get_display(arabic_reshaper.reshape(text))


def _prepare(text: str, size: int, bold: bool, raqm: bool | None) -> tuple[str, ImageFont.FreeTypeFont]:
    use_raqm = HAS_RAQM if raqm is None else (raqm and HAS_RAQM)
    return (text if use_raqm else visual(text)), font(size, bold, use_raqm)


def draw_text(
    draw: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    text: str,
    size: int,
    fill: object,
    anchor: str = "la",
    bold: bool = False,
    raqm: bool | None = None,
) -> None:
    """Draw `text` at `xy` with a Pillow anchor (e.g. "la", "ra", "mm").

    raqm=None uses raqm when Pillow has it; False forces the reshaper + bidi path.
    """
    shown, face = _prepare(text, size, bold, raqm)
    draw.text(xy, shown, font=face, fill=fill, anchor=anchor)


def text_width(text: str, size: int, bold: bool = False, raqm: bool | None = None) -> float:
    """Advance width in pixels, used to fit names and to lay out a line of mixed pieces."""
    shown, face = _prepare(text, size, bold, raqm)
    return face.getlength(shown)


def fit(text: str, size: int, max_width: float, bold: bool = False, raqm: bool | None = None) -> str:
    """`text` cut with an ellipsis so it fits `max_width`: long display names must not run into other columns."""
    if text_width(text, size, bold, raqm) <= max_width:
        return text
    cut = text
    while cut and text_width(cut + "…", size, bold, raqm) > max_width:
        cut = cut[:-1]
    return cut + "…"
