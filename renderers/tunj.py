"""Tunj (Crapette) pictures: the whole board in one image, for the table and for a seat's rack.

Reads the Tunj view of the engine: "reserves" [{count, top}], "houses" (8 lists, bottom first), "foundations"
(8 lists), "hand_sizes", "waste_sizes", "waste_tops", "turned", "claim" {open, by, caller, attempt, broke},
"scores", "burdens", "to_move", "seat", "round", "target", "last_move", "events", "hand_result", "over",
"winners", "draw".

Tunj hides almost nothing (the hands are face down even to their owners), so the rack is the same board drawn
from the seat's side: its own strip at the bottom, its turned card and counts emphasised, and the source it has
picked (see SOURCE_INDEX) ringed. The board itself is never mirrored for right-to-left languages: H1-H4 stay on
the left and F1-F8 in the middle so the pictures match the buttons; only the text lines follow the language.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from PIL import Image

from renderers import card_base, cards_french, palette
from renderers.context import RenderContext
from renderers.text import draw_text, fit, ltr
from renderers.widgets import Colour, Sheet, end_pill

FELT = (24, 78, 60)
PANEL = (33, 100, 77)
BOARD = (28, 90, 69)
INK = (246, 244, 236)
MUTED = (212, 232, 220)  # secondary text, still light enough to read at phone size
DARK = (34, 30, 24)
TURN = (250, 198, 70)
WIN = (255, 214, 90)
CLAIM = (232, 58, 52)
CLAIM_TINT = (120, 34, 34)
PICK = card_base.SELECT[:3]

WIDTH = 740
PAD = 12
CARD_H = 72
CW = card_base.card_width(CARD_H)
ROW_H = 94
LABEL_W = 34
FAN_W = 258
FAN_STEP = 22
STRIP_H = 112
SLOT_W = 84
HEADER_H = 44
BANNER_H = 80
LAST_H = 32

# Positions of the piles a seat can move from, as carried in RenderContext.selected (the rack's "pick"):
# the reserve, the turned card, then houses H1-H8. A run of k cards adds RUN_BASE + k.
SOURCE_INDEX = {"R": 0, "T": 1, **{f"H{n}": 1 + n for n in range(1, 9)}}
RUN_BASE = 100

# x of the board columns (left to right, never mirrored)
_LEFT_LABEL = PAD
_LEFT_FAN = PAD + LABEL_W + 2
_FOUND_X = _LEFT_FAN + FAN_W + 12
_FOUND_GAP = 10
_RIGHT_LABEL = _FOUND_X + 2 * CW + _FOUND_GAP + 10
_RIGHT_FAN = _RIGHT_LABEL + LABEL_W + 2


# What an engine reason names, by a phrase each reason of engine/tunj/judge.py contains; first match wins.
_RULE_PHRASES = (
    ("priority 1", "p1"),
    ("priority 2", "p2"),
    ("priority 3", "p3"),
    ("turned card must be played", "turned_first"),
    ("is not a run", "not_run"),
    ("can only move to a house", "run_target"),
    ("needs more empty houses", "run_space"),
    ("cannot go on foundation", "foundation"),
    ("cannot load", "load"),
    ("cannot be loaded", "load_empty"),
    ("cannot go on", "house"),
)


def rule_code(reason: str) -> str:
    """A short code for an engine reason (its text is English only), so pictures and chat can translate it."""
    for phrase, code in _RULE_PHRASES:
        if phrase in reason:
            return code
    return "other"


def rule_codes(reasons: list[str]) -> list[str]:
    """Codes of the rules an attempt broke, each once, in the engine's order."""
    return list(dict.fromkeys(rule_code(str(reason)) for reason in reasons))


# Piles a move names by a letter the board does not show (it shows H1-H8 and F1-F8): their words, as the strips
# label them. The other moves are words of their own (engine notation such as "turn" means nothing to a player).
_PILE_WORDS = {"R": "tunj.reserve", "T": "tunj.turned", "OR": "tunj.their_reserve", "OW": "tunj.their_waste"}
_MOVE_WORDS = {"turn": "tunj.mv.turn", "tunj": "tunj.mv.tunj", "expire": "tunj.mv.expire"}


