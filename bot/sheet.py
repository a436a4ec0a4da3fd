"""A finished round's score sheet as data: the caption, the picture and `/score` are all drawn from it."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Sheet:
    """One finished round: a title saying how it ended, a table (a row label and one cell per side), notes."""

    title: str
    sides: tuple[str, ...]
    rows: tuple[tuple[str, tuple[str, ...]], ...]
    notes: tuple[str, ...] = ()
    points: tuple[int, ...] = field(default=())  # the round's points per side (the short line of a recap)

    def text(self) -> str:
        """The sheet in text: the title, one line per side with every row's cell, then the notes."""
        lines = [self.title]
        for index, side in enumerate(self.sides):
            cells = " · ".join(f"{label} {cells[index]}".strip() for label, cells in self.rows if cells[index] != "")
            lines.append(f"{side}: {cells}")
        lines += list(self.notes)
        return "\n".join(lines)

    def short(self) -> str:
        """The title and each side's points for the round, on one line."""
        return self.title + " — " + " · ".join(f"{side} {signed(p)}" for side, p in zip(self.sides, self.points,
                                                                                         strict=False))


def signed(number: int) -> str:
    return f"+{number}" if number > 0 else str(number)
