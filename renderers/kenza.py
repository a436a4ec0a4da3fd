"""Kenza / Rabaeen pictures: the seat's rack (its hand, numbered like the move buttons) and the shared table.

Codes against the Kenza view of NOTATION.md / the engine: "table", "hand", "hand_sizes", "captured_counts",
"sweeps", "scores" (per team at 4 players: team 0 = seats 0 and 2), "target", "to_move", "last_move", "over",
"winners". Labels are mirrored for right-to-left languages, and so is the numbering of the rack and table cards:
card 1 is where the reader starts (the right in Arabic); each button names its number and card.
"""

from __future__ import annotations

import math
from typing import Any

from PIL import Image, ImageDraw

from renderers import card_base, cards_spanish, palette
from renderers.context import RenderContext
from renderers.layout import Sides, flow
from renderers.text import draw_text, fit, ltr, text_width
from renderers.widgets import LAST_MOVE_SIZE, Sheet, fanned, last_move_of, number_badge, rack_title

FELT = (22, 82, 58)
PANEL = (31, 102, 74)
INK = (246, 244, 236)
MUTED = (214, 234, 222)  # secondary text, still light enough to read at phone size
DARK = (34, 30, 24)
TURN = (250, 198, 70)
WIN = (255, 214, 90)
SIDE_COLOURS = ((240, 138, 66), (86, 168, 240), (206, 120, 224), (120, 214, 120))

RACK_CARD_H = 150
TABLE_CARD_H = 96
MOVE_CARD_H = 66  # the last move's cards: about 40 px high in a picture seen 400 px wide
PAD = 16
TABLE_WIDTH = 640


def _game_name(view: dict[str, Any], ctx: RenderContext) -> str:
    return ctx.t("game.rabaeen" if view.get("variant") == "rabaeen" else "game.kenza")


def _number_badge(draw: ImageDraw.ImageDraw, cx: float, cy: float, n: int, r: int, hot: bool,
                  ctx: RenderContext) -> None:
    number_badge(draw, cx, cy, n, r, hot, ctx, INK, DARK, scale=1.25)


# ---- rack --------------------------------------------------------------------------------------------------


def render_rack(view: dict[str, Any], ctx: RenderContext) -> Image.Image:
    """The seat's hand in a row, each card numbered 1..n under it; selected positions ringed and lifted."""
    hand: list[str] = list(view.get("hand") or [])
    cw, gap, lift, title_h = card_base.card_width(RACK_CARD_H), 12, 10, 44
    row_w = len(hand) * cw + max(0, len(hand) - 1) * gap
    width = max(420, row_w + 2 * PAD)
    height = title_h + lift + RACK_CARD_H + 40
    image = Image.new("RGB", (width, height), FELT)
    draw = ImageDraw.Draw(image)
    sides = Sides(width, ctx.rtl)

    title = f"{_game_name(view, ctx)} · {ctx.t('your_hand')}"
    rack_title(draw, sides, PAD, title_h / 2 + 2, title, view, ctx, INK, TURN, DARK, margin=20)

    if not hand:
        draw_text(draw, (width / 2, title_h + (height - title_h) / 2), ctx.t("no_cards"), 20, MUTED,
                  anchor="mm", raqm=ctx.raqm, rtl=ctx.rtl)
        return image

    left = (width - row_w) // 2
    for i, code in enumerate(hand):
        chosen = i in ctx.selected
        face = cards_spanish.face(code, RACK_CARD_H, chosen)
        x = left + (len(hand) - 1 - i if ctx.rtl else i) * (cw + gap)  # card 1 where the reader starts
        image.paste(face, (x, title_h + (0 if chosen else lift)), face)
        _number_badge(draw, x + cw / 2, title_h + lift + RACK_CARD_H + 20, i + 1, 14, chosen, ctx)
    return image


# ---- table -------------------------------------------------------------------------------------------------


def _sides_of(view: dict[str, Any]) -> list[list[int]]:
    """Seats per scoring side: one per seat, or the two partnerships {0, 2} and {1, 3}."""
    players = int(view.get("players", len(view.get("hand_sizes", [])) or 2))
    if view.get("teams"):
        return [[0, 2], [1, 3]]
    return [[s] for s in range(players)]


