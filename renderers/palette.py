"""A fixed 256-colour palette per game, learned once, onto which every picture of that game is mapped.

Learning a palette (FASTOCTREE) is most of a PNG's encoding time for a table-sized picture; mapping a picture
onto a palette that is already known is several times cheaper. A game's pictures are drawn from a small, fixed
set of colours (felt, panels, ink, card faces and their anti-aliased edges), so a palette learned from sample
pictures that show all of them serves every later picture. A game module opts in with a module-level
`PALETTE = palette.Spec(...)`; the registry (renderers/__init__.py) then maps that game's pictures onto it.

Colours that must come out exact (felt, selection ring, gold, suit reds...) are listed in `Spec.exact` and get
palette entries of their own, so the octree cannot average them with a neighbour.

Learning costs about half a second per game, mostly drawing the sample faces (which then sit in the face caches
for the real pictures), so it happens lazily on the game's first picture rather than at import: importing the
renderers stays instant for tests, the CLI and games that are never played in a process.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from PIL import Image

from renderers.context import RenderContext

SIZE = 256
SHEET_WIDTH = 1024  # sample pictures are packed in rows this wide (wider pictures get a row of their own)

NEAR = 6  # a learned entry this close (per channel) to an exact colour is dropped, see _near

Colour = tuple[int, int, int]


@dataclass(frozen=True)
class Spec:
    """How to learn one game's palette.

    samples: draws the sample pictures (every card face, plain and selected; a few tables and racks); called once.
    background: what transparent sample pixels (card corners) stand on, normally the game's felt.
    exact: colours given palette entries of their own, in addition to the learned ones.
    """

    samples: Callable[[], Iterable[Image.Image]]
    background: Colour
    exact: tuple[Colour, ...] = ()


def _sheet(pictures: Iterable[Image.Image], background: Colour) -> Image.Image:
    """All samples on one RGB sheet (shelf-packed), so one octree sees every colour with its real weight."""
    placed: list[tuple[Image.Image, int, int]] = []
    x = y = shelf = width = 0
    for picture in pictures:
        if x and x + picture.width > SHEET_WIDTH:
            x, y, shelf = 0, y + shelf, 0
        placed.append((picture, x, y))
        x += picture.width
        shelf = max(shelf, picture.height)
        width = max(width, x)
    sheet = Image.new("RGB", (max(1, width), max(1, y + shelf)), background)
    for picture, left, top in placed:
        if picture.mode == "RGBA":
            sheet.paste(picture, (left, top), picture)
        else:
            sheet.paste(picture.convert("RGB"), (left, top))
    return sheet


def learn(pictures: Iterable[Image.Image], background: Colour, exact: Iterable[Colour] = ()) -> Image.Image:
    """A 1x1 "P" image carrying the palette: the `exact` colours first, then up to SIZE minus those learned."""
    keep = list(dict.fromkeys(tuple(colour[:3]) for colour in exact))
    if len(keep) >= SIZE:
        raise ValueError(f"at most {SIZE - 1} exact colours")
    sheet = _sheet(pictures, background)
    ask = SIZE - len(keep)
    while True:
        flat = sheet.quantize(ask, method=Image.Quantize.FASTOCTREE).getpalette() or []
        learned = [c for c in zip(flat[0::3], flat[1::3], flat[2::3], strict=True) if not _near(c, keep)]
        # entries dropped for standing too near an exact colour are asked for again, so the palette stays full;
        # `ask` grows every round and stops at SIZE
        if len(keep) + len(learned) >= SIZE or ask == SIZE or len(flat) < 3 * ask:
            break
        ask = min(SIZE, ask + SIZE - len(keep) - len(learned))
    colours = keep + learned
    holder = Image.new("P", (1, 1))
    holder.putpalette([channel for colour in colours[:SIZE] for channel in colour])
    return holder


def _near(colour: Colour, exact: list[Colour]) -> bool:
    """Within NEAR of an exact colour on every channel: such a learned entry would only steal that colour's
    pixels (the nearest-entry lookup works on a coarse grid), so the exact entry stands for it."""
    return any(all(abs(a - b) <= NEAR for a, b in zip(colour, other, strict=True)) for other in exact)


# Palettes learned by another process and handed to this one (`adopt`), by spec.
_given: dict[Spec, Image.Image] = {}


@functools.cache
def build(spec: Spec) -> Image.Image:
    """The game's palette, learned on first use (or adopted) and kept for the life of the process."""
    given = _given.get(spec)
    if given is not None:
        return given
    return learn(spec.samples(), spec.background, spec.exact)


def colours(spec: Spec) -> bytes:
    """The game's palette as bytes (r, g, b per entry), to hand to another process."""
    return bytes(build(spec).getpalette() or [])


def adopt(spec: Spec, data: bytes) -> None:
    """Take a palette `colours` gave in another process instead of learning it here.

    Learning draws every sample picture and one sheet of them all at once: a render process that learns five
    games' palettes peaks about 55 MiB above what it then needs to draw (issue 14: 131 MiB peak, 58 MiB
    after). A process that adopts the learner's bytes maps pictures onto exactly the same entries, so it draws
    byte-identical PNGs without that peak. Call before the spec's first `build` (an already built one is kept).
    """
    holder = Image.new("P", (1, 1))
    holder.putpalette(data)
    _given[spec] = holder


def apply(image: Image.Image, spec: Spec) -> Image.Image:
    """The picture as a "P" image in the game's palette: each pixel to its nearest entry, without dithering
    (dither would speckle the flat fills that the exact entries already match)."""
    if image.mode != "RGB":
        image = image.convert("RGB")
    return image.quantize(palette=build(spec), dither=Image.Dither.NONE)


def table_and_rack_samples(views: Iterable[dict[str, Any]], render_table: Callable[..., Image.Image],
                           render_rack: Callable[..., Image.Image], hand_size: int) -> list[Image.Image]:
    """Each view's table and rack in English and Arabic (mirrored layouts blend other edges), every other rack card
    selected — from the first in English, from the second in Arabic — so plain and ringed faces both appear."""
    pictures = []
    for view in views:
        for lang in ("en", "ar"):
            pictures.append(render_table(view, RenderContext(lang=lang)))
            chosen = frozenset(range(lang == "ar", hand_size, 2))
            pictures.append(render_rack(view, RenderContext(lang=lang, selected=chosen)))
    return pictures


def face_samples(face: Callable[[str, int, bool], Image.Image], codes: Iterable[str], height: int,
                 back: Image.Image) -> list[Image.Image]:
    """Every face plain and selected at one size, then the back."""
    return [*(face(code, height, chosen) for code in codes for chosen in (False, True)), back]
