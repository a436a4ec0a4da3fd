"""Tunj move strings (NOTATION.md): `move FROM TO`, `move Hn:k TO`, `turn`, `tunj`, `expire`.

Only the shape of a move is checked here; whether its cards are there or its placement is right is the
game's business, because a wrong placement is an attempt (it opens a claim), not a malformed move.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.errors import IllegalMove

SIMPLE = ("turn", "tunj", "expire")
_MOVE_RE = re.compile(r"^MOVE\s+([A-Z]+\d*)(?:\s*:\s*(\d+))?\s+([A-Z]+\d*)$")
_SOURCE_RE = re.compile(r"^(R|T|H[1-8])$")
_TARGET_RE = re.compile(r"^(F[1-8]|H[1-8]|OR|OW)$")
_EXAMPLE = "e.g. 'move R F1', 'move H2 H5', 'move H3:2 H7', 'move T OR', 'turn'"


@dataclass(frozen=True)
class Move:
    """One move: `kind` is "move", "turn", "tunj" or "expire"; src/count/dst only for "move"."""

    kind: str
    src: str = ""
    count: int = 1
    dst: str = ""

    def __str__(self) -> str:
        if self.kind != "move":
            return self.kind
        source = f"{self.src}:{self.count}" if self.count > 1 else self.src
        return f"move {source} {self.dst}"


def parse(text: str) -> Move:
    """The Move a typed string stands for (case and spacing are free); IllegalMove when malformed."""
    cleaned = " ".join(str(text).split()).upper()
    if cleaned.lower() in SIMPLE:
        return Move(cleaned.lower())
    match = _MOVE_RE.match(cleaned)
    if not match:
        raise IllegalMove(f"'{text}' is not a Tunj move ({_EXAMPLE})", "tunj.syntax", text=str(text).strip())
    src, count_text, dst = match.groups()
    if not _SOURCE_RE.match(src):
        raise IllegalMove(f"there is no pile {src} to move from (R, T or H1-H8)", "tunj.no_source", pile=src)
    if not _TARGET_RE.match(dst):
        raise IllegalMove(f"there is no pile {dst} to move to (F1-F8, H1-H8, OR or OW)", "tunj.no_target", pile=dst)
    count = 1
    if count_text is not None:
        if not src.startswith("H"):
            raise IllegalMove("only a house can give a run of several cards (move Hn:k TO)", "tunj.run_source")
        count = int(count_text)
        if count < 2:
            raise IllegalMove("a run needs k >= 2 cards (move Hn:k TO); move one card as 'move Hn TO'",
                              "tunj.run_size")
    if src == dst:
        raise IllegalMove(f"{src} is both the source and the target", "tunj.same_pile", pile=src)
    return Move("move", src, count, dst)
