"""The contract every game implements (NOTATION.md, "The engine contract").

Shaped after OpenSpiel's game/state split, but with the state as plain JSON data: a `Game` object is
stateless, and every method takes the state it works on. Moves are their canonical strings, so a move
printed by `legal_moves`, typed by a player, stored in the move log or sent in a button is one thing.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.errors import BadOption, IllegalMove

State = dict[str, Any]
# The key a state names its layout's version by, from version 2 on (a state without it is version 1: every match
# stored before states were versioned).
VERSION_KEY = "state_version"


@dataclass(frozen=True)
class StateChange:
    """What one version of a game's state added to the one before, both ways.

    Why: a stored match outlives the engine that played it. Its snapshot keeps the layout of its day, while its move
    log, played again, gives the layout of today: a replay must compare the two at the older version (`Game.as_of`),
    and an older state read back in must gain what the engine now expects (`Game.upgrade`)."""

    version: int  # the version this change brings a state to
    upgrade: Callable[[State], None]  # an older state gains the new parts, as far as they can be known
    strip: Callable[[State], None]  # a state of this version loses the new parts: what the older one held


@dataclass(frozen=True)
class OptionSpec:
    """One table option: its allowed values (None = any int within bounds) and its default."""

    default: Any
    choices: tuple[Any, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None

    def check(self, name: str, value: Any) -> Any:
        if self.choices is not None:
            for choice in self.choices:
                if value == choice or (isinstance(choice, int) and _as_int(value) == choice):
                    return choice
            raise BadOption(f"option {name!r} must be one of {list(self.choices)}, not {value!r}", "option_choice",
                            option=name, value=value, choices=", ".join(str(choice) for choice in self.choices))
        number = _as_int(value)
        if number is None:
            raise BadOption(f"option {name!r} must be a whole number, not {value!r}", "option_number", option=name,
                            value=value)
        if self.minimum is not None and number < self.minimum:
            raise BadOption(f"option {name!r} must be at least {self.minimum}", "option_min", option=name,
                            n=self.minimum)
        if self.maximum is not None and number > self.maximum:
            raise BadOption(f"option {name!r} must be at most {self.maximum}", "option_max", option=name,
                            n=self.maximum)
        return number


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    text = value.strip() if isinstance(value, str) else ""
    if text.removeprefix("-").isdigit():  # one sign at most: "--5" is not a number (int() would raise its own text)
        return int(text)
    return None


def clone(value: Any) -> Any:
    """Copy JSON-shaped data; several times faster than copy.deepcopy on game states."""
    if isinstance(value, dict):
        return {key: clone(item) for key, item in value.items()}
    if isinstance(value, list):
        return [clone(item) for item in value]
    return value


@dataclass(frozen=True)
class GameInfo:
    """What the lobby needs to know about a game before any state exists."""

    id: str
    names: dict[str, str]
    min_players: int
    max_players: int
    options: dict[str, OptionSpec] = field(default_factory=dict)
    teams_at: tuple[int, ...] = ()  # player counts that play in partnerships {0,2} / {1,3}
    # Which way a match total points: False when the highest total wins (most games), True when the lowest does
    # (Konkan with cards scores penalties). Standings and coin prizes rank each game in its own direction.
    lower_is_better: bool = False


def nothing_to_fill(state: State) -> None:
    """An upgrade with nothing to add: what the newer version keeps starts with the next event that writes it."""


def dropping(*keys: str, inside: dict[str, tuple[str, ...]] | None = None) -> Callable[[State], None]:
    """A `StateChange.strip` taking out top-level `keys`, and the keys `inside` names in the sub-dicts it names."""

    def strip(state: State) -> None:
        for key in keys:
            state.pop(key, None)
        for parent, names in (inside or {}).items():
            if isinstance(state.get(parent), dict):
                for name in names:
                    state[parent].pop(name, None)

    return strip


class Game(ABC):
    """A stateless rules object; all state is passed in and returned as new plain data."""

    info: GameInfo

    # ---- set-up ---------------------------------------------------------------------------------------------
    @property
    def id(self) -> str:
        return self.info.id

    def check_options(self, players: int, options: dict[str, Any] | None) -> dict[str, Any]:
        """Fill defaults and refuse unknown keys or values (ValueError, as the contract says)."""
        if not self.info.min_players <= int(players) <= self.info.max_players:
            raise BadOption(
                f"{self.info.id} is for {self.info.min_players}-{self.info.max_players} players, not {players}",
                "players_range", game=self.info.id, min=self.info.min_players, n=self.info.max_players,
                players=players,
            )
        given = dict(options or {})
        unknown = sorted(set(given) - set(self.info.options))
        if unknown:
            raise BadOption(f"unknown option(s) for {self.info.id}: {', '.join(unknown)}", "option_unknown",
                            game=self.info.id, options=", ".join(unknown))
        return {
            name: spec.check(name, given[name]) if name in given else spec.default
            for name, spec in self.info.options.items()
        }

    @abstractmethod
    def new(
        self,
        players: int,
        options: dict[str, Any] | None = None,
        *,
        seed: int | str | None = None,
        layout: dict[str, Any] | None = None,
    ) -> State:
        """A new match, dealt from `seed` or set up from an explicit `layout`."""

    # ---- play -----------------------------------------------------------------------------------------------
    def to_move(self, state: State) -> int | None:
        """The seat to move, or None once the match is over (games keep `over` and `to_move` in their state)."""
        return None if state["over"] else state["to_move"]

    @abstractmethod
    def legal_moves(self, state: State, seat: int) -> list[str]:
        """Every legal move of `seat` as canonical strings (empty when it is not that seat's turn)."""

    @abstractmethod
    def parse_move(self, state: State, seat: int, text: str) -> str:
        """The canonical move for typed text, or IllegalMove with the reason."""

    @abstractmethod
    def _play(self, state: State, seat: int, move: str) -> None:
        """Apply a parsed, canonical move to `state` in place (state is already a private copy)."""

    def apply(self, state: State, seat: int, move: Any) -> State:
        """The state after `seat` plays `move`; the given state is never changed."""
        if self.to_move(state) is None:
            raise IllegalMove("the match is over", "match_over")
        if seat != self.to_move(state):
            raise IllegalMove("it is not your turn", "not_your_turn")
        canonical = self.parse_move(state, seat, str(move))
        new_state = clone(state)
        self._play(new_state, seat, canonical)
        return new_state

    # ---- information ----------------------------------------------------------------------------------------
    @abstractmethod
    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """What `seat` may see (None: the public view), as JSON-safe data."""

    @abstractmethod
    def result(self, state: State) -> dict[str, Any]:
        """over, round, scores, history, winners (and draw) as NOTATION.md lists them."""

    def to_json(self, state: State) -> dict[str, Any]:
        return json.loads(json.dumps(state))

    def from_json(self, data: dict[str, Any] | str) -> State:
        """The state `data` holds, brought up to this engine's version (`upgrade`)."""
        # A fresh parse is already a private copy; a given dict is copied, so the caller's stays untouched.
        state = json.loads(data) if isinstance(data, str) else clone(data)
        if not isinstance(state, dict) or state.get("game") != self.info.id:
            raise ValueError(f"not a {self.info.id} state")
        return self.upgrade(state)

    # ---- versions of the state's layout ---------------------------------------------------------------------
    # What each version added, oldest first; a game whose state never changed has none (version 1).
    state_changes: tuple[StateChange, ...] = ()

    @property
    def state_version(self) -> int:
        """The version of the states this engine makes (`new` writes it under VERSION_KEY from 2 on)."""
        return self.state_changes[-1].version if self.state_changes else 1

    def version_of(self, state: State) -> int:
        return int(state.get(VERSION_KEY, 1))

    def upgrade(self, state: State) -> State:
        """`state` (changed in place, and returned) as this engine's version holds it: the parts later versions
        added are filled in as far as an older state tells them (a log of finished rounds begins with the next
        round that ends)."""
        version = self.version_of(state)
        if version > self.state_version:
            raise ValueError(f"a {self.info.id} state of version {version}; this engine knows up to "
                             f"{self.state_version}")
        for change in self.state_changes:
            if change.version > version:
                change.upgrade(state)
        if self.state_version > 1:
            state[VERSION_KEY] = self.state_version
        return state

    def as_of(self, state: State, version: int) -> State:
        """A copy of `state` as the engine of `version` would have held it: what later versions added taken out.
        Two states, one stored long ago and one played again from the log today, are the same match position
        when they agree at the older one's version."""
        older = clone(state)
        for change in reversed(self.state_changes):
            if change.version > version:
                change.strip(older)
        if version > 1:
            older[VERSION_KEY] = version
        else:
            older.pop(VERSION_KEY, None)
        return older

    def players(self, state: State) -> int:
        return int(state["players"])
