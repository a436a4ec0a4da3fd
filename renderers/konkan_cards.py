"""Konkan (cards) pictures: the seat's rack (numbered like the picker's buttons, with its opening status, a taken
card to meld and the commit hint) and the table (round of five, stock with the reshuffles left, the discard pile's
top card, one panel per player with opened / not-opened and committed-Konkan markers and that player's melds,
numbered as the move strings number them, then the last round and the last move).

Reads the engine's Konkan view: "hand", "hand_sizes", "melds" ({number, seat, kind, cards}), "opened",
"committed", "can_commit", "must_use", "minimum", "variant", "round", "rounds", "final_round", "dealer", "turn",
"to_move", "phase", "stock_size", "reshuffles_left", "discard_top", "pile_size", "scores", "last_round",
"last_move", "over", "winners", "konkan_winner", and from the chat layout "order" and "selection_total" (what the
selected and staged melds are worth towards the opening minimum). A joker in a run is drawn as the joker with the
card it stands for written under it. Card rows run left to right (their numbers match the buttons); labels mirror
in Arabic.
"""

from __future__ import annotations

from typing import Any

from PIL import Image, ImageDraw

from renderers import card_base, cards_french, palette
from renderers.context import RenderContext
from renderers.layout import Sides, flow
from renderers.text import draw_text, fit, ltr, text_width
from renderers.widgets import (
    SMALL_CARD_H,
    CardRack,
    Sheet,
    end_pill,
    faces_or_codes,
    last_move_of,
    pack_cells,
    rack_title,
    start_pill,
)

FELT = (30, 84, 62)
PANEL = (40, 104, 78)
PANEL_TURN = (58, 126, 96)
INK = (246, 244, 236)
MUTED = (214, 234, 222)  # secondary text, still light enough to read at phone size
DARK = (34, 30, 24)
TURN = (250, 198, 70)
WIN = (255, 214, 90)
OPENED = (120, 210, 140)
CLOSED = (92, 110, 100)
COMMITTED = (236, 90, 70)
SEAT_COLOURS = ((240, 138, 66), (110, 170, 250), (230, 110, 190), (200, 220, 90))

PAD = 16
RACK_CARD_H = 120
RACK_PER_ROW = 12
RACK_MIN_W = 560
TABLE_W = 760
PILE_CARD_H = 84
MELD_CARD_H = 60  # the smallest meld cards; a seat with few melds draws them larger (MELD_HEIGHTS)
MELD_STEP = 17  # at MELD_CARD_H
MELD_CELL_MIN_W = 96
# Meld card heights, largest first: a seat's melds are drawn at the largest that needs no more rows than the
# smallest does (a picture seen 400 px wide shows 60 px cards 32 px high).
MELD_HEIGHTS = (84, 72, MELD_CARD_H)
MELD_GAP = 8


def _plain(code: str) -> str:
    """The face to draw: a meld's `X:7H` is drawn as the joker."""
    return "X" if code.startswith("X") else code


def _card_text(code: str) -> str:
    return ("10" if code[0] == "T" else code[0]) + code[1:]


def _title(view: dict[str, Any], ctx: RenderContext) -> str:
    return ctx.t("konkan.title", n=view.get("minimum", 51))


def _round_text(view: dict[str, Any], ctx: RenderContext) -> str:
    number, total = int(view.get("round", 1)), int(view.get("rounds", 5))
    if number > total:
        return ctx.t("konkan.extra_round", n=number)
    return ctx.t("konkan.round", n=number, total=total)


def _status(view: dict[str, Any], seat: int, ctx: RenderContext) -> tuple[str, tuple, tuple]:
    """A seat's marker: committed to Konkan, opened, or not opened (with the minimum)."""
    if (view.get("committed") or [])[seat:seat + 1] == [True]:
        return ctx.t("konkan.committed_short"), COMMITTED, INK
    if (view.get("opened") or [])[seat:seat + 1] == [True]:
        return ctx.t("konkan.opened"), OPENED, DARK
    return ctx.t("konkan.not_opened"), CLOSED, INK


# ---- rack --------------------------------------------------------------------------------------------------


