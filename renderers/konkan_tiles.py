"""Konkan tiles pictures: the seat's rack (tiles numbered like the picker's buttons, an optional auto-arranged
order with its melds grouped, the grouped value counter, red in Konkan mode) and the table (draw pile with its
count and the reshuffles left, the discard, the indicator and the round's joker, every seat's tiles / opened total /
Konkan / eliminated markers, numbered melds with locked ends marked, team scores, the last move and round).

Codes against the engine's Konkan-tiles view: "hand", "joker", "indicator", "melds" ({number, seat, kind, cards,
locked, value}), "opened", "konkan", "eliminated", "minimum", "hand_sizes", "stock_size", "reshuffles_left",
"discard_top", "discard_size", "take_from", "captain", "to_move", "phase", "finish", "must_finish", "opening",
"scores", "round", "rounds", "decider", "forced", "mode", "rules", "last_move", "ghosts", "last_round", "over",
"winners", "draw". Tile rows always run left to right (their numbers match the buttons); labels mirror in Arabic.
A view may carry "arranged": true to draw the rack in `arrange()` order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from engine.konkan_tiles import melds as M
from engine.konkan_tiles.tiles import tile_key
from renderers import card_base, palette
from renderers.card_base import SCALE
from renderers.context import RenderContext
from renderers.layout import Sides
from renderers.text import draw_text, fit, ltr, text_width
from renderers.widgets import LAST_MOVE_SIZE, Sheet, last_move_of, number_badge, pack_cells, rack_title, start_pill

FELT = (22, 78, 62)
PANEL = (30, 98, 80)
PANEL_TURN = (44, 118, 98)
INK = (246, 244, 236)
MUTED = (214, 236, 226)  # secondary text, still light enough to read at phone size
DARK = (34, 30, 24)
TURN = (250, 198, 70)
WIN = (255, 214, 90)
KONKAN = (214, 48, 56)
COUNTER = (40, 150, 110)
GHOST = (110, 116, 120)
LOCK = (255, 186, 40)
IVORY = (250, 246, 232, 255)
TILE_INK = {"R": (206, 34, 42), "K": (28, 28, 32), "B": (28, 92, 204), "Y": (222, 150, 0)}
FALSE_GREEN = (22, 122, 88)
STAR = (236, 170, 20)
TEAM_COLOURS = ((240, 138, 66), (96, 170, 250))

PAD = 16
TABLE_W = 760
RACK_TILE_H = 84
RACK_PER_ROW = 8
RACK_MIN_W = 600
PILE_TILE_H = 70
MELD_TILE_H = 50
SMALL_TILE_H = 52  # the last move's tiles: about 28 px high in a picture seen 400 px wide
MELD_HEAD_SIZE = 15
GROUP_GAP = 16


# ---- tile faces --------------------------------------------------------------------------------------------------
@lru_cache(maxsize=1024)
def face(code: str, height: int, selected: bool = False, wild: bool = False) -> Image.Image:
    """One tile: its number in its colour over a dot, as printed tiles are; the false joker has its own rosette;
    the round's real joker (`wild`) carries a gold star."""
    sheet = card_base.blank(height, selected, paper=IVORY)
    d, w, h = sheet.draw, sheet.w, sheet.h
    if code == "F":
        cx, cy, r = w / 2, h / 2, w * 0.34
        for k in range(8):
            angle = k * math.pi / 4
            x, y = cx + r * 0.55 * math.cos(angle), cy + r * 0.55 * math.sin(angle)
            d.ellipse((x - r * 0.42, y - r * 0.42, x + r * 0.42, y + r * 0.42), fill=FALSE_GREEN)
        d.ellipse((cx - r * 0.5, cy - r * 0.5, cx + r * 0.5, cy + r * 0.5), fill=IVORY[:3])
        d.ellipse((cx - r * 0.28, cy - r * 0.28, cx + r * 0.28, cy + r * 0.28), fill=FALSE_GREEN)
        return card_base.finish(sheet, selected)
    colour = TILE_INK.get(code[0], (0, 0, 0))
    number = code[1:]
    size = round(h * (0.42 if len(number) == 1 else 0.36))
    draw_text(d, (w / 2, h * 0.38), number, size, colour, anchor="mm", bold=True)
    r = w * 0.11
    d.ellipse((w / 2 - r, h * 0.74 - r, w / 2 + r, h * 0.74 + r), fill=colour)
    if wild:
        _star(d, w * 0.8, h * 0.13, w * 0.15, STAR)
    return card_base.finish(sheet, selected)