def _shown_move(move: str, ctx: RenderContext) -> str:
    """A move inside a sentence, in the reader's words: a pile move kept as one left-to-right unit in an Arabic
    line (its arrow points the way the board reads), turning a card, a call and a closed window in words."""
    words = move.split()
    if len(words) == 1 and words[0] in _MOVE_WORDS:
        return ctx.t(_MOVE_WORDS[words[0]])
    return ltr(short_move(move, ctx))


def _pile_words(pile: str, ctx: RenderContext) -> str:
    """A move's pile as the board names it: H3, F5, "Reserve", "H3 ×2" for a run of two."""
    base, _, run = pile.partition(":")
    shown = ctx.t(_PILE_WORDS[base]) if base in _PILE_WORDS else base
    return f"{shown} ×{run}" if run else shown


def short_move(move: str, ctx: RenderContext | None = None) -> str:
    """`move H3:2 H7` -> `H3 ×2 → H7`, `move T F1` -> `Turned → F1` (in `ctx`'s language, English without one);
    other moves unchanged (turn, tunj, expire: see `_shown_move`)."""
    words = move.split()
    if len(words) == 3 and words[0] == "move":
        ctx = ctx or RenderContext(lang="en")
        return f"{_pile_words(words[1], ctx)} → {_pile_words(words[2], ctx)}"
    return move


