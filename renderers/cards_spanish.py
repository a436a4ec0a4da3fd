"""Spanish baraja faces (Kenza, Rabaeen), drawn as vector shapes: oros coins, copas cups, espadas swords, bastos
batons; 1-7 as pips, sota / caballo / rey as stylised figures carrying their suit with S / C / R beneath.

Each suit also colours the inner frame, so a suit reads at a glance even on the small table cards.
"""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw

from renderers import card_base
from renderers.card_base import SCALE, Sheet
from renderers.text import draw_text

SUITS = "OCEB"
VALUES = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)
CODES = tuple(f"{v}{s}" for s in SUITS for v in VALUES)

# suit -> (main fill, dark outline, light tint for court panels)
COLOURS = {
    "O": ((230, 178, 30), (140, 95, 0), (252, 240, 200)),
    "C": ((196, 52, 44), (120, 28, 22), (250, 222, 218)),
    "E": ((48, 96, 170), (22, 50, 100), (218, 230, 248)),
    "B": ((96, 140, 48), (52, 80, 20), (226, 240, 210)),
}
# the suit fills and outlines and the back, kept exact in renderers.palette
KEY_COLOURS = (*card_base.KEY_COLOURS, *(c for fill, dark, _ in COLOURS.values() for c in (fill, dark)),
               card_base.BACKS["spanish"][0][:3])
COURT_LETTER = {10: "S", 11: "C", 12: "R"}

# pip centres inside the pip box (0..1 both ways), per value
PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.5, 0.5),),
    2: ((0.5, 0.12), (0.5, 0.88)),
    3: ((0.5, 0.1), (0.5, 0.5), (0.5, 0.9)),
    4: ((0.1, 0.12), (0.9, 0.12), (0.1, 0.88), (0.9, 0.88)),
    5: ((0.1, 0.1), (0.9, 0.1), (0.5, 0.5), (0.1, 0.9), (0.9, 0.9)),
    6: ((0.1, 0.08), (0.9, 0.08), (0.1, 0.5), (0.9, 0.5), (0.1, 0.92), (0.9, 0.92)),
    7: ((0.1, 0.08), (0.9, 0.08), (0.5, 0.29), (0.1, 0.5), (0.9, 0.5), (0.1, 0.92), (0.9, 0.92)),
}


def parse(code: str) -> tuple[int, str]:
    value, suit = int(code[:-1]), code[-1]
    if suit not in SUITS or value not in VALUES:
        raise ValueError(f"not a Spanish card code: {code!r}")
    return value, suit


# ---- suit symbols: centred on (cx, cy), `s` tall -----------------------------------------------------------


def coin(d: ImageDraw.ImageDraw, cx: float, cy: float, s: float) -> None:
    fill, dark, _ = COLOURS["O"]
    w = max(1, round(s * 0.06))
    d.ellipse((cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2), fill=fill, outline=dark, width=w)
    r = s * 0.3
    d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(248, 214, 90), outline=dark, width=w)
    r = s * 0.1
    d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=dark)


def cup(d: ImageDraw.ImageDraw, cx: float, cy: float, s: float) -> None:
    fill, dark, _ = COLOURS["C"]
    gold = COLOURS["O"][0]
    w = max(1, round(s * 0.04))
    rim = cy - s * 0.3
    bw = s * 0.36
    d.pieslice((cx - bw, rim - s * 0.32, cx + bw, rim + s * 0.32), 0, 180, fill=fill, outline=dark, width=w)
    d.ellipse((cx - bw, rim - s * 0.07, cx + bw, rim + s * 0.07), fill=gold, outline=dark, width=w)
    d.rectangle((cx - s * 0.05, rim + s * 0.3, cx + s * 0.05, cy + s * 0.38), fill=fill, outline=dark, width=w)
    d.ellipse((cx - s * 0.1, cy + s * 0.08, cx + s * 0.1, cy + s * 0.18), fill=gold, outline=dark, width=w)
    d.polygon(
        [(cx - s * 0.08, cy + s * 0.34), (cx + s * 0.08, cy + s * 0.34), (cx + s * 0.24, cy + s * 0.5),
         (cx - s * 0.24, cy + s * 0.5)],
        fill=fill, outline=dark, width=w,
    )


