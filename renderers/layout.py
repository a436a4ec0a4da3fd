"""Placing things along a line that runs left-to-right or right-to-left.

Renderers describe positions as offsets from the *start* edge (left in English, right in Arabic) and let `Sides`
mirror them, so one layout serves both directions. Card rows are the exception and stay left to right: their
numbers must line up with the chat's number buttons, which are not mirrored.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from PIL import Image, ImageDraw

from renderers.text import draw_text, text_width


@dataclass(frozen=True)
class Sides:
    width: int
    rtl: bool

    def x(self, offset: float) -> float:
        """Absolute x of a point `offset` pixels from the start edge."""
        return self.width - offset if self.rtl else offset

    def left(self, offset: float, length: float) -> float:
        """Left x of something `length` wide that starts `offset` pixels from the start edge."""
        return self.x(offset + length) if self.rtl else self.x(offset)

    def box(self, offset: float, length: float, top: float, bottom: float) -> tuple[float, float, float, float]:
        """Rectangle starting `offset` from the start edge and running `length` toward the end edge."""
        a, b = self.x(offset), self.x(offset + length)
        return (min(a, b), top, max(a, b), bottom)

    def anchor(self, anchor: str) -> str:
        """Pillow anchor with its horizontal part mirrored ("la" -> "ra" in right-to-left)."""
        if not self.rtl:
            return anchor
        return {"l": "r", "r": "l"}.get(anchor[0], anchor[0]) + anchor[1:]


def flow(
    image: Image.Image,
    draw: ImageDraw.ImageDraw,
    sides: Sides,
    offset: float,
    middle: float,
    items: Iterable[str | Image.Image],
    size: int,
    fill: object,
    gap: int = 6,
    raqm: bool | None = None,
) -> float:
    """Lay text and small images in reading order from `offset`, vertically centred on `middle`.

    Returns the offset after the last item, so callers can continue the line.
    """
    for item in items:
        if isinstance(item, Image.Image):
            w, h = item.size
            left = sides.left(offset, w)
            image.paste(item, (round(left), round(middle - h / 2)), item if item.mode == "RGBA" else None)
            offset += w + gap
        else:
            draw_text(draw, (sides.x(offset), middle), item, size, fill, anchor=sides.anchor("lm"), raqm=raqm,
                      rtl=sides.rtl)
            offset += text_width(item, size, raqm=raqm, rtl=sides.rtl) + gap
    return offset