class _Board(Sheet):
    """One picture being drawn; `me` is the seat drawn at the bottom (seat 0 on the public table)."""

    def __init__(self, view: dict[str, Any], ctx: RenderContext, rack: bool):
        self.view, self.ctx, self.rack = view, ctx, rack
        seat = view.get("seat")
        self.me = seat if rack and seat in (0, 1) else 0
        claim = view.get("claim") or {}
        self.claim = claim if claim.get("open") else None
        self.over = bool(view.get("over"))
        self.to_move = None if self.over else view.get("to_move")
        self.marks = self._claim_marks()
        self.picked, self.picked_run = self._picked()
        height = HEADER_H + STRIP_H + 4 * ROW_H + 14 + STRIP_H + PAD
        if self.claim or self.over:
            height += BANNER_H
        if self._last_text():
            height += LAST_H
        super().__init__(WIDTH, height, FELT, ctx)

    # ---- what to emphasise ----------------------------------------------------------------------------------

    def _claim_marks(self) -> set[str]:
        """Piles an open claim's attempt touches: its source and its target, in board pile names."""
        if not self.claim:
            return set()
        words = str(self.claim.get("attempt") or "").split()
        offender = self.claim.get("by", 0)
        marks: set[str] = set()
        if len(words) == 3 and words[0] == "move":
            src, dst = words[1].split(":")[0], words[2]
            marks.add({"R": f"R{offender}", "T": "T"}.get(src, src))
            marks.add({"OR": f"R{1 - offender}", "OW": f"W{1 - offender}"}.get(dst, dst))
        elif words == ["turn"]:
            marks.add(f"N{offender}")
        return marks

    def _picked(self) -> tuple[str | None, int]:
        """The source the rack's seat has picked (board pile name) and, for a run, its length."""
        if not self.rack or not self.ctx.selected:
            return None, 1
        names = {index: name for name, index in SOURCE_INDEX.items()}
        pile, run = None, 1
        for index in self.ctx.selected:
            if index in names:
                pile = names[index]
            elif index > RUN_BASE:
                run = index - RUN_BASE
        if pile == "R":
            pile = f"R{self.me}"
        return pile, run

    # ---- drawing helpers ------------------------------------------------------------------------------------

    def centre(self, x: float, y: float, text: str, size: int, fill: object, bold: bool = False) -> None:
        draw_text(self.draw, (x, y), text, size, fill, anchor="mm", bold=bold, raqm=self.ctx.raqm, rtl=self.ctx.rtl)

    def card(self, code: str | None, x: float, y: float, chosen: bool = False) -> None:
        if code is None:
            return
        face = cards_french.face(code, CARD_H, chosen)
        self.image.paste(face, (round(x), round(y)), face)

    def back(self, x: float, y: float) -> None:
        back = card_base.back(CARD_H, "french")
        self.image.paste(back, (round(x), round(y)), back)

    def slot(self, x: float, y: float, hint: str = "") -> None:
        """An empty pile: its outline, and a faint hint of what starts it."""
        self.draw.rounded_rectangle((x, y, x + CW, y + CARD_H), radius=5, outline=MUTED, width=2)
        if hint:
            self.centre(x + CW / 2, y + CARD_H / 2, hint, 18, MUTED, bold=True)

    def ring(self, box: tuple[float, float, float, float], colour: tuple[int, int, int], width: int = 4) -> None:
        x0, y0, x1, y1 = box
        self.draw.rounded_rectangle((x0 - 4, y0 - 4, x1 + 4, y1 + 4), radius=8, outline=colour, width=width)

    def emphasis(self, pile: str, box: tuple[float, float, float, float]) -> None:
        if pile in self.marks:
            self.ring(box, CLAIM, 5)
        elif pile == self.picked:
            self.ring(box, PICK, 4)

    # ---- sections -------------------------------------------------------------------------------------------

    def header(self, y: int) -> int:
        view, ctx = self.view, self.ctx
        title = f"{ctx.t('game.tunj')} · {ctx.t('tunj.hand_no', n=view.get('round', 1))}"
        self.text(PAD, y + HEADER_H / 2, title, 21, INK, bold=True)
        target = view.get("target")
        goal = ctx.t("target", n=target) if target else ctx.t("tunj.one_hand")
        if self.rack and not self.over and self.to_move == self.me:
            end_pill(self.draw, self.s, PAD, y + HEADER_H / 2, ctx.t("your_turn"), 16, TURN, DARK, ctx, 20)
        else:
            self.text(WIDTH - PAD, y + HEADER_H / 2, goal, 17, MUTED, anchor="rm")
        return y + HEADER_H

    def banner(self, y: int) -> int:
        ctx = self.ctx
        if self.over:
            self.draw.rounded_rectangle((PAD / 2, y + 4, WIDTH - PAD / 2, y + BANNER_H - 6), radius=10, fill=WIN)
            self.centre(WIDTH / 2, y + 22, fit(self._winner_line(), 19, WIDTH - 4 * PAD, bold=True,
                                               raqm=ctx.raqm, rtl=ctx.rtl), 19, DARK, bold=True)
            self.centre(WIDTH / 2, y + 44, self._result_line(), 14, DARK)
            return y + BANNER_H
        self.draw.rounded_rectangle((PAD / 2, y + 4, WIDTH - PAD / 2, y + BANNER_H - 6), radius=10, fill=CLAIM_TINT,
                                    outline=CLAIM, width=3)
        lines = zip(self.claim_lines(), (18, 14, 14), (INK, INK, TURN), strict=True)
        for number, (line, size, ink) in enumerate(lines):
            shown = fit(line, size, WIDTH - 4 * PAD, bold=True, raqm=ctx.raqm, rtl=ctx.rtl)
            self.centre(WIDTH / 2, y + 20 + 21 * number, shown, size, ink, bold=True)
        return y + BANNER_H

    def claim_lines(self) -> list[str]:
        """The open claim's banner: who attempted what, the rules it broke, who may call."""
        ctx, claim = self.ctx, self.claim or {}
        offender, caller = int(claim.get("by") or 0), int(claim.get("caller") or 0)
        return [
            ctx.t("tunj.claim", name=ctx.name(offender), move=_shown_move(str(claim.get("attempt") or ""), ctx)),
            "; ".join(ctx.t(f"tunj.rule.{code}") for code in rule_codes(claim.get("broke") or [])),
            ctx.t("tunj.you_may_call") if self.rack and caller == self.me
            else ctx.t("tunj.may_call", name=ctx.name(caller)),
        ]

    def _winner_line(self) -> str:
        ctx = self.ctx
        winners = [w for w in self.view.get("winners") or [] if w in (0, 1)]
        if self.view.get("draw") or len(winners) != 1:
            return ctx.t("draw", names=ctx.t("and").join(ctx.name(s) for s in (0, 1)))
        return ctx.t("winner", names=ctx.name(winners[0]))

    def _result_line(self) -> str:
        result = self.view.get("hand_result") or {}
        burdens = result.get("burdens") or self.view.get("burdens") or [0, 0]
        kind = "tunj.deadlock" if result.get("kind") == "deadlock" else "tunj.out"
        points = result.get("points") or [0, 0]
        return self.ctx.t(kind, a=self.ctx.name(0), b=self.ctx.name(1), pa=ltr(f"+{points[0]}"),
                          pb=ltr(f"+{points[1]}"), ba=burdens[0], bb=burdens[1])

    def strip(self, y: int, seat: int) -> int:
        view, ctx = self.view, self.ctx
        turn = seat == self.to_move
        mine = self.rack and seat == self.me
        self.panel(y + 2, STRIP_H - 6, PANEL, PAD, TURN if turn else None, 3 if turn else 0)
        name = ctx.name(seat) + (f" ({ctx.t('tunj.you')})" if mine else "")
        name_w = WIDTH - 4 * SLOT_W - 3 * PAD
        self.text(PAD + 10, y + 26, fit(name, 19, name_w - 10, bold=True, raqm=ctx.raqm, rtl=ctx.rtl), 19,
                  TURN if turn else INK, bold=True)
        scores, burdens = view.get("scores") or [0, 0], view.get("burdens") or [0, 0]
        self.text(PAD + 10, y + 54, ctx.t("tunj.score_burden", score=scores[seat], burden=burdens[seat]), 17, MUTED)
        if not (turn and not self.rack):
            houses = "H1–H4" if seat == 0 else "H5–H8"
            self.text(PAD + 10, y + 81, ctx.t("tunj.houses_of", houses=ltr(houses)), 16, MUTED)
        if turn and not self.rack:
            self.text(PAD + 10, y + 81, ctx.t("tunj.to_play"), 16, TURN, bold=True)

        reserve = (view.get("reserves") or [{}, {}])[seat] or {}
        hands, wastes = view.get("hand_sizes") or [0, 0], view.get("waste_sizes") or [0, 0]
        waste_tops = view.get("waste_tops") or [None, None]
        slots = [("R", "tunj.reserve", int(reserve.get("count") or 0)), ("N", "tunj.hand", int(hands[seat])),
                 ("W", "tunj.waste", int(wastes[seat])), ("T", "tunj.turned", None)]
        top = y + 8
        for index, (kind, key, count) in enumerate(slots):
            offset = WIDTH - PAD - (len(slots) - index) * SLOT_W
            left, _, right, _ = self.s.box(offset, SLOT_W, 0, 0)
            x = (left + right) / 2 - CW / 2
            pile = f"{kind}{seat}" if kind != "T" else "T"
            label = ctx.t(key) if count is None else f"{ctx.t(key)} {count}"
            if kind == "T":
                card = view.get("turned") if turn else None
                if card:
                    self.card(card, x, top, chosen=mine)
                    self.emphasis(pile, (x, top, x + CW, top + CARD_H))
                else:
                    self.slot(x, top)
                self.centre(x + CW / 2, top + CARD_H + 16, self._slot_label(label), 15, INK if card else MUTED,
                            bold=True)
                continue
            if kind == "R" and count:
                if count > 1:
                    self.back(x + 3, top + 3)
                self.card(reserve.get("top"), x, top, chosen=pile == self.picked)
            elif kind == "N" and count:
                self.back(x, top)
            elif kind == "W" and count:
                self.card(waste_tops[seat], x, top)
            else:
                self.slot(x, top)
            self.emphasis(pile, (x, top, x + CW + (3 if kind == "R" and count > 1 else 0), top + CARD_H))
            self.centre(x + CW / 2, top + CARD_H + 16, self._slot_label(label), 15, INK if mine else MUTED, bold=True)
        return y + STRIP_H

    def _slot_label(self, label: str) -> str:
        """A pile's label under it, cut to its slot (labels are drawn bold, to stay readable at phone size)."""
        return fit(label, 15, SLOT_W - 4, bold=True, raqm=self.ctx.raqm, rtl=self.ctx.rtl)

    def board(self, y: int) -> int:
        view = self.view
        houses = list(view.get("houses") or [[] for _ in range(8)])
        foundations = list(view.get("foundations") or [[] for _ in range(8)])
        # the panel, its F labels and its plain H badges are the same on every board: pasted, not drawn
        self.image.paste(_board_layer(self.ctx.raqm, self.ctx.rtl), (0, y))
        for row in range(4):
            top = y + 10 + row * ROW_H
            card_y = top + 16
            self._house(f"H{row + 1}", houses[row], _LEFT_LABEL, _LEFT_FAN, card_y)
            self._house(f"H{row + 5}", houses[row + 4], _RIGHT_LABEL, _RIGHT_FAN, card_y)
            for column, number in ((0, row + 1), (1, row + 5)):
                x = _FOUND_X + column * (CW + _FOUND_GAP)
                name = f"F{number}"
                pile = foundations[number - 1]
                if pile:
                    self.card(pile[-1], x, card_y)
                else:
                    self.slot(x, card_y, "A")
                self.emphasis(name, (x, card_y, x + CW, card_y + CARD_H))
        return y + BOARD_H

    def badge(self, name: str, label_x: int, card_y: int, fill: Colour, ink: Colour) -> None:
        """A house's name on its badge, left of its fan."""
        mid = card_y + CARD_H / 2
        self.draw.rounded_rectangle((label_x, mid - 13, label_x + LABEL_W, mid + 13), radius=7, fill=fill)
        self.centre(label_x + LABEL_W / 2, mid, name, 16, ink, bold=True)

    def _house(self, name: str, pile: list[str], label_x: int, fan_x: int, card_y: int) -> None:
        marked = name in self.marks
        chosen = name == self.picked
        if marked or chosen:  # the plain badge is on the board layer; this one covers it exactly
            self.badge(name, label_x, card_y, CLAIM if marked else PICK, INK if marked else DARK)
        if not pile:
            self.slot(fan_x, card_y)
            self.emphasis(name, (fan_x, card_y, fan_x + CW, card_y + CARD_H))
            return
        n = len(pile)
        step = FAN_STEP if n == 1 else min(FAN_STEP, (FAN_W - CW) / (n - 1))
        run = self.picked_run if chosen else 1
        for index, code in enumerate(pile):
            self.card(code, fan_x + index * step, card_y, chosen=chosen and index >= n - run)
        end = fan_x + (n - 1) * step + CW
        self.emphasis(name, (fan_x + (n - max(run, 1)) * step if chosen else fan_x, card_y, end, card_y + CARD_H))

    def _last_text(self) -> str:
        """One line about the last move: who did what, and what came of it (a call, a closed window)."""
        last = self.view.get("last_move")
        if not isinstance(last, dict) or "move" not in last:
            return ""
        ctx, move = self.ctx, str(last["move"])
        name = ctx.name(int(last.get("seat", 0)))
        events = {event.get("type"): event for event in self.view.get("events") or [] if isinstance(event, dict)}
        if move == "tunj":
            called = events.get("called") or {}
            return ctx.t("tunj.last_called", name=name, move=_shown_move(str(called.get("attempt") or ""), ctx))
        if move == "expire":
            expired = events.get("expired") or {}
            return ctx.t("tunj.last_expired", move=_shown_move(str(expired.get("attempt") or ""), ctx))
        if "claim" in events:
            return ctx.t("tunj.last_attempt", name=name, move=_shown_move(move, ctx))
        if move == "turn":
            text = ctx.t("tunj.last_turn", name=name)
        else:
            text = ctx.t("tunj.last_move", name=name, move=_shown_move(move, ctx))
        if "to_waste" in events:
            text += " · " + ctx.t("tunj.last_wasted")
        return text

    def last(self, y: int) -> int:
        text = self._last_text()
        if not text:
            return y
        shown = fit(f"{self.ctx.t('last_move')}: {text}", 17, WIDTH - 3 * PAD, raqm=self.ctx.raqm, rtl=self.ctx.rtl)
        self.text(PAD, y + LAST_H / 2, shown, 17, MUTED)
        return y + LAST_H


