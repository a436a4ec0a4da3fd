"""Card faces: every code has its own picture, selection changes it, bad codes are refused."""

from __future__ import annotations

import hashlib

import pytest
from PIL import Image

from engine.cards import french_deck, spanish_deck
from renderers import card_base, cards_french, cards_spanish


def _digest(image: Image.Image) -> str:
    return hashlib.sha256(image.tobytes()).hexdigest()


def test_spanish_codes_match_the_engine_deck():
    assert sorted(cards_spanish.CODES) == sorted(spanish_deck())


def test_french_codes_match_the_engine_deck():
    assert sorted(cards_french.CODES) == sorted(set(french_deck(1, 1)))


@pytest.mark.parametrize("height", [60, 120])
def test_every_card_face_is_distinct(height):
    faces = [cards_spanish.face(c, height) for c in cards_spanish.CODES]
    faces += [cards_french.face(c, height) for c in cards_french.CODES]
    faces += [card_base.back(height, "spanish"), card_base.back(height, "french")]
    digests = {_digest(f) for f in faces}
    assert len(digests) == len(faces)
    for face in faces:
        assert face.size == (card_base.card_width(height), height)
        assert face.mode == "RGBA"


def test_faces_have_transparent_rounded_corners_and_opaque_middle():
    face = cards_spanish.face("7O", 120)
    assert face.getpixel((0, 0))[3] == 0
    assert face.getpixel((face.width // 2, face.height // 2))[3] == 255


@pytest.mark.parametrize("module,code", [(cards_spanish, "3E"), (cards_spanish, "12B"), (cards_french, "QH"),
                                         (cards_french, "X")])
def test_selection_changes_the_face(module, code):
    plain, chosen = module.face(code, 100, False), module.face(code, 100, True)
    assert plain.size == chosen.size
    assert _digest(plain) != _digest(chosen)
    # the ring is on the edge: a pixel half-way down the left border takes the selection colour
    r, g, b, _ = chosen.getpixel((1, 50))
    assert (r, g, b) != plain.getpixel((1, 50))[:3]
    assert r > 200 and g > 100 and b < 80


def test_faces_are_cached():
    assert cards_spanish.face("5C", 90) is cards_spanish.face("5C", 90)
    assert cards_french.face("TS", 90, True) is cards_french.face("TS", 90, True)


def test_red_and_black_french_suits():
    def ink_pixels(code: str) -> tuple[int, int]:
        raw = cards_french.face(code, 150).convert("RGB").tobytes()
        red = black = 0
        for r, g, b in zip(raw[0::3], raw[1::3], raw[2::3], strict=True):
            if r > 150 and g < 80 and b < 80:
                red += 1
            elif r < 60 and g < 60 and b < 60:
                black += 1
        return red, black

    red, black = ink_pixels("5H")
    assert red > 200 and black < red / 10
    red, black = ink_pixels("5S")
    assert black > 200 and red < black / 10


@pytest.mark.parametrize("code", ["8O", "13C", "1X", "O", "", "10"])
def test_bad_spanish_codes_are_refused(code):
    with pytest.raises(ValueError):
        cards_spanish.face(code, 90)


@pytest.mark.parametrize("code", ["1S", "10H", "AX", "XX", "ZZ"])
def test_bad_french_codes_are_refused(code):
    with pytest.raises(ValueError):
        cards_french.face(code, 90)
