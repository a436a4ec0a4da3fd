"""What every card face shares: the blank card, the selection ring, supersampling, and the backs.

Pillow draws polygons and ellipses without anti-aliasing, so faces are drawn at SCALE times the target size and
reduced once; the result is cached by the face modules, so the extra cost is paid once per (code, size, selected).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw

SCALE = 3
ASPECT = 2 / 3  # width / height of a playing card
PAPER = (252, 249, 240, 255)
EDGE = (90, 90, 96, 255)
SELECT = (255, 152, 0, 255)
SELECT_TINT = (255, 236, 179, 255)
# back ground and lattice per deck
BACKS = {"french": ((36, 72, 150, 255), (120, 160, 230, 255)), "spanish": ((150, 34, 34, 255), (235, 180, 90, 255))}
# flat colours every deck shares, kept exact in a game's fixed palette (renderers.palette)
KEY_COLOURS = (PAPER[:3], EDGE[:3], SELECT[:3], SELECT_TINT[:3])


def card_width(height: int) -> int:
    return max(8, round(height * ASPECT))


@dataclass
class Sheet:
    """A card being drawn at SCALE: its image, a draw handle and the size in supersampled pixels."""

    image: Image.Image
    draw: ImageDraw.ImageDraw
    w: int
    h: int
    height: int  # the final height in pixels

    @property
    def radius(self) -> int:
        return round(self.w * 0.08)


def blank(height: int, selected: bool = False, paper: tuple[int, int, int, int] = PAPER) -> Sheet:
    """A rounded card with transparent corners; a selected card gets a warm tint so the ring is not the only cue."""
    w, h = card_width(height) * SCALE, height * SCALE
    image = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    sheet = Sheet(image, draw, w, h, height)
    fill = SELECT_TINT if selected else paper
    draw.rounded_rectangle((0, 0, w - 1, h - 1), radius=sheet.radius, fill=fill, outline=EDGE, width=SCALE)
    return sheet


def finish(sheet: Sheet, selected: bool) -> Image.Image:
    """Ring the card when selected, then reduce to the target size."""
    if selected:
        ring = max(3, round(sheet.w * 0.05))
        sheet.draw.rounded_rectangle(
            (0, 0, sheet.w - 1, sheet.h - 1), radius=sheet.radius, outline=SELECT, width=ring
        )
    return sheet.image.resize((card_width(sheet.height), sheet.height), Image.Resampling.LANCZOS)


def mirror_corner(sheet: Sheet, box_w: float, box_h: float) -> None:
    """Copy the top-left index, turned half a turn, to the bottom-right, as printed cards have it."""
    bw, bh = round(box_w), round(box_h)
    patch = sheet.image.crop((0, 0, bw, bh)).rotate(180)
    sheet.image.paste(patch, (sheet.w - bw, sheet.h - bh))


@lru_cache(maxsize=32)
def back(height: int, kind: str = "french") -> Image.Image:
    """Face-down card (stock pile): a lattice on blue for French decks, on red for the Spanish baraja."""
    ground, line = BACKS["french" if kind == "french" else "spanish"]
    sheet = blank(height, paper=(245, 245, 245, 255))
    d, w, h = sheet.draw, sheet.w, sheet.h
    m = round(w * 0.08)
    d.rounded_rectangle((m, m, w - m, h - m), radius=sheet.radius // 2, fill=ground)
    step = max(SCALE * 3, round(w / 9))
    for off in range(-h, w + h, step):
        d.line((m + off, m, m + off + (h - 2 * m), h - m), fill=line, width=SCALE)
        d.line((m + off, h - m, m + off + (h - 2 * m), m), fill=line, width=SCALE)
    # re-cut the lattice to the inner panel and frame it
    d.rectangle((0, 0, w, m), fill=(245, 245, 245, 255))
    d.rectangle((0, h - m, w, h), fill=(245, 245, 245, 255))
    d.rectangle((0, 0, m, h), fill=(245, 245, 245, 255))
    d.rectangle((w - m, 0, w, h), fill=(245, 245, 245, 255))
    d.rounded_rectangle((m, m, w - m, h - m), radius=sheet.radius // 2, outline=line, width=2 * SCALE)
    d.rounded_rectangle((0, 0, w - 1, h - 1), radius=sheet.radius, outline=EDGE, width=SCALE)
    # transparent corners again (the frame fill above painted them)
    mask = Image.new("L", (w, h), 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, w - 1, h - 1), radius=sheet.radius, fill=255)
    sheet.image.putalpha(mask)
    return finish(sheet, False)