def _star(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float, fill: tuple) -> None:
    points = []
    for k in range(10):
        radius = r if k % 2 == 0 else r * 0.45
        angle = -math.pi / 2 + k * math.pi / 5
        points.append((cx + radius * math.cos(angle), cy + radius * math.sin(angle)))
    d.polygon(points, fill=fill)


def _cell_face(cell: str, height: int, joker: str | None, selected: bool = False) -> Image.Image:
    tile = cell.split(":", 1)[0]
    return face(tile, height, selected, wild=joker is not None and tile == joker)


@lru_cache(maxsize=8)
def _back(height: int) -> Image.Image:
    sheet = card_base.blank(height, paper=(236, 226, 196, 255))
    d, w, h = sheet.draw, sheet.w, sheet.h
    m = round(w * 0.14)
    d.rounded_rectangle((m, m, w - m, h - m), radius=sheet.radius, outline=(180, 150, 90, 255), width=2 * SCALE)
    return card_base.finish(sheet, False)


def tile_width(height: int) -> int:
    return card_base.card_width(height)


# ---- auto-arrange ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Arrangement:
    """Rack positions grouped into melds (each in meld order), the loose ones, and the grouped tiles' value."""

    groups: tuple[tuple[int, ...], ...]
    loose: tuple[int, ...]
    value: int

    @property
    def order(self) -> list[int]:
        return [p for group in self.groups for p in group] + list(self.loose)


def arrange(hand: list[str], joker: str | None) -> Arrangement:
    """Group a rack into its highest-valued melds (the rack's one-press auto-arrange); loose tiles follow in
    colour-and-number order. Positions refer to `hand` as given, so button numbers stay valid."""
    value, shapes = M.best_opening(tuple(sorted(hand, key=tile_key)), joker, None, 0)
    free = list(range(len(hand)))
    groups = []
    for shape in sorted(shapes, key=lambda s: [tile_key(t) for t in s.tiles]):
        group = []
        for tile in shape.tiles:
            position = next(p for p in free if hand[p] == tile)
            free.remove(position)
            group.append(position)
        groups.append(tuple(group))
    loose = tuple(sorted(free, key=lambda p: (tile_key(hand[p]), p)))
    return Arrangement(tuple(groups), loose, value)


# ---- shared drawing ---------------------------------------------------------------------------------------------
def _title(ctx: RenderContext) -> str:
    return ctx.t("kt.game")


def _mode_text(view: dict[str, Any], ctx: RenderContext) -> str:
    mode = ctx.t(f"kt.mode.{view.get('mode', 'quick')}")
    if view.get("rules") == "sulaymaniyah" and view.get("mode") != "sulaymaniyah":
        mode += f" · {ctx.t('kt.mode.sulaymaniyah')}"
    return mode


def _side_seats(view: dict[str, Any]) -> list[list[int]]:
    teams = view.get("teams")
    if isinstance(teams, list) and teams:
        return [list(seats) for seats in teams]
    return [[0, 2], [1, 3]] if int(view.get("players", 4)) == 4 else [[0], [1]]


def _side_name(side: int, ctx: RenderContext, seats: list[int]) -> str:
    if len(seats) > 1:
        return ctx.t("team", n=side + 1)
    return ctx.name(seats[0])