BOARD_H = 4 * ROW_H + 14


@lru_cache(maxsize=4)
def _board_layer(raqm: bool | None, rtl: bool) -> Image.Image:
    """The board section's fixed part on the felt, drawn once per text engine and direction: its panel, the
    foundations' F labels and every house's plain badge. A board pastes it whole and draws only what its view
    changes (cards, empty outlines, a marked or picked badge, rings) on top, in the order the full drawing used,
    so the picture is pixel for pixel the one drawn from scratch (bench/picture_diff.py), about 0.7 ms of the
    ~3 ms a Tunj board took to draw (bench/render.py on a loaded machine) saved."""
    layer = _Board.__new__(_Board)  # only its drawing helpers: no view
    Sheet.__init__(layer, WIDTH, BOARD_H, FELT, RenderContext(raqm=raqm, lang="ar" if rtl else "en"))
    layer.panel(2, 4 * ROW_H + 8, BOARD, PAD)
    for row in range(4):
        top = 10 + row * ROW_H
        for label_x, number in ((_LEFT_LABEL, row + 1), (_RIGHT_LABEL, row + 5)):
            layer.badge(f"H{number}", label_x, top + 16, INK, DARK)
        for column, number in ((0, row + 1), (1, row + 5)):
            layer.centre(_FOUND_X + column * (CW + _FOUND_GAP) + CW / 2, top + 6, f"F{number}", 15, INK, bold=True)
    return layer.image


