"""Why the score changed and what happened meanwhile: score sheets of finished rounds, and the table's recap.

A score sheet is built from one entry of the view's `details` (each engine keeps a finished round's breakdown
there) by the game's chat layout (`GameUI.round_sheet`), so the same sheet is the announcement's caption, its
picture (renderers/score_sheet.py) and a section of `/score`.

The recap lists every move since the seat now to move last had its turn (in Tunj a turn is many moves), a line
each; a long run of one seat's moves is folded into a count and what it changed (`GameUI.fold`), and the
moves of a round that has ended stay under that round's heading, followed by how it ended.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bot.games import ui_for
from bot.games.base import side_names
from bot.i18n import You, addressing_you, round_name, t, tn
from bot.sheet import Sheet

FOLD_AT = 6  # a run of one seat's moves longer than this is folded into a summary line
CAPTION_LIMIT = 1024  # a Telegram photo caption; the recap gets what the title, turn and score lines leave

Entry = tuple[int, str, dict[str, Any], int]  # (seat, move, public view right after it, round it was played in)


@dataclass
class Log:
    """The moves a recap may still show, and the public view before the first of them (what a folded run
    compares against)."""

    entries: list[Entry] = field(default_factory=list)
    base: dict[str, Any] | None = None

    def add(self, entry: Entry, before: Callable[[], dict[str, Any]], seats: int, cap: int) -> None:
        """Append a move; drop what no seat's recap needs any more (at most `cap` moves are kept)."""
        if not self.entries:
            self.base = shared(None, before())
        seat, move, view, played_in = entry
        previous = self.entries[-1][2] if self.entries else self.base
        self.entries.append((seat, move, shared(previous, view), played_in))
        drop = max(keep_from(self.entries, seats), len(self.entries) - cap)
        if drop > 0:
            self.base = self.entries[drop - 1][2]
            del self.entries[:drop]

    def copy(self) -> Log:
        return Log(list(self.entries), self.base)


_CONTAINERS = (dict, list, tuple)


def shared(previous: Any, view: Any) -> Any:
    """`view` as the recap log keeps it: its lists as tuples, and every part equal to the same part of
    `previous` (a view this function returned before) taken from `previous` itself.

    A move changes a pile or two of the public view; the recap keeps a view per move of every live match, and
    without sharing the unchanged parts each entry held its own copy of every pile (in Tunj about twenty lists
    of cards a move). Lists are walked by every pass of the garbage collector for as long as they live, and at a
    thousand live tables these views were most of what a full pass walked (its longest pause, 190 ms, is the
    latency's tail). A tuple of strings and numbers, and then a dict holding only such tuples and numbers, is
    dropped from the collector's lists at its next pass, so the log costs it nothing once kept. Views are only
    read once built (the games' `describe_move`, `fold`, `notable` and `disguise` index and iterate them),
    so a part may belong to several entries."""
    kind = type(view)
    if kind is dict:
        old = previous if type(previous) is dict else None
        if old is None:
            return {key: shared(None, value) for key, value in view.items()}
        kept = {key: shared(old.get(key), value) for key, value in view.items()}
        if len(kept) == len(old) and all(key in old and old[key] is value for key, value in kept.items()):
            return old
        return kept
    if kind is list or kind is tuple:
        items = tuple(view)
        if items == previous:
            return previous
        if not any(type(item) in _CONTAINERS for item in items):
            return items
        olds = previous if type(previous) is tuple and len(previous) == len(items) else (None,) * len(items)
        kept_items = tuple(shared(old, new) for old, new in zip(olds, items, strict=True))
        if olds is previous and all(new is old for new, old in zip(kept_items, olds, strict=True)):
            return previous
        return kept_items
    if type(previous) is kind and previous == view:  # 1 == True == 1.0, but each must stay what the view said
        return previous
    return view


def sheets(game_id: str, view: dict[str, Any], names: list[str], lang: str) -> list[Sheet]:
    """A sheet for every finished round the view records, oldest first."""
    ui = ui_for(game_id)
    sides = side_names(view, names, lang)
    return [ui.round_sheet(detail, number, view, names, sides, lang)
            for number, detail in enumerate(view.get("details") or [], start=1)]


def score_text(game_id: str, view: dict[str, Any], names: list[str], lang: str) -> list[str]:
    """`/score`: every finished round with its breakdown."""
    return [sheet.text() for sheet in sheets(game_id, view, names, lang)]


