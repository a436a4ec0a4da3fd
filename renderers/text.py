"""Text drawing for the renderers: one bundled font, Arabic shaped right-to-left either way Pillow is built.

Pillow shapes Arabic itself only when it was built with libraqm. Without raqm, its basic layout draws isolated
letter forms left to right, so the fallback joins the letters with arabic-reshaper and reorders them with
python-bidi before drawing. Every caller goes through `draw_text` so the choice is made in one place; the
`raqm` parameter lets tests force the fallback on a machine that has raqm.

A line that mixes Arabic with isolated pieces (names, codes, signed numbers: see `isolate` and `ltr`) is ordered
by python-bidi even where raqm exists: raqm 0.11 orders the isolates but resolves the weak characters inside one
against the Arabic paragraph, so "+590" after an Arabic name came out "590+"; python-bidi follows the Unicode
algorithm there, and the picture test checks the drawn order of such a line on the path actually taken.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import arabic_reshaper
from bidi import get_display
from PIL import Image, ImageDraw, ImageFont, features

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


# Unicode bidi isolates. A picture's line is one bidi paragraph in the reader's direction; the pieces inside it
# that must keep their own order (a name in the other script, a "#2 7·5" or "+590" of Latin letters, digits and
# signs) are isolated, so the paragraph places each piece as a unit in reading order instead of letting its
# digits and neutrals join the neighbouring Arabic run (which scrambles "تنزيلات فريقك: #1 K·7  #2 7·5").
LRI, FSI, PDI = "\u2066", "\u2068", "\u2069"
_OPENS = "\u2066\u2067\u2068"
_ISOLATES = "\u2066\u2067\u2068\u2069"
_CONTROLS = str.maketrans("", "", "\u2066\u2067\u2068\u2069\u200e\u200f")


def isolate(text: str) -> str:
    """`text` as one unit in its own direction (from its first strong letter): names, which may be in either
    script."""
    return f"{FSI}{text}{PDI}" if text else text


def ltr(text: str) -> str:
    """`text` as one left-to-right unit: card codes, meld tags, signed numbers, move notation."""
    return f"{LRI}{text}{PDI}" if text else text


def plain(text: str) -> str:
    """`text` without bidi controls (for tests and text-only output)."""
    return text.translate(_CONTROLS)


def _closed(text: str) -> str:
    """`text` with every isolate it opens closed again (a cut line may have lost its PDIs)."""
    depth = 0
    for ch in text:
        if ch in _OPENS:
            depth += 1
        elif ch == PDI and depth:
            depth -= 1
    return text + PDI * depth


_OPENERS, _CLOSERS = "([{<", ")]}>"


def _script(ch: str) -> str | None:
    """"R" for an Arabic letter (presentation forms too), "L" for any other letter, None for the rest."""
    if _needs_shaping(ch):
        return "R"
    return "L" if ch.isalpha() else None


def _nearest(chars: str) -> str | None:
    """The script of the first letter in `chars`."""
    return next((script for script in map(_script, chars) if script), None)


def _fix_brackets(shown: str, rtl: bool) -> str:
    """Mirror the brackets that python-bidi left unmirrored inside right-to-left runs.

    python-bidi 0.6 reorders but does not mirror, so a bracket pair of an Arabic run comes out as `)...(`. Shown as
    it is, "(" encloses what follows it and ")" what precedes it; a bracket whose enclosed text is on its other
    side is mirrored. The enclosed side is the one its text hugs (the outside has a space or the line's end);
    where both or neither side hugs it, the letters tell: Latin on the as-is side keeps it ("Bot 2 (normal)"
    inside an Arabic line), Arabic on the other side mirrors it, and with no letters it follows the paragraph.
    Matching brackets by pairs instead mirrored only the outer two of "بوت 2 (عادي) وبوت 4 (عادي)", which read
    "(عادي( وبوت 4 )عادي)".
    """
    chars = list(shown)
    for i, ch in enumerate(shown):
        opener = ch in _OPENERS
        if not opener and ch not in _CLOSERS:
            continue
        before, after = shown[:i][::-1], shown[i + 1:]
        as_is, other = (after, before) if opener else (before, after)
        hugs_as_is, hugs_other = bool(as_is[:1].strip()), bool(other[:1].strip())
        if hugs_as_is != hugs_other:
            mirror = hugs_other
        else:
            script = _nearest(as_is)
            mirror = script != "L" and (_nearest(other) == "R" or (script is None and _nearest(other) is None and rtl))
        if mirror:
            chars[i] = _CLOSERS[_OPENERS.index(ch)] if opener else _OPENERS[_CLOSERS.index(ch)]
    return "".join(chars)


@lru_cache(maxsize=2048)
def visual(text: str, rtl: bool | None = None) -> str:
    """Joined letter forms in display order, for a layout engine that neither shapes nor reorders.

    rtl sets the paragraph direction (None: from the first strong letter), so an Arabic name inside an English
    label stays where the English sentence puts it.
    """
    if not _needs_shaping(text):
        return plain(text)
    base = None if rtl is None else ("R" if rtl else "L")
    paragraph_rtl = rtl if rtl is not None else _nearest(plain(text)) == "R"
    return _fix_brackets(plain(get_display(arabic_reshaper.reshape(text), base_dir=base)), paragraph_rtl)


def _prepare(
    text: str, size: int, bold: bool, raqm: bool | None, rtl: bool | None
) -> tuple[str, ImageFont.FreeTypeFont, str | None]:
    use_raqm = HAS_RAQM if raqm is None else (raqm and HAS_RAQM)
    if use_raqm and not (_needs_shaping(text) and any(ch in _ISOLATES for ch in text)):
        return text, font(size, bold, True), (None if rtl is None else ("rtl" if rtl else "ltr"))
    return visual(text, rtl), font(size, bold, False), None


def draw_text(
    draw: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    text: str,
    size: int,
    fill: object,
    anchor: str = "la",
    bold: bool = False,
    raqm: bool | None = None,
    rtl: bool | None = None,
) -> None:
    """Draw `text` at `xy` with a Pillow anchor (e.g. "la", "ra", "mm").

    raqm=None uses raqm when Pillow has it; False forces the reshaper + bidi path. rtl is the paragraph
    direction of the label's language (None: guessed from the text).
    """
    shown, face, direction = _prepare(text, size, bold, raqm, rtl)
    if not shown.strip():
        return
    mask, left, top = _mask(shown, face, direction, anchor)
    draw.bitmap((round(xy[0]) + left, round(xy[1]) + top), mask, fill=fill)


@lru_cache(maxsize=4096)
def _mask(
    shown: str, face: ImageFont.FreeTypeFont, direction: str | None, anchor: str
) -> tuple[Image.Image, int, int]:
    """The label's coverage mask and its offset from the anchor point.

    The same labels (column heads, counts, card numbers, names) recur in every picture, and laying out and
    rasterising text is most of a picture's drawing time, so each distinct label is rasterised once.
    """
    left, top, right, bottom = face.getbbox(shown, anchor=anchor, direction=direction)
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(mask).text((-left, -top), shown, font=face, fill=255, anchor=anchor, direction=direction)
    return mask, left, top


@lru_cache(maxsize=4096)
def text_width(text: str, size: int, bold: bool = False, raqm: bool | None = None, rtl: bool | None = None) -> float:
    """Advance width in pixels, used to fit names and to lay out a line of mixed pieces; remembered, since the same
    labels are measured in every picture and laying a line out is the slow part of measuring it."""
    shown, face, direction = _prepare(text, size, bold, raqm, rtl)
    return face.getlength(shown, direction=direction)


@lru_cache(maxsize=2048)
def fit(
    text: str, size: int, max_width: float, bold: bool = False, raqm: bool | None = None, rtl: bool | None = None
) -> str:
    """`text` cut with an ellipsis so it fits `max_width`: long display names must not run into other columns
    (remembered: a cut name is measured once per length it tries)."""
    if text_width(text, size, bold, raqm, rtl) <= max_width:
        return text
    cut = text
    while cut and text_width(_closed(cut + "…"), size, bold, raqm, rtl) > max_width:
        cut = cut[:-1]
    return _closed(cut + "…")
