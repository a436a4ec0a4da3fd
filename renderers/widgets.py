"""Drawing pieces several games' pictures share — pills, number badges, the rack's title row, the winner banner,
the last-move line, meld cells packed into rows — so a fix to one reaches every game that draws it.

Each piece takes its colours and sizes from the caller: the games keep their own palettes (the fixed PNG palettes
in renderers.palette are per game) and their own proportions.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from PIL import Image, ImageDraw

from renderers import card_base
from renderers.context import RenderContext
from renderers.layout import Sides, flow
from renderers.text import draw_text, fit, text_width

Colour = tuple[int, ...]
Meld = TypeVar("Meld")

# Most people see a table picture about 400 px wide on a phone, a ~750 px picture at about half its size: the
# last-move line is drawn at this size (about 10 px there), its cards SMALL_CARD_H high (about 32 px there, where
# 40 px cards had shrunk to unreadable corners).
LAST_MOVE_SIZE = 18
SMALL_CARD_H = 60


def pill(draw: ImageDraw.ImageDraw, centre: tuple[float, float], text: str, size: int, fill: Colour, ink: Colour,
         ctx: RenderContext, margin: int = 18) -> float:
    """A rounded label centred on `centre`, `margin` pixels wider than its text; returns its width."""
    w = text_width(text, size, bold=True, raqm=ctx.raqm, rtl=ctx.rtl) + margin
    cx, cy = centre
    draw.rounded_rectangle((cx - w / 2, cy - size * 0.8, cx + w / 2, cy + size * 0.8), radius=size * 0.8, fill=fill)
    draw_text(draw, (cx, cy), text, size, ink, anchor="mm", bold=True, raqm=ctx.raqm, rtl=ctx.rtl)
    return w


def start_pill(draw: ImageDraw.ImageDraw, sides: Sides, offset: float, middle: float, text: str, size: int,
               fill: Colour, ink: Colour, ctx: RenderContext, margin: int = 18) -> float:
    """A pill starting `offset` pixels from the start edge (a seat's marker after its name); returns its width."""
    w = text_width(text, size, bold=True, raqm=ctx.raqm, rtl=ctx.rtl) + margin
    return pill(draw, (sides.x(offset + w / 2), middle), text, size, fill, ink, ctx, margin)


def end_pill(draw: ImageDraw.ImageDraw, sides: Sides, offset: float, middle: float, text: str, size: int,
             fill: Colour, ink: Colour, ctx: RenderContext, margin: int = 18) -> float:
    """A pill ending `offset` pixels from the *end* edge (badges such as "your turn"); returns its width."""
    w = text_width(text, size, bold=True, raqm=ctx.raqm, rtl=ctx.rtl) + margin
    return pill(draw, (sides.x(sides.width - offset - w / 2), middle), text, size, fill, ink, ctx, margin)


def number_badge(draw: ImageDraw.ImageDraw, cx: float, cy: float, n: int, r: int, hot: bool, ctx: RenderContext,
                 paper: Colour, ink: Colour, scale: float = 1.2) -> None:
    """The round number under a rack card, matching its button; the selection colour when the card is chosen."""
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=card_base.SELECT[:3] if hot else paper)
    draw_text(draw, (cx, cy), str(n), round(r * scale), ink, anchor="mm", bold=True, raqm=ctx.raqm)


def balanced_rows(n: int, per_row: int) -> list[int]:
    """Cards per row: as few rows of at most `per_row` as hold `n`, their lengths differing by one at most."""
    if n == 0:
        return []
    count = math.ceil(n / per_row)
    base, extra = divmod(n, count)
    return [base + (1 if i < extra else 0) for i in range(count)]


def rack_step(per_row: int, card_w: int) -> int:
    """From one card's left edge to the next: a short row's cards are spaced apart, a long one's overlap."""
    return card_w + 8 if per_row <= 7 else round(card_w * 0.7)