# ---- rack -------------------------------------------------------------------------------------------------------
def render_rack(view: dict[str, Any], ctx: RenderContext) -> Image.Image:
    """The seat's tiles in rows of up to eight, tile i numbered i+1; arranged views group the melds."""
    hand: list[str] = list(view.get("hand") or [])
    joker = view.get("joker")
    seat = view.get("seat")
    plan = arrange(hand, joker)
    arranged = bool(view.get("arranged"))
    order = plan.order if arranged else list(range(len(hand)))
    group_of = {p: i for i, group in enumerate(plan.groups) for p in group} if arranged else {}
    tw = tile_width(RACK_TILE_H)
    step = tw + 6
    rows: list[list[int]] = []
    for p in order:
        if not rows or len(rows[-1]) >= RACK_PER_ROW:
            rows.append([])
        rows[-1].append(p)

    def row_width(row: list[int]) -> int:
        gaps = sum(1 for a, b in zip(row, row[1:], strict=False) if group_of.get(a, -1) != group_of.get(b, -2))
        return len(row) * step - 6 + gaps * GROUP_GAP if row else 0

    widest = max((row_width(row) for row in rows), default=0)
    width = max(RACK_MIN_W, widest + 2 * PAD)
    konkan = bool(seat is not None and (view.get("konkan") or [False] * 4)[seat])
    lines = _rack_notes(view, ctx)
    lift, badge_h, title_h, info_h = 10, 30, 46, 56
    row_h = lift + RACK_TILE_H + badge_h
    height = title_h + info_h + max(1, len(rows)) * row_h + 10 + 26 * len(lines)
    image = Image.new("RGB", (width, height), FELT)
    draw = ImageDraw.Draw(image)
    sides = Sides(width, ctx.rtl)
    title = f"{_title(ctx)} · {ctx.t('kt.your_tiles')} ({len(hand)})"
    rack_title(draw, sides, PAD, title_h / 2 + 2, title, view, ctx, INK, TURN, DARK, margin=16)
    # indicator and joker, the opening status, and the grouped-value counter
    mid = title_h + info_h / 2 - 4
    offset = PAD
    for label, code, wild in ((ctx.t("kt.indicator"), view.get("indicator"), False),
                              (ctx.t("kt.joker"), joker, True)):
        if not code:
            continue
        draw_text(draw, (sides.x(offset), mid), label, 15, MUTED, anchor=sides.anchor("lm"), raqm=ctx.raqm,
                  rtl=ctx.rtl)
        offset += text_width(label, 15, raqm=ctx.raqm, rtl=ctx.rtl) + 6
        tile = face(code, SMALL_TILE_H, False, wild)
        x = sides.x(offset + tile.width) if ctx.rtl else sides.x(offset)
        image.paste(tile, (round(x), round(mid - SMALL_TILE_H / 2)), tile)
        offset += tile.width + 14
    status = _status_text(view, seat, ctx)
    if status:
        draw_text(draw, (sides.x(offset + 6), mid), fit(status, 15, width - offset - 130, raqm=ctx.raqm,
                  rtl=ctx.rtl), 15, INK, anchor=sides.anchor("lm"), raqm=ctx.raqm, rtl=ctx.rtl)
    r = 22
    cx = sides.x(width - PAD - r)
    draw.ellipse((cx - r, mid - r, cx + r, mid + r), fill=KONKAN if konkan else COUNTER, outline=INK, width=2)
    draw_text(draw, (cx, mid), str(plan.value), 17, INK, anchor="mm", bold=True, raqm=ctx.raqm)
    label = ctx.t("kt.grouped")
    draw_text(draw, (sides.x(width - PAD - 2 * r - 8), mid), label, 15, MUTED, anchor=sides.anchor("rm"),
              raqm=ctx.raqm, rtl=ctx.rtl)
    y = title_h + info_h
    if not hand:
        draw_text(draw, (width / 2, y + row_h / 2), ctx.t("kt.no_tiles"), 20, MUTED, anchor="mm", raqm=ctx.raqm,
                  rtl=ctx.rtl)
    for row in rows or [[]]:
        x = (width - row_width(row)) / 2
        # numbered in reading order: tile 1 on the right in Arabic, as the other racks are
        row = list(reversed(row)) if ctx.rtl else row
        for i, p in enumerate(row):
            if i and group_of.get(row[i - 1], -1) != group_of.get(p, -2):
                x += GROUP_GAP
            chosen = p in ctx.selected
            tile = face(hand[p], RACK_TILE_H, chosen, wild=joker is not None and hand[p] == joker)
            image.paste(tile, (round(x), round(y + (0 if chosen else lift))), tile)
            if p in group_of:
                draw.line((x, y + lift + RACK_TILE_H + 3, x + tw, y + lift + RACK_TILE_H + 3),
                          fill=KONKAN if konkan else TURN, width=3)
            number_badge(draw, x + tw / 2, y + lift + RACK_TILE_H + badge_h / 2 + 2, p + 1, 12, chosen, ctx, INK, DARK,
                         scale=1.15)
            x += step
        y += row_h
    y += 6
    for text, colour in lines:
        draw_text(draw, (sides.x(PAD), y + 12), fit(text, 16, width - 2 * PAD, bold=True, raqm=ctx.raqm,
                  rtl=ctx.rtl), 16, colour, anchor=sides.anchor("lm"), bold=True, raqm=ctx.raqm, rtl=ctx.rtl)
        y += 26
    return image


