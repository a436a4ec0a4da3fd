"""A tournament's bracket as a picture: one column per round, a box per game with its two sides, the winner
marked, lines joining each game to the one its winner goes to, and the champion in a gold box at the end.

Game-independent: every label arrives in the reader's language. Arabic reads right to left, so there the first
round is on the right and the final on the left.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from renderers import encode_png
from renderers.text import draw_text, fit, isolate

BOX_W = 250
BOX_H = 74
GAP_X = 56
GAP_Y = 22
PAD = 28
TITLE_SIZE = 28
HEAD_SIZE = 19
NAME_SIZE = 19
NOTE_SIZE = 15
HEADER_H = 128

PAPER = (20, 46, 36)
BOX = (236, 230, 212)
BOX_DONE = (250, 246, 236)
INK = (34, 32, 28)
MUTED = (120, 112, 98)
WIN = (196, 150, 40)
LINE = (150, 176, 160)
TITLE_INK = (244, 238, 222)


@dataclass(frozen=True)
class Side:
    name: str  # "" when not known yet
    won: bool = False


@dataclass(frozen=True)
class Game:
    a: Side
    b: Side
    note: str = ""  # "bye", "forfeit", "in play", "check-in until 20:15" ...


def render(title: str, subtitle: str, heads: Sequence[str], columns: Sequence[Sequence[Game]], champion: str,
           lang: str) -> bytes:
    """`columns[r]` are the games of round r+1 in slot order (each round half the one before); `heads` their
    titles; `champion` the winner's line, or ""."""
    rtl = lang == "ar"
    first = max(1, len(columns[0]) if columns else 1)
    rounds = len(columns)
    width = PAD * 2 + rounds * BOX_W + rounds * GAP_X + BOX_W
    height = HEADER_H + PAD + first * (BOX_H + GAP_Y) + PAD
    image = Image.new("RGB", (width, height), PAPER)
    draw = ImageDraw.Draw(image)
    x_text, anchor = (width - PAD, "ra") if rtl else (PAD, "la")
    draw_text(draw, (x_text, PAD - 6), title, TITLE_SIZE, TITLE_INK, anchor=anchor, bold=True, rtl=rtl)
    draw_text(draw, (x_text, PAD + TITLE_SIZE + 4), fit(subtitle, HEAD_SIZE, width - 2 * PAD, rtl=rtl), HEAD_SIZE,
              LINE, anchor=anchor, rtl=rtl)

    def column_x(index: int) -> int:
        left = PAD + index * (BOX_W + GAP_X)
        return width - left - BOX_W if rtl else left

    def centre_y(round_index: int, slot: int) -> float:
        span = (BOX_H + GAP_Y) * (1 << round_index)
        return HEADER_H + PAD + span * slot + span / 2 - GAP_Y / 2

    for index, games in enumerate(columns):
        x = column_x(index)
        head = heads[index] if index < len(heads) else ""
        draw_text(draw, (x + BOX_W / 2, HEADER_H - 8), head, HEAD_SIZE, TITLE_INK, anchor="ms", bold=True, rtl=rtl)
        for slot, game in enumerate(games):
            cy = centre_y(index, slot)
            top = cy - BOX_H / 2
            done = game.a.won or game.b.won
            draw.rounded_rectangle((x, top, x + BOX_W, top + BOX_H), 8, fill=BOX_DONE if done else BOX)
            for row, side in enumerate((game.a, game.b)):
                y = top + 20 + row * 30
                name = fit(side.name or "…", NAME_SIZE, BOX_W - 44, bold=side.won, rtl=rtl)
                name_x, name_anchor = (x + BOX_W - 14, "rm") if rtl else (x + 14, "lm")
                draw_text(draw, (name_x, y), isolate(name), NAME_SIZE, INK if side.name else MUTED, anchor=name_anchor,
                          bold=side.won, rtl=rtl)
                if side.won:
                    mark_x = x + 16 if rtl else x + BOX_W - 16
                    draw.ellipse((mark_x - 7, y - 7, mark_x + 7, y + 7), fill=WIN)
            if game.note:
                draw_text(draw, (x + BOX_W / 2, top + BOX_H + 3), fit(game.note, NOTE_SIZE, BOX_W, rtl=rtl),
                          NOTE_SIZE, LINE, anchor="ma", rtl=rtl)
            # the line to the game this one's winner plays next (or to the champion's box after the final)
            nx = column_x(index + 1)
            ny = centre_y(index + 1, slot // 2) if index + 1 < rounds else cy
            out_x = x if rtl else x + BOX_W
            in_x = nx + BOX_W if rtl else nx
            mid = (out_x + in_x) / 2
            draw.line([(out_x, cy), (mid, cy), (mid, ny), (in_x, ny)], fill=LINE, width=2)
    # the champion's box after the final
    x = column_x(rounds)
    cy = centre_y(rounds - 1, 0) if rounds else HEADER_H + PAD + BOX_H / 2
    draw.rounded_rectangle((x, cy - BOX_H / 2, x + BOX_W, cy + BOX_H / 2), 8, fill=WIN if champion else BOX,
                           outline=WIN, width=2)
    if champion:  # (the fonts have no emoji: the gold box is the trophy)
        draw_text(draw, (x + BOX_W / 2, cy), isolate(fit(champion, NAME_SIZE, BOX_W - 20, bold=True, rtl=rtl)),
                  NAME_SIZE, INK, anchor="mm", bold=True, rtl=rtl)
    return encode_png(image)
