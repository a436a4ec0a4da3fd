"""Canasta pictures: the seat's rack (a long hand wrapped in overlapping rows, numbered like the picker's buttons)
and the table (each side's melds grouped by rank with canasta markers, red 3s, the discard pile with its size and
a frozen marker, the stock, scores and each side's opening minimum, whose turn).

Codes against the engine's Canasta view: "hand", "melds" ({number, team, rank, cards, canasta}), "teams",
"team", "opened", "min_meld", "team_red3s", "discard_top", "pile_size", "frozen", "pile_blocked", "stock_size",
"must_use", "taken_cards", "phase", "turn", "to_move", "ask", "scores", "target", "canastas_needed",
"hand_sizes", "last_move", "last_hand", "over", "winners". Labels, panels and the rack's numbering follow the
reading direction (card 1 on the right in Arabic; each button names its number and card); every line of text is
one bidi paragraph with names and codes isolated (renderers.text.isolate / ltr).
"""

from __future__ import annotations

from typing import Any

from PIL import Image, ImageDraw

from renderers import card_base, cards_french, palette
from renderers.context import RenderContext
from renderers.layout import Sides, flow
from renderers.text import draw_text, fit, ltr, text_width
from renderers.widgets import SMALL_CARD_H, CardRack, Sheet, faces_or_codes, last_move_of, pack_cells, pill, rack_title

FELT = (24, 70, 96)
PANEL = (33, 90, 120)
PANEL_TURN = (52, 110, 140)
INK = (246, 244, 236)
MUTED = (210, 228, 238)  # secondary text, still light enough to read at phone size
DARK = (34, 30, 24)
TURN = (250, 198, 70)
WIN = (255, 214, 90)
FROZEN = (120, 190, 250)
BLOCKED = (60, 60, 66)
NATURAL = (200, 40, 48)
MIXED = (28, 28, 32)
SIDE_COLOURS = ((240, 138, 66), (86, 200, 140))

PAD = 16
RACK_CARD_H = 120
RACK_PER_ROW = 12
RACK_MIN_W = 520
TABLE_W = 720
PILE_CARD_H = 84
MELD_CARD_H = 60  # the smallest meld cards; a side with few melds draws them larger (MELD_HEIGHTS)
MELD_STEP = 16  # the visible strip of each card under the next in a meld's fan, at MELD_CARD_H
MELD_CELL_MIN_W = 92
MELD_GAP = 8
# Meld card heights, largest first: each side's melds are drawn at the largest that needs no more rows than the
# smallest does, so two or three melds fill their panel instead of sitting small beside empty felt (most people see
# the picture about 400 px wide, where 60 px cards are 33 px).
MELD_HEIGHTS = (96, 84, 72, MELD_CARD_H)
MELD_HEAD_SIZE = 16


def _canasta_name(ctx: RenderContext) -> str:
    return ctx.t("game.canasta")


def _side_seats(view: dict[str, Any]) -> list[list[int]]:
    teams = view.get("teams")
    if isinstance(teams, list) and teams:
        return [list(seats) for seats in teams]
    players = int(view.get("players", 2))
    return [[0, 2], [1, 3]] if players == 4 else [[0], [1]]


def _side_name(side: int, seats: list[int], ctx: RenderContext) -> str:
    members = ctx.t("and").join(ctx.name(s) for s in seats)
    return f"{ctx.t('team', n=side + 1)}: {members}" if len(seats) > 1 else members


def _rank_text(rank: str) -> str:
    return "10" if rank == "T" else rank


def _fan(image: Image.Image, cards: list[str], left: float, top: float, height: int, width: float,
         widest: float = 0.45) -> None:
    """Cards overlapping left to right inside `width` pixels (each showing at most `widest` of its width)."""
    if not cards:
        return
    cw = card_base.card_width(height)
    step = min(cw * widest, (width - cw) / (len(cards) - 1)) if len(cards) > 1 else 0
    for i, code in enumerate(cards):
        face = cards_french.face(code, height, False)
        image.paste(face, (round(left + i * step), round(top)), face)


# ---- rack --------------------------------------------------------------------------------------------------


def _hint(view: dict[str, Any], ctx: RenderContext) -> str | None:
    seat = view.get("seat")
    if view.get("phase") == "answer" and view.get("to_move") == seat:
        return ctx.t("canasta.asked")
    if view.get("turn") == seat and view.get("ask") in ("yes", "no"):
        return ctx.t("canasta.said_yes" if view["ask"] == "yes" else "canasta.said_no")
    return None