def sword(d: ImageDraw.ImageDraw, cx: float, cy: float, s: float) -> None:
    fill, dark, _ = COLOURS["E"]
    w = max(1, round(s * 0.035))
    half = s * 0.075
    d.polygon(
        [(cx, cy - s * 0.5), (cx + half, cy - s * 0.38), (cx + half, cy + s * 0.18), (cx - half, cy + s * 0.18),
         (cx - half, cy - s * 0.38)],
        fill=(200, 215, 235), outline=fill, width=w,
    )
    d.line((cx, cy - s * 0.4, cx, cy + s * 0.15), fill=fill, width=w)
    d.rounded_rectangle((cx - s * 0.24, cy + s * 0.17, cx + s * 0.24, cy + s * 0.25), radius=s * 0.03,
                        fill=COLOURS["O"][0], outline=dark, width=w)
    d.rectangle((cx - s * 0.045, cy + s * 0.25, cx + s * 0.045, cy + s * 0.42), fill=fill, outline=dark, width=w)
    r = s * 0.07
    d.ellipse((cx - r, cy + s * 0.43 - r, cx + r, cy + s * 0.43 + r), fill=COLOURS["O"][0], outline=dark, width=w)


def baton(d: ImageDraw.ImageDraw, cx: float, cy: float, s: float) -> None:
    fill, dark, _ = COLOURS["B"]
    w = max(1, round(s * 0.04))
    top, bottom = cy - s * 0.42, cy + s * 0.5
    d.polygon(
        [(cx - s * 0.13, top), (cx + s * 0.13, top), (cx + s * 0.06, bottom), (cx - s * 0.06, bottom)],
        fill=fill, outline=dark, width=w,
    )
    d.ellipse((cx - s * 0.13, cy - s * 0.5, cx + s * 0.13, cy - s * 0.34), fill=fill, outline=dark, width=w)
    for i, side in enumerate((-1, 1, -1, 1)):
        ky = cy - s * 0.22 + i * s * 0.18
        kx = cx + side * s * (0.1 - i * 0.012)
        r = s * 0.045
        d.ellipse((kx - r, ky - r, kx + r, ky + r), fill=dark)


SYMBOL = {"O": coin, "C": cup, "E": sword, "B": baton}


def symbol(d: ImageDraw.ImageDraw, suit: str, cx: float, cy: float, s: float) -> None:
    SYMBOL[suit](d, cx, cy, s)


# ---- court figures -----------------------------------------------------------------------------------------