def _rack_notes(view: dict[str, Any], ctx: RenderContext) -> list[tuple[str, tuple]]:
    seat = view.get("seat")
    notes: list[tuple[str, tuple]] = []
    if seat is None:
        return notes
    committed = (view.get("committed") or [])[seat:seat + 1] == [True]
    opened = (view.get("opened") or [])[seat:seat + 1] == [True]
    if committed:
        notes.append((ctx.t("konkan.committed"), COMMITTED))
    elif view.get("can_commit"):
        notes.append((ctx.t("konkan.can_commit"), TURN))
    if not committed:
        notes.append((ctx.t("konkan.opened") if opened else ctx.t("konkan.needs", n=view.get("minimum", 51)),
                      OPENED if opened else MUTED))
    total = view.get("selection_total")
    if total is not None and not opened and not committed:
        minimum = int(view.get("minimum", 51))
        notes.append((ctx.t("konkan.selection", n=total, minimum=minimum), OPENED if total >= minimum else TURN))
    mine = [m for m in view.get("melds") or [] if m.get("seat") == seat]
    if mine:
        numbers = "  ".join(ltr(f"#{m['number']}") for m in mine)
        notes.append((f"{ctx.t('konkan.your_melds')}: {numbers}", MUTED))
    return notes


def render_rack(view: dict[str, Any], ctx: RenderContext) -> Image.Image:
    """The seat's hand in rows, card i numbered i+1; selected positions lifted and ringed."""
    rack = CardRack.of(view, RACK_CARD_H, RACK_PER_ROW)
    title_h = 44
    notes = _rack_notes(view, ctx)
    seat = view.get("seat")
    pending = view.get("must_use") if view.get("turn") == seat else None
    width = max(RACK_MIN_W, rack.width + 2 * PAD)
    height = title_h + rack.height + 8 + 26 * len(notes) + (SMALL_CARD_H + 24 if pending else 0)
    image = Image.new("RGB", (width, height), FELT)
    draw = ImageDraw.Draw(image)
    sides = Sides(width, ctx.rtl)

    title = f"{_title(view, ctx)} · {ctx.t('your_hand')} ({len(rack.hand)})"
    rack_title(draw, sides, PAD, title_h / 2 + 2, title, view, ctx, INK, TURN, DARK, max_width=width - 200)
    y = title_h
    # card rows stay left to right in Arabic too (their numbers match the buttons)
    y = rack.draw(image, draw, ctx, y, lambda code, chosen: cards_french.face(_plain(code), RACK_CARD_H, chosen),
                  False, INK, DARK, MUTED)
    y += 8
    if pending:
        mid = y + SMALL_CARD_H / 2 + 4
        draw.rounded_rectangle((PAD / 2, y, width - PAD / 2, y + SMALL_CARD_H + 12), radius=10, fill=PANEL)
        flow(image, draw, sides, PAD, mid, [ctx.t("konkan.must_use") + ":",
                                            cards_french.face(_plain(pending), SMALL_CARD_H, True)], 16, TURN,
             gap=8, raqm=ctx.raqm)
        y += SMALL_CARD_H + 24
    for text, colour in notes:
        draw_text(draw, (sides.x(PAD), y + 12), fit(text, 16, width - 2 * PAD, bold=True, raqm=ctx.raqm,
                  rtl=ctx.rtl), 16, colour, anchor=sides.anchor("lm"), bold=True, raqm=ctx.raqm, rtl=ctx.rtl)
        y += 26
    return image


# ---- table -------------------------------------------------------------------------------------------------


def _cell_width(meld: dict[str, Any], height: int = MELD_CARD_H) -> int:
    cw = card_base.card_width(height)
    step = MELD_STEP * height / MELD_CARD_H
    return round(max(MELD_CELL_MIN_W * height / MELD_CARD_H, 12 + cw + (len(meld.get("cards") or []) - 1) * step))


def _cell_h(height: int) -> int:
    return 20 + height + 18


def _packed(melds: list[dict[str, Any]]) -> tuple[int, list[tuple[Any, int, int, int]]]:
    """A seat's meld card height (the largest of MELD_HEIGHTS needing no more rows than the smallest) and its
    cells packed into rows at that height."""
    def pack(height: int) -> list[tuple[Any, int, int, int]]:
        return pack_cells(melds, lambda meld: _cell_width(meld, height), PAD, TABLE_W, MELD_GAP)

    smallest = pack(MELD_CARD_H)
    rows = smallest[-1][1] + 1 if smallest else 0
    for height in MELD_HEIGHTS[:-1]:
        cells = pack(height)
        if not cells or cells[-1][1] + 1 <= rows:
            return height, cells
    return MELD_CARD_H, smallest