def _side_name(side: int, seats: list[int], teams: bool, ctx: RenderContext) -> str:
    if not teams:
        return ctx.name(seats[0])
    members = ctx.t("and").join(ctx.name(s) for s in seats)
    return f"{ctx.t('team', n=side + 1)}: {members}"


def _parse_move(move: str) -> tuple[str, list[str]] | None:
    """(played card, captured cards) from `play C [take C ...]`; None for anything else."""
    tokens = move.split()
    if len(tokens) < 2 or tokens[0] != "play":
        return None
    if len(tokens) == 2:
        played, taken = tokens[1], []
    elif tokens[2] == "take" and len(tokens) > 3:
        played, taken = tokens[1], tokens[3:]
    else:
        return None
    try:
        for code in [played, *taken]:
            cards_spanish.parse(code)
    except ValueError:
        return None
    return played, taken


def _winner_text(view: dict[str, Any], ctx: RenderContext) -> str:
    sides = _sides_of(view)
    teams = bool(view.get("teams"))
    winners = [w for w in view.get("winners") or [] if 0 <= w < len(sides)]
    names = ctx.t("and").join(_side_name(w, sides[w], teams, ctx) for w in winners)
    if not winners:
        return ctx.t("over")
    if view.get("draw") or len(winners) > 1:
        return ctx.t("draw", names=names)
    return ctx.t("winner", names=names)


