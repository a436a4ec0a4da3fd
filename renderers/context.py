"""What a game renderer needs besides the view: language, display names, the rack selection."""

from __future__ import annotations

from dataclasses import dataclass, field

from renderers.labels import is_rtl, label


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
        if 0 <= seat < len(self.names) and self.names[seat]:
            return self.names[seat]
        return label(self.lang, "player", n=seat + 1)

    def t(self, key: str, **values: object) -> str:
        return label(self.lang, key, **values)
