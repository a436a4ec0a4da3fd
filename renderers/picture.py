"""A picture to draw, as plain data: which renderer, and everything it draws from.

The presenter decides *what* a message shows; drawing it is the slow part, so it is described by a `Picture` that
can be hashed (two equal descriptions draw the same bytes, so a drawn one is reused) and sent to another process
(plain JSON-like data and strings: it pickles). `draw()` is the only place that calls the renderers for a message.
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass
from typing import Any

import renderers


def _plain(value: Any) -> Any:
    """JSON for what json does not know (sets, frozensets): sorted lists; anything else by its repr."""
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    return repr(value)


@dataclass(frozen=True)
class Picture:
    """`kind` "rack" / "table" (a game's view, language, seat names, rack selection) or "sheet" (a score sheet);
    `game` the game id ("" for a sheet); `args` the renderer's keyword arguments, all plain data."""

    kind: str
    game: str
    args: dict[str, Any]

    def key(self) -> str:
        """A digest of everything drawn: equal keys draw byte-identical pictures (the renderers are pure)."""
        return self._key

    @functools.cached_property
    def _key(self) -> str:
        """Computed once per picture: the cache and the platform's upload memory both ask for it."""
        text = json.dumps([self.kind, self.game, self.args], sort_keys=True, ensure_ascii=False, default=_plain,
                          separators=(",", ":"))
        return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()

    def draw(self) -> bytes:
        if self.kind == "rack":
            return renderers.render_rack(self.game, **self.args)
        if self.kind == "table":
            return renderers.render_table(self.game, **self.args)
        if self.kind == "sheet":
            return renderers.render_sheet(**self.args)
        raise ValueError(f"unknown picture kind {self.kind!r}")


def draw(picture: Picture) -> bytes:
    """A module-level function, so a process pool can run it (bound methods of a frozen dataclass pickle too, but
    this names the job in a traceback)."""
    return picture.draw()
