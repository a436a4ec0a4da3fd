"""Arabic text: shaped and ordered right to left on both paths (raqm and reshaper + bidi)."""

from __future__ import annotations

import re

import pytest
from PIL import Image, ImageChops, ImageDraw, ImageStat

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


def test_fallback_mirrors_every_bracket_pair_of_a_line():
    """Issue 25 (pictures at phone size): an Arabic team of two bots read "بوت 2 (عادي( وبوت 4 )عادي)" — only the
    outer pair was mirrored. Each pair reads opener-then-closer around its own text, in either paragraph, next to a
    Latin name that keeps its own brackets and around numbers."""
    def pairs(shown: str) -> list[str]:
        return re.findall(r"\(([^()]*)\)", shown)

    two = text.visual(f"الفريق 2: {text.isolate('بوت 2 (عادي)')} و{text.isolate('بوت 4 (عادي)')}", rtl=True)
    assert two.count("(") == two.count(")") == 2 and [text.plain(p) for p in pairs(two)] == [
        text.visual("عادي", rtl=True)] * 2
    mixed = text.visual(f"Team 2: {text.isolate('بوت 2 (عادي)')} & {text.isolate('Bot 4 (normal)')}", rtl=False)
    assert pairs(mixed) == [text.visual("عادي", rtl=True), "normal"]
    assert pairs(text.visual(f"اليد السابقة: {text.isolate('Bot 2 (normal)')} -75", rtl=True)) == ["normal"]
    assert pairs(text.visual("الحمل (40 / 0)", rtl=True)) == ["0 / 40"]


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


# ---- mixed-direction lines: one bidi paragraph, pieces found where the reader expects them ------------------


def _mask(line: str, raqm: bool | None, rtl: bool, width: int = 1000) -> Image.Image:
    image = Image.new("L", (width, 50), 0)
    text.draw_text(ImageDraw.Draw(image), (width - 10 if rtl else 10, 25), line, 26, 255,
                   anchor="rm" if rtl else "lm", raqm=raqm, rtl=rtl)
    return image


def _piece(piece: str, raqm: bool | None) -> Image.Image:
    """A piece drawn alone by the reshaper + bidi path, the one mixed lines take (renderers.text explains why):
    the same engine places and kerns glyphs the same way, so the piece matches the line pixel for pixel."""
    return _mask(piece, False, rtl=text._needs_shaping(piece))


def _x_of(line: Image.Image, piece: Image.Image) -> int:
    """Where `piece` (drawn alone) is drawn inside `line`: the x whose pixels match it, as glyphs are drawn the
    same wherever they stand. Fails when no place matches, e.g. when the piece's characters came out reordered."""
    box = piece.getbbox()
    assert box is not None
    glyphs = piece.crop(box)
    ink = ImageStat.Stat(glyphs).sum[0]
    best, at = None, -1
    for x in range(line.width - glyphs.width):
        window = line.crop((x, box[1], x + glyphs.width, box[3]))
        miss = ImageStat.Stat(ImageChops.difference(window, glyphs)).sum[0]
        if best is None or miss < best:
            best, at = miss, x
    assert best is not None and best <= 0.02 * ink, f"not found in the line (miss {best} of {ink})"
    return at


@pytest.mark.parametrize("raqm", [None, False])
def test_canasta_rack_meld_line_reads_in_order_in_arabic(raqm):
    """The rack footer "تنزيلات فريقك: #1 K·7 ✓  #2 7·5": read from the right, meld 1 comes before meld 2, each
    drawn in its own left-to-right order."""
    from renderers import canasta
    from renderers.context import RenderContext

    view = {"team": 0, "melds": [{"number": 1, "team": 0, "rank": "K", "cards": ["KH"] * 7, "canasta": "natural"},
                                 {"number": 2, "team": 0, "rank": "7", "cards": ["7H"] * 5, "canasta": None}]}
    line = canasta._own_melds_text(view, RenderContext(lang="ar", raqm=raqm))
    assert text.plain(line) == "تنزيلات فريقك: #1 K·7 ✓  #2 7·5"
    drawn = _mask(line, raqm, rtl=True)
    first = _x_of(drawn, _piece("#1 K·7", raqm))
    second = _x_of(drawn, _piece("#2 7·5", raqm))
    label = _x_of(drawn, _piece("تنزيلات فريقك:", raqm))
    assert second < first < label


@pytest.mark.parametrize("raqm", [None, False])
def test_arabic_line_keeps_signed_numbers_and_latin_names_whole(raqm):
    """"اليد السابقة: أحمد +590 · Bot 2 (normal) -75" — the sign stays before its digits, the bracketed Latin name
    stays whole, and each number stands to the left of (after, in reading order) its own name."""
    line = f"اليد السابقة: {text.isolate('أحمد')} {text.ltr('+590')}  ·  {text.isolate('Bot 2 (normal)')} " \
           f"{text.ltr('-75')}"
    drawn = _mask(line, raqm, rtl=True)
    x = {piece: _x_of(drawn, _piece(piece, raqm))
         for piece in ("اليد السابقة:", "أحمد", "+590", "Bot 2 (normal)", "-75")}
    assert x["-75"] < x["Bot 2 (normal)"] < x["+590"] < x["أحمد"] < x["اليد السابقة:"]


@pytest.mark.parametrize("raqm", [None, False])
def test_english_hand_counts_put_each_number_after_its_name(raqm):
    from renderers.context import RenderContext

    ctx = RenderContext(lang="en", names=("أحمد", "Bob"), raqm=raqm)
    line = f"{ctx.t('canasta.in_hand')}: {ctx.name(0)} 10 · {ctx.name(1)} 9"
    drawn = _mask(line, raqm, rtl=False)
    x = {piece: _x_of(drawn, _piece(piece, raqm))
         for piece in ("Cards in hand:", "أحمد", "10 ·", "Bob", "9")}
    assert x["Cards in hand:"] < x["أحمد"] < x["10 ·"] < x["Bob"] < x["9"]


def test_fallback_visual_order_of_a_mixed_line():
    shown = text.visual("تنزيلات فريقك: " + "  ".join(text.ltr(p) for p in ("#1 K·7 ✓", "#2 7·5")), rtl=True)
    assert shown.startswith("#2 7·5  #1 K·7 ✓ :")
    assert "\u2066" not in shown and "\u2069" not in shown


def test_a_cut_line_closes_its_isolates():
    line = "تنزيلات فريقك: " + "  ".join(text.ltr(p) for p in ("#1 K·7 ✓", "#2 7·5", "#3 A·3"))
    cut = text.fit(line, 15, 170, rtl=True)
    assert cut != line and text.plain(cut).endswith("…")
    assert cut.count("\u2066") == cut.count("\u2069")
