"""French card faces (Canasta, Konkan cards, Tunj), drawn as vector shapes: spade, heart, diamond and club built
from polygons and circles, red or black; pip cards in the usual pattern with the lower half turned, framed court
cards, a joker, and the back (card_base.back(height, "french")).
"""

from __future__ import annotations

import math
from functools import lru_cache

from PIL import Image, ImageDraw

from renderers import card_base
from renderers.card_base import SCALE
from renderers.text import draw_text

RANKS = "A23456789TJQK"
SUITS = "SHDC"
JOKER = "X"
CODES = tuple(r + s for s in SUITS for r in RANKS) + (JOKER,)

RED = (200, 32, 40)
BLACK = (28, 28, 32)
COURT_TINT = {"S": (222, 228, 240), "C": (220, 236, 222), "H": (250, 224, 222), "D": (252, 236, 214)}
LABEL = {"T": "10"}
# the suits and the back, kept exact in renderers.palette
KEY_COLOURS = (*card_base.KEY_COLOURS, RED, BLACK, card_base.BACKS["french"][0][:3])

# pip centres in the pip box (0..1 both ways); pips below the middle are drawn turned
PIPS: dict[str, tuple[tuple[float, float], ...]] = {
    "2": ((0.5, 0), (0.5, 1)),
    "3": ((0.5, 0), (0.5, 0.5), (0.5, 1)),
    "4": ((0, 0), (1, 0), (0, 1), (1, 1)),
    "5": ((0, 0), (1, 0), (0.5, 0.5), (0, 1), (1, 1)),
    "6": ((0, 0), (1, 0), (0, 0.5), (1, 0.5), (0, 1), (1, 1)),
    "7": ((0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0, 1), (1, 1)),
    "8": ((0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0.5, 0.75), (0, 1), (1, 1)),
    "9": ((0, 0), (1, 0), (0, 1 / 3), (1, 1 / 3), (0.5, 0.5), (0, 2 / 3), (1, 2 / 3), (0, 1), (1, 1)),
    "T": ((0, 0), (1, 0), (0.5, 1 / 6), (0, 1 / 3), (1, 1 / 3), (0, 2 / 3), (1, 2 / 3), (0.5, 5 / 6), (0, 1),
          (1, 1)),
}


def colour(suit: str) -> tuple[int, int, int]:
    return RED if suit in "HD" else BLACK


def parse(code: str) -> tuple[str, str]:
    if code == JOKER:
        return JOKER, ""
    if len(code) != 2 or code[0] not in RANKS or code[1] not in SUITS:
        raise ValueError(f"not a French card code: {code!r}")
    return code[0], code[1]


# ---- suit symbols: centred on (cx, cy), `s` tall; turned=True draws it upside down --------------------------


def _heart_parts(cx: float, cy: float, s: float, k: float) -> tuple[list, list]:
    """Two lobes and the point of a heart; k=-1 turns it (the spade's body is a turned heart)."""
    r = s * 0.27
    ly = cy - k * s * 0.2
    lobes = [(cx - s * 0.24, ly, r), (cx + s * 0.24, ly, r)]
    point = [(cx - s * 0.5, cy - k * s * 0.12), (cx + s * 0.5, cy - k * s * 0.12), (cx, cy + k * s * 0.5)]
    return lobes, point


def _circles(d: ImageDraw.ImageDraw, circles: list, fill: tuple[int, int, int]) -> None:
    for x, y, r in circles:
        d.ellipse((x - r, y - r, x + r, y + r), fill=fill)


def heart(d: ImageDraw.ImageDraw, cx: float, cy: float, s: float, turned: bool = False) -> None:
    lobes, point = _heart_parts(cx, cy, s, -1 if turned else 1)
    _circles(d, lobes, RED)
    d.polygon(point, fill=RED)


def spade(d: ImageDraw.ImageDraw, cx: float, cy: float, s: float, turned: bool = False) -> None:
    k = -1 if turned else 1
    body_cy = cy - k * s * 0.08
    lobes, point = _heart_parts(cx, body_cy, s * 0.84, -k)
    _circles(d, lobes, BLACK)
    d.polygon(point, fill=BLACK)
    d.polygon([(cx, body_cy), (cx - s * 0.17, cy + k * s * 0.5), (cx + s * 0.17, cy + k * s * 0.5)], fill=BLACK)


def diamond(d: ImageDraw.ImageDraw, cx: float, cy: float, s: float, turned: bool = False) -> None:
    d.polygon([(cx, cy - s * 0.5), (cx + s * 0.38, cy), (cx, cy + s * 0.5), (cx - s * 0.38, cy)], fill=RED)


def club(d: ImageDraw.ImageDraw, cx: float, cy: float, s: float, turned: bool = False) -> None:
    k = -1 if turned else 1
    r = s * 0.21
    _circles(d, [(cx, cy - k * s * 0.27, r), (cx - s * 0.24, cy + k * s * 0.05, r),
                 (cx + s * 0.24, cy + k * s * 0.05, r), (cx, cy, r * 0.7)], BLACK)
    d.polygon([(cx, cy - k * s * 0.05), (cx - s * 0.16, cy + k * s * 0.5), (cx + s * 0.16, cy + k * s * 0.5)],
              fill=BLACK)