def _draw(view: dict[str, Any], ctx: RenderContext, rack: bool) -> Image.Image:
    board = _Board(view, ctx, rack)
    y = board.header(0)
    if board.claim or board.over:
        y = board.banner(y)
    y = board.strip(y, 1 - board.me)
    y = board.board(y)
    y = board.strip(y, board.me)
    board.last(y)
    return board.image


def _sample_views() -> list[dict[str, Any]]:
    """Two boards that between them show every colour the pictures use: an open claim with a pick and a turned
    card, and a finished hand."""
    ranks = cards_french.RANKS
    houses = [[f"{ranks[12 - i]}{'SH'[i % 2]}" for i in range(n)] for n in (5, 1, 0, 3, 13, 2, 1, 0)]
    base = {
        "seat": 0, "round": 2, "target": 200, "to_move": 1, "turned": "7D",
        "reserves": [{"count": 9, "top": "QC"}, {"count": 0, "top": None}],
        "houses": houses, "foundations": [["AS"], ["AH", "2H"], ["AD"], ["AC", "2C", "3C"], [], [], [], []],
        "hand_sizes": [20, 0], "waste_sizes": [4, 0], "waste_tops": ["9D", None], "scores": [30, 12],
        "burdens": [40, 0], "last_move": {"seat": 0, "move": "move R F2"}, "events": [], "over": False,
        "winners": [], "draw": False, "hand_result": None,
        "claim": {"open": True, "by": 0, "caller": 1, "attempt": "move H1 F5", "broke": ["priority 1: x"]},
    }
    finished = dict(base, over=True, to_move=None, winners=[1], claim={"open": False},
                    hand_result={"kind": "win", "winner": 1, "points": [0, 70], "burdens": [40, 0]})
    return [base, dict(base, seat=1), finished]


def _palette_samples() -> list[Image.Image]:
    """Sample boards (both languages, both seats, a claim and a finished hand) and every face, plain and picked,
    at the board's card size (which also warms the face cache for the first real boards)."""
    boards = [_draw(view, RenderContext(lang=lang), rack=True) for view in _sample_views() for lang in ("en", "ar")]
    return [*boards, *palette.face_samples(cards_french.face, cards_french.CODES[:-1], CARD_H,
                                           card_base.back(CARD_H, "french"))]


PALETTE = palette.Spec(
    _palette_samples, FELT,
    (FELT, PANEL, BOARD, INK, MUTED, DARK, TURN, WIN, CLAIM, CLAIM_TINT, *cards_french.KEY_COLOURS),
)


def render_table(view: dict[str, Any], ctx: RenderContext) -> Image.Image:
    """The public board: seat 0 at the bottom, an open claim's banner and its source and target ringed."""
    return _draw(view, ctx, rack=False)


def render_rack(view: dict[str, Any], ctx: RenderContext) -> Image.Image:
    """The board from the seat's side: its strip at the bottom with its turned card raised, its pick ringed."""
    return _draw(view, ctx, rack=True)