def _last_move_items(last: dict[str, Any], ctx: RenderContext) -> list[str | Image.Image]:
    words = str(last.get("move", "")).split()
    verb = words[0] if words else ""
    faces: list[str] = []
    if verb == "meld":
        text, faces = ctx.t("konkan.lm.meld"), [w for w in words[1:] if w != "|"]
    elif verb in ("add", "swap") and len(words) >= 4:
        text, faces = ctx.t(f"konkan.lm.{verb}", n=words[-1]), words[1:-2]
    elif verb == "discard" and len(words) == 2:
        text, faces = ctx.t("konkan.lm.discard"), words[1:]
    elif verb in ("draw", "take", "commit"):
        text = ctx.t(f"konkan.lm.{verb}")
    else:
        text = " ".join(words)
    items: list[str | Image.Image] = [f"{ctx.name(int(last.get('seat', 0)))} {text}"]
    return items + faces_or_codes(faces[:15], lambda code: cards_french.face(_plain(code), SMALL_CARD_H, False))


class _Table(Sheet):
    """One table picture: sections stacked top to bottom, each returning the next y."""

    def __init__(self, view: dict[str, Any], ctx: RenderContext):
        self.view = view
        self.players = int(view.get("players") or len(view.get("hand_sizes") or []) or 2)
        melds = view.get("melds") or []
        packed = [_packed([m for m in melds if m.get("seat") == seat]) for seat in range(self.players)]
        self.meld_h = [height for height, _ in packed]
        self.cells = [cells for _, cells in packed]
        self.last = last_move_of(view)
        self.summary = view.get("last_round") if isinstance(view.get("last_round"), dict) else None
        height = 48 + (46 if view.get("over") else 0) + self._pile_h() + 10
        height += sum(self._seat_h(seat) + 10 for seat in range(self.players))
        height += (30 if self.summary else 0) + (SMALL_CARD_H + 20 if self.last else 0) + PAD
        super().__init__(TABLE_W, height, FELT, ctx)

    @staticmethod
    def _pile_h() -> int:
        return 30 + PILE_CARD_H + 30

    def _seat_h(self, seat: int) -> int:
        cells = self.cells[seat]
        rows = cells[-1][1] + 1 if cells else 0
        return 40 + (rows * (_cell_h(self.meld_h[seat]) + MELD_GAP) if rows else 26)

    def header(self, y: int) -> int:
        view, ctx = self.view, self.ctx
        if view.get("final_round") and not view.get("over"):
            end_pill(self.draw, self.s, PAD, y + 25, ctx.t("konkan.final"), 16, TURN, DARK, ctx)
        return self.title_row(y, f"{_title(view, ctx)} · {_round_text(view, ctx)}", INK, PAD)

    def banner(self, y: int) -> int:
        view, ctx = self.view, self.ctx
        winners = [w for w in view.get("winners") or [] if 0 <= w < self.players]
        text = ctx.t("winner", names=ctx.t("and").join(ctx.name(w) for w in winners)) if winners else ctx.t("over")
        if view.get("konkan_winner") is not None:
            text += " · " + ctx.t("konkan.konkan_win", name=ctx.name(int(view["konkan_winner"])))
        return self.over_banner(y, text, PAD, WIN, DARK)

    def piles(self, y: int) -> int:
        """Stock with its count and reshuffles left, the discard pile's top card, and whose turn."""
        view, ctx = self.view, self.ctx
        h = self._pile_h()
        self.panel(y, h, PANEL, PAD)
        cw = card_base.card_width(PILE_CARD_H)
        top = y + 26
        shuffles = ctx.t("konkan.reshuffles", n=view.get("reshuffles_left", 0))
        gap = max(60, text_width(shuffles, 16, raqm=ctx.raqm, rtl=ctx.rtl) - cw + 30)
        pile_x = round(self.s.left(PAD + 10 + gap + cw, cw))
        self.stock(PAD + 10, y + 13, top, ctx.t("konkan.stock"), int(view.get("stock_size", 0)),
                   card_base.back(PILE_CARD_H, "french"), PILE_CARD_H, MUTED)
        self.text(PAD + 10, top + PILE_CARD_H + 14, shuffles, 16, INK)
        top_card = view.get("discard_top")
        self.discard(pile_x, y + 13, top, ctx.t("konkan.pile"),
                     cards_french.face(_plain(top_card), PILE_CARD_H, False) if top_card else None, PILE_CARD_H,
                     MUTED, INK, ctx.t("konkan.pile_empty"), ctx.t("konkan.cards", n=view.get("pile_size", 0)))
        self._turn_note(y, h)
        return y + h + 10

    def _turn_note(self, y: int, h: int) -> None:
        view, ctx = self.view, self.ctx
        to_move = view.get("to_move")
        if view.get("over") or to_move is None:
            return
        must = view.get("must_use")
        if must:
            line = ctx.t("konkan.took", name=ctx.name(to_move))
        elif view.get("phase") == "first":
            line = ctx.t("konkan.first_turn", name=ctx.name(to_move))
        else:
            line = ctx.t("konkan.to_play", name=ctx.name(to_move))
        end = TABLE_W - PAD - 8
        mid = y + h / 2 - (20 if must else 0)
        self.text(end, mid, fit(line, 17, 330, bold=True, raqm=ctx.raqm, rtl=ctx.rtl), 17, TURN, anchor="rm",
                  bold=True)
        if must:
            face = cards_french.face(_plain(must), SMALL_CARD_H, True)
            x = self.s.x(end) - face.width if not ctx.rtl else self.s.x(end)
            self.image.paste(face, (round(x), round(mid + 14)), face)

    def seat(self, y: int, seat: int) -> int:
        view, ctx = self.view, self.ctx
        h = self._seat_h(seat)
        on_turn = not view.get("over") and view.get("to_move") == seat
        self.panel(y, h, PANEL_TURN if on_turn else PANEL, PAD, outline=TURN if on_turn else None, width=2)
        mid = y + 20
        self.draw.ellipse(self.s.box(PAD + 4, 12, mid - 6, mid + 6), fill=SEAT_COLOURS[seat % len(SEAT_COLOURS)])
        name = fit(ctx.name(seat), 18, 200, bold=True, raqm=ctx.raqm, rtl=ctx.rtl)
        self.text(PAD + 24, mid, name, 18, INK, bold=True)
        offset = PAD + 24 + text_width(name, 18, bold=True, raqm=ctx.raqm, rtl=ctx.rtl) + 14
        sizes = view.get("hand_sizes") or []
        count = ctx.t("konkan.cards", n=sizes[seat] if seat < len(sizes) else "?")
        if view.get("dealer") == seat:
            count += f" · {ctx.t('konkan.dealer')}"
        self.text(offset, mid, count, 17, MUTED)
        offset += text_width(count, 17, raqm=ctx.raqm, rtl=ctx.rtl) + 14
        label, fill, ink = _status(view, seat, ctx)
        start_pill(self.draw, self.s, offset, mid, label, 15, fill, ink, ctx)
        scores = view.get("scores") or []
        score = scores[seat] if seat < len(scores) else 0
        self.text(TABLE_W - PAD, mid, str(score), 20, INK, anchor="rm", bold=True, rtl=False)
        top = y + 40
        if not self.cells[seat]:
            self.text(PAD + 12, top + 10, ctx.t("konkan.no_melds"), 17, MUTED)
        height = self.meld_h[seat]
        for meld, row, start, width in self.cells[seat]:
            self._meld(meld, start, width, top + row * (_cell_h(height) + MELD_GAP), height)
        return y + h + 10

    def _meld(self, meld: dict[str, Any], offset: float, width: float, top: float, height: int) -> None:
        ctx = self.ctx
        box = self.s.box(offset, width, top, top + _cell_h(height))
        self.draw.rounded_rectangle(box, radius=8, fill=FELT)
        left = box[0] + 6
        cards = list(meld.get("cards") or [])
        draw_text(self.draw, (left, top + 11), f"#{meld.get('number')}", 17, TURN, anchor="lm", bold=True,
                  raqm=ctx.raqm)
        draw_text(self.draw, (left + 36, top + 11), f"({len(cards)})", 15, MUTED, anchor="lm", raqm=ctx.raqm)
        cw = card_base.card_width(height)
        step = min(MELD_STEP * height / MELD_CARD_H, (width - 12 - cw) / (len(cards) - 1)) if len(cards) > 1 else 0
        for i, code in enumerate(cards):
            face = cards_french.face(_plain(code), height, False)
            x = round(left + i * step)
            self.image.paste(face, (x, round(top + 22)), face)
            if code.startswith("X:"):
                draw_text(self.draw, (x + 8, top + 22 + height + 8), f"={_card_text(code[2:])}", 15, WIN,
                          anchor="lm", bold=True, raqm=ctx.raqm)

    def footer(self, y: int) -> int:
        ctx = self.ctx
        summary = self.summary
        if summary and summary.get("points"):
            parts = [ctx.t("konkan.last_round", n=summary.get("round", "?")) + ":"]
            if summary.get("void"):
                parts.append(ctx.t("konkan.void"))
            elif summary.get("konkan"):
                parts.append(ctx.t("konkan.konkan"))
            elif summary.get("hand"):
                parts.append(ctx.t("konkan.hand"))
            offset = PAD
            for text in parts:
                self.text(offset, y + 14, text, 15, WIN if text != parts[0] else MUTED, bold=text != parts[0])
                offset += text_width(text, 15, bold=text != parts[0], raqm=ctx.raqm, rtl=ctx.rtl) + 10
            for seat, points in enumerate(summary["points"][: self.players]):
                name = fit(ctx.name(seat), 15, 120, raqm=ctx.raqm)
                self.text(offset, y + 14, name, 15, MUTED, rtl=None)
                offset += text_width(name, 15, raqm=ctx.raqm) + 6
                self.text(offset, y + 14, f"{points:+d}", 15, INK, bold=True, rtl=False)
                offset += text_width(f"{points:+d}", 15, bold=True, raqm=ctx.raqm, rtl=False) + 12
            y += 30
        if self.last:
            y = self.last_move(y, PAD + 4, _last_move_items(self.last, ctx), SMALL_CARD_H, MUTED, INK)
        return y