def _own_melds_text(view: dict[str, Any], ctx: RenderContext) -> str | None:
    team = view.get("team")
    if team is None:
        return None
    melds = [m for m in view.get("melds") or [] if m.get("team") == team]
    if not melds:
        return None
    parts = []
    for meld in melds:
        mark = {"natural": " ✓", "mixed": " ×"}.get(meld.get("canasta") or "", "")
        parts.append(ltr(f"#{meld['number']} {_rank_text(meld['rank'])}·{len(meld['cards'])}{mark}"))
    return f"{ctx.t('canasta.your_melds')}: " + "  ".join(parts)


def render_rack(view: dict[str, Any], ctx: RenderContext) -> Image.Image:
    """The seat's hand in overlapping rows, card i numbered i+1; selected positions lifted and ringed."""
    rack = CardRack.of(view, RACK_CARD_H, RACK_PER_ROW)
    title_h = 44
    hint = _hint(view, ctx)
    melds_line = _own_melds_text(view, ctx)
    pending = view.get("must_use") if view.get("turn") == view.get("seat") else None
    width = max(RACK_MIN_W, rack.width + 2 * PAD)
    height = title_h + (30 if hint else 0) + rack.height + 8
    height += (SMALL_CARD_H + 58 if pending else 0) + (28 if melds_line else 0)
    image = Image.new("RGB", (width, height), FELT)
    draw = ImageDraw.Draw(image)
    sides = Sides(width, ctx.rtl)

    title = f"{_canasta_name(ctx)} · {ctx.t('your_hand')} ({len(rack.hand)})"
    rack_title(draw, sides, PAD, title_h / 2 + 2, title, view, ctx, INK, TURN, DARK)
    y = title_h
    if hint:
        draw_text(draw, (sides.x(PAD), y + 13), fit(hint, 17, width - 2 * PAD, bold=True, raqm=ctx.raqm,
                  rtl=ctx.rtl), 17, TURN, anchor=sides.anchor("lm"), bold=True, raqm=ctx.raqm, rtl=ctx.rtl)
        y += 30

    # numbered in reading order: card 1 on the right in Arabic
    y = rack.draw(image, draw, ctx, y, lambda code, chosen: cards_french.face(code, RACK_CARD_H, chosen), ctx.rtl,
                  INK, DARK, MUTED)
    y += 8

    if pending:
        taken = list(view.get("taken_cards") or [])
        mid = y + 12 + SMALL_CARD_H / 2
        draw.rounded_rectangle((PAD / 2, y, width - PAD / 2, y + SMALL_CARD_H + 50), radius=10, fill=PANEL)
        items: list[str | Image.Image] = [ctx.t("canasta.must_use") + ":", cards_french.face(pending, SMALL_CARD_H,
                                                                                              True)]
        offset = flow(image, draw, sides, PAD, mid, items, 16, TURN, gap=8, raqm=ctx.raqm)
        if taken:
            offset = flow(image, draw, sides, offset + 8, mid, [ctx.t("canasta.joins", n=len(taken))], 15, INK,
                          raqm=ctx.raqm)
            room = width - offset - PAD
            fan_left = sides.x(offset + room) if ctx.rtl else sides.x(offset)
            _fan(image, taken, fan_left, mid - SMALL_CARD_H / 2, SMALL_CARD_H, max(room, 40))
        y += SMALL_CARD_H + 58
    if melds_line:
        draw_text(draw, (sides.x(PAD), y + 12), fit(melds_line, 15, width - 2 * PAD, raqm=ctx.raqm, rtl=ctx.rtl),
                  15, MUTED, anchor=sides.anchor("lm"), raqm=ctx.raqm, rtl=ctx.rtl)
    return image


# ---- table -------------------------------------------------------------------------------------------------


def _cell_width(meld: dict[str, Any], ctx: RenderContext, height: int = MELD_CARD_H) -> int:
    """A fan as wide as its cards; a completed canasta is one squared-up pile with its count and kind."""
    cw = card_base.card_width(height)
    least = round(MELD_CELL_MIN_W * height / MELD_CARD_H)
    kind = meld.get("canasta")
    if kind:
        label = text_width(ctx.t(f"canasta.{kind}"), 14, bold=True, raqm=ctx.raqm, rtl=ctx.rtl)
        return round(max(least, 12 + cw + 12 + label + 12 + 6))
    return max(least, 12 + cw + round((len(meld.get("cards") or []) - 1) * MELD_STEP * height / MELD_CARD_H))


