"""The ranked ladder's rules, without I/O: who placed where in a finished match, the openskill update, placement,
tiers, wins/losses/streaks.

The rating maths is openskill's (Plackett-Luce, its default mu 25 and sigma 25/3); nothing here computes a skill
itself. It lives beside the storage because a rating changes in the same transaction that finishes the match, and
`rebuild` folds the stored results through exactly the same `rate` to prove the numbers can be recomputed.

Decisions where the rules (konkan-tiles.md "ranked", seed 000) are silent, taken as the seed's app would:
- The rating shown is openskill's conservative ordinal (mu - 3 sigma) scaled to start at 1000 (40 per skill point);
  during the first 5 rated matches of a game and mode it is hidden ("placement 3/5") and the player is off the board.
- Tiers by that shown rating: bronze below 1200, silver, gold from 1400, platinum from 1600, diamond from 1800,
  master from 2000.
- A win is a first place held alone; a first place shared (a drawn match) is a draw; any other place is a loss
  (free-for-all runners-up lose, though openskill still rewards them for the players they beat).
- A win streak counts consecutive wins; a draw or a loss ends it.
- A player who abandoned the match (away at its end: the away-bot finished it for them) takes a loss, and their
  rating moves as if their side had finished last; their partner's rating follows the real result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import groupby
from typing import Any

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
PLACEMENT_MATCHES = 5
SHOWN_BASE = 1000.0  # the shown rating of a new player (ordinal 0)
SHOWN_SCALE = 40.0  # shown points per openskill skill point
TIERS: tuple[tuple[str, int], ...] = (  # (tier, lowest shown rating), highest first
    ("master", 2000), ("diamond", 1800), ("platinum", 1600), ("gold", 1400), ("silver", 1200), ("bronze", -10**9))
TIER_ORDER = tuple(reversed([name for name, _ in TIERS]))  # bronze ... master
WIN, DRAW, LOSS = "win", "draw", "loss"


def shown_rating(mu: float, sigma: float) -> int:
    """The number players see: openskill's ordinal (mu - 3 sigma), scaled and shifted by openskill itself."""
    return round(MODEL.rating(mu=mu, sigma=sigma).ordinal(3.0, SHOWN_SCALE, SHOWN_BASE))


def tier_of(rating: int) -> str:
    return next(name for name, lowest in TIERS if rating >= lowest)


@dataclass(frozen=True)
class Standing:
    """One player's ladder record in one game and mode."""

    mu: float = MODEL.mu
    sigma: float = MODEL.sigma
    matches: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: int = 0
    streak: int = 0
    best_streak: int = 0

    @property
    def rating(self) -> int:
        return shown_rating(self.mu, self.sigma)

    @property
    def placed(self) -> bool:
        """Out of placement: the rating is shown and the player is on the leaderboard."""
        return self.matches >= PLACEMENT_MATCHES

    @property
    def placement(self) -> int:
        """Placement matches played so far (at most PLACEMENT_MATCHES)."""
        return min(self.matches, PLACEMENT_MATCHES)

    @property
    def tier(self) -> str | None:
        return tier_of(self.rating) if self.placed else None

    @property
    def win_rate(self) -> float:
        return self.wins / self.matches if self.matches else 0.0


@dataclass(frozen=True)
class Entry:
    """One human's part in a rated match: their side, the side's place (0 first; equal places tie), whether they
    abandoned it, and the side's match points."""

    player_id: int
    side: int
    place: int
    abandoned: bool = False
    points: int = 0


def sides_and_places(result: Mapping[str, Any], seat_count: int, lower_is_better: bool) -> list[tuple[int, int]]:
    """(side, place) of every seat from an engine result (NOTATION.md `result`).

    `scores` and `winners` are per seat, or per team in team games (fewer scores than seats: seat s plays for side
    s % len(scores), partners {0, 2} and {1, 3}). The winners share place 0 (a committed Konkan winner alone); the
    other sides follow by total in the game's own direction, equal totals sharing a place.
    """
    scores = list(result.get("scores") or [])
    sides = len(scores) if 0 < len(scores) < seat_count else seat_count
    winners = set(result.get("winners") or [])
    if result.get("konkan_winner") is not None:
        winners = {int(result["konkan_winner"])}
    sign = 1 if lower_is_better else -1

    def key(side: int) -> float:
        score = scores[side] if side < len(scores) else 0
        return sign * score if isinstance(score, int | float) and not isinstance(score, bool) else 0

    place_of: dict[int, int] = {side: 0 for side in winners if 0 <= side < sides}
    place = 1 if place_of else 0
    rest = sorted((side for side in range(sides) if side not in place_of), key=key)
    for _, group in groupby(rest, key=key):
        for side in group:
            place_of[side] = place
        place += 1
    return [(seat % sides, place_of[seat % sides]) for seat in range(seat_count)]


def side_points(result: Mapping[str, Any], side: int) -> int:
    scores = list(result.get("scores") or [])
    score = scores[side] if side < len(scores) else 0
    return int(round(score)) if isinstance(score, int | float) and not isinstance(score, bool) else 0


def outcome(entry: Entry, entries: Sequence[Entry]) -> str:
    if entry.abandoned:
        return LOSS
    if entry.place != 0:
        return LOSS
    shared = any(other.place == 0 and other.side != entry.side for other in entries)
    return DRAW if shared else WIN


def rate(entries: Sequence[Entry], current: Mapping[int, Standing]) -> dict[int, Standing]:
    """Every entry's standing after one match, from `current` (a missing player starts fresh).

    Fewer than two sides rate nothing (an empty dict). The openskill call is deterministic, so folding the same
    entries in the same order always gives the same floats — which is what `rebuild` relies on.
    """
    side_ids = sorted({entry.side for entry in entries})
    if len(side_ids) < 2:
        return {}
    members = {side: [entry for entry in entries if entry.side == side] for side in side_ids}
    place = {side: members[side][0].place for side in side_ids}
    teams = [[_model_rating(current.get(entry.player_id, Standing())) for entry in members[side]]
             for side in side_ids]
    after = MODEL.rate(teams, ranks=[place[side] for side in side_ids])
    new: dict[int, tuple[float, float]] = {}
    for index, side in enumerate(side_ids):
        for position, entry in enumerate(members[side]):
            new[entry.player_id] = (after[index][position].mu, after[index][position].sigma)
    worst = max(place.values())
    for index, side in enumerate(side_ids):
        quitters = [position for position, entry in enumerate(members[side]) if entry.abandoned]
        last_alone = place[side] == worst and sum(1 for p in place.values() if p == worst) == 1
        if not quitters or last_alone:
            continue
        ranks = [worst + 1 if other == side else place[other] for other in side_ids]
        forced = MODEL.rate(teams, ranks=ranks)
        for position in quitters:
            new[members[side][position].player_id] = (forced[index][position].mu, forced[index][position].sigma)
    out: dict[int, Standing] = {}
    for entry in entries:
        before = current.get(entry.player_id, Standing())
        result = outcome(entry, entries)
        won = result == WIN
        streak = before.streak + 1 if won else 0
        mu, sigma = new[entry.player_id]
        out[entry.player_id] = replace(
            before, mu=mu, sigma=sigma, matches=before.matches + 1, wins=before.wins + won,
            draws=before.draws + (result == DRAW), losses=before.losses + (result == LOSS),
            points=before.points + entry.points, streak=streak, best_streak=max(before.best_streak, streak))
    return out


def _model_rating(standing: Standing) -> Any:
    return MODEL.rating(mu=standing.mu, sigma=standing.sigma)