def render_table(view: dict[str, Any], ctx: RenderContext) -> Image.Image:
    """Header, winner banner once over, the piles and whose turn, one panel per player, last round and move."""
    table = _Table(view, ctx)
    y = table.piles(table.heading(bool(view.get("over"))))
    for seat in range(table.players):
        y = table.seat(y, seat)
    table.footer(y)
    return table.image


# ---- fixed palette -----------------------------------------------------------------------------------------


def sample_views() -> list[dict[str, Any]]:
    """Views that between them draw every colour: a seat on turn, a taken card to meld, opened, not-opened and
    committed markers, a joker in a run and in a set, the final round, and a match won by a committed Konkan."""
    def meld(number: int, seat: int, kind: str, cards: str) -> dict[str, Any]:
        return {"number": number, "seat": seat, "kind": kind, "cards": cards.split()}

    melds = [meld(1, 0, "set", "KS KH KD"), meld(2, 0, "run", "7C X:8C 9C TC"), meld(3, 2, "run", "QH KH AH"),
             meld(4, 2, "set", "5S 5H 5D X"), meld(5, 0, "run", "AD 2D 3D 4D")]
    base = {
        "game": "konkan_cards", "seat": 0, "players": 4, "variant": "konkan51", "minimum": 51, "round": 5,
        "rounds": 5, "final_round": True, "dealer": 3, "to_move": 0, "turn": 0, "phase": "play",
        "hand": ["AS", "4H", "7H", "8H", "9D", "TD", "JC", "QC", "X"], "hand_sizes": [9, 14, 6, 14],
        "stock_size": 31, "reshuffles_left": 2, "discard_top": "6C", "pile_size": 12, "melds": melds,
        "opened": [True, False, True, False], "committed": [False, True, False, False], "can_commit": False,
        "must_use": "9H", "scores": [85, 240, 120, 310], "history": [],
        "last_move": {"seat": 3, "move": "discard 6C"},
        "last_round": {"round": 4, "went_out": 2, "void": False, "hand": True, "konkan": False,
                       "points": [62, 200, -60, 200]},
        "over": False, "winners": [], "konkan_winner": None,
    }
    over = dict(base, players=2, hand_sizes=[0, 5], scores=[185, 90], over=True, to_move=None, turn=None,
                phase="over", winners=[0], konkan_winner=0, must_use=None, committed=[True, False],
                opened=[True, True], discard_top=None, pile_size=0, stock_size=0, reshuffles_left=0,
                last_move={"seat": 0, "move": "meld 3H 4H 5H 6H 7H 8H 9H TH JH QH | KS KH KD X"},
                last_round={"round": 5, "went_out": 0, "void": False, "hand": True, "konkan": True,
                            "points": [-60, 62]})
    first = dict(base, round=2, final_round=False, phase="first", must_use=None, can_commit=False, melds=[],
                 opened=[False] * 4, committed=[False] * 4, discard_top=None, pile_size=0, last_round=None,
                 last_move=None)
    return [base, over, first]


def _palette_samples() -> list[Image.Image]:
    return [*palette.table_and_rack_samples(sample_views(), render_table, render_rack, 9),
            *palette.face_samples(cards_french.face, cards_french.CODES, MELD_CARD_H,
                                  card_base.back(MELD_CARD_H, "french"))]


PALETTE = palette.Spec(
    _palette_samples, FELT,
    (FELT, PANEL, PANEL_TURN, INK, MUTED, DARK, TURN, WIN, OPENED, CLOSED, COMMITTED, *SEAT_COLOURS,
     *cards_french.KEY_COLOURS),
)