def _figure(sheet: Sheet, value: int, suit: str) -> None:
    """A framed panel with a figure: sota stands with a cap, caballo rides a horse, rey wears a crown."""
    d, w, h = sheet.draw, sheet.w, sheet.h
    fill, dark, tint = COLOURS[suit]
    lw = max(1, SCALE)
    # the panel fills the card but steps around the two corner indices
    a, b, c, e = w * 0.07, w * 0.275, w * 0.725, w * 0.93
    top, bottom = h * 0.05, h * 0.95
    d.polygon([(b, top), (e, top), (e, h * 0.73), (c, h * 0.73), (c, bottom), (a, bottom), (a, h * 0.27),
               (b, h * 0.27)], fill=tint, outline=dark, width=lw)
    cx = w / 2
    pw, ph = w * 0.6, (bottom - top) * 0.85
    top += (bottom - top) * 0.08
    skin, robe = (240, 200, 160), fill
    letter_y = bottom - ph * 0.1
    ground = bottom - ph * 0.2

    if value == 11:  # caballo: a horse with a rider
        hy = top + ph * 0.55
        d.ellipse((cx - pw * 0.32, hy - ph * 0.08, cx + pw * 0.26, hy + ph * 0.08), fill=(150, 100, 60),
                  outline=(70, 45, 25), width=lw)
        for lx in (-0.26, -0.14, 0.1, 0.2):
            d.rectangle((cx + pw * lx - pw * 0.025, hy + ph * 0.04, cx + pw * lx + pw * 0.025, ground),
                        fill=(120, 80, 45))
        d.polygon([(cx - pw * 0.28, hy - ph * 0.02), (cx - pw * 0.4, hy - ph * 0.2), (cx - pw * 0.3, hy - ph * 0.24),
                   (cx - pw * 0.18, hy - ph * 0.06)], fill=(150, 100, 60), outline=(70, 45, 25))
        d.ellipse((cx - pw * 0.47, hy - ph * 0.26, cx - pw * 0.31, hy - ph * 0.18), fill=(150, 100, 60),
                  outline=(70, 45, 25), width=lw)
        # rider
        d.polygon([(cx - pw * 0.1, hy - ph * 0.05), (cx + pw * 0.1, hy - ph * 0.05), (cx + pw * 0.06, hy - ph * 0.25),
                   (cx - pw * 0.06, hy - ph * 0.25)], fill=robe, outline=dark, width=lw)
        r = pw * 0.07
        d.ellipse((cx - r, hy - ph * 0.25 - 2 * r, cx + r, hy - ph * 0.25), fill=skin, outline=dark, width=lw)
        symbol(d, suit, cx + pw * 0.3, top + ph * 0.2, ph * 0.22)
    else:
        head_r = pw * 0.1
        head_y = top + ph * 0.2
        shoulders, hem = head_y + head_r * 1.2, ground
        spread = 0.22 if value == 12 else 0.16
        d.polygon([(cx - pw * 0.1, shoulders), (cx + pw * 0.1, shoulders), (cx + pw * spread, hem),
                   (cx - pw * spread, hem)], fill=robe, outline=dark, width=lw)
        if value == 10:  # sota: short tunic, legs, a cap
            d.rectangle((cx - pw * 0.17, hem - ph * 0.16, cx + pw * 0.17, hem), fill=tint)
            for lx in (-0.07, 0.07):
                d.rectangle((cx + pw * lx - pw * 0.03, hem - ph * 0.16, cx + pw * lx + pw * 0.03, hem),
                            fill=dark)
            d.pieslice((cx - head_r * 1.2, head_y - head_r * 1.9, cx + head_r * 1.2, head_y - head_r * 0.1),
                       180, 360, fill=dark)
        else:  # rey: long robe, belt, crown
            d.rectangle((cx - pw * 0.14, shoulders + ph * 0.18, cx + pw * 0.14, shoulders + ph * 0.22),
                        fill=COLOURS["O"][0])
            cy0 = head_y - head_r * 0.9
            crown = [(cx - head_r * 1.1, cy0), (cx - head_r * 1.1, cy0 - head_r * 1.1), (cx - head_r * 0.55,
                     cy0 - head_r * 0.5), (cx, cy0 - head_r * 1.3), (cx + head_r * 0.55, cy0 - head_r * 0.5),
                     (cx + head_r * 1.1, cy0 - head_r * 1.1), (cx + head_r * 1.1, cy0)]
            d.polygon(crown, fill=COLOURS["O"][0], outline=COLOURS["O"][1], width=lw)
        d.ellipse((cx - head_r, head_y - head_r, cx + head_r, head_y + head_r), fill=skin, outline=dark, width=lw)
        symbol(d, suit, cx + pw * 0.3, top + ph * 0.42, ph * 0.24)
    draw_text(d, (cx, letter_y), COURT_LETTER[value], round(ph * 0.13), dark, anchor="mm", bold=True)


# ---- the face ----------------------------------------------------------------------------------------------


@lru_cache(maxsize=512)
def face(code: str, height: int, selected: bool = False) -> Image.Image:
    """RGBA face of a Spanish card `height` pixels tall (width 2/3 of it)."""
    value, suit = parse(code)
    sheet = card_base.blank(height, selected)
    d, w, h = sheet.draw, sheet.w, sheet.h
    fill, dark, _ = COLOURS[suit]
    inset = w * 0.045
    d.rounded_rectangle((inset, inset, w - inset, h - inset), radius=sheet.radius * 0.7, outline=fill,
                        width=max(1, SCALE))
    # corner index: the number, and a small suit sign under it
    cw, size = w * 0.2, round(w * 0.2)
    draw_text(d, (inset + cw / 2 + w * 0.01, inset + h * 0.02), str(value), size, dark, anchor="mt", bold=True)
    symbol(d, suit, inset + cw / 2 + w * 0.01, inset + h * 0.02 + size * 1.45, w * 0.12)
    card_base.mirror_corner(sheet, inset + cw + w * 0.03, inset + h * 0.02 + size * 1.45 + w * 0.09)

    if value in COURT_LETTER:
        _figure(sheet, value, suit)
    else:
        left, top, right, bottom = w * 0.345, h * 0.19, w * 0.655, h * 0.81
        s = w * 0.55 if value == 1 else w * (0.3 if value <= 3 else 0.19)
        if suit in "EB" and value > 1:
            s *= 1.1  # long symbols need height more than width
        for px, py in PIPS[value]:
            symbol(d, suit, left + (right - left) * px, top + (bottom - top) * py, s)
    return card_base.finish(sheet, selected)
