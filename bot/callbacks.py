"""Short action codes carried by buttons: `op:match:arg...`, at most 64 bytes (Telegram's callback_data limit).

A code names the match and, for moves, the match version it was drawn for, so a press on an old keyboard is
recognised as stale instead of playing whatever now sits at that index.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_BYTES = 64

# op -> meaning (kept here so every adapter and test speaks the same codes)
OPS = {
    "n": "new table for a game",  # n:0:game
    "o": "cycle a lobby option",  # o:match:option
    "j": "join",
    "l": "leave",
    "b": "add a bot",  # b:match:level
    "r": "remove a bot",
    "s": "start",
    "x": "cancel",
    "m": "play legal move number",  # m:match:version:index
    "p": "pick (first step of a two-step move)",  # p:match:version:key
    "k": "back to the first step",  # k:match:version
    "t": "call the mover's broken rule (Tunj!)",  # t:match — no version: valid all through the mover's turn
    "i": "I'm back",
    "h": "show my hand",
    "c": "show the score",
    "g": "a leaderboard page",  # g:0:game:mode:scope:page ("-": all games / the game's rated mode; scope h|g)
    "y": "post the replay of a finished match",  # y:match
    "q": "join a matchmaking queue (🎲 Play now)",  # q:0:game.mode; q:1:game.mode: the Join of the group's own queue
    "z": "leave the matchmaking queue",  # z:entry — the number is the queue entry's, not a match's
    # tournaments: the number after the op is the tournament's, not a match's
    "a": "post a tournament's card here",  # a:tournament (the /new list's first row)
    "u": "register (solo) or start a team",  # u:tournament
    "e": "join a team",  # e:tournament:entry
    "w": "withdraw from a tournament",  # w:tournament
    "v": "check in for a bracket game",  # v:tournament:round:slot
}


# How many fields follow `op:match` in each code our buttons draw; any other count is forged.
ARITY = {"n": 1, "o": 1, "j": 0, "l": 0, "b": 1, "r": 0, "s": 0, "x": 0, "m": 3, "p": 2, "k": 1, "t": 0, "i": 0,
         "h": 0, "c": 0, "g": 4, "y": 0, "q": 1, "z": 0,
         "a": 0, "u": 0, "e": 1, "w": 0, "v": 2}


@dataclass(frozen=True)
class Action:
    op: str
    match_id: int
    args: tuple[str, ...] = ()


class BadAction(ValueError):
    """A code that no button of ours could have sent."""


def encode(op: str, match_id: int, *args: object) -> str:
    if op not in OPS:
        raise ValueError(f"unknown op {op!r}")
    text = ":".join([op, str(match_id), *(str(arg) for arg in args)])
    if len(text.encode()) > MAX_BYTES:
        raise ValueError(f"action code too long: {text!r}")
    return text


MAX_DIGITS = 18  # any id or version of ours fits in a signed 64-bit integer


def number(text: str) -> int:
    """A numeric field: ASCII digits only. `str.isdigit()` also accepts '²' or Arabic-Indic digits, which `int()`
    then refuses or reads differently; no button of ours carries them, so they are forged."""
    if not (0 < len(text) <= MAX_DIGITS) or not text.isascii() or not text.isdigit():
        raise BadAction(f"not a number: {text!r}")
    return int(text)


def decode(text: str | None) -> Action:
    if not text or len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        raise BadAction("empty or oversized action")
    parts = text.split(":")
    if len(parts) < 2 or parts[0] not in OPS:
        raise BadAction(f"unknown action {text!r}")
    return Action(parts[0], number(parts[1]), tuple(parts[2:]))


def drawn(action: Action) -> bool:
    """Whether a button of ours carries codes of this shape (the number of fields after `op:match`)."""
    return len(action.args) == ARITY[action.op]