def _status_text(view: dict[str, Any], seat: int | None, ctx: RenderContext) -> str:
    if seat is None:
        return ""
    if (view.get("eliminated") or [False] * 4)[seat]:
        return ctx.t("kt.eliminated")
    if (view.get("konkan") or [False] * 4)[seat]:
        return ctx.t("kt.konkan_mode")
    opened = (view.get("opened") or [None] * 4)[seat]
    if opened is not None:
        return ctx.t("kt.opened_with", n=opened)
    minimum = (view.get("minimum") or [0] * 4)[seat]
    return ctx.t("kt.minimum", n=minimum)


def _rack_notes(view: dict[str, Any], ctx: RenderContext) -> list[tuple[str, tuple]]:
    notes: list[tuple[str, tuple]] = []
    seat = view.get("seat")
    if view.get("to_move") != seat:
        return notes
    finish = view.get("finish")
    if finish:
        notes.append((ctx.t("kt.locks", done=finish["locks_done"], need=finish["locks_needed"]), TURN))
    if view.get("must_finish"):
        notes.append((ctx.t("kt.must_finish"), KONKAN))
    if view.get("opening"):
        notes.append((ctx.t("kt.opening_progress", n=view["opening"],
                            need=(view.get("minimum") or [0] * 4)[seat]), TURN))
    if view.get("phase") == "option":
        notes.append((ctx.t("kt.option"), TURN))
    return notes


# ---- table ------------------------------------------------------------------------------------------------------
def _meld_width(meld: dict[str, Any]) -> int:
    return 8 + len(meld.get("cards") or []) * (tile_width(MELD_TILE_H) + 2) + 8


def _meld_head(meld: dict[str, Any], ctx: RenderContext) -> tuple[str, str, str]:
    """A meld cell's head line: its number, its owner, its value."""
    return f"#{meld.get('number')}", ctx.name(meld.get("seat", 0)), str(meld.get("value", ""))


def _meld_cell_width(meld: dict[str, Any], ctx: RenderContext) -> int:
    """As wide as its tiles, and as its head line with the owner's whole name (a 3-tile cell cut "Bot 2 (n…")."""
    number, owner, value = _meld_head(meld, ctx)
    head = sum(text_width(text, MELD_HEAD_SIZE, bold=bold, raqm=ctx.raqm)
               for text, bold in ((number, True), (owner, False), (value, True)))
    return round(max(90, _meld_width(meld), head + 40))


MELD_CELL_H = 24 + MELD_TILE_H + 10