def row_places(rows: list[int], order: list[int], width: int, step: int, card_w: int,
               mirror: bool) -> Iterator[tuple[int, int, int]]:
    """(row, x, hand position) of each card, rows centred in `width`. Yielded left to right, so each card covers
    the right of the one before and every top-left index stays visible; `mirror` numbers from the right (reading
    order in Arabic) instead of from the left."""
    start = 0
    for r, count in enumerate(rows):
        left = (width - ((count - 1) * step + card_w)) // 2
        row = list(enumerate(order[start:start + count]))
        for i, position in reversed(row) if mirror else row:
            yield r, left + (count - 1 - i if mirror else i) * step, position
        start += count


def rack_order(view: dict[str, Any], size: int) -> list[int]:
    """The chat's card order ("order") when it is a permutation of the hand's positions, else hand order: a stale
    or forged order must not hide or repeat a card."""
    order = [int(p) for p in view.get("order") or range(size) if 0 <= int(p) < size]
    return order if sorted(order) == list(range(size)) else list(range(size))


@dataclass(frozen=True)
class CardRack:
    """A long hand's rows: balanced rows of at most `per_row` cards, overlapping when a row is long, each card
    numbered under it with the number its button shows."""

    hand: list[str]
    order: list[int]
    card_h: int
    rows: list[int]
    lift: int = 12
    badge_h: int = 34

    @classmethod
    def of(cls, view: dict[str, Any], card_h: int, per_row: int) -> CardRack:
        hand = list(view.get("hand") or [])
        return cls(hand, rack_order(view, len(hand)), card_h, balanced_rows(len(hand), per_row))

    @property
    def card_w(self) -> int:
        return card_base.card_width(self.card_h)

    @property
    def step(self) -> int:
        return rack_step(max(self.rows, default=0), self.card_w)

    @property
    def width(self) -> int:
        """The widest row's width."""
        widest = max(self.rows, default=0)
        return (widest - 1) * self.step + self.card_w if widest else 0

    @property
    def row_h(self) -> int:
        return self.lift + self.card_h + self.badge_h

    @property
    def height(self) -> int:
        """At least one row: an empty hand says so in its place."""
        return max(1, len(self.rows)) * self.row_h

    def draw(self, image: Image.Image, draw: ImageDraw.ImageDraw, ctx: RenderContext, top: int,
             face: Callable[[str, bool], Image.Image], mirror: bool, paper: Colour, ink: Colour,
             muted: Colour) -> int:
        """The rows from `top`, chosen cards lifted and drawn by `face(code, chosen)`; returns the y under them."""
        if not self.hand:
            draw_text(draw, (image.width / 2, top + self.row_h / 2), ctx.t("no_cards"), 20, muted, anchor="mm",
                      raqm=ctx.raqm, rtl=ctx.rtl)
            return top + self.row_h
        visible = min(self.step, self.card_w)
        for r, x, position in row_places(self.rows, self.order, image.width, self.step, self.card_w, mirror):
            y = top + r * self.row_h
            chosen = position in ctx.selected
            picture = face(self.hand[position], chosen)
            image.paste(picture, (x, y + (0 if chosen else self.lift)), picture)
            number_badge(draw, x + visible / 2, y + self.lift + self.card_h + self.badge_h / 2, position + 1, 13,
                         chosen, ctx, paper, ink)
        return top + len(self.rows) * self.row_h


def rack_title(draw: ImageDraw.ImageDraw, sides: Sides, pad: int, middle: float, title: str, view: dict[str, Any],
               ctx: RenderContext, ink: Colour, turn: Colour, dark: Colour, margin: int = 18,
               max_width: float | None = None) -> None:
    """The rack's title at the start edge and, while the seat is to move, a "your turn" pill at the end edge."""
    if max_width is not None:
        title = fit(title, 21, max_width, bold=True, raqm=ctx.raqm, rtl=ctx.rtl)
    draw_text(draw, (sides.x(pad), middle), title, 21, ink, anchor=sides.anchor("lm"), bold=True, raqm=ctx.raqm,
              rtl=ctx.rtl)
    seat = view.get("seat")
    if not view.get("over") and seat is not None and view.get("to_move") == seat:
        end_pill(draw, sides, pad, middle, ctx.t("your_turn"), 16, turn, dark, ctx, margin)