def _cell_h(height: int) -> int:
    return 22 + height + 8


def _packed(melds: list[dict[str, Any]], ctx: RenderContext) -> tuple[int, list[tuple[Any, int, int, int]]]:
    """A side's meld card height (the largest of MELD_HEIGHTS needing no more rows than the smallest) and its
    cells packed into rows at that height."""
    def pack(height: int) -> list[tuple[Any, int, int, int]]:
        return pack_cells(melds, lambda m: _cell_width(m, ctx, height), PAD, TABLE_W, MELD_GAP)

    def rows(cells: list[tuple[Any, int, int, int]]) -> int:
        return cells[-1][1] + 1 if cells else 0

    smallest = pack(MELD_CARD_H)
    for height in MELD_HEIGHTS[:-1]:
        cells = pack(height)
        if rows(cells) <= rows(smallest):
            return height, cells
    return MELD_CARD_H, smallest


def _winner_text(view: dict[str, Any], ctx: RenderContext) -> str:
    sides = _side_seats(view)
    winners = [w for w in view.get("winners") or [] if 0 <= w < len(sides)]
    if not winners:
        return ctx.t("over")
    return ctx.t("winner", names=ctx.t("and").join(_side_name(w, sides[w], ctx) for w in winners))


def _last_move_items(last: dict[str, Any], ctx: RenderContext) -> list[str | Image.Image]:
    """The last move as words and small card faces."""
    words = str(last.get("move", "")).split()
    name = ctx.name(int(last.get("seat", 0)))
    verb = words[0] if words else ""
    faces: list[str] = []
    if verb == "meld":
        text = ctx.t("canasta.lm.meld")
        faces = [w for w in words[1:] if w != "|"]
    elif verb == "add" and len(words) >= 4:
        text = ctx.t("canasta.lm.add", n=words[-1])
        faces = words[1:-2]
    elif verb == "discard" and len(words) == 2:
        text = ctx.t("canasta.lm.discard")
        faces = words[1:]
    elif verb == "answer" and len(words) == 2 and words[1] in ("yes", "no"):
        text = ctx.t(f"canasta.lm.answer_{words[1]}")
    elif verb in ("draw", "take", "pass", "ask"):
        text = ctx.t(f"canasta.lm.{verb}")
    else:
        text = ltr(" ".join(words))
    items: list[str | Image.Image] = [f"{name} {text}"]
    return items + faces_or_codes(faces[:12], lambda code: cards_french.face(code, SMALL_CARD_H, False))


