"""A player's profile card (`/stats`) as a picture: their numbers, their ratings with tier badges, recent form
and achievements.

Game-independent, like the score sheet: the chat layer (bot/core/ladder.py) has put every label and number into
words already, so this module only lays them out — mirrored for Arabic (the reading side is the right), numbers
and names isolated in their own direction, Arabic shaped through renderers/text.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from PIL import Image, ImageDraw

from renderers.text import draw_text, fit, isolate

WIDTH = 960
PAD = 32
TITLE_SIZE = 34
LABEL_SIZE = 20
VALUE_SIZE = 30
SECTION_SIZE = 24
LINE_SIZE = 22
SMALL_SIZE = 19

PAPER = (250, 246, 236)
INK = (40, 36, 30)
MUTED = (110, 100, 86)
RULE = (205, 195, 175)
HEAD = (44, 82, 66)
HEAD_INK = (250, 246, 236)
TILE = (240, 233, 216)
TIER_COLOURS: dict[str | None, tuple[int, int, int]] = {
    "bronze": (166, 106, 60), "silver": (140, 146, 156), "gold": (196, 152, 48), "platinum": (64, 150, 150),
    "diamond": (70, 110, 200), "master": (140, 60, 150), None: (170, 160, 140),  # None: still in placement
}
FORM_COLOURS = {"win": (56, 142, 80), "draw": (150, 140, 120), "loss": (190, 64, 56)}


@dataclass(frozen=True)
class RatingLine:
    label: str  # "Konkan (tiles) · Ranked"
    shown: str  # "1268 · Gold" or "placement 3/5"
    tier: str | None  # None while in placement
    badge: str  # the tier's name, or the placement count ("3/5")
    record: str  # "7 wins, 2 losses, 0 draws"
    streaks: str  # "streak 2 · best 4"
    rank: str = ""  # "#3 of 40" on the board, or ""


@dataclass(frozen=True)
class Profile:
    title: str
    tiles: tuple[tuple[str, str], ...]  # (label, value): games, win rate, favourite game, best streak
    ladder_title: str
    ratings: tuple[RatingLine, ...]
    no_ratings: str
    form_title: str
    form: tuple[str, ...]  # newest first: win | draw | loss
    form_letters: Mapping[str, str]
    achievements_title: str
    achievements: tuple[tuple[str, tuple[int, int, int]], ...]  # (name, medal colour)
    no_achievements: str


RATING_H = 78
ACH_H = 44
HEAD_H = 84
TILE_H = 92
SECTION_GAP = 26


def render(profile: Profile, lang: str) -> Image.Image:
    rtl = lang == "ar"
    inner = WIDTH - 2 * PAD
    ach_rows = -(-len(profile.achievements) // 2) or 1
    height = (HEAD_H + PAD + TILE_H + SECTION_GAP + SECTION_SIZE + 16 + max(1, len(profile.ratings)) * RATING_H
              + SECTION_GAP + SECTION_SIZE + 16 + 56 + SECTION_GAP + SECTION_SIZE + 16 + ach_rows * ACH_H + PAD)
    image = Image.new("RGB", (WIDTH, height), PAPER)
    draw = ImageDraw.Draw(image)

    def x(offset: float) -> float:
        """A distance from the reading side's edge of the card, as a pixel column."""
        return WIDTH - offset if rtl else offset

    start, end = ("ra", "la") if rtl else ("la", "ra")
    start_mid, end_mid = ("rm", "lm") if rtl else ("lm", "rm")

    draw.rectangle((0, 0, WIDTH, HEAD_H), fill=HEAD)
    draw_text(draw, (x(PAD), HEAD_H / 2), fit(profile.title, TITLE_SIZE, inner, True, rtl=rtl), TITLE_SIZE,
              HEAD_INK, anchor=start_mid, bold=True, rtl=rtl)
    y = HEAD_H + PAD

    count = max(1, len(profile.tiles))
    gap = 14
    tile_w = (inner - gap * (count - 1)) / count
    for index, (label, value) in enumerate(profile.tiles):
        left = PAD + index * (tile_w + gap)
        box = (WIDTH - left - tile_w, y, WIDTH - left, y + TILE_H) if rtl else (left, y, left + tile_w, y + TILE_H)
        draw.rounded_rectangle(box, radius=12, fill=TILE)
        centre = (box[0] + box[2]) / 2
        draw_text(draw, (centre, y + 26), fit(label, LABEL_SIZE, tile_w - 16, rtl=rtl), LABEL_SIZE, MUTED,
                  anchor="mm", rtl=rtl)
        draw_text(draw, (centre, y + 62), fit(isolate(value), VALUE_SIZE, tile_w - 16, True, rtl=rtl), VALUE_SIZE,
                  INK, anchor="mm", bold=True, rtl=rtl)
    y += TILE_H + SECTION_GAP

    y = _section(draw, profile.ladder_title, y, x, start, rtl)
    if not profile.ratings:
        draw_text(draw, (x(PAD), y + RATING_H / 2), profile.no_ratings, LINE_SIZE, MUTED, anchor=start_mid, rtl=rtl)
        y += RATING_H
    for line in profile.ratings:
        colour = TIER_COLOURS.get(line.tier, TIER_COLOURS[None])
        badge_w = 150
        badge = (x(PAD + badge_w), y + 10, x(PAD), y + RATING_H - 10)
        draw.rounded_rectangle((min(badge[0], badge[2]), badge[1], max(badge[0], badge[2]), badge[3]), radius=14,
                               fill=colour)
        draw_text(draw, ((badge[0] + badge[2]) / 2, y + RATING_H / 2), fit(isolate(line.badge), LINE_SIZE,
                                                                          badge_w - 12, True, rtl=rtl),
                  LINE_SIZE, HEAD_INK, anchor="mm", bold=True, rtl=rtl)
        text_x = x(PAD + badge_w + 18)
        width = inner - badge_w - 18
        draw_text(draw, (text_x, y + 12), fit(f"{line.label}: {isolate(line.shown)}", LINE_SIZE, width, True, rtl=rtl),
                  LINE_SIZE, INK, anchor=start, bold=True, rtl=rtl)
        detail = " · ".join(part for part in (line.record, line.streaks, line.rank) if part)
        draw_text(draw, (text_x, y + 44), fit(detail, SMALL_SIZE, width, rtl=rtl), SMALL_SIZE, MUTED, anchor=start,
                  rtl=rtl)
        y += RATING_H
        draw.line((PAD, y - 2, WIDTH - PAD, y - 2), fill=RULE, width=1)
    y += SECTION_GAP

    y = _section(draw, profile.form_title, y, x, start, rtl)
    radius = 22
    if not profile.form:
        draw_text(draw, (x(PAD), y + 28), "—", LINE_SIZE, MUTED, anchor=start_mid, rtl=rtl)
    for index, outcome in enumerate(profile.form):
        cx = x(PAD + radius + index * (2 * radius + 12))
        draw.ellipse((cx - radius, y + 6, cx + radius, y + 6 + 2 * radius), fill=FORM_COLOURS.get(outcome, MUTED))
        draw_text(draw, (cx, y + 6 + radius), profile.form_letters.get(outcome, "?"), LINE_SIZE, HEAD_INK,
                  anchor="mm", bold=True, rtl=rtl)
    y += 56 + SECTION_GAP

    y = _section(draw, profile.achievements_title, y, x, start, rtl)
    if not profile.achievements:
        draw_text(draw, (x(PAD), y + ACH_H / 2), profile.no_achievements, LINE_SIZE, MUTED, anchor=start_mid,
                  rtl=rtl)
    column_w = inner / 2
    for index, (name, colour) in enumerate(profile.achievements):
        row, column = divmod(index, 2)
        offset = PAD + column * column_w
        top = y + row * ACH_H
        cx = x(offset + 16)
        draw.ellipse((cx - 14, top + 8, cx + 14, top + 36), fill=colour, outline=INK, width=1)
        draw.ellipse((cx - 6, top + 16, cx + 6, top + 28), fill=(250, 230, 150))
        draw_text(draw, (x(offset + 42), top + ACH_H / 2), fit(name, LINE_SIZE, column_w - 52, rtl=rtl), LINE_SIZE,
                  INK, anchor=start_mid, rtl=rtl)
    return image


def _section(draw: ImageDraw.ImageDraw, title: str, y: float, x: object, anchor: str, rtl: bool) -> float:
    assert callable(x)
    draw_text(draw, (x(PAD), y), title, SECTION_SIZE, HEAD, anchor=anchor, bold=True, rtl=rtl)
    y += SECTION_SIZE + 8
    draw.line((PAD, y, WIDTH - PAD, y), fill=RULE, width=2)
    return y + 8
