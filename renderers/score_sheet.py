"""A finished round's score sheet as a picture: how it ended, a table of what each side scored, the formula.

Game-independent: the chat layer (bot.sheet.Sheet) has already put every label and number into words, so this
module only lays them out — the label column on the reading side (right in Arabic, sides then read from the
right), numbers and card codes isolated left to right, Arabic shaped through renderers/text.py.
"""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image, ImageDraw

from renderers.text import draw_text, isolate, ltr, text_width

WIDTH = 960
PAD = 28
TITLE_SIZE = 30
HEAD_SIZE = 24
CELL_SIZE = 23
NOTE_SIZE = 22
ROW_H = 46
LABEL_SHARE = 0.42  # of the inner width, for the row labels

PAPER = (250, 246, 236)
INK = (40, 36, 30)
MUTED = (110, 100, 86)
RULE = (205, 195, 175)
BAND = (240, 233, 216)
HEAD = (44, 82, 66)
HEAD_INK = (250, 246, 236)
TOTAL_BAND = (226, 216, 190)


def _wrap(text: str, size: int, width: float, rtl: bool, bold: bool = False) -> list[str]:
    """Words onto lines no wider than `width` (a long title or formula)."""
    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        trial = f"{current} {word}" if current else word
        if current and text_width(trial, size, bold, rtl=rtl) > width:
            lines.append(current)
            current = word
        else:
            current = trial
    if current:
        lines.append(current)
    return lines


def _cell(text: str) -> str:
    """Each number (with its sign) kept whole and in order, the words and arrows between them left to the
    paragraph: "1 ← +500" reads from the right in Arabic, "1 → +500" from the left in English."""
    return " ".join(ltr(word) if any(ch.isdigit() for ch in word) and not any(ch.isalpha() for ch in word)
                    else word for word in text.split(" "))


def render(title: str, sides: Sequence[str], rows: Sequence[tuple[str, Sequence[str]]], notes: Sequence[str],
           lang: str) -> Image.Image:
    rtl = lang == "ar"
    inner = WIDTH - 2 * PAD
    title_lines = _wrap(title, TITLE_SIZE, inner, rtl, bold=True)
    note_lines = [line for note in notes for line in _wrap(note, NOTE_SIZE, inner, rtl)]
    height = PAD + len(title_lines) * (TITLE_SIZE + 14) + 10 + ROW_H * (len(rows) + 1) + 16 \
        + len(note_lines) * (NOTE_SIZE + 14) + PAD
    image = Image.new("RGB", (WIDTH, height), PAPER)
    draw = ImageDraw.Draw(image)
    y = PAD
    for line in title_lines:
        draw_text(draw, (WIDTH - PAD if rtl else PAD, y), line, TITLE_SIZE, INK, anchor="ra" if rtl else "la",
                  bold=True, rtl=rtl)
        y += TITLE_SIZE + 14
    y += 10
    label_w = inner * LABEL_SHARE
    column_w = (inner - label_w) / max(1, len(sides))

    def column_centre(index: int) -> float:
        offset = label_w + column_w * (index + 0.5)
        return WIDTH - PAD - offset if rtl else PAD + offset

    label_x, label_anchor = (WIDTH - PAD - 12, "rm") if rtl else (PAD + 12, "lm")
    draw.rectangle((PAD, y, WIDTH - PAD, y + ROW_H), fill=HEAD)
    for index, side in enumerate(sides):
        draw_text(draw, (column_centre(index), y + ROW_H / 2), isolate(side), HEAD_SIZE, HEAD_INK, anchor="mm",
                  bold=True, rtl=rtl)
    y += ROW_H
    for number, (label, cells) in enumerate(rows):
        last = number == len(rows) - 1
        if last or number % 2:
            draw.rectangle((PAD, y, WIDTH - PAD, y + ROW_H), fill=TOTAL_BAND if last else BAND)
        draw_text(draw, (label_x, y + ROW_H / 2), label, CELL_SIZE, MUTED if not last else INK, anchor=label_anchor,
                  bold=last, rtl=rtl)
        for index, cell in enumerate(cells):
            draw_text(draw, (column_centre(index), y + ROW_H / 2), _cell(cell), CELL_SIZE, INK, anchor="mm",
                      bold=last, rtl=rtl)
        y += ROW_H
        draw.line((PAD, y, WIDTH - PAD, y), fill=RULE, width=1)
    y += 16
    for line in note_lines:
        draw_text(draw, (WIDTH - PAD if rtl else PAD, y), line, NOTE_SIZE, INK, anchor="ra" if rtl else "la",
                  rtl=rtl)
        y += NOTE_SIZE + 14
    return image
