"""Game pictures for the chat front ends: a game's view in, PNG bytes out.

    import renderers
    png = renderers.render_rack("kenza", game.view(state, seat), lang="ar", names=names, selected=(0,))
    png = renderers.render_table("kenza", game.view(state, None), lang="en", names=names)

Each game has a module renderers/<game_id>.py defining `render_rack(view, ctx)` and `render_table(view, ctx)`
that return a PIL image; this registry finds it by module name (so adding a game needs no edit here), builds the
`RenderContext`, and encodes the PNG once, the same way for every game. A game module that defines
`PALETTE = renderers.palette.Spec(...)` has its pictures mapped onto that fixed palette, learned once, instead of
one learned per picture (see renderers/palette.py).
"""

from __future__ import annotations

import importlib
import io
import re
from collections.abc import Iterable, Mapping, Sequence
from types import ModuleType
from typing import Any

from PIL import Image

from renderers import palette as palettes
from renderers.context import RenderContext
from renderers.png import fast_palette_png

__all__ = ["RenderContext", "UnknownGame", "adopt_palettes", "encode_png", "learned_palettes", "render_rack",
           "render_sheet", "render_table", "supports"]

# modules of this package that are helpers, not games
_HELPERS = frozenset({"card_base", "cards_french", "cards_spanish", "context", "labels", "layout", "palette",
                      "picture", "png", "score_sheet", "text"})
_GAME_ID = re.compile(r"^[a-z][a-z0-9_]*$")


class UnknownGame(LookupError):
    """No renderer module exists for this game id."""


def _module(game_id: str) -> ModuleType:
    if not _GAME_ID.match(game_id) or game_id in _HELPERS:
        raise UnknownGame(game_id)
    name = f"{__name__}.{game_id}"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name == name:
            raise UnknownGame(game_id) from None
        raise
    if not (hasattr(module, "render_rack") and hasattr(module, "render_table")):
        raise UnknownGame(game_id)
    return module


def supports(game_id: str) -> bool:
    """True when a renderer exists, so a front end can fall back to text for games without pictures."""
    try:
        _module(game_id)
    except UnknownGame:
        return False
    return True


def _palette_specs(game_ids: Iterable[str]) -> dict[str, palettes.Spec]:
    specs = {}
    for game_id in game_ids:
        if supports(game_id):
            spec = getattr(_module(game_id), "PALETTE", None)
            if isinstance(spec, palettes.Spec):
                specs[game_id] = spec
    return specs


def warm(game_ids: Iterable[str]) -> None:
    """Learn each game's palette now (about half a second each), so no player waits for it on a first picture."""
    for spec in _palette_specs(game_ids).values():
        palettes.build(spec)


def learned_palettes(game_ids: Iterable[str]) -> dict[str, bytes]:
    """Each game's palette, learned here, as bytes another process can `adopt_palettes` (render processes take
    them from one short-lived learner instead of each paying learning's memory peak)."""
    return {game_id: palettes.colours(spec) for game_id, spec in _palette_specs(game_ids).items()}


def adopt_palettes(learned: Mapping[str, bytes]) -> None:
    """Use palettes `learned_palettes` gave in another process; pictures come out byte for byte the same."""
    for game_id, spec in _palette_specs(learned).items():
        palettes.adopt(spec, learned[game_id])


# zlib level of a PNG that Pillow writes (renderers/png.py writes palette pictures faster where it can).
# Measured on the bench's pictures (bench/render.py views, zlib 1.2.13, CPU ms per picture / mean bytes): Tunj
# table 740x702, level 6 5.0 ms / 25.2 KB, level 3 2.3-2.9 ms / 30.1 KB, level 1 2.3 ms / 33.6 KB; Canasta 3.4-3.7
# ms / 17.1 KB at 6, 1.7 ms / 20.5 KB at 3. Zlib was half of a Tunj picture's time in a render worker, the render
# workers the bottleneck of a busy evening (issue 14), and Telegram recompresses photos anyway: level 3 halves
# that half for a fifth more bytes (well under the 60 KB budget). Levels 1-2 are no faster than 3 and larger.
COMPRESS_LEVEL = 3


def encode_png(image: Image.Image, palette: bool = True) -> bytes:
    """Small PNG: an RGB picture reduced to a 256-colour palette (fast octree), zlib level COMPRESS_LEVEL, no
    optimise pass; a "P" picture (already in a game's fixed palette) is saved as it is.

    The pictures are flat colours plus anti-aliased edges, so 256 colours look the same; the palette makes the
    file about a third of the RGB size *and* the encode about twice as fast, since zlib sees a third of the bytes.
    """
    if palette and image.mode == "RGB":
        image = image.quantize(256, method=Image.Quantize.FASTOCTREE)
    fast = fast_palette_png(image)  # the same pixels, deflated about six times faster (renderers/png.py)
    if fast is not None:
        return fast
    buffer = io.BytesIO()
    image.save(buffer, "PNG", optimize=False, compress_level=COMPRESS_LEVEL)
    return buffer.getvalue()


def _encode(module: ModuleType, image: Image.Image) -> bytes:
    """The picture in its game's fixed palette when the game has one (a "P" image is saved as it is)."""
    spec = getattr(module, "PALETTE", None)
    if isinstance(spec, palettes.Spec):
        image = palettes.apply(image, spec)
    return encode_png(image)


def _context(lang: str, names: Sequence[str] | None, selected: Iterable[int], raqm: bool | None) -> RenderContext:
    return RenderContext(lang=lang, names=tuple(names or ()), selected=frozenset(selected), raqm=raqm)


def render_rack(
    game_id: str,
    view: dict[str, Any],
    lang: str = "ar",
    names: Sequence[str] | None = None,
    selected: Iterable[int] = (),
    raqm: bool | None = None,
) -> bytes:
    """The seat's own hand as a PNG. `selected`: 0-based positions in view["hand"] to highlight."""
    ctx = _context(lang, names, selected, raqm)
    module = _module(game_id)
    return _encode(module, module.render_rack(view, ctx))


def render_table(
    game_id: str,
    view: dict[str, Any],
    lang: str = "ar",
    names: Sequence[str] | None = None,
    raqm: bool | None = None,
) -> bytes:
    """The shared table (public or a seat's view) as a PNG."""
    ctx = _context(lang, names, (), raqm)
    module = _module(game_id)
    return _encode(module, module.render_table(view, ctx))


def render_sheet(title: str, sides: Sequence[str], rows: Sequence[tuple[str, Sequence[str]]],
                 notes: Sequence[str] = (), lang: str = "ar") -> bytes:
    """A finished round's score sheet (any game) as a PNG; every text already in the reader's language."""
    from renderers import score_sheet

    return encode_png(score_sheet.render(title, sides, rows, notes, lang))


def render_profile(profile: Any, lang: str = "ar") -> bytes:
    """A player's profile card (`/stats`, renderers.profile.Profile) as a PNG; every text already in `lang`."""
    from renderers import profile as card

    return encode_png(card.render(profile, lang))