SYMBOL = {"S": spade, "H": heart, "D": diamond, "C": club}


def symbol(d: ImageDraw.ImageDraw, suit: str, cx: float, cy: float, s: float, turned: bool = False) -> None:
    SYMBOL[suit](d, cx, cy, s, turned)


def _star(cx: float, cy: float, outer: float, inner: float, points: int) -> list[tuple[float, float]]:
    out = []
    for i in range(points * 2):
        r = outer if i % 2 == 0 else inner
        a = math.pi * i / points - math.pi / 2
        out.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return out


# ---- faces -------------------------------------------------------------------------------------------------


def _court(d: ImageDraw.ImageDraw, w: int, h: int, rank: str, suit: str) -> None:
    """A framed panel with the letter, the suit, and a headdress: crown (K), tiara (Q), cap (J)."""
    ink = colour(suit)
    left, top, right, bottom = w * 0.24, h * 0.16, w * 0.76, h * 0.84
    d.rectangle((left, top, right, bottom), fill=COURT_TINT[suit], outline=ink, width=max(1, SCALE))
    cx, pw, ph = w / 2, right - left, bottom - top
    hy = top + ph * 0.22
    gold, gold_dark = (232, 180, 40), (150, 105, 10)
    if rank == "K":
        crown = [(cx - pw * 0.3, hy + ph * 0.08), (cx - pw * 0.3, hy - ph * 0.08), (cx - pw * 0.15, hy),
                 (cx, hy - ph * 0.12), (cx + pw * 0.15, hy), (cx + pw * 0.3, hy - ph * 0.08),
                 (cx + pw * 0.3, hy + ph * 0.08)]
        d.polygon(crown, fill=gold, outline=gold_dark, width=SCALE)
    elif rank == "Q":
        d.chord((cx - pw * 0.3, hy - ph * 0.12, cx + pw * 0.3, hy + ph * 0.12), 180, 360, fill=gold,
                outline=gold_dark, width=SCALE)
        r = pw * 0.06
        d.ellipse((cx - r, hy - ph * 0.1 - r, cx + r, hy - ph * 0.1 + r), fill=RED)
    else:
        d.pieslice((cx - pw * 0.28, hy - ph * 0.1, cx + pw * 0.28, hy + ph * 0.1), 180, 360, fill=ink)
        d.line((cx + pw * 0.1, hy - ph * 0.06, cx + pw * 0.32, hy - ph * 0.16), fill=ink, width=2 * SCALE)
    draw_text(d, (cx, top + ph * 0.55), rank, round(ph * 0.32), ink, anchor="mm", bold=True)
    symbol(d, suit, cx, top + ph * 0.84, pw * 0.34)


def _joker(d: ImageDraw.ImageDraw, w: int, h: int) -> None:
    """JOKER down the left edge and a two-colour star: nothing else on the card shares it."""
    for i, ch in enumerate("JOKER"):
        draw_text(d, (w * 0.13, h * (0.1 + i * 0.09)), ch, round(w * 0.13), RED, anchor="mm", bold=True)
    cx, cy = w * 0.58, h * 0.52
    d.polygon(_star(cx, cy, w * 0.36, w * 0.16, 5), fill=(232, 180, 40), outline=BLACK, width=SCALE)
    d.polygon(_star(cx, cy, w * 0.16, w * 0.07, 5), fill=RED)


@lru_cache(maxsize=512)
def face(code: str, height: int, selected: bool = False) -> Image.Image:
    """RGBA face of a French card (or the joker `X`) `height` pixels tall."""
    rank, suit = parse(code)
    sheet = card_base.blank(height, selected)
    d, w, h = sheet.draw, sheet.w, sheet.h
    if rank == JOKER:
        _joker(d, w, h)
        return card_base.finish(sheet, selected)
    ink = colour(suit)
    size = round(w * 0.2)
    ix, iy = w * 0.12, h * 0.03
    draw_text(d, (ix, iy), LABEL.get(rank, rank), size, ink, anchor="mt", bold=True)
    symbol(d, suit, ix, iy + size * 1.35, w * 0.13)
    card_base.mirror_corner(sheet, w * 0.23, iy + size * 1.35 + w * 0.09)
    if rank in "JQK":
        _court(d, w, h, rank, suit)
    elif rank == "A":
        symbol(d, suit, w / 2, h / 2, w * 0.5)
    else:
        left, top, right, bottom = w * 0.34, h * 0.2, w * 0.66, h * 0.8
        s = w * (0.17 if rank in "9T" else 0.2)
        for px, py in PIPS[rank]:
            symbol(d, suit, left + (right - left) * px, top + (bottom - top) * py, s, turned=py > 0.5)
    return card_base.finish(sheet, selected)