def pack_cells(melds: Sequence[Meld], width_of: Callable[[Meld], int], pad: int, edge: int,
               gap: int) -> list[tuple[Meld, int, int, int]]:
    """(meld, row, offset from the start edge, width): cells in reading order from `pad`, wrapping before
    `edge - pad`."""
    out = []
    row, offset = 0, pad
    for meld in melds:
        width = width_of(meld)
        if offset > pad and offset + width > edge - pad:
            row, offset = row + 1, pad
        out.append((meld, row, offset, width))
        offset += width + gap
    return out


def last_move_of(view: dict[str, Any]) -> dict[str, Any] | None:
    """The view's last move ({"seat", "move"}) when there is one to draw; anything else draws no last-move line."""
    last = view.get("last_move")
    return last if isinstance(last, dict) and "move" in last else None


def faces_or_codes(codes: list[str], face: Callable[[str], Image.Image]) -> list[str | Image.Image]:
    """Each code's face, or the code itself as text where it names no card (an old or unknown notation)."""
    out: list[str | Image.Image] = []
    for code in codes:
        try:
            out.append(face(code))
        except ValueError:
            out.append(code)
    return out


class Sheet:
    """A picture drawn in sections stacked top to bottom, text placed by its offset from the start edge."""

    def __init__(self, width: int, height: int, background: Colour, ctx: RenderContext):
        self.ctx = ctx
        self.width = width
        self.s = Sides(width, ctx.rtl)
        self.image = Image.new("RGB", (width, height), background)
        self.draw = ImageDraw.Draw(self.image)

    def header(self, y: int) -> int:
        """The title line at `y`; returns the next y."""
        raise NotImplementedError

    def banner(self, y: int) -> int:
        """Who won, at `y`; returns the next y."""
        raise NotImplementedError

    def title_row(self, y: int, title: str, ink: Colour, pad: int, note: str = "", note_size: int = 17,
                  note_fill: Colour = (0, 0, 0)) -> int:
        """The picture's title at the start edge and, if given, a note (target, mode) at the end edge; returns the
        next y."""
        self.text(pad, y + 25, title, 22, ink, bold=True)
        if note:
            self.text(self.width - pad, y + 25, note, note_size, note_fill, anchor="rm")
        return y + 48

    def heading(self, over: bool) -> int:
        """The header, then the winner banner once the match is over; returns the next y."""
        y = self.header(0)
        return self.banner(y) if over else y

    def text(self, offset: float, y: float, text: str, size: int, fill: object, anchor: str = "lm",
             bold: bool = False, rtl: bool | None = None) -> None:
        """`rtl` overrides the language's direction (False for numbers and codes)."""
        draw_text(self.draw, (self.s.x(offset), y), text, size, fill, anchor=self.s.anchor(anchor), bold=bold,
                  raqm=self.ctx.raqm, rtl=self.ctx.rtl if rtl is None else rtl)

    def panel(self, top: float, height: float, fill: Colour, pad: int, outline: Colour | None = None,
              width: int = 0) -> None:
        """A full-width rounded panel, `pad / 2` in from both edges."""
        self.draw.rounded_rectangle((pad / 2, top, self.width - pad / 2, top + height), radius=10, fill=fill,
                                    outline=outline, width=width)

    def over_banner(self, y: int, text: str, pad: int, fill: Colour, ink: Colour) -> int:
        """The match-over banner (who won) across the picture; returns the next y."""
        ctx = self.ctx
        self.panel(y, 38, fill, pad)
        shown = fit(text, 19, self.width - 3 * pad, bold=True, raqm=ctx.raqm, rtl=ctx.rtl)
        draw_text(self.draw, (self.width / 2, y + 19), shown, 19, ink, anchor="mm", bold=True, raqm=ctx.raqm,
                  rtl=ctx.rtl)
        return y + 46

    def pile(self, x: int, top: int, picture: Image.Image | None, card_w: int, card_h: int, outline: Colour,
             empty: str = "") -> None:
        """A pile's top picture (a face or a back), or its outline with `empty` written in it when there is none."""
        if picture is not None:
            self.image.paste(picture, (x, top), picture)
            return
        self.draw.rounded_rectangle((x, top, x + card_w, top + card_h), radius=6, outline=outline, width=2)
        if empty:
            draw_text(self.draw, (x + card_w / 2, top + card_h / 2), empty, 14, outline, anchor="mm",
                      raqm=self.ctx.raqm, rtl=self.ctx.rtl)

    def stock(self, offset: float, label_y: float, top: int, label: str, count: int, back: Image.Image,
              card_h: int, muted: Colour) -> None:
        """The stock `offset` from the start edge: "label: count" above it, a back while it holds cards."""
        card_w = card_base.card_width(card_h)
        self.text(offset, label_y, f"{label}: {count}", 17, muted, bold=True)
        self.pile(round(self.s.left(offset, card_w)), top, back if count else None, card_w, card_h, muted)

    def discard(self, x: int, label_y: float, top: int, label: str, picture: Image.Image | None, card_h: int,
                muted: Colour, ink: Colour, empty: str, count: str) -> None:
        """The discard pile at `x`: its label above, its top card (or `empty` in its outline), `count` below."""
        ctx, middle = self.ctx, x + card_base.card_width(card_h) / 2
        draw_text(self.draw, (middle, label_y), label, 17, muted, anchor="mm", bold=True, raqm=ctx.raqm, rtl=ctx.rtl)
        self.pile(x, top, picture, card_base.card_width(card_h), card_h, muted, empty)
        draw_text(self.draw, (middle, top + card_h + 14), count, 16, ink, anchor="mm", raqm=ctx.raqm, rtl=ctx.rtl)

    def last_move(self, y: int, offset: float, items: list[str | Image.Image], card_h: int, muted: Colour,
                  ink: Colour, size: int = LAST_MOVE_SIZE, gap: int = 6) -> int:
        """"Last move:" then the move as words and small faces `card_h` high; returns the next y."""
        ctx, middle = self.ctx, y + card_h / 2 + 4
        offset = flow(self.image, self.draw, self.s, offset, middle, [f"{ctx.t('last_move')}:"], size, muted,
                      raqm=ctx.raqm)
        room = self.width - offset - 8 - sum(text_width(item, size, raqm=ctx.raqm, rtl=ctx.rtl) + gap
                                             for item in items if isinstance(item, str))
        flow(self.image, self.draw, self.s, offset, middle, fanned(items, room, gap), size, ink, gap=gap,
             raqm=ctx.raqm)
        return y + card_h + 20