class _Table(Sheet):
    """One table picture being drawn; sections are stacked top to bottom and each returns the next y."""

    def __init__(self, view: dict[str, Any], ctx: RenderContext):
        self.view = view
        self.cards: list[str] = list(view.get("table") or [])
        self.cw = card_base.card_width(TABLE_CARD_H)
        self.gap = 8
        self.stock_w = self.cw + 2 * PAD
        grid_w = TABLE_WIDTH - 2 * PAD - self.stock_w - PAD
        self.per_row = max(1, (grid_w + self.gap) // (self.cw + self.gap))
        self.rows = max(1, math.ceil(len(self.cards) / self.per_row))
        self.sides = _sides_of(view)
        self.players = int(view.get("players", len(self.sides)))
        self.last = last_move_of(view)

        height = 48 + (46 if view.get("over") else 0)
        height += self._table_h() + 10 + self._players_h() + 10 + self._scores_h()
        height += (MOVE_CARD_H + 22 if self.last else 0) + PAD
        super().__init__(TABLE_WIDTH, height, FELT, ctx)

    def _table_h(self) -> int:
        return 30 + self.rows * (TABLE_CARD_H + 28) + 4

    def _players_h(self) -> int:
        return 28 + 30 * self.players + 6

    def _scores_h(self) -> int:
        return 28 + 28 * len(self.sides) + 6

    # sections

    def header(self, y: int) -> int:
        view, ctx = self.view, self.ctx
        title = f"{_game_name(view, ctx)} · {ctx.t('deal', n=view.get('round', 1))}"
        return self.title_row(y, title, INK, PAD, ctx.t("target", n=view.get("target", "")), 17, MUTED)

    def banner(self, y: int) -> int:
        return self.over_banner(y, _winner_text(self.view, self.ctx), PAD, WIN, DARK)

    def table(self, y: int) -> int:
        ctx, height = self.ctx, self._table_h()
        self.panel(y, height, PANEL, PAD)
        self.text(PAD, y + 15, f"{ctx.t('table')} · {len(self.cards)}", 17, MUTED, bold=True)
        top = y + 30
        # stock at the end edge, the cards from the other edge, always left to right
        stock_left = TABLE_WIDTH - PAD - self.cw - PAD if not self.s.rtl else PAD + PAD
        grid_left = PAD + 4 if not self.s.rtl else stock_left + self.cw + 2 * PAD
        stock = int(self.view.get("stock_size", 0))
        self.pile(stock_left, top, card_base.back(TABLE_CARD_H, "spanish") if stock else None, self.cw, TABLE_CARD_H,
                  MUTED)
        draw_text(self.draw, (stock_left + self.cw / 2, top + TABLE_CARD_H + 14), f"{ctx.t('stock')}: {stock}",
                  16, INK, anchor="mm", raqm=ctx.raqm, rtl=ctx.rtl)
        if not self.cards:
            grid_w = TABLE_WIDTH - self.stock_w - 3 * PAD
            draw_text(self.draw, (grid_left + grid_w / 2, top + TABLE_CARD_H / 2), ctx.t("table_empty"), 18,
                      MUTED, anchor="mm", raqm=ctx.raqm, rtl=ctx.rtl)
        grid_right = grid_left + self.per_row * (self.cw + self.gap) - self.gap
        for i, code in enumerate(self.cards):
            row, col = divmod(i, self.per_row)
            # numbered in reading order: from the right in Arabic, as the rack is
            step = col * (self.cw + self.gap)
            x = grid_right - self.cw - step if self.s.rtl else grid_left + step
            cy = top + row * (TABLE_CARD_H + 28)
            face = cards_spanish.face(code, TABLE_CARD_H, False)
            self.image.paste(face, (x, cy), face)
            _number_badge(self.draw, x + self.cw / 2, cy + TABLE_CARD_H + 13, i + 1, 10, False, ctx)
        return y + height + 10

    def players_panel(self, y: int) -> int:
        view, ctx = self.view, self.ctx
        self.panel(y, self._players_h(), PANEL, PAD)
        cols = {"hand": 355, "captured": 455, "sweeps": 555}
        head = y + 15
        self.text(PAD + 24, head, ctx.t("col.player"), 16, MUTED, bold=True)
        for key, at in cols.items():
            self.text(at, head, ctx.t(f"col.{key}"), 16, MUTED, anchor="mm", bold=True)
        hands, captured = view.get("hand_sizes") or [], view.get("captured_counts") or []
        sweeps = view.get("sweeps") or []
        to_move = None if view.get("over") else view.get("to_move")
        teams = bool(view.get("teams"))
        for seat in range(self.players):
            mid = y + 28 + 30 * seat + 15
            turn = seat == to_move
            ink = DARK if turn else INK
            if turn:
                self.draw.rounded_rectangle(self.s.box(PAD, TABLE_WIDTH - 2 * PAD, mid - 13, mid + 13),
                                            radius=8, fill=TURN)
                tip, base = self.s.x(PAD + 18), self.s.x(PAD + 8)
                self.draw.polygon([(base, mid - 7), (base, mid + 7), (tip, mid)], fill=DARK)
            side = seat % 2 if teams else seat
            chip = SIDE_COLOURS[side % len(SIDE_COLOURS)]
            self.draw.ellipse(self.s.box(PAD + 24, 10, mid - 5, mid + 5), fill=chip)
            name = ctx.name(seat)
            if seat == view.get("dealer"):
                name = f"{name} ({ctx.t('dealer')})"
            self.text(PAD + 40, mid, fit(name, 17, 250, raqm=ctx.raqm, rtl=ctx.rtl), 17, ink,
                      bold=seat == view.get("seat"))
            for key, values in (("hand", hands), ("captured", captured), ("sweeps", sweeps)):
                value = values[seat] if seat < len(values) else "-"
                self.text(cols[key], mid, str(value), 17, ink, anchor="mm", bold=True)
        return y + self._players_h() + 10

    def scores(self, y: int) -> int:
        view, ctx = self.view, self.ctx
        self.panel(y, self._scores_h(), PANEL, PAD)
        target = int(view.get("target") or 0)
        self.text(PAD + 8, y + 15, ctx.t("scores"), 16, MUTED, bold=True)
        scores = view.get("scores") or []
        teams = bool(view.get("teams"))
        bar_at, bar_len = 300, 210
        for side, seats in enumerate(self.sides):
            mid = y + 28 + 28 * side + 14
            score = int(scores[side]) if side < len(scores) else 0
            colour = SIDE_COLOURS[side % len(SIDE_COLOURS)]
            self.draw.ellipse(self.s.box(PAD + 8, 10, mid - 5, mid + 5), fill=colour)
            label = fit(_side_name(side, seats, teams, ctx), 16, bar_at - PAD - 36, raqm=ctx.raqm, rtl=ctx.rtl)
            self.text(PAD + 24, mid, label, 16, INK)
            self.draw.rounded_rectangle(self.s.box(bar_at, bar_len, mid - 6, mid + 6), radius=6, fill=FELT)
            done = bar_len * min(1.0, score / target) if target > 0 else 0
            if done >= 1:
                self.draw.rounded_rectangle(self.s.box(bar_at, done, mid - 6, mid + 6), radius=6, fill=colour)
            self.text(bar_at + bar_len + 12, mid, f"{score} / {target}", 16, INK, bold=True, rtl=False)
        return y + self._scores_h() + 10

    def last_move(self, y: int) -> int:
        if not self.last:
            return y
        ctx = self.ctx
        seat = int(self.last.get("seat", 0))
        mid = y + (MOVE_CARD_H + 12) / 2
        size = LAST_MOVE_SIZE
        offset = flow(self.image, self.draw, self.s, PAD + 8, mid, [f"{ctx.t('last_move')}:"], size, MUTED,
                      raqm=ctx.raqm)
        parsed = _parse_move(str(self.last["move"]))
        name = ctx.t("played", name=ctx.name(seat))
        if parsed is None:
            flow(self.image, self.draw, self.s, offset, mid, [f"{ctx.name(seat)}: {ltr(str(self.last['move']))}"],
                 size, INK, raqm=ctx.raqm)
            return y + MOVE_CARD_H + 22
        played, taken = parsed
        items: list[str | Image.Image] = [name, cards_spanish.face(played, MOVE_CARD_H, False)]
        if taken:
            items.append(ctx.t("took"))
            items.extend(cards_spanish.face(code, MOVE_CARD_H, False) for code in taken)
        room = TABLE_WIDTH - offset - 8 - sum(text_width(item, size, raqm=ctx.raqm, rtl=ctx.rtl) + 5
                                             for item in items if isinstance(item, str))
        flow(self.image, self.draw, self.s, offset, mid, fanned(items, room, 5), size, INK, gap=5, raqm=ctx.raqm)
        return y + MOVE_CARD_H + 22


def render_table(view: dict[str, Any], ctx: RenderContext) -> Image.Image:
    """Table cards (numbered in table order), stock, each seat's counts, scores against the target, whose turn,
    the last move with its cards, and the winner once the match is over."""
    table = _Table(view, ctx)
    y = table.table(table.heading(bool(view.get("over"))))
    y = table.players_panel(y)
    y = table.scores(y)
    table.last_move(y)
    return table.image


# ---- fixed palette -----------------------------------------------------------------------------------------


def _sample_views() -> list[dict[str, Any]]:
    """Views that between them draw every colour: four sides (each chip colour), a turn row, a capture as the
    last move, the stock's back and an empty stock, and a finished match's banner."""
    base = {
        "game": "kenza", "variant": "kenza", "target": 151, "players": 4, "teams": False, "seat": 1,
        "dealer": 3, "to_move": 1, "round": 3, "hand": ["1O", "12C", "7E"], "hand_sizes": [3, 3, 2, 2],
        "table": ["4C", "5E", "10B", "1O", "3O", "11E", "6B"], "stock_size": 12, "captured_counts": [4, 9, 0, 2],
        "sweeps": [0, 1, 0, 0], "scores": [40, 151, 0, 90], "last_move": {"seat": 0, "move": "play 6B take 4O 2C"},
        "last_capturer": 0, "over": False, "winners": [],
    }
    over = dict(base, players=2, hand_sizes=[0, 0], captured_counts=[20, 20], sweeps=[2, 1], scores=[160, 90],
                stock_size=0, table=[], over=True, to_move=None, winners=[0], last_move={"seat": 1, "move": "play 2B"})
    return [base, over]


def _palette_samples() -> list[Image.Image]:
    """Sample tables and racks (both languages, every rack card plain and selected) and every face, plain and
    selected, at the table's card size (which also warms the face cache for the first real tables)."""
    pictures = []
    for view in _sample_views():
        for lang in ("en", "ar"):
            pictures.append(render_table(view, RenderContext(lang=lang)))
    # the rack's large faces blend the ring and the court tints into shades the table size does not have
    rack = dict(_sample_views()[0], hand=["1O", "7C", "12E", "11B", "10O", "12C", "11E", "10B"])
    for lang, first in (("en", 0), ("ar", 1)):
        pictures.append(render_rack(rack, RenderContext(lang=lang, selected=frozenset(range(first, 8, 2)))))
    return [*pictures, *palette.face_samples(cards_spanish.face, cards_spanish.CODES, TABLE_CARD_H,
                                             card_base.back(TABLE_CARD_H, "spanish"))]


PALETTE = palette.Spec(
    _palette_samples, FELT, (FELT, PANEL, INK, MUTED, DARK, TURN, WIN, *SIDE_COLOURS, *cards_spanish.KEY_COLOURS)
)
