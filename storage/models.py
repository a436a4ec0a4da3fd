"""The records the store hands back: plain frozen dataclasses, decoded from rows in one place.

JSON columns come back as dicts; a caller that mutates one mutates only its own copy.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# Chat settings a chat has before anyone changes them; stored values override these key by key. Empty on purpose:
# the turn timer's default belongs to each game (bot/games: Kenza 60 s), so a chat only overrides it when it chose to.
CHAT_DEFAULTS: dict[str, Any] = {}


def dumps(value: Any) -> str:
    """Compact JSON that keeps Arabic readable in the file (handy when inspecting the database by hand)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


@dataclass(frozen=True)
class Player:
    id: int
    platform: str
    user_id: str
    display_name: str
    language: str | None  # None: not chosen, follow the chat
    created: float
    client_language: str | None = None  # what the user's app reports; used until they choose
    username: str | None = None  # the platform handle, for `/stats @name`
    banned_at: float | None = None  # when an operator banned the account (/ban); None: not banned

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Player:
        return cls(row["id"], row["platform"], row["user_id"], row["display_name"], row["language"],
                   row["created"], row["client_language"], row["username"], row["banned_at"])


@dataclass(frozen=True)
class Chat:
    platform: str
    chat_id: str
    language: str | None
    defaults: dict[str, Any]  # CHAT_DEFAULTS with this chat's own settings applied
    created: float

    @property
    def turn_timer(self) -> int | None:
        """Seconds per turn this chat chose; None: the game's default; 0: no timer."""
        return self.defaults.get("turn_timer")

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Chat:
        return cls(row["platform"], row["chat_id"], row["language"], {**CHAT_DEFAULTS, **loads(row["defaults"])},
                   row["created"])


@dataclass(frozen=True)
class Match:
    id: int
    game: str
    mode: str
    options: dict[str, Any]
    status: str  # lobby | active | finished | cancelled
    seed: int | None
    snapshot: dict[str, Any] | None  # the engine state after `version` moves; None until started
    version: int  # number of moves applied since start
    platform: str
    chat_id: str
    creator_id: int | None
    deadline: float | None  # unix time the current turn times out; None: no timer running
    created: float
    updated: float
    finished: float | None
    result: dict[str, Any] | None
    delivered_version: int | None = None  # screens shown up to this version; below `version`: a delivery is owed
    stake: int = 0  # coins each seat puts in the pot; 0: a free table
    rated: bool = False  # opened as a rated table: feeds the ranked ladder if every seat is human at the end
    lobby_version: int = 0  # lobby changes so far (0: the match has no lobby message)
    lobby_shown: int = 0  # the lobby version its lobby message shows; below `lobby_version`: an edit is owed

    @property
    def is_open(self) -> bool:
        return self.status in ("lobby", "active")

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Match:
        return cls(
            id=row["id"], game=row["game"], mode=row["mode"], options=loads(row["options"]),
            status=row["status"], seed=row["seed"], snapshot=loads(row["snapshot"]), version=row["version"],
            platform=row["platform"], chat_id=row["chat_id"], creator_id=row["creator_id"],
            deadline=row["deadline"], created=row["created"], updated=row["updated"],
            finished=row["finished"], result=loads(row["result"]), delivered_version=row["delivered_version"],
            stake=row["stake"], rated=bool(row["rated"]), lobby_version=row["lobby_version"],
            lobby_shown=row["lobby_shown"],
        )


@dataclass(frozen=True)
class Seat:
    match_id: int
    seat: int
    player_id: int | None  # None: a bot seat
    bot_level: str | None  # e.g. "random" / "normal" (engine bots); None for a human seat
    timeouts_in_a_row: int
    away: bool  # the human is absent and a bot plays the seat for now
    display_name: str | None = None  # the player's name, joined in for rendering
    platform: str | None = None  # where the seat's player is shown (a matched table seats several); None: a bot

    @property
    def is_human(self) -> bool:
        return self.player_id is not None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Seat:
        return cls(row["match_id"], row["seat"], row["player_id"], row["bot_level"], row["timeouts_in_a_row"],
                   bool(row["away"]), row["display_name"], row.get("platform"))


@dataclass(frozen=True)
class QueueEntry:
    """A player waiting in a matchmaking queue (bot/core/matchmaking.py)."""

    id: int
    player_id: int
    platform: str
    game: str
    mode: str
    ordinal: float  # openskill's ordinal in this game and mode when they joined (placement players: a new one's)
    queued: float
    chat_id: str | None = None  # the private message showing their place, with "Leave queue"
    message_id: str | None = None
    display_name: str = ""
    group_chat: str | None = None  # the group whose own queue this is (seated as that group's table); None: global

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> QueueEntry:
        return cls(row["id"], row["player_id"], row["platform"], row["game"], row["mode"], row["ordinal"],
                   row["queued"], row["chat_id"], row["message_id"], row.get("display_name") or "",
                   row.get("group_chat"))


@dataclass(frozen=True)
class MoveRecord:
    match_id: int
    seq: int  # 1-based; the match's version right after this move
    seat: int
    actor: str  # human | bot | timer
    move: str  # canonical move string (NOTATION.md)
    at: float

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> MoveRecord:
        return cls(row["match_id"], row["seq"], row["seat"], row["actor"], row["move"], row["at"])


@dataclass(frozen=True)
class Message:
    id: int
    match_id: int | None
    platform: str
    chat_id: str
    message_id: str
    kind: str  # lobby | table | rack | notice | ...
    seat: int | None
    updated: float

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Message:
        return cls(row["id"], row["match_id"], row["platform"], row["chat_id"], row["message_id"], row["kind"],
                   row["seat"], row["updated"])


@dataclass(frozen=True)
class GameStats:
    game: str
    played: int
    won: int
    drawn: int
    points: int

    @property
    def lost(self) -> int:
        return self.played - self.won - self.drawn

    @property
    def win_rate(self) -> float:
        return self.won / self.played if self.played else 0.0


@dataclass(frozen=True)
class LeaderRow:
    rank: int
    player_id: int
    display_name: str
    played: int
    won: int
    drawn: int
    points: int
    win_rate: float = field(default=0.0)