class _Table(Sheet):
    """One table picture: sections stacked top to bottom, each returning the next y."""

    def __init__(self, view: dict[str, Any], ctx: RenderContext):
        self.view = view
        self.sides = _side_seats(view)
        self.melds = [[m for m in view.get("melds") or [] if m.get("team") == side] for side in range(len(self.sides))]
        for melds in self.melds:
            melds.sort(key=lambda m: "3456789TJQKA".find(m.get("rank", "")))
        packed = [_packed(melds, ctx) for melds in self.melds]
        self.meld_h = [height for height, _ in packed]
        self.cells = [cells for _, cells in packed]
        self.last = last_move_of(view)
        height = 48 + (46 if view.get("over") else 0) + self._pile_h() + 10
        height += sum(self._side_h(side) + 10 for side in range(len(self.sides)))
        height += (SMALL_CARD_H + 20 if self.last else 0) + (30 if view.get("last_hand") else 0) + PAD
        super().__init__(TABLE_W, height, FELT, ctx)

    def _pile_h(self) -> int:
        return 30 + PILE_CARD_H + 30

    def _side_h(self, side: int) -> int:
        cells = self.cells[side]
        rows = cells[-1][1] + 1 if cells else 0
        return 36 + SMALL_CARD_H + 8 + (rows * (_cell_h(self.meld_h[side]) + MELD_GAP) if rows else 30)

    def header(self, y: int) -> int:
        view, ctx = self.view, self.ctx
        return self.title_row(y, f"{_canasta_name(ctx)} · {ctx.t('hand_no', n=view.get('round', 1))}", INK, PAD,
                              ctx.t("target", n=view.get("target", "")), 17, MUTED)

    def banner(self, y: int) -> int:
        return self.over_banner(y, _winner_text(self.view, self.ctx), PAD, WIN, DARK)

    def piles(self, y: int) -> int:
        """Stock and discard pile side by side at the start edge; whose turn at the end edge."""
        view, ctx = self.view, self.ctx
        h = self._pile_h()
        self.panel(y, h, PANEL, PAD)
        cw = card_base.card_width(PILE_CARD_H)
        top = y + 26
        stock_label = f"{ctx.t('stock')}: {int(view.get('stock_size', 0))}"
        overhang = max(0, (text_width(ctx.t("canasta.pile"), 17, bold=True, raqm=ctx.raqm, rtl=ctx.rtl) - cw) / 2)
        gap = max(30, text_width(stock_label, 17, bold=True, raqm=ctx.raqm, rtl=ctx.rtl) - cw + 24 + overhang)
        pile_x = round(self.s.left(PAD + 10 + gap + cw, cw))
        self.stock(PAD + 10, y + 13, top, ctx.t("stock"), int(view.get("stock_size", 0)),
                   card_base.back(PILE_CARD_H, "french"), PILE_CARD_H, MUTED)
        top_card = view.get("discard_top")
        if top_card and view.get("frozen"):
            # a wild card in the pile lies sideways under the top card, as at a real table
            sideways = card_base.back(round(cw * 0.9), "french").rotate(90, expand=True)
            self.image.paste(sideways, (pile_x - 8, top + PILE_CARD_H // 2 - sideways.height // 2), sideways)
        self.discard(pile_x, y + 13, top, ctx.t("canasta.pile"),
                     cards_french.face(top_card, PILE_CARD_H, False) if top_card else None, PILE_CARD_H, MUTED, INK,
                     ctx.t("canasta.pile_empty"), ctx.t("canasta.cards", n=int(view.get("pile_size", 0))))
        marks_at = pile_x + cw + 60 if not ctx.rtl else pile_x - 60
        mark_y = top + 18
        if view.get("frozen"):
            pill(self.draw, (marks_at, mark_y), ctx.t("canasta.frozen"), 15, FROZEN, DARK, ctx)
            mark_y += 32
        if view.get("pile_blocked") and top_card and top_card in ("3S", "3C"):
            pill(self.draw, (marks_at, mark_y), ctx.t("canasta.blocked"), 15, BLOCKED, INK, ctx)
        self._turn_note(y, h)
        return y + h + 10

    def _turn_note(self, y: int, h: int) -> None:
        view, ctx = self.view, self.ctx
        if view.get("over"):
            return
        turn, to_move = view.get("turn"), view.get("to_move")
        must = view.get("must_use")
        end = TABLE_W - PAD - 8
        mid = y + h / 2
        if view.get("phase") == "answer" and turn is not None:
            lines = [ctx.t("canasta.asking", name=ctx.name(turn)), ctx.t("canasta.to_play", name=ctx.name(to_move))]
        elif must and turn is not None:
            lines = [ctx.t("canasta.took", name=ctx.name(turn))]
        elif to_move is not None:
            lines = [ctx.t("canasta.to_play", name=ctx.name(to_move))]
        else:
            return
        width = 260
        for i, line in enumerate(lines):
            shown = fit(line, 17, width, bold=True, raqm=ctx.raqm, rtl=ctx.rtl)
            self.text(end, mid - 14 * (len(lines) - 1) + 28 * i - (24 if must else 0), shown, 17, TURN, anchor="rm",
                      bold=True)
        if must:
            face = cards_french.face(must, SMALL_CARD_H, True)
            x = self.s.x(end) - face.width if not ctx.rtl else self.s.x(end)
            self.image.paste(face, (round(x), round(mid - 4)), face)

    def side(self, y: int, side: int) -> int:
        view, ctx = self.view, self.ctx
        seats = self.sides[side]
        h = self._side_h(side)
        turn = view.get("turn") if not view.get("over") else None
        on_turn = turn in seats
        self.panel(y, h, PANEL_TURN if on_turn else PANEL, PAD, outline=TURN if on_turn else None, width=2)
        mid = y + 18
        colour = SIDE_COLOURS[side % len(SIDE_COLOURS)]
        self.draw.ellipse(self.s.box(PAD + 4, 12, mid - 6, mid + 6), fill=colour)
        name = fit(_side_name(side, seats, ctx), 18, 300, bold=True, raqm=ctx.raqm, rtl=ctx.rtl)
        self.text(PAD + 24, mid, name, 18, INK, bold=True)
        scores = view.get("scores") or [0, 0]
        score = scores[side] if side < len(scores) else 0
        self.text(TABLE_W - PAD, mid, f"{score} / {view.get('target', '')}", 18, INK, anchor="rm", bold=True,
                  rtl=False)
        opened = (view.get("opened") or [False, False])[side]
        need = (view.get("min_meld") or [0, 0])[side]
        status = ctx.t("canasta.opened") if opened else ctx.t("canasta.needs", n=need)
        canastas = sum(1 for m in self.melds[side] if m.get("canasta"))
        status += f" · {ctx.t('canasta.canastas', n=canastas, need=view.get('canastas_needed', 1))}"
        self.text(TABLE_W - PAD - 130, mid, fit(status, 16, 230, raqm=ctx.raqm, rtl=ctx.rtl), 16, MUTED,
                  anchor="rm")
        # red 3s and cards in hand
        row = y + 36 + SMALL_CARD_H / 2
        hands = view.get("hand_sizes") or []
        counts = " · ".join(
            f"{fit(ctx.name(s), 17, 150, raqm=ctx.raqm, rtl=ctx.rtl)} {hands[s] if s < len(hands) else '?'}"
            for s in seats
        )
        line = f"{ctx.t('canasta.in_hand')}: {counts}"
        self.text(PAD + 8, row, line, 17, INK)
        offset = PAD + 8 + text_width(line, 17, raqm=ctx.raqm, rtl=ctx.rtl) + 6
        reds = list((view.get("team_red3s") or [[], []])[side])
        if reds:
            items: list[str | Image.Image] = [f"  {ctx.t('canasta.red3s')}:"]
            items += [cards_french.face(code, SMALL_CARD_H, False) for code in reds]
            flow(self.image, self.draw, self.s, offset, row, items, 17, INK, gap=4, raqm=ctx.raqm)
        top = y + 36 + SMALL_CARD_H + 8
        if not self.melds[side]:
            self.text(PAD + 12, top + 12, ctx.t("canasta.no_melds"), 17, MUTED)
        height = self.meld_h[side]
        for meld, row, offset, width in self.cells[side]:
            self._meld(meld, offset, width, top + row * (_cell_h(height) + MELD_GAP), height)
        return y + h + 10

    def _meld(self, meld: dict[str, Any], offset: float, width: float, top: float, height: int) -> None:
        ctx = self.ctx
        box = self.s.box(offset, width, top, top + _cell_h(height))
        kind = meld.get("canasta")
        ring = {"natural": NATURAL, "mixed": MIXED}.get(kind or "")
        self.draw.rounded_rectangle(box, radius=8, fill=FELT, outline=ring, width=3 if ring else 0)
        left = box[0] + 6
        cards = list(meld.get("cards") or [])
        head = f"#{meld.get('number')} · {_rank_text(meld.get('rank', '?'))} ({len(cards)})"
        draw_text(self.draw, (left, top + 12), head, MELD_HEAD_SIZE, INK, anchor="lm", bold=True, raqm=ctx.raqm)
        if ring:
            label = ctx.t(f"canasta.{kind}")
            w = text_width(label, 14, bold=True, raqm=ctx.raqm, rtl=ctx.rtl) + 12
            low = top + 24 + height - 12
            self.draw.rounded_rectangle((box[2] - w - 6, low - 9, box[2] - 6, low + 9), radius=8, fill=ring)
            draw_text(self.draw, (box[2] - 6 - w / 2, low), label, 14, INK, anchor="mm", bold=True,
                      raqm=ctx.raqm, rtl=ctx.rtl)
        if kind:
            # a completed canasta is squared up under a natural card of its rank (a mixed one is told by its ring
            # and label, not by a wild on top, which would read as a canasta of 2s)
            shown = [next((c for c in cards if c != "X" and not c.startswith("2")), cards[0])]
            under = card_base.back(height, "french")
            self.image.paste(under, (round(left + 4), round(top + 22)), under)
            face = cards_french.face(shown[0], height, False)
            self.image.paste(face, (round(left), round(top + 24)), face)
            draw_text(self.draw, (left + card_base.card_width(height) + 12, top + 24 + height / 3),
                      f"× {len(cards)}", 22, INK, anchor="lm", bold=True, raqm=ctx.raqm)
        else:
            _fan(self.image, cards, left, top + 24, height, width - 12)

    def footer(self, y: int) -> int:
        view, ctx = self.view, self.ctx
        last_hand = view.get("last_hand")
        if isinstance(last_hand, dict) and last_hand.get("points"):
            points = last_hand["points"]
            sides = "  ·  ".join(f"{fit(_side_name(i, self.sides[i], ctx), 17, 220, raqm=ctx.raqm, rtl=ctx.rtl)} "
                                 f"{ltr(f'{p:+d}')}" for i, p in enumerate(points[: len(self.sides)]))
            line = f"{ctx.t('canasta.last_hand')}: {sides}"
            self.text(PAD, y + 14, fit(line, 17, TABLE_W - 2 * PAD, raqm=ctx.raqm, rtl=ctx.rtl), 17, MUTED)
            y += 30
        if self.last:
            y = self.last_move(y, PAD + 4, _last_move_items(self.last, ctx), SMALL_CARD_H, MUTED, INK)
        return y


def render_table(view: dict[str, Any], ctx: RenderContext) -> Image.Image:
    """Header, winner banner once over, the piles with whose turn, each side's panel, the last hand and move."""
    table = _Table(view, ctx)
    y = table.piles(table.heading(bool(view.get("over"))))
    for side in range(len(table.sides)):
        y = table.side(y, side)
    table.footer(y)
    return table.image


# ---- fixed palette -----------------------------------------------------------------------------------------


def _sample_views() -> list[dict[str, Any]]:
    """Views that between them draw every colour: a side on turn, a natural and a mixed canasta, open melds, red
    3s, a frozen and blocked pile, a card to meld after a take (the rack's panel), and a finished match."""
    def meld(number: int, team: int, rank: str, cards: str, canasta: str | None = None) -> dict[str, Any]:
        return {"number": number, "team": team, "rank": rank, "cards": cards.split(), "canasta": canasta}

    melds = [meld(1, 0, "K", "KH KS KC KD KH KS KC", "natural"), meld(2, 0, "7", "7H 7D 7C 2S X"),
             meld(3, 1, "A", "AH AS AD AC 2H X AH", "mixed"), meld(4, 1, "9", "9H 9D 9S")]
    base = {
        "game": "canasta", "seat": 0, "players": 4, "variant": "classic4", "target": 5000,
        "teams": [[0, 2], [1, 3]], "team": 0, "canastas_needed": 1, "round": 2, "dealer": 3, "to_move": 0,
        "turn": 0, "phase": "play", "hand": ["4C", "9H", "QS", "QD", "JH", "3S", "X", "2C", "8D", "5S"],
        "hand_sizes": [10, 11, 9, 12], "stock_size": 40, "discard_top": "3S", "pile_size": 9, "frozen": True,
        "pile_blocked": True, "melds": melds, "opened": [True, False], "team_red3s": [["3H", "3D"], ["3D"]],
        "min_meld": [50, 90], "must_use": "QH", "taken_cards": ["5D", "JC", "8S"], "ask": None,
        "scores": [1055, 2720], "last_move": {"seat": 3, "move": "meld 9H 9D 9S"},
        "last_hand": {"round": 1, "points": [590, -75]}, "over": False, "winners": [],
    }
    over = dict(base, players=2, teams=[[0], [1]], hand_sizes=[0, 4], over=True, to_move=None, turn=None,
                phase="over", winners=[1], must_use=None, taken_cards=None, frozen=False, pile_blocked=False,
                discard_top=None, pile_size=0, last_move={"seat": 1, "move": "discard 7S"})
    return [base, over]


def _palette_samples() -> list[Image.Image]:
    """Sample tables and racks (both languages, selected cards) and every face, plain and selected, at the meld
    size (the cheapest to draw; the anti-aliased edges of other sizes mix the same colours)."""
    return [*palette.table_and_rack_samples(_sample_views(), render_table, render_rack, 10),
            *palette.face_samples(cards_french.face, cards_french.CODES, MELD_CARD_H,
                                  card_base.back(MELD_CARD_H, "french"))]


PALETTE = palette.Spec(
    _palette_samples, FELT,
    (FELT, PANEL, PANEL_TURN, INK, MUTED, DARK, TURN, WIN, FROZEN, BLOCKED, NATURAL, MIXED, *SIDE_COLOURS,
     *cards_french.KEY_COLOURS),
)
