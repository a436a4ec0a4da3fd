"""The table modes of konkan-tiles.md ("Modes"): rounds, opening minimums, timers and seats per mode, and the
option check (`mode`, and `rules` for private rooms; Kirkuk is listed but refused as coming soon)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.errors import BadOption

KIRKUK = "kirkuk"
RULES = ("erbil", "sulaymaniyah")


@dataclass(frozen=True)
class Mode:
    rounds: int
    base: int  # the opening minimum
    partner: int  # the minimum once the partner has opened (base - 20)
    timers: tuple[int, int] | None  # (discard, draw) seconds; None: no timers (private rooms)
    seats: tuple[int, ...]
    rules: str | None  # fixed rules, or None when the room's creator chooses


MODES: dict[str, Mode] = {
    "quick": Mode(5, 81, 61, (30, 15), (4,), "erbil"),
    "ranked": Mode(7, 81, 61, (30, 15), (4,), "erbil"),
    "sulaymaniyah": Mode(7, 81, 61, (30, 15), (4,), "sulaymaniyah"),
    "turbo": Mode(3, 61, 41, (25, 10), (4,), "erbil"),
    "tournament": Mode(7, 81, 61, (30, 15), (4,), "erbil"),
    "private": Mode(7, 81, 61, None, (2, 4), None),
}
DEFAULT_MODE = "quick"


def check_options(players: int, options: dict[str, Any] | None) -> dict[str, str]:
    """{"mode", "rules"} filled in, or BadOption (a ValueError). With no mode named, two players play a private 1v1 room
    (the only mode that seats two). A fixed-rules mode accepts `rules` only when it names those same rules."""
    given = dict(options or {})
    unknown = sorted(set(given) - {"mode", "rules"})
    if unknown:
        raise BadOption(f"unknown option(s) for konkan_tiles: {', '.join(unknown)}", "option_unknown",
                        game="konkan_tiles", options=", ".join(unknown))
    mode = str(given.get("mode", "private" if int(players) == 2 else DEFAULT_MODE)).strip().lower()
    if mode == KIRKUK:
        raise BadOption("Konkan Kirkuk rules are coming soon and cannot be played yet", "konkan_tiles.kirkuk")
    if mode not in MODES:
        raise BadOption(f"option 'mode' must be one of {list(MODES)}, not {given.get('mode')!r}", "option_choice",
                        option="mode", value=given.get("mode"), choices=", ".join(MODES))
    spec = MODES[mode]
    if int(players) not in spec.seats:
        seats = " or ".join(str(n) for n in spec.seats)
        reason = f"Konkan {mode} is for {seats} players, not {players}"
        if len(spec.seats) == 1:
            raise BadOption(reason, "konkan_tiles.mode_players", mode=mode, n=spec.seats[0], players=players)
        raise BadOption(reason, "konkan_tiles.mode_players_either", mode=mode, low=spec.seats[0], n=spec.seats[-1],
                        players=players)
    rules = given.get("rules")
    if rules is not None:
        rules = str(rules).strip().lower()
        if rules not in RULES:
            raise BadOption(f"option 'rules' must be one of {list(RULES)}, not {given.get('rules')!r}", "option_choice",
                            option="rules", value=given.get("rules"), choices=", ".join(RULES))
        if spec.rules is not None and rules not in (spec.rules, RULES[0]):
            raise BadOption(f"rules are chosen only in private rooms; {mode} plays {spec.rules}",
                            "konkan_tiles.rules_private", mode=mode, rules=spec.rules)
    return {"mode": mode, "rules": spec.rules or rules or RULES[0]}
