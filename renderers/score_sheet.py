"""A finished round's score sheet as a picture: how it ended, a table of what each side scored, the formula.

Game-independent: the chat layer (bot.sheet.Sheet) has already put every label and number into words, so this
module only lays them out — the label column on the reading side (right in Arabic, sides then read from the
right), numbers and card codes isolated left to right, Arabic shaped through renderers/text.py.
"""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image, ImageDraw

from renderers.text import draw_text, fit, isolate, ltr, text_width

WIDTH = 960
PAD = 28
# Sizes for a sheet seen about 400 px wide on a phone (0.42 of its width): cells of 26 px are 11 px there.
TITLE_SIZE = 32
HEAD_SIZE = 26
CELL_SIZE = 26
NOTE_SIZE = 24
ROW_H = 50
LINE_H = 30  # each further line of a wrapped side name or cell
LABEL_SHARE = 0.42  # of the inner width at most, for the row labels
LABEL_LEAST = 0.16  # of the inner width at least

PAPER = (250, 246, 236)
INK = (40, 36, 30)
MUTED = (92, 82, 68)
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


def _lines(text: str, size: int, width: float, rtl: bool, bold: bool) -> list[str]:
    """A side's name or a cell on at most two lines of `width` (the second cut with an ellipsis if need be)."""
    if text_width(text, size, bold, rtl=rtl) <= width:
        return [text]
    lines = _wrap(text, size, width, rtl, bold)
    if len(lines) > 2:
        lines = [lines[0], " ".join(lines[1:])]
    return [fit(line, size, width, bold, rtl=rtl) for line in lines]


def _row_h(cells: Sequence[Sequence[str]]) -> int:
    return ROW_H + LINE_H * (max((len(lines) for lines in cells), default=1) - 1)


def _draw_lines(draw: ImageDraw.ImageDraw, x: float, middle: float, lines: Sequence[str], size: int, fill: object,
                bold: bool, rtl: bool) -> None:
    """Lines centred on (x, middle), one under the other."""
    top = middle - LINE_H * (len(lines) - 1) / 2
    for number, line in enumerate(lines):
        draw_text(draw, (x, top + LINE_H * number), line, size, fill, anchor="mm", bold=bold, rtl=rtl)


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
    # the label column as wide as its longest label (within bounds), the rest shared by the sides, whose names and
    # cells wrap onto a second line rather than run into the next column ("Bot 2 (normBot 3 (norm…")
    widest = max((text_width(label, CELL_SIZE, True, rtl=rtl) for label, _ in rows), default=0)
    label_w = min(inner * LABEL_SHARE, max(inner * LABEL_LEAST, widest + 32))
    column_w = (inner - label_w) / max(1, len(sides))
    heads = [[isolate(line) for line in _lines(side, HEAD_SIZE, column_w - 12, rtl, True)] for side in sides]
    table = [[_lines(_cell(cell), CELL_SIZE, column_w - 12, rtl, number == len(rows) - 1) for cell in cells]
             for number, (_, cells) in enumerate(rows)]
    labels = [_lines(label, CELL_SIZE, label_w - 16, rtl, number == len(rows) - 1)
              for number, (label, _) in enumerate(rows)]
    head_h = _row_h(heads)
    rows_h = [_row_h([label, *cells]) for label, cells in zip(labels, table, strict=True)]
    height = PAD + len(title_lines) * (TITLE_SIZE + 14) + 10 + head_h + sum(rows_h) + 16 \
        + len(note_lines) * (NOTE_SIZE + 14) + PAD
    image = Image.new("RGB", (WIDTH, height), PAPER)
    draw = ImageDraw.Draw(image)
    y = PAD
    for line in title_lines:
        draw_text(draw, (WIDTH - PAD if rtl else PAD, y), line, TITLE_SIZE, INK, anchor="ra" if rtl else "la",
                  bold=True, rtl=rtl)
        y += TITLE_SIZE + 14
    y += 10

    def column_centre(index: int) -> float:
        offset = label_w + column_w * (index + 0.5)
        return WIDTH - PAD - offset if rtl else PAD + offset

    label_x, label_anchor = (WIDTH - PAD - 12, "rm") if rtl else (PAD + 12, "lm")
    draw.rectangle((PAD, y, WIDTH - PAD, y + head_h), fill=HEAD)
    for index, lines in enumerate(heads):
        _draw_lines(draw, column_centre(index), y + head_h / 2, lines, HEAD_SIZE, HEAD_INK, True, rtl)
    y += head_h
    for number, (label, cells, row_h) in enumerate(zip(labels, table, rows_h, strict=True)):
        last = number == len(rows) - 1
        if last or number % 2:
            draw.rectangle((PAD, y, WIDTH - PAD, y + row_h), fill=TOTAL_BAND if last else BAND)
        top = y + row_h / 2 - LINE_H * (len(label) - 1) / 2
        for line_number, line in enumerate(label):
            draw_text(draw, (label_x, top + LINE_H * line_number), line, CELL_SIZE, MUTED if not last else INK,
                      anchor=label_anchor, bold=last, rtl=rtl)
        for index, lines in enumerate(cells):
            _draw_lines(draw, column_centre(index), y + row_h / 2, lines, CELL_SIZE, INK, last, rtl)
        y += row_h
        draw.line((PAD, y, WIDTH - PAD, y), fill=RULE, width=1)
    y += 16
    for line in note_lines:
        draw_text(draw, (WIDTH - PAD if rtl else PAD, y), line, NOTE_SIZE, INK, anchor="ra" if rtl else "la",
                  rtl=rtl)
        y += NOTE_SIZE + 14
    return image