# ---------------------------------------------------------------------------------------------------- the recap
def since_last_turn(entries: list[Entry], viewer: int | None) -> list[Entry]:
    """The entries since `viewer`'s previous turn: back over its own moves of the turn in progress, then back to
    its previous move. With no viewer (the match is over), since the last mover's previous turn."""
    if not entries:
        return []
    if viewer is None:
        viewer = entries[-1][0]
    index = len(entries)
    while index and entries[index - 1][0] == viewer:
        index -= 1
    while index and entries[index - 1][0] != viewer:
        index -= 1
    return entries[index:]


def keep_from(entries: list[Entry], seats: int) -> int:
    """How many old entries no seat's recap can need any more (the service drops them)."""
    starts = [len(entries) - len(since_last_turn(entries, seat)) for seat in range(seats)]
    return min(starts) if starts else 0


def recap(game_id: str, log: Log, viewer: int | None, view: dict[str, Any], names: list[str],
          lang: str, budget: int = CAPTION_LIMIT, hiding: bool = False) -> list[str]:
    """The recap lines for the table caption, within `budget` characters: folded harder, then cut from the
    oldest, when every move in full would not fit. `hiding`: an open claim must read like any move."""
    entries = log.entries
    shown = since_last_turn(entries, viewer)
    start = len(entries) - len(shown)
    notable = ui_for(game_id).notable
    if start and (shown[0][3] != entries[start - 1][3] or notable(entries[start - 1][1], entries[start - 1][2])):
        # The move that ended a round stays in view under it, and so does an attempt the next turn answered
        # (a Tunj claim: the call reads with what was called).
        shown = entries[start - 1:]
    lines: list[str] = []
    for fold_at in (FOLD_AT, 2, 1):
        lines = _lines(game_id, shown, log, view, names, lang, fold_at, hiding)
        if sum(len(line) + 1 for line in lines) <= budget:
            return lines
    while lines and sum(len(line) + 1 for line in lines) > budget:
        lines = lines[1:]
    return ["…", *lines]


def _lines(game_id: str, shown: list[Entry], log: Log, view: dict[str, Any], names: list[str],
           lang: str, fold_at: int, hiding: bool) -> list[str]:
    ui = ui_for(game_id)

    def seen(after: dict[str, Any]) -> dict[str, Any]:
        return ui.disguise(after) if hiding else after

    rounds = {entry[3] for entry in shown}
    current = view.get("round", 1)
    ended = {sheet_round: sheet for sheet_round, sheet in enumerate(sheets(game_id, view, names, lang), start=1)}
    lines: list[str] = []
    entries = log.entries
    position = len(entries) - len(shown)
    heading = None
    for run in _runs(shown, ui.notable):
        round_number = run[0][3]
        if (len(rounds) > 1 or round_number != current) and round_number != heading:
            if heading is not None and heading in ended:
                lines.append("🏁 " + ended[heading].short())
            lines.append(t(lang, "recap.round", round=round_name(lang, game_id, round_number)))
            heading = round_number
        before = entries[position - 1][2] if position > 0 else log.base
        seat = run[0][0]
        name = names[seat] if seat < len(names) else "?"
        with addressing_you(isinstance(name, You)):  # the reader's own moves in the second person
            if len(run) > fold_at:
                what = ui.fold(seat, [(move, seen(after)) for _, move, after, _ in run], before, lang)
                lines.append(tn(lang, "recap.folded", len(run), name=name, what=what))
            else:
                lines += [f"{name}: {ui.describe_move(move, lang, seen(after))}" for _, move, after, _ in run]
        position += len(run)
    if heading is not None and heading != current and heading in ended:
        lines.append("🏁 " + ended[heading].short())
    return lines


def _runs(entries: list[Entry], notable: Callable[[str, dict[str, Any]], bool]) -> list[list[Entry]]:
    """Consecutive moves of one seat within one round; a notable move (a Tunj claim, call or closed window) is
    a run of its own, so no fold hides it."""
    runs: list[list[Entry]] = []
    for entry in entries:
        alone = notable(entry[1], entry[2])
        if runs and not alone and runs[-1][-1][0] == entry[0] and runs[-1][-1][3] == entry[3] \
                and not notable(runs[-1][-1][1], runs[-1][-1][2]):
            runs[-1].append(entry)
        else:
            runs.append([entry])
    return runs