def fanned(items: list[str | Image.Image], room: float, gap: int) -> list[str | Image.Image]:
    """`items` with each run of faces overlapped into one fan (left to right, every top-left index showing) when
    the faces side by side would take more than `room` pixels; unchanged when they fit."""
    faces = [item for item in items if isinstance(item, Image.Image)]
    if not faces or sum(face.width + gap for face in faces) <= room:
        return items
    widest = max(face.width for face in faces)
    runs: list[list[Image.Image]] = []
    out: list[str | Image.Image | list[Image.Image]] = []
    for item in items:
        if isinstance(item, Image.Image):
            if not out or not isinstance(out[-1], list):
                runs.append([])
                out.append(runs[-1])
            runs[-1].append(item)
        else:
            out.append(item)
    spare = room - sum(run[-1].width + gap for run in runs)  # each run's last face is shown whole
    steps = sum(len(run) - 1 for run in runs)
    step = max(widest * 0.42, min(widest + gap, spare / max(1, steps)))
    return [_fan(item, step) if isinstance(item, list) else item for item in out]


def _fan(faces: list[Image.Image], step: float) -> Image.Image:
    """Faces overlapped `step` apart, left to right, on a transparent strip."""
    height = max(face.height for face in faces)
    strip = Image.new("RGBA", (round(step * (len(faces) - 1)) + faces[-1].width, height), (0, 0, 0, 0))
    for index, face in enumerate(faces):
        strip.alpha_composite(face.convert("RGBA"), (round(index * step), 0))
    return strip
