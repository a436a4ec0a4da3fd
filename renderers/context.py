"""What a game renderer needs besides the view: language, display names, the rack selection."""

from __future__ import annotations

from dataclasses import dataclass, field

from renderers.labels import is_rtl, label
from renderers.text import isolate


@dataclass(frozen=True)
class RenderContext:
    lang: str = "ar"
    names: tuple[str, ...] = ()  # display name per seat; missing entries become "Player n"
    selected: frozenset[int] = field(default_factory=frozenset)  # 0-based hand positions
    raqm: bool | None = None  # None: use raqm when Pillow has it; False forces the reshaper + bidi path

    @property
    def rtl(self) -> bool:
        return is_rtl(self.lang)

    def name(self, seat: int) -> str:
        """The seat's display name as an isolated unit: a name in the other script (or one ending in a bracket,
        "Bot 2 (normal)") then sits in the line where the sentence puts it, in its own order."""
        if 0 <= seat < len(self.names) and self.names[seat]:
            return isolate(self.names[seat])
        return isolate(label(self.lang, "player", n=seat + 1))

    def t(self, key: str, **values: object) -> str:
        return label(self.lang, key, **values)
