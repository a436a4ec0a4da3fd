"""What every game's chat layout provides to the service."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.i18n import t
from bot.sheet import Sheet, signed


@dataclass(frozen=True)
class UIButton:
    """A button before it is bound to a match.

    kind "move": plays `move` (a canonical move string; the engine still checks it when pressed);
    kind "pick": sets the seat's private picking state to `arg` (a second step, a card selection, a sort order —
    opaque to the service, at most ~40 characters); kind "back": clears it;
    kind "call": calls out the mover's broken rule (Tunj!); bound to no match version, it stays valid all turn.
    """

    label: str
    kind: str
    arg: str = ""
    move: str = ""


class GameUI:
    """Defaults shared by every game; a game overrides what its moves need."""

    game_id = ""
    turn_seconds = 60  # the per-turn timer a chat gets unless it set its own
    # Lobby buttons for numeric table options the engine bounds but does not list (name -> values to cycle).
    option_cycles: dict[str, tuple[Any, ...]] = {}
    buttons_per_row = 4
    # Whether the service must check each move button with the engine before showing it (a layout that builds
    # moves beyond the legal list it was given, as the rummy picker does); the others offer listed moves only.
    checked_buttons = False

    def option_values(self, name: str, spec: Any, options: dict[str, Any] | None = None) -> tuple[Any, ...]:
        """The values a lobby button cycles through for one option (empty: no button); `options`: the table's
        options as they stand (a game may offer an option only in some modes)."""
        return tuple(spec.choices or self.option_cycles.get(name, ()))

    def shown_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """The options a lobby line names (a game may leave out one another option already says)."""
        return options

    # ---- table modes (a game with a mode picker overrides these) ------------------------------------------------
    def mode_choices(self, lang: str) -> list[tuple[str, str]]:
        """(label, mode) buttons `/new <game>` shows before a table opens; empty: the table opens at once."""
        return []

    def mode_refusal(self, mode: str, lang: str) -> str | None:
        """Why a table of this mode cannot be opened now (None: it can)."""
        return None

    def store_mode(self, options: dict[str, Any]) -> str:
        """The mode statistics are kept under (storage keys stats by game and mode)."""
        return "casual"

    def counts_in_stats(self, options: dict[str, Any]) -> bool:
        return True

    # ---- matchmaking (bot/core/matchmaking.py) ------------------------------------------------------------------
    def queue_modes(self) -> tuple[str, ...]:
        """The modes `/play GAME MODE` may queue for; the first is the default. A game without modes has one
        queue, named as its statistics are kept."""
        return (self.store_mode({}),)

    def queue_options(self, mode: str) -> dict[str, Any]:
        """The table options a queue's mode stands for."""
        return {}

    # ---- the ranked ladder (bot/core/ladder.py) ----------------------------------------------------------------
    def rated(self, options: dict[str, Any], chat_rates: bool) -> bool:
        """Whether a table opened with these options feeds the ladder: by default where the chat's admins turned
        rated tables on (/rated on)."""
        return chat_rates and self.counts_in_stats(options)

    def ladder_modes(self) -> tuple[str, ...]:
        """The modes `/top GAME MODE` may name (the modes statistics are kept under); the first is the default."""
        return ("casual",)

    def start_refusal(self, options: dict[str, Any], humans: int, bots: int, lang: str) -> str | None:
        """Why the table may not start with these seats (None: it may); the engine checks the seat count."""
        return None

    def bots_allowed(self, options: dict[str, Any]) -> bool:
        return True

    def invites(self, options: dict[str, Any]) -> bool:
        """Whether the lobby offers an invite link (a friends' room)."""
        return False

    def offered_moves(self, game: Any, state: dict[str, Any], seat: int) -> list[str]:
        """The moves the seat's buttons offer: the legal ones, unless the game lets a player break a rule."""
        return game.legal_moves(state, seat)

    def standby_buttons(self, view: dict[str, Any], lang: str) -> list[list[UIButton]]:
        """Controls for a seat (or, with seat None, the table) while another seat moves (Tunj's call)."""
        return []

    def disguise(self, view: dict[str, Any]) -> dict[str, Any]:
        """The view as the chat may show it: a game may keep something back until it is resolved (an open Tunj
        claim looks like any move). Returns `view` itself when nothing is kept back."""
        return view

    def shown_to_move(self, view: dict[str, Any], to_move: int | None) -> int | None:
        """The seat the chat names as moving (during a hidden claim: the mover, not the seat that may call)."""
        return to_move

    def is_call(self, text: str) -> bool:
        """Whether a typed move is a call on the mover (handled like the call button)."""
        return False

    def rack_buttons(self, view: dict[str, Any], legal: list[str], lang: str, pick: str | None) -> list[list[UIButton]]:
        """One button per legal move; games with many moves override with a two-step layout."""
        buttons = [UIButton(self.move_label(move, lang), "move", move=move) for move in legal]
        return _rows(buttons, self.buttons_per_row)

    def rack_view(self, view: dict[str, Any], pick: str | None) -> dict[str, Any]:
        """The view the rack picture is drawn from: a layout may add display hints (e.g. a sort `order`)."""
        return view

    def pick_hint(self, pick: str, lang: str) -> str:
        """The short answer to a press that chose a first step (a card) rather than a move: what to do next.
        Empty where the redrawn rack speaks for itself (a tick in a multi-card selection)."""
        return t(lang, "pick.choose")

    def pick_after_move(self, pick: str | None) -> str | None:
        """What of the picking state survives the seat's own move (a sort order may; a selection may not)."""
        return None

    def selected(self, view: dict[str, Any], pick: str | None) -> tuple[int, ...]:
        """Rack positions (0-based) to mark in the picture for this picking state."""
        return (int(pick),) if pick is not None and pick.isdigit() else ()

    def move_label(self, move: str, lang: str) -> str:
        return move

    def timer_seconds(self, view: dict[str, Any], options: dict[str, Any], chat_timer: int | None) -> float | None:
        """How long the seat to move has: the chat's own timer if it set one, else the game's default."""
        return chat_timer if chat_timer is not None else self.turn_seconds

    def forced_timeout_move(self, view: dict[str, Any]) -> str | None:
        """The move the rules make when time runs out (e.g. Tunj's `expire`); None: play a safe move for the seat.

        A forced move does not count as the player's absence, and it is timed even when a bot holds the seat.
        """
        return None

    def bot_pause(self, view: dict[str, Any], options: dict[str, Any]) -> float | None:
        """Seconds a bot waits after each of its moves while it keeps the turn, or None to play its turn at once.

        A game whose opponents may call a bot's slip (Tunj) shows every bot move for as long as a claim window
        lasts, so that the pause after a slip looks like the pause after any other move; the service times it
        like a turn (bot/core/play.py, `_run_bots`)."""
        return None

    def describe_move(self, move: str, lang: str, view: dict[str, Any] | None = None) -> str:
        """A move in words; `view` is the public view right after it, for games where the same move string
        can mean different things (a Tunj attempt that opened a claim)."""
        return move

    def notable(self, move: str, view: dict[str, Any] | None) -> bool:
        """A move the table caption keeps even when many moves follow it before the next update (a claim)."""
        return False

    def turn_prompt(self, view: dict[str, Any], lang: str) -> str:
        """The line over a rack when its seat is to move."""
        return t(lang, "rack.your_turn_generic")

    def describe_rack(self, view: dict[str, Any], lang: str) -> str:
        return " ".join(view.get("hand", []))

    def round_notes(self, view: dict[str, Any], lang: str, names: list[str]) -> list[str]:
        """Lines the table caption adds under its title about the round being played: a round beyond the
        regular ones (an extra or decider round) says what it is and what changes in it."""
        return []

    def describe_table(self, view: dict[str, Any], lang: str, names: list[str]) -> str:
        return ""

    def round_sheet(self, detail: dict[str, Any], number: int, view: dict[str, Any], names: list[str],
                    sides: list[str], lang: str) -> Sheet:
        """The score sheet of finished round `number` from its `details` entry (bot.summary.Sheet). By default
        the round's points and the running totals, which every engine's details carry."""
        points = list(detail.get("points") or [])
        totals = list(detail.get("totals") or [])
        rows = [(t(lang, "sheet.points"), tuple(signed(p) for p in points))]
        if totals:
            rows.append((t(lang, "sheet.total"), tuple(str(total) for total in totals)))
        return Sheet(t(lang, "sheet.round", n=number), tuple(sides[:len(points)]), tuple(rows),
                     points=tuple(points))

    def fold(self, seat: int, moves: list[tuple[str, dict[str, Any]]], before: dict[str, Any] | None,
             lang: str) -> str:
        """A long run of `seat`'s moves (move, public view after it) in a few words; `before` is the view
        before the run when known. By default: the last move."""
        move, after = moves[-1]
        return t(lang, "recap.last", move=self.describe_move(move, lang, after))

    def score_line(self, view: dict[str, Any], lang: str, names: list[str]) -> str:
        sides = side_names(view, names, lang)
        scores = view.get("scores", [])
        return " · ".join(f"{name}: {score}" for name, score in zip(sides, scores, strict=False))


def side_names(view: dict[str, Any], names: list[str], lang: str) -> list[str]:
    """Display names per scoring side. A view's `teams` is either a flag (partners 0+2 and 1+3) or the list of
    each side's seats; a one-seat side is just that player's name."""
    teams = view.get("teams")
    if isinstance(teams, list):
        sides = [[int(seat) for seat in side] for side in teams]
    elif teams:
        sides = [[0, 2], [1, 3]]
    else:
        return list(names)
    out = []
    for side in sides:
        members = [names[seat] if seat < len(names) else "?" for seat in side]
        out.append(members[0] if len(members) == 1 else t(lang, "team", a=members[0], b=" & ".join(members[1:])))
    return out


def _rows(buttons: list[UIButton], per_row: int) -> list[list[UIButton]]:
    return [buttons[i : i + per_row] for i in range(0, len(buttons), per_row)]


rows = _rows
