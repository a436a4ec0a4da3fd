"""Arabic text: shaped and ordered right to left on both paths (raqm and reshaper + bidi)."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from renderers import text


def _ink(image: Image.Image) -> tuple[int, int, int, int] | None:
    return image.convert("L").point(lambda v: 255 if v < 128 else 0).getbbox()


def _drawn(word: str, raqm: bool | None, rtl: bool | None = True) -> Image.Image:
    image = Image.new("RGB", (320, 60), "white")
    text.draw_text(ImageDraw.Draw(image), (160, 30), word, 28, "black", anchor="mm", raqm=raqm, rtl=rtl)
    return image


def test_bundled_font_is_used():
    assert text.REGULAR.is_file() and text.BOLD.is_file()
    assert (text.FONT_DIR / "OFL.txt").is_file()
    assert "IBM Plex Sans Arabic" in " ".join(text.font(20).getname())


def test_fallback_joins_and_reverses_arabic():
    shown = text.visual("كينزة", rtl=True)
    # joined presentation forms, not the isolated letters of the logical string
    assert all("\ufb50" <= ch <= "\ufeff" for ch in shown)
    assert shown != "كينزة"
    # the first logical letter (kaf) ends up last in display order: initial-form kaf is U+FEDB
    assert shown[-1] == "\ufedb"


def test_latin_passes_through_the_fallback_unchanged():
    assert text.visual("Kenza 151", rtl=False) == "Kenza 151"


def test_fallback_mirrors_brackets_inside_arabic():
    shown = text.visual("أحمد (الموزّع)", rtl=True)
    assert shown.index("(") < shown.index(")")
    assert text.visual("Sarah (x)", rtl=False) == "Sarah (x)"


def test_fallback_keeps_an_arabic_name_inside_an_english_sentence_in_place():
    shown = text.visual("Winner: أحمد", rtl=False)
    assert shown.startswith("Winner: ")


@pytest.mark.parametrize("raqm", [None, False])
def test_arabic_draws_on_both_paths(raqm):
    box = _ink(_drawn("الفائز: أحمد", raqm))
    assert box is not None
    assert box[2] - box[0] > 60


def test_fallback_differs_from_unshaped_drawing():
    """Drawing the logical string with the basic engine gives isolated letters left to right; the fallback must
    not look like that."""
    unshaped = Image.new("RGB", (320, 60), "white")
    ImageDraw.Draw(unshaped).text((160, 30), "كينزة", font=text.font(28, False, False), fill="black", anchor="mm")
    assert _drawn("كينزة", False).tobytes() != unshaped.tobytes()


@pytest.mark.skipif(not text.HAS_RAQM, reason="Pillow built without raqm")
def test_both_paths_give_similar_widths():
    raqm_w = text.text_width("الطاولة فارغة", 24, raqm=True, rtl=True)
    basic_w = text.text_width("الطاولة فارغة", 24, raqm=False, rtl=True)
    assert abs(raqm_w - basic_w) < raqm_w * 0.25


@pytest.mark.parametrize("raqm", [None, False])
def test_fit_cuts_long_names(raqm):
    name = "محمد بن عبد الله الطويل جدا جدا"
    cut = text.fit(name, 18, 120, raqm=raqm, rtl=True)
    assert cut.endswith("…") and len(cut) < len(name)
    assert text.text_width(cut, 18, raqm=raqm, rtl=True) <= 120
    assert text.fit("Omar", 18, 120, raqm=raqm) == "Omar"


def test_blank_text_draws_nothing():
    image = _drawn("   ", None)
    assert _ink(image) is None
