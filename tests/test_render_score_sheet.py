"""The score sheet picture: the label column on the reading side, numbers kept whole in either direction."""

from __future__ import annotations

import io

from PIL import Image

import renderers
from renderers import score_sheet
from renderers.text import LRI, PDI

ROWS = [("natural canastas", ("1 → +500", "0 → 0")), ("Total", ("935", "-10"))]
AR_ROWS = [("كاناستا نظيفة", ("1 ← +500", "0 ← 0")), ("المجموع", ("935", "-10"))]


def ink_columns(png: bytes, top: int, bottom: int) -> list[int]:
    """x positions with dark ink between two heights."""
    image = Image.open(io.BytesIO(png)).convert("L")
    return [x for x in range(image.width)
            if any(image.getpixel((x, y)) < 140 for y in range(top, bottom))]


def test_label_column_follows_the_reading_direction():
    title_rows = score_sheet.PAD + score_sheet.TITLE_SIZE + 14 + 10 + score_sheet.ROW_H  # title, then the head
    first_row = (title_rows + 4, title_rows + score_sheet.ROW_H - 4)
    english = renderers.render_sheet("Hand 1: Ali went out", ["Ali & Sami", "Mona & Hind"], ROWS, (), "en")
    arabic = renderers.render_sheet("اليد 1: علي خرج", ["علي وسامي", "منى وهند"], AR_ROWS, (), "ar")
    en_ink, ar_ink = ink_columns(english, *first_row), ink_columns(arabic, *first_row)
    # The label starts at the left edge in English and ends at the right edge in Arabic; the side columns are
    # centred away from both edges, so the other direction's layout would leave that edge blank.
    assert min(en_ink) < score_sheet.PAD + 30 and max(en_ink) < score_sheet.WIDTH - score_sheet.PAD - 60
    assert max(ar_ink) > score_sheet.WIDTH - score_sheet.PAD - 30 and min(ar_ink) > score_sheet.PAD + 60
    assert english != arabic


def test_numbers_are_isolated_words_are_not():
    assert score_sheet._cell("1 ← +500") == f"{LRI}1{PDI} ← {LRI}+500{PDI}"
    assert score_sheet._cell("-10") == f"{LRI}-10{PDI}"
    assert score_sheet._cell("went out") == "went out"