class _Table(Sheet):
    def __init__(self, view: dict[str, Any], ctx: RenderContext):
        self.view = view
        self.players = int(view.get("players", 4))
        self.cells = pack_cells(list(view.get("melds") or []), lambda meld: _meld_cell_width(meld, ctx), PAD,
                                TABLE_W, 8)
        rows = self.cells[-1][1] + 1 if self.cells else 0
        self.melds_h = 34 + (rows * (MELD_CELL_H + 8) if rows else 30)
        self.last = last_move_of(view)
        height = 48 + (46 if view.get("over") else 0) + 150 + 10 + (34 + 30 * self.players) + 10
        height += self.melds_h + 10 + 30 + (SMALL_TILE_H + 16 if self.last else 0)
        height += 26 if view.get("last_round") else 0
        height += 26 if view.get("ghosts") else 0
        super().__init__(TABLE_W, height + PAD, FELT, ctx)

    def paste(self, image: Image.Image, offset: float, top: float) -> None:
        x = self.s.left(offset, image.width)
        self.image.paste(image, (round(x), round(top)), image)

    def header(self, y: int) -> int:
        view, ctx = self.view, self.ctx
        rnd = view.get("round", 1)
        head = ctx.t("kt.decider") if view.get("decider") else ctx.t("kt.round", n=rnd, of=view.get("rounds", ""))
        return self.title_row(y, f"{_title(ctx)} · {head}", INK, PAD, _mode_text(view, ctx), 16, MUTED)

    def banner(self, y: int) -> int:
        view, ctx = self.view, self.ctx
        sides = _side_seats(view)
        winners = [w for w in view.get("winners") or [] if 0 <= w < len(sides)]
        names = ctx.t("and").join(_side_name(w, ctx, sides[w]) for w in winners)
        text = ctx.t("draw", names=names) if view.get("draw") else (ctx.t("winner", names=names) if names
                                                                       else ctx.t("over"))
        return self.over_banner(y, text, PAD, WIN, DARK)

    def centre(self, y: int) -> int:
        """Draw pile, discard, indicator and joker; whose turn."""
        view, ctx = self.view, self.ctx
        h = 150
        self.panel(y, h, PANEL, PAD)
        tw = tile_width(PILE_TILE_H)
        top = y + 30
        spots = [PAD + 14, PAD + 14 + tw + 60, PAD + 14 + 2 * (tw + 60), PAD + 14 + 3 * (tw + 60)]
        stock = int(view.get("stock_size", 0))
        self.text(spots[0], y + 14, ctx.t("kt.pile"), 16, MUTED, bold=True)
        if stock:
            self.paste(_back(PILE_TILE_H), spots[0], top)
        self.text(spots[0], top + PILE_TILE_H + 16, ctx.t("kt.tiles", n=stock), 16, INK)
        self.text(spots[0], top + PILE_TILE_H + 37, ctx.t("kt.reshuffles", n=view.get("reshuffles_left", 0)), 15,
                  MUTED)
        self.text(spots[1], y + 14, ctx.t("kt.discard"), 16, MUTED, bold=True)
        top_tile = view.get("discard_top")
        if top_tile:
            self.paste(face(top_tile, PILE_TILE_H, False, top_tile == view.get("joker")), spots[1], top)
        self.text(spots[1], top + PILE_TILE_H + 16, ctx.t("kt.tiles", n=view.get("discard_size", 0)), 16, INK)
        for spot, key, code, wild in ((spots[2], "kt.indicator", view.get("indicator"), False),
                                      (spots[3], "kt.joker", view.get("joker"), True)):
            self.text(spot, y + 14, ctx.t(key), 16, MUTED, bold=True)
            if code:
                self.paste(face(code, PILE_TILE_H, False, wild), spot, top)
        to_move = view.get("to_move")
        if not view.get("over") and to_move is not None:
            phase = view.get("phase")
            key = "kt.to_choose" if phase == "option" else "kt.to_play"
            self.text(TABLE_W - PAD - 8, y + h / 2 - 12, fit(ctx.t(key, name=ctx.name(to_move)), 17, 320,
                      bold=True, raqm=ctx.raqm, rtl=ctx.rtl), 17, TURN, anchor="rm", bold=True)
            finish = view.get("finish")
            if finish:
                self.text(TABLE_W - PAD - 8, y + h / 2 + 16, ctx.t("kt.locks", done=finish["locks_done"],
                          need=finish["locks_needed"]), 14, INK, anchor="rm")
        return y + h + 10

    def seats(self, y: int) -> int:
        view, ctx = self.view, self.ctx
        h = 34 + 30 * self.players
        self.panel(y, h, PANEL, PAD)
        cols = (PAD + 30, PAD + 260, PAD + 340)
        self.text(cols[0], y + 16, ctx.t("col.player"), 16, MUTED, bold=True)
        self.text(cols[1], y + 16, ctx.t("kt.col.tiles"), 16, MUTED, bold=True)
        self.text(cols[2], y + 16, ctx.t("kt.col.state"), 16, MUTED, bold=True)
        sizes = view.get("hand_sizes") or []
        opened = view.get("opened") or [None] * self.players
        konkan = view.get("konkan") or [False] * self.players
        out = view.get("eliminated") or [False] * self.players
        minimum = view.get("minimum") or [0] * self.players
        for seat in range(self.players):
            mid = y + 34 + 30 * seat + 14
            if seat == view.get("to_move") and not view.get("over"):
                self.draw.rounded_rectangle(self.s.box(PAD, TABLE_W - 2 * PAD, mid - 13, mid + 13), radius=8,
                                            fill=PANEL_TURN, outline=TURN, width=2)
            colour = TEAM_COLOURS[seat % 2]
            self.draw.ellipse(self.s.box(PAD + 8, 12, mid - 6, mid + 6), fill=colour)
            name = fit(ctx.name(seat), 16, 200, bold=True, raqm=ctx.raqm)
            self.text(cols[0], mid, name, 16, INK, bold=True)
            if seat == view.get("captain"):
                at = cols[0] + text_width(name, 16, bold=True, raqm=ctx.raqm) + 14
                _star(self.draw, self.s.x(at), mid, 8, STAR)
            self.text(cols[1], mid, str(sizes[seat] if seat < len(sizes) else "?"), 16, INK, rtl=False)
            if out[seat]:
                self._mark(cols[2], mid, ctx.t("kt.eliminated"), GHOST)
            elif konkan[seat]:
                self._mark(cols[2], mid, ctx.t("kt.konkan_mode"), KONKAN)
            elif opened[seat] is not None:
                self.text(cols[2], mid, ctx.t("kt.opened_with", n=opened[seat]), 17, INK)
            else:
                self.text(cols[2], mid, ctx.t("kt.minimum", n=minimum[seat]), 17, MUTED)
        return y + h + 10

    def _mark(self, offset: float, mid: float, text: str, fill: tuple) -> None:
        start_pill(self.draw, self.s, offset, mid, text, 14, fill, INK, self.ctx, 16)

    def melds(self, y: int) -> int:
        view, ctx = self.view, self.ctx
        self.text(PAD, y + 14, ctx.t("kt.melds"), 17, MUTED, bold=True)
        top = y + 34
        if not self.cells:
            self.text(PAD + 8, top + 12, ctx.t("kt.no_melds"), 17, MUTED)
        joker = view.get("joker")
        tw = tile_width(MELD_TILE_H)
        for meld, row, offset, width in self.cells:
            cell_top = top + row * (MELD_CELL_H + 8)
            box = self.s.box(offset, width, cell_top, cell_top + MELD_CELL_H)
            self.draw.rounded_rectangle(box, radius=8, fill=PANEL, outline=TEAM_COLOURS[meld.get("seat", 0) % 2],
                                        width=2)
            left = box[0] + 8
            number, owner, value = _meld_head(meld, ctx)
            size = MELD_HEAD_SIZE
            draw_text(self.draw, (left, cell_top + 12), number, size, TURN, anchor="lm", bold=True, raqm=ctx.raqm)
            draw_text(self.draw, (box[2] - 8, cell_top + 12), value, size, INK, anchor="rm", bold=True, raqm=ctx.raqm)
            room = width - 32 - text_width(number, size, bold=True) - text_width(value, size, bold=True)
            owner = fit(owner, size, room, raqm=ctx.raqm)
            draw_text(self.draw, ((box[0] + box[2]) / 2, cell_top + 12), owner, size, MUTED, anchor="mm",
                      raqm=ctx.raqm)
            cards = list(meld.get("cards") or [])
            tiles_top = cell_top + 24
            for i, cell in enumerate(cards):
                tile = _cell_face(cell, MELD_TILE_H, joker)
                self.image.paste(tile, (round(left + i * (tw + 2)), round(tiles_top)), tile)
            locked = meld.get("locked") or [False, False]
            for index, flag in enumerate(locked):
                if not flag:
                    continue
                x = left - 5 if index == 0 else left + len(cards) * (tw + 2) + 1
                self.draw.rectangle((x, tiles_top - 2, x + 3, tiles_top + MELD_TILE_H + 2), fill=LOCK)
                _padlock(self.draw, x + 1.5, tiles_top + MELD_TILE_H + 6)
        return top + (self.melds_h - 34) + 10

    def scores(self, y: int) -> int:
        view, ctx = self.view, self.ctx
        sides = _side_seats(view)
        scores = view.get("scores") or [0, 0]
        offset = PAD
        self.text(offset, y + 14, f"{ctx.t('scores')}:", 16, MUTED, bold=True)
        offset += text_width(f"{ctx.t('scores')}:", 16, bold=True, raqm=ctx.raqm, rtl=ctx.rtl) + 12
        for side, seats in enumerate(sides):
            colour = TEAM_COLOURS[side % 2]
            self.draw.ellipse(self.s.box(offset, 12, y + 8, y + 20), fill=colour)
            offset += 18
            name = _side_name(side, ctx, seats)
            self.text(offset, y + 14, name, 16, INK, bold=True)
            offset += text_width(name, 16, bold=True, raqm=ctx.raqm, rtl=ctx.rtl) + 8
            value = str(scores[side] if side < len(scores) else 0)
            self.text(offset, y + 14, value, 16, INK, bold=True, rtl=False)
            offset += text_width(value, 16, bold=True, raqm=ctx.raqm) + 24
        return y + 30

    def footer(self, y: int) -> int:
        view, ctx = self.view, self.ctx
        last_round = view.get("last_round")
        if isinstance(last_round, dict):
            kind = last_round.get("kind", "")
            finisher = last_round.get("finisher")
            points = last_round.get("points") or [0, 0]
            if finisher is None:
                text = ctx.t("kt.round_void", n=last_round.get("round", ""))
            else:
                text = ctx.t(f"kt.finish.{kind}", name=ctx.name(finisher), n=last_round.get("round", ""),
                             points=ltr(f"+{max(points)}"))
            self.text(PAD, y + 12, fit(text, 17, TABLE_W - 2 * PAD, raqm=ctx.raqm, rtl=ctx.rtl), 17, MUTED)
            y += 26
        ghosts = view.get("ghosts") or []
        if ghosts:
            names = ctx.t("and").join(dict.fromkeys(ctx.name(g["seat"]) for g in ghosts))
            self.text(PAD, y + 12, fit(ctx.t("kt.ghosts", names=names), 17, TABLE_W - 2 * PAD, raqm=ctx.raqm,
                      rtl=ctx.rtl), 17, MUTED)
            y += 26
        if self.last:
            mid = y + SMALL_TILE_H / 2 + 4
            words = str(self.last.get("move", "")).split()
            text = f"{ctx.t('last_move')}: {ctx.name(int(self.last.get('seat', 0)))} · {_move_words(words, ctx)}"
            self.text(PAD, mid, fit(text, LAST_MOVE_SIZE, 400, raqm=ctx.raqm, rtl=ctx.rtl), LAST_MOVE_SIZE, INK)
            offset = PAD + min(410, text_width(text, LAST_MOVE_SIZE, raqm=ctx.raqm, rtl=ctx.rtl) + 10)
            for word in [w for w in words[1:] if w not in ("|", "to", "for", "left", "right") and not w.isdigit()][:10]:
                try:
                    tile = _cell_face(word, SMALL_TILE_H, view.get("joker"))
                except (ValueError, KeyError):
                    continue
                self.paste(tile, offset, mid - SMALL_TILE_H / 2)
                offset += tile.width + 3
            y += SMALL_TILE_H + 16
        return y


