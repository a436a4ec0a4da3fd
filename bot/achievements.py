"""The achievements catalogue, as data, and what a finished match earns each of its players.

Each entry names a rule kind and its parameters; `earned` reads them against the finished match (its result and
final public view) and the player's records. The texts are the catalog's `ach.<code>` entries (bot/locales).

Decisions where the issue and the seeds are silent, as the seed's app would count them:
- Only matches that count in statistics earn achievements (a private room does not), and only a human seat that
  was not away at the end (a match the away-bot finished is not the player's feat); bot seats earn nothing.
- A team's feat is each partner's: a natural canasta belongs to the side that laid it, a Konkan finish or a Hand to
  the seat that went out.
- "A sweep streak in Kenza" is five sweeps by one player in one match; "ten Turbo wins" counts Konkan tiles Turbo
  wins in the statistics; "on fire" is a win streak of five on any ladder; "placed" is finishing placement.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from storage.ladder import Standing


@dataclass(frozen=True)
class Achievement:
    code: str
    kind: str  # first_win | konkan_finish | hand | natural_canasta | mode_wins | sweeps | placed | streak
    game: str | None = None  # None: any game
    mode: str | None = None
    count: int = 1
    colour: tuple[int, int, int] = (196, 152, 48)  # the medal's colour in the /stats picture


GAMES = ("kenza", "canasta", "tunj", "konkan_cards", "konkan_tiles")

CATALOGUE: tuple[Achievement, ...] = (
    *(Achievement(f"first_win.{game}", "first_win", game, colour=(70, 130, 90)) for game in GAMES),
    Achievement("konkan_finish", "konkan_finish", "konkan_tiles", colour=(170, 60, 60)),
    Achievement("hand", "hand", "konkan_cards", colour=(60, 100, 170)),
    Achievement("natural_canasta", "natural_canasta", "canasta", colour=(190, 120, 40)),
    Achievement("turbo_ten", "mode_wins", "konkan_tiles", "turbo", count=10, colour=(200, 90, 30)),
    Achievement("kenza_sweeps", "sweeps", "kenza", count=5, colour=(40, 140, 150)),
    Achievement("placed", "placed", colour=(120, 90, 160)),
    Achievement("on_fire", "streak", count=5, colour=(210, 70, 40)),
)
BY_CODE = {achievement.code: achievement for achievement in CATALOGUE}


@dataclass(frozen=True)
class Finish:
    """One human seat's view of a finished match, as the rules of the catalogue read it."""

    game: str
    mode: str
    seat: int
    side: int
    won: bool
    result: Mapping[str, Any]
    view: Mapping[str, Any]  # the final public view (its `details`: each round's breakdown)
    mode_wins: int = 0  # the player's wins in this game and mode, this match included
    standing: Standing | None = None  # the player's ladder standing after a rated match
    placed_now: bool = False  # this match ended their placement


def earned(finish: Finish) -> list[str]:
    """The codes of every catalogue entry this finish satisfies (already-held ones included: storage keeps each
    achievement once)."""
    return [a.code for a in CATALOGUE if (a.game in (None, finish.game)) and (a.mode in (None, finish.mode))
            and _RULES[a.kind](a, finish)]


def _first_win(a: Achievement, f: Finish) -> bool:
    return f.won


def _konkan_finish(a: Achievement, f: Finish) -> bool:
    return any(d.get("finisher") == f.seat and d.get("kind") in ("konkan", "konkan10") for d in _details(f))


def _hand(a: Achievement, f: Finish) -> bool:
    return any(d.get("went_out") == f.seat and d.get("hand") for d in _details(f))


def _natural_canasta(a: Achievement, f: Finish) -> bool:
    for detail in _details(f):
        counts = detail.get("counts") or []
        if f.side < len(counts) and (counts[f.side] or {}).get("natural", 0) >= a.count:
            return True
    return False


def _mode_wins(a: Achievement, f: Finish) -> bool:
    return f.won and f.mode_wins >= a.count


def _sweeps(a: Achievement, f: Finish) -> bool:
    sweeps = list(f.result.get("sweeps") or [])
    return f.seat < len(sweeps) and sweeps[f.seat] >= a.count


def _placed(a: Achievement, f: Finish) -> bool:
    return f.placed_now


def _streak(a: Achievement, f: Finish) -> bool:
    return f.standing is not None and f.standing.streak >= a.count


def _details(f: Finish) -> list[dict[str, Any]]:
    return [d for d in (f.view.get("details") or []) if isinstance(d, dict)]


_RULES = {"first_win": _first_win, "konkan_finish": _konkan_finish, "hand": _hand,
          "natural_canasta": _natural_canasta, "mode_wins": _mode_wins, "sweeps": _sweeps, "placed": _placed,
          "streak": _streak}
