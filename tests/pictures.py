"""What the render tests share: reading back a PNG the registry made (and checking it is one), the seat names
they draw (Arabic and Latin, one long), and states reached by seeded bot play for views from real games."""

from __future__ import annotations

import io
import random
from collections.abc import Callable
from typing import Any

from PIL import Image, ImageChops

import engine
import renderers
from engine.bots import decide

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
NAMES = ["أحمد", "Sarah", "محمد بن عبد الله", "ليلى"]


def open_png(png: bytes, rgb: bool = True) -> Image.Image:
    """The picture in `png`, which must start with the PNG signature; as RGB unless `rgb` is False."""
    assert png[:8] == PNG_MAGIC
    image = Image.open(io.BytesIO(png))
    image.load()
    return image.convert("RGB") if rgb else image


def played(game_id: str, players: int, seed: int, moves: int, options: dict[str, Any] | None = None,
           level: Callable[[int], str] = lambda seat: "normal") -> dict[str, Any]:
    """The state after up to `moves` bot moves (`level(seat)` at each seat) of a seeded match."""
    game = engine.get(game_id)
    state = game.new(players, options or {}, seed=seed)
    for i in range(moves):
        seat = game.to_move(state)
        if seat is None:
            break
        state = game.apply(state, seat, decide(game_id, state, seat, level(seat), random.Random(i)))
    return state


def render_every_view(game_id: str, state: dict[str, Any], lang: str, names: list[str],
                      rack_view: Callable[[int, dict[str, Any]], dict[str, Any]] = lambda seat, view: view) -> None:
    """The public table and every seat's rack (every third card selected; `rack_view` may add to the seat's view)
    come out as PNGs."""
    game = engine.get(game_id)
    open_png(renderers.render_table(game_id, game.view(state, None), lang, names))
    for seat in range(len(names)):
        view = game.view(state, seat)
        picks = tuple(range(0, len(view["hand"]), 3))
        open_png(renderers.render_rack(game_id, rack_view(seat, view), lang, names, selected=picks))


def rack_with_ends_selected(game_id: str, view: dict[str, Any], names: list[str]
                            ) -> tuple[Image.Image, Image.Image, Image.Image]:
    """The seat's rack in English as it is, with its first card selected, and with its last card selected."""
    last = len(view["hand"]) - 1
    plain, first, end = (open_png(renderers.render_rack(game_id, view, "en", names, selected=picks))
                         for picks in ((), (0,), (last,)))
    return plain, first, end


def changed(a: Image.Image, b: Image.Image) -> tuple[int, int, int, int] | None:
    """The box where two pictures of the same size differ (None where they do not)."""
    return ImageChops.difference(a, b).getbbox()