def _move_words(words: list[str], ctx: RenderContext) -> str:
    if not words:
        return ""
    verb = words[0]
    if verb in ("add", "swap", "lock") and len(words) >= 3:
        at = next((w for w in words if w.isdigit()), "")
        return ctx.t(f"kt.lm.{verb}", n=at)
    if verb == "option" and len(words) == 2:
        return ctx.t(f"kt.lm.option_{words[1]}")
    return ctx.t(f"kt.lm.{verb}") if verb in ("draw", "take", "meld", "discard", "finish") else " ".join(words)


def _padlock(d: ImageDraw.ImageDraw, cx: float, cy: float) -> None:
    d.arc((cx - 4, cy - 8, cx + 4, cy), 180, 360, fill=LOCK, width=2)
    d.rectangle((cx - 5, cy - 3, cx + 5, cy + 5), fill=LOCK)


def render_table(view: dict[str, Any], ctx: RenderContext) -> Image.Image:
    """Header, winner banner once over, the centre (piles, indicator, joker), seats, melds, scores, footer."""
    table = _Table(view, ctx)
    y = table.centre(table.heading(bool(view.get("over"))))
    y = table.seats(y)
    y = table.melds(y)
    y = table.scores(y)
    table.footer(y)
    return table.image


# ---- fixed palette -----------------------------------------------------------------------------------------------
def _sample_views() -> list[dict[str, Any]]:
    """Views that between them draw every colour: Konkan and eliminated seats, a locked run, both jokers, a
    finish in progress, a turn highlight, and a finished match with its banner."""
    import engine

    game = engine.get("konkan_tiles")
    run = ["B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9", "B10", "B11"]
    state = game.new(4, {}, layout={
        "indicator": "Y5", "stock": ["B5", "R1"], "discard": ["K4"], "captain": 0,
        "hands": [run + ["R12", "K12", "Y4", "K10", "F"], ["R2", "K3"], ["R3", "K4", "F"], ["R6", "K6"]],
        "konkan": [True, False, False, False], "eliminated": [False, False, False, True],
        "melds": [{"seat": 1, "cards": ["K7", "K8", "K9"]}, {"seat": 2, "cards": ["R11", "K11", "Y4"]}],
    })
    state = game.apply(state, 0, "meld B2 B3 B4 B5 B6 B7 B8 B9 B10 B11 | R12 K12 Y4:B12")
    state = game.apply(state, 0, "lock K10 to 1 right")
    rack = dict(game.view(state, 0), arranged=True)
    over = dict(game.view(state, None), over=True, winners=[0], phase="over", to_move=None)
    return [rack, game.view(state, None), over]


def _palette_samples() -> list[Image.Image]:
    pictures = []
    for view in _sample_views():
        for lang in ("en", "ar"):
            ctx = RenderContext(lang=lang, selected=frozenset({0, 3}))
            pictures.append(render_table(view, ctx))
            if view.get("hand"):
                pictures.append(render_rack(view, ctx))
    codes = [f"{c}{n}" for c in "RKBY" for n in range(1, 14)] + ["F"]
    faces = [face(code, MELD_TILE_H, chosen, wild) for code in codes for chosen in (False, True)
             for wild in (False, True)]
    return [*pictures, *faces, _back(MELD_TILE_H)]


PALETTE = palette.Spec(
    _palette_samples, FELT,
    (FELT, PANEL, PANEL_TURN, INK, MUTED, DARK, TURN, WIN, KONKAN, COUNTER, GHOST, LOCK, IVORY[:3],
     *TILE_INK.values(), FALSE_GREEN, STAR, *TEAM_COLOURS, *card_base.KEY_COLOURS),
)
