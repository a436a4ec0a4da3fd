"""Konkan tiles match state machine (../shared/rules/konkan-tiles.md, ../shared/NOTATION.md).

A turn runs in phases: "draw" (`draw`, or `take` the tile the previous player just discarded), then "play"
(melds, lay-offs, joker steals, a Konkan finish with its locks, a hidden finish, and the `discard` that ends
the turn). The captain's first turn starts in "play" with 15 tiles. A forced-Konkan decider round starts in
"option", where the trailing team picks reshuffle / joker / none. Eliminated seats never move: their ghost turns
(draw a tile, discard it at once) are played by the engine as soon as their turn comes.

Decisions where the rules are silent, taken as the seed's app plays:
- An opening in progress may take several `meld` moves; laying off and stealing wait until the turn's melds reach
  the minimum (an `add` while below it is refused rather than springing the Konkan trap on a half-laid opening).
  Every meld laid in the opening turn counts in the opening total that sets the opponents' dynamic minimum.
- A tile taken before opening must be laid in a `meld` move of that turn's opening, any of them (konkan-tiles.md
  [decision]); the discard is refused while it waits in the hand after an opening was started. So that this can
  never strand the player, a meld, lay-off or steal that leaves no meld holding the taken tile in the hand (with a
  tile to discard) is refused while it waits. A player who took and does not open that turn is in Konkan mode from
  the discard on (a failed opening eliminates instead).
- A Konkan finish is one `meld` move holding the 10-tile run and one or more melds of 3-4 tiles, then the locks,
  then the discard. A lock is needed when no extra meld has 4 tiles; Konkan-10 (Sulaymaniyah rules) is the 10-run
  alone, then 4 locks. Locks go on runs that were on the table before the finish, one tile at an open end,
  within the 5-tile limit. A lock beyond what the finish allows is the "second lock attempt": the finish's tiles go
  back to the hand, the attempted tile is discarded (nobody may take it) and the player is eliminated. A finish is
  accepted only when its locks and its discard are possible, so it can never strand the player.
- A `meld` move prints its melds in the order given (they join the table in that order, which numbers them);
  inside a meld, runs print ascending and sets by colour (R K B Y), jokers last.
- The hidden finish (`finish T`) is for a player with nothing on the table and not in Konkan mode; after a
  pre-opening take the taken tile must be inside the melds in hand, not the tile put on the indicator (an identical
  tile in hand stands for it: the two copies are interchangeable).
- When a joker leaves a hand that holds both kinds, a dealt/drawn one goes first (the player keeps the stolen one,
  which costs 2 instead of 25); jokers given back by a failed opening count as dealt.
- The hidden finisher's tile goes on top of the discard pile (the picture puts it on the indicator).
- The forced-Konkan option is chosen by the trailing team's first seat in turn order from the captain; `joker`
  puts the old indicator back into the draw pile at a random place and turns the next tile.
- An elimination by a second draw from a Konkan player's discards keeps the melds laid before; a failed opening
  returns that turn's melds to the hand.
- The draw pile is refilled when a turn starts with it empty; with three reshuffles used (or no discards under the
  top tile to make a pile) the round is void there.
- A layout without an indicator has no joker that round (and may then hold no false joker).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from engine import rng
from engine.base import VERSION_KEY, Game, GameInfo, OptionSpec, State, StateChange, clone, dropping
from engine.cards import check_counts, split_wild
from engine.errors import BadOption, IllegalMove
from engine.konkan_tiles import melds as M
from engine.konkan_tiles.modes import MODES, RULES, check_options
from engine.konkan_tiles.scoring import round_points
from engine.konkan_tiles.tiles import DECK, FALSE_JOKER, bare, joker_of, natural, parse_tile, sort_tiles, tile_key

RESHUFFLES = 3
DECIDER_REACH = 400  # the most a Konkan win can collect: a trailing team within it gets a forced-Konkan decider
SULAYMANIYAH_LOCKS = 4
_LAYOUT_KEYS = {"hands", "stock", "discard", "indicator", "captain", "round", "melds", "opened", "scores",
                "konkan", "eliminated", "reshuffles"}


@dataclass
class Action:
    """A checked move: its canonical text and what applying it needs."""

    verb: str
    text: str
    tiles: list[str] = field(default_factory=list)  # tiles leaving the hand
    shapes: list[M.Shape] = field(default_factory=list)
    number: int = 0  # table meld index (0-based) for add / swap / lock
    cells: list[str] = field(default_factory=list)  # swap: the meld's new cells
    side: str = ""
    finish: str | None = None  # "konkan" | "konkan10" for a Konkan finish meld
    eliminates: bool = False  # a lock beyond the finish's allowance


def _turn_knows_taken_laid(state: State) -> None:
    """An older state's turn did not say whether the tile taken before opening was laid yet: not yet, as the engine
    read it then (a turn without the field is read the same way)."""
    if isinstance(state.get("turn"), dict):
        state["turn"].setdefault("taken_laid", False)


class KonkanTilesGame(Game):
    info = GameInfo(
        id="konkan_tiles",
        names={"en": "Konkan (tiles)", "ar": "كنكان"},
        min_players=2,
        max_players=4,
        options={
            "mode": OptionSpec(default="quick", choices=tuple(MODES)),
            "rules": OptionSpec(default="erbil", choices=RULES),
        },
        teams_at=(4,),
        lower_is_better=False,  # rules: a side's score is the penalties it collected; the higher total wins
    )
    # Version 2 marks what states gained before they were versioned: each finished round's breakdown (round_log, for
    # the score sheet) and, in the turn, whether the tile taken before opening was laid yet (taken_laid).
    state_changes = (StateChange(2, _turn_knows_taken_laid, dropping("round_log", inside={"turn": ("taken_laid",)})),)

    def check_options(self, players: int, options: dict[str, Any] | None) -> dict[str, Any]:
        if int(players) not in (2, 4):
            raise BadOption(f"konkan_tiles is for 2 or 4 players, not {players}", "konkan_tiles.players",
                            players=players)
        return check_options(players, options)

    # ---- set-up ---------------------------------------------------------------------------------------------
    def new(self, players: int, options: dict[str, Any] | None = None, *, seed: int | str | None = None,
            layout: dict[str, Any] | None = None) -> State:
        players = int(players)
        opts = self.check_options(players, options)
        state: State = {
            "game": self.info.id,
            VERSION_KEY: self.state_version,
            "players": players,
            "options": opts,
            "rng": rng.seed_state(seed),
            "round": 1,
            "rounds": MODES[opts["mode"]].rounds,
            "decider": False,
            "forced": [],
            "scores": [0, 0],
            "history": [],
            "over": False,
            "winners": [],
            "draw": False,
            "last_move": None,
            "ghosts": [],
            "last_round": None,
        }
        if layout is None:
            state["rng"], state["captain"] = rng.below(state["rng"], players)
            _deal(state)
        else:
            _from_layout(state, layout)
        return state

    # ---- moves ----------------------------------------------------------------------------------------------
    def legal_moves(self, state: State, seat: int) -> list[str]:
        if state["over"] or state["to_move"] != seat:
            return []
        phase = state["phase"]
        if phase == "option":
            return ["option reshuffle", "option joker", "option none"]
        if phase == "draw":
            return ["draw"] + (["take"] if _take_refusal(state, seat) is None else [])
        return _play_moves(state, seat)

    def parse_move(self, state: State, seat: int, text: str) -> str:
        return _interpret(state, seat, str(text)).text

    def apply(self, state: State, seat: int, move: Any) -> State:
        if state["over"]:
            raise IllegalMove("the match is over", "match_over")
        if seat != state["to_move"]:
            raise IllegalMove("it is not your turn", "not_your_turn")
        action = _interpret(state, seat, str(move))
        new_state = clone(state)
        _do(new_state, seat, action)
        return new_state

    def _play(self, state: State, seat: int, move: str) -> None:
        _do(state, seat, _interpret(state, seat, move))

    # ---- information ----------------------------------------------------------------------------------------
    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        players = state["players"]
        turn = state.get("turn") or {}
        finish = turn.get("finish")
        last = state.get("last_discard")
        take_from = last["seat"] if last and last["takeable"] and state["discard"] else None
        return {
            "game": state["game"],
            "mode": state["options"]["mode"],
            "rules": state["options"]["rules"],
            "seat": seat,
            "players": players,
            "teams": _teams(players),
            "team": None if seat is None else seat % 2,
            "round": state["round"],
            "rounds": state["rounds"],
            "timers": _timers(state),
            "decider": state["decider"],
            "forced": list(state["forced"]),
            "captain": state["captain"],
            "to_move": None if state["over"] else state["to_move"],
            "phase": "over" if state["over"] else state["phase"],
            "hand": sort_tiles(state["hands"][seat]) if seat is not None else None,
            "hand_sizes": [len(hand) for hand in state["hands"]],
            "stock_size": len(state["stock"]),
            "reshuffles_left": RESHUFFLES - state["reshuffles"],
            "discard_top": state["discard"][0] if state["discard"] else None,
            "discard_size": len(state["discard"]),
            "take_from": take_from,
            "indicator": state["indicator"],
            "joker": state["joker"],
            "melds": [
                {
                    "number": index + 1,
                    "seat": meld["seat"],
                    "kind": meld["kind"],
                    "cards": list(meld["cards"]),
                    "locked": list(meld["locked"]),
                    "value": _value_of(meld),
                }
                for index, meld in enumerate(state["melds"])
            ],
            "opened": list(state["opened"]),
            "konkan": list(state["konkan"]),
            "eliminated": list(state["eliminated"]),
            "minimum": [_minimum(state, s) for s in range(players)],
            "konkan_takes": list(state["konkan_takes"]),
            "opening": turn.get("opening", 0),
            "must_finish": bool(turn.get("must_finish")),
            # a tile taken before opening that this turn's opening has still to lay (it was taken in the open)
            "taken": None if state["over"] or state["phase"] != "play" else _waiting_taken(state, state["to_move"]),
            "finish": None if not finish else {
                "kind": finish["kind"], "locks_needed": finish["allowed"], "locks_done": len(finish["locks"]),
            },
            "locks_left": _locks_left(state),
            "stolen": state["stolen"][seat] if seat is not None else None,
            "scores": list(state["scores"]),
            "history": [list(row) for row in state["history"]],
            "details": clone(state.get("round_log", [])),  # each finished round's breakdown, in order
            "last_move": clone(state["last_move"]),
            "ghosts": clone(state["ghosts"]),
            "last_round": clone(state["last_round"]),
            "over": state["over"],
            "winners": list(state["winners"]),
            "draw": state["draw"],
        }

    def result(self, state: State) -> dict[str, Any]:
        return {
            "over": state["over"],
            "round": state["round"],
            "scores": list(state["scores"]),
            "history": [list(row) for row in state["history"]],
            "winners": list(state["winners"]),
            "draw": state["draw"],
        }


# ---- small helpers ----------------------------------------------------------------------------------------------
def _teams(players: int) -> list[list[int]]:
    return [[0, 2], [1, 3]] if players == 4 else [[0], [1]]


def _value_of(meld: dict) -> int:
    if meld["kind"] == "set":
        return M.Shape("set", None, meld["number"], 0, 0, tuple(meld["cards"])).value
    return M.Shape("run", meld["color"], None, meld["low"], meld["high"], tuple(meld["cards"])).value


def _timers(state: State) -> dict[str, int] | None:
    """The mode's seconds for the discard and the draw (none in private rooms), for the service's clock."""
    timers = MODES[state["options"]["mode"]].timers
    return None if timers is None else {"discard": timers[0], "draw": timers[1]}


def _minimum(state: State, seat: int) -> int:
    """The dynamic opening minimum: the higher opponent opening + 1 once both opponents opened (1v1: the
    opponent's), else 61 (turbo 41) once the partner opened, else the mode's base. Both opponents' openings win
    over the partner's: the seed says the minimum then "returns" to them (konkan-tiles.md, dynamic minimum)."""
    mode = MODES[state["options"]["mode"]]
    opened = state["opened"]
    if state["players"] == 4:
        rivals = [opened[(seat + 1) % 4], opened[(seat + 3) % 4]]
        if all(value is not None for value in rivals):
            return max(rivals) + 1  # type: ignore[type-var]
        if opened[(seat + 2) % 4] is not None:
            return mode.partner
        return mode.base
    rival = opened[1 - seat]
    return rival + 1 if rival is not None else mode.base


def _locks_left(state: State) -> int:
    limit = SULAYMANIYAH_LOCKS if state["options"]["rules"] == "sulaymaniyah" else 1
    return limit - state["locks_used"]


def _take_refusal(state: State, seat: int) -> IllegalMove | None:
    """Why `seat` may not take the last discard now (the refusal, for the caller to raise), or None."""
    last = state.get("last_discard")
    if not state["discard"] or last is None:
        return IllegalMove("there is no discard to take", "konkan_tiles.no_discard")
    if last["seat"] != (seat - 1) % state["players"]:
        return IllegalMove("you may take only the tile the previous player just discarded",
                           "konkan_tiles.take_previous")
    if not last["takeable"]:
        return IllegalMove("nobody may take the discard of a player in the turn they were eliminated",
                           "konkan_tiles.take_eliminated")
    return None


def _jokers_out(state: State, seat: int, tiles: list[str]) -> None:
    """Keep the stolen-joker count right when jokers leave a hand (dealt ones leave first)."""
    joker = state["joker"]
    leaving = sum(1 for tile in tiles if tile == joker)
    if not leaving:
        return
    hand_jokers = sum(1 for tile in state["hands"][seat] if tile == joker)  # before removal
    dealt = hand_jokers - state["stolen"][seat]
    state["stolen"][seat] -= max(0, leaving - dealt)


def _take_from_hand(state: State, seat: int, tiles: list[str]) -> None:
    _jokers_out(state, seat, tiles)
    hand = state["hands"][seat]
    for tile in tiles:
        hand.remove(tile)


def _need_in_hand(hand: list[str], tiles: list[str]) -> None:
    have = Counter(hand)
    for tile, count in Counter(tiles).items():
        if have[tile] < count:
            raise IllegalMove(f"{tile} is not in your hand", "not_in_hand", card=tile)


def _waiting_taken(state: State, seat: int) -> str | None:
    """The tile taken before opening this turn that no `meld` move has laid yet (None once laid, or once a lay-off
    put the player in Konkan mode, where the opening obligation ends)."""
    turn = state["turn"]
    taken = turn.get("taken")
    if taken is None or turn.get("taken_laid") or state["konkan"][seat]:
        return None
    return taken


def _keep_taken_layable(state: State, seat: int, leaving: list[str], coming: tuple[str, ...] = (),
                        melded: bool = False) -> None:
    """Refuse a move that would leave the waiting taken tile with no meld to go in: its discard would then be
    refused for good. `leaving` are the move's tiles out of the hand (`melded`: into a new meld, which lays the
    taken tile when it is among them), `coming` any the move brings in (stolen jokers)."""
    taken = _waiting_taken(state, seat)
    if taken is None or (melded and taken in leaving):
        return
    rest = list(state["hands"][seat]) + list(coming)
    for tile in leaving:
        rest.remove(tile)
    key = tuple(sorted(rest, key=tile_key))
    if not any(taken in shape.tiles and len(rest) - len(shape.tiles) >= 1
               for shape in M.hand_melds(key, state["joker"])):
        raise IllegalMove(f"you took {taken}: open with it (it must be in your opening melds)",
                          "konkan_tiles.open_with_taken", tile=taken)


# ---- reading typed moves --------------------------------------------------------------------------------------
def _entry(token: str) -> M.Entry:
    real, stand = split_wild(token)
    tile = parse_tile(real)
    if stand is None:
        return tile, None
    target = parse_tile(stand)
    if target == FALSE_JOKER:
        raise IllegalMove("a joker stands for a numbered tile, e.g. R8:B6", "konkan_tiles.joker_target")
    return tile, target


def _groups(words: list[str]) -> list[list[M.Entry]]:
    groups: list[list[M.Entry]] = [[]]
    for word in words:
        for piece in word.replace("|", " | ").split():
            if piece == "|":
                groups.append([])
            else:
                groups[-1].append(_entry(piece))
    if any(not group for group in groups):
        raise IllegalMove("write melds as: meld T T T [| T T T ...], e.g. meld R9 K9 Y9", "konkan_tiles.meld_syntax")
    return groups


def _stands_only_on_jokers(entries: list[M.Entry], joker: str | None) -> None:
    for tile, stand in entries:
        if stand is not None and tile != joker:
            reason = f"only a joker ({joker or 'none this round'}) can say what it stands for"
            if joker is None:
                raise IllegalMove(reason, "konkan_tiles.no_joker_stands")
            raise IllegalMove(reason, "konkan_tiles.only_joker_stands", joker=joker)


def _meld_number(state: State, word: str) -> int:
    if not word.isdigit() or not 1 <= int(word) <= len(state["melds"]):
        raise IllegalMove(f"there is no meld {word} on the table", "konkan_tiles.no_meld", number=word)
    return int(word) - 1


def _interpret(state: State, seat: int, text: str) -> Action:
    if state["over"]:
        raise IllegalMove("the match is over", "match_over")
    if state["to_move"] != seat:
        raise IllegalMove("it is not your turn", "not_your_turn")
    words = text.split()
    if not words:
        raise IllegalMove("empty move", "canasta.empty_move")
    verb = words[0].lower()
    phase = state["phase"]
    if phase == "option":
        if verb != "option" or len(words) != 2 or words[1].lower() not in ("reshuffle", "joker", "none"):
            raise IllegalMove("choose the decider option: option reshuffle, option joker or option none",
                              "konkan_tiles.option_syntax")
        return Action("option", f"option {words[1].lower()}")
    if verb == "option":
        raise IllegalMove("there is no option to choose now", "konkan_tiles.no_option")
    if phase == "draw":
        if len(words) != 1 or verb not in ("draw", "take"):
            if verb in ("meld", "add", "swap", "lock", "finish", "discard"):
                raise IllegalMove("first draw a tile or take the last discard", "konkan_tiles.draw_first")
            raise IllegalMove("start your turn with draw or take", "konkan_tiles.start_turn")
        if verb == "take":
            refusal = _take_refusal(state, seat)
            if refusal:
                raise refusal
        return Action(verb, verb)
    if verb in ("draw", "take"):
        raise IllegalMove("you have already drawn this turn", "konkan_tiles.already_drew")
    checks = {"meld": _check_meld, "add": _check_add, "swap": _check_swap, "lock": _check_lock,
              "finish": _check_finish, "discard": _check_discard}
    if verb not in checks:
        raise IllegalMove(f"unknown move '{words[0]}': use meld, add, swap, lock, finish or discard",
                          "konkan_tiles.unknown_verb", word=words[0])
    return checks[verb](state, seat, words[1:])


def _print_meld(shape: M.Shape, joker: str | None, konkan: bool = False) -> str:
    return " ".join(M.printed(shape, joker, konkan=konkan))


def _check_meld(state: State, seat: int, words: list[str]) -> Action:
    turn = state["turn"]
    joker = state["joker"]
    if turn["finish"]:
        raise IllegalMove("finish your Konkan: lock or discard", "konkan_tiles.finish_konkan")
    groups = _groups(words)
    for group in groups:
        _stands_only_on_jokers(group, joker)
    hand = state["hands"][seat]
    if state["konkan"][seat]:
        return _check_konkan_finish(state, seat, groups)
    shapes = []
    for group in groups:
        if len(group) == M.KONKAN_RUN:
            raise IllegalMove("only a player in Konkan mode lays a 10-tile run, in the Konkan finish",
                              "konkan_tiles.long_run")
        shapes.append(M.check(group, joker))
    tiles = [tile for shape in shapes for tile in shape.tiles]
    _need_in_hand(hand, tiles)
    if len(hand) - len(tiles) < 1:
        raise IllegalMove("keep one tile to discard", "konkan_tiles.keep_discard")
    _keep_taken_layable(state, seat, tiles, melded=True)
    text = "meld " + " | ".join(_print_meld(shape, joker) for shape in shapes)
    return Action("meld", text, tiles=tiles, shapes=shapes)


def _check_konkan_finish(state: State, seat: int, groups: list[list[M.Entry]]) -> Action:
    joker = state["joker"]
    hand = state["hands"][seat]
    longs = [group for group in groups if len(group) == M.KONKAN_RUN]
    if len(longs) != 1:
        raise IllegalMove("in Konkan mode you lay nothing until your Konkan finish: a 10-tile run and a meld",
                          "konkan_tiles.konkan_lays_nothing")
    shapes = []
    for group in groups:
        if len(group) == M.KONKAN_RUN:
            shapes.append(M.check(group, joker, konkan=True))
        else:
            if len(group) not in (3, 4):
                raise IllegalMove("the Konkan run goes with melds of 3 or 4 tiles", "konkan_tiles.konkan_meld_size")
            shapes.append(M.check(group, joker))
    tiles = [tile for shape in shapes for tile in shape.tiles]
    _need_in_hand(hand, tiles)
    left = list(hand)
    for tile in tiles:
        left.remove(tile)
    extras = [shape for shape in shapes if len(shape.cells) != M.KONKAN_RUN]
    if not extras:
        if state["options"]["rules"] != "sulaymaniyah":
            raise IllegalMove("the Konkan finish needs a meld of 3 or 4 tiles besides the 10-tile run",
                              "konkan_tiles.konkan_needs_meld")
        kind, locks = "konkan10", SULAYMANIYAH_LOCKS
    else:
        kind, locks = "konkan", 0 if any(len(shape.cells) == 4 for shape in extras) else 1
    if len(left) != locks + 1 and locks:
        raise IllegalMove(f"that finish leaves {len(left)} tiles: it needs exactly {locks + 1}"
                          f" ({locks} to lock and one to discard)", "konkan_tiles.finish_leaves_locks",
                          n=len(left), need=locks + 1, locks=locks)
    if len(left) != locks + 1:
        raise IllegalMove(f"that finish leaves {len(left)} tiles: it needs exactly one, to discard",
                          "konkan_tiles.finish_leaves", n=len(left))
    if locks > _locks_left(state):
        raise IllegalMove("no locks are left this round", "konkan_tiles.no_locks_left")
    if locks and not _locks_possible(state, list(range(len(state["melds"]))), left, locks, joker):
        raise IllegalMove("your other tiles cannot be locked onto the table, so this finish cannot close",
                          "konkan_tiles.locks_impossible")
    text = "meld " + " | ".join(_print_meld(shape, joker, len(shape.cells) == M.KONKAN_RUN) for shape in shapes)
    return Action("meld", text, tiles=tiles, shapes=shapes, finish=kind)


def _locks_possible(state: State, numbers: list[int], tiles: list[str], count: int, joker: str | None) -> bool:
    """Can `count` of `tiles` be locked, one at a time, at open ends of the table runs `numbers`?"""
    if count == 0:
        return True
    table = [clone(state["melds"][i]) for i in numbers]
    return _lock_walk(table, sorted(tiles, key=tile_key), count, joker)


def _lock_walk(table: list[dict], tiles: list[str], count: int, joker: str | None) -> bool:
    if count == 0:
        return True
    for tile in sorted(set(tiles), key=tile_key):
        rest = list(tiles)
        rest.remove(tile)
        for meld in table:
            if meld["kind"] != "run":
                continue
            for index, side in enumerate(("left", "right")):
                if meld["locked"][index]:
                    continue
                shapes = M.extend(meld, [(tile, None)], joker, side=side)
                if len(shapes) != 1:
                    continue
                saved = (meld["cards"], meld["low"], meld["high"], list(meld["locked"]))
                meld["cards"], meld["low"], meld["high"] = list(shapes[0].cells), shapes[0].low, shapes[0].high
                meld["locked"][index] = True
                ok = _lock_walk(table, rest, count - 1, joker)
                meld["cards"], meld["low"], meld["high"], meld["locked"] = saved
                if ok:
                    return True
    return False


def _add_parts(words: list[str], key: str, syntax: IllegalMove) -> tuple[list[str], str]:
    """The tiles before `key` and the words after it; `syntax` is the refusal that shows how to write it."""
    lowered = [word.lower() for word in words]
    if key not in lowered or lowered.index(key) == 0:
        raise syntax
    at = lowered.index(key)
    return words[:at], " ".join(words[at + 1:])


def _check_add(state: State, seat: int, words: list[str]) -> Action:
    turn = state["turn"]
    joker = state["joker"]
    syntax = IllegalMove("write: add T [T ...] to N, e.g. add K10 to 2", "konkan_tiles.add_syntax")
    tokens, rest = _add_parts(words, "to", syntax)
    if len(rest.split()) != 1:
        raise syntax
    number = _meld_number(state, rest.strip())
    if turn["finish"]:
        raise IllegalMove("finish your Konkan: lock or discard", "konkan_tiles.finish_konkan")
    if state["konkan"][seat]:
        raise IllegalMove("in Konkan mode you lay nothing on the table until your Konkan finish",
                          "konkan_tiles.konkan_adds_nothing")
    if state["opened"][seat] is None and turn["opening"] > 0:
        need = _minimum(state, seat) - turn["opening"]
        raise IllegalMove(f"complete your opening first ({need} more points in melds)", "konkan_tiles.complete_opening",
                          n=need)
    entries = [_entry(token) for token in tokens]
    _stands_only_on_jokers(entries, joker)
    meld = state["melds"][number]
    tiles = [tile for tile, _ in entries]
    _need_in_hand(state["hands"][seat], tiles)
    if len(state["hands"][seat]) - len(tiles) < 1:
        raise IllegalMove("keep one tile to discard", "konkan_tiles.keep_discard")
    shapes = M.extend(meld, entries, joker)
    if not shapes:
        raise _extend_refusal(meld, entries, number)
    if len(shapes) > 1:
        example = f"{joker}:{_end_example(meld, shapes)}"
        raise IllegalMove(f"ambiguous: say which end the joker goes to, e.g. {example}", "konkan_tiles.add_ambiguous",
                          example=example)
    if state["opened"][seat] is not None:  # unopened, the lay-off is the Konkan trap: no opening to keep it for
        _keep_taken_layable(state, seat, tiles)
    shape = shapes[0]
    added = _new_cells(meld, shape)
    plain = [(tile, None) for tile, _ in entries]
    unique = len(M.extend(meld, plain, joker)) == 1
    shown = [bare(cell) if unique else cell for cell in added]
    return Action("add", f"add {' '.join(shown)} to {number + 1}", tiles=tiles, shapes=[shape], number=number)


def _end_example(meld: dict, shapes: list[M.Shape]) -> str:
    for shape in shapes:
        for cell in _new_cells(meld, shape):
            if ":" in cell:
                return cell.split(":", 1)[1]
    return "R5"


def _new_cells(meld: dict, shape: M.Shape) -> list[str]:
    """The cells `shape` has beyond the table meld, in print order (runs: by position)."""
    if shape.kind == "run":
        return [cell for position, cell in zip(range(shape.low, shape.high + 1), shape.cells, strict=True)
                if not meld["low"] <= position <= meld["high"]]
    rest = Counter(bare(cell) for cell in meld["cards"])
    out = []
    for cell in shape.cells:
        if rest[bare(cell)]:
            rest[bare(cell)] -= 1
        else:
            out.append(cell)
    return out


def _extend_refusal(meld: dict, entries: list[M.Entry], number: int) -> IllegalMove:
    """Why `entries` do not grow table meld `number` (0-based): the refusal, for the caller to raise."""
    size = len(meld["cards"]) + len(entries)
    shown = number + 1
    if meld["kind"] == "set" and size > 4:
        return IllegalMove(f"meld {shown} is a set: it holds at most 4 tiles", "konkan_tiles.set_full", number=shown)
    if size > 5:
        return IllegalMove(f"a meld holds at most 5 tiles; meld {shown} would have {size}",
                           "konkan_tiles.meld_too_long", number=shown, n=size)
    if any(meld["locked"]):
        return IllegalMove(f"those tiles do not fit meld {shown} (a locked end cannot be extended)",
                           "konkan_tiles.no_fit_locked", number=shown)
    return IllegalMove(f"those tiles do not fit meld {shown}", "konkan_tiles.no_fit", number=shown)


def _check_swap(state: State, seat: int, words: list[str]) -> Action:
    turn = state["turn"]
    syntax = IllegalMove("write: swap T [T] for N, e.g. swap K8 for 3", "konkan_tiles.swap_syntax")
    tokens, rest = _add_parts(words, "for", syntax)
    if len(rest.split()) != 1:
        raise syntax
    number = _meld_number(state, rest.strip())
    if turn["finish"]:
        raise IllegalMove("finish your Konkan: lock or discard", "konkan_tiles.finish_konkan")
    if state["opened"][seat] is None and not state["konkan"][seat]:
        raise IllegalMove("you may steal jokers only after opening (or in Konkan mode)", "konkan_tiles.swap_unopened")
    tiles = []
    for token in tokens:
        tile, stand = _entry(token)
        if stand is not None:
            raise IllegalMove("give plain tiles for a joker, e.g. swap K8 for 3", "konkan_tiles.swap_plain")
        tiles.append(tile)
    if len(tiles) > 2:
        raise IllegalMove("a swap gives one or two tiles", "konkan_tiles.swap_count")
    _need_in_hand(state["hands"][seat], tiles)
    cells = M.swap(state["melds"][number], tiles, state["joker"])
    _keep_taken_layable(state, seat, tiles, coming=(state["joker"],) * len(tiles))
    shown = sort_tiles(tiles)
    return Action("swap", f"swap {' '.join(shown)} for {number + 1}", tiles=tiles, number=number, cells=cells)


def _check_lock(state: State, seat: int, words: list[str]) -> Action:
    turn = state["turn"]
    joker = state["joker"]
    lowered = [word.lower() for word in words]
    if len(words) != 4 or lowered[1] != "to" or lowered[3] not in ("left", "right"):
        raise IllegalMove("write: lock T to N left|right, e.g. lock K6 to 2 left", "konkan_tiles.lock_syntax")
    number = _meld_number(state, words[2])
    side = lowered[3]
    finish = turn["finish"]
    if not finish:
        raise IllegalMove("a lock is part of a Konkan finish: lay your 10-tile run first",
                          "konkan_tiles.lock_no_finish")
    tile, stand = _entry(words[0])
    _stands_only_on_jokers([(tile, stand)], joker)
    _need_in_hand(state["hands"][seat], [tile])
    meld = state["melds"][number]
    if number in turn["laid"]:
        raise IllegalMove("lock onto a meld that was on the table before your finish", "konkan_tiles.lock_own_meld")
    if meld["kind"] != "run":
        raise IllegalMove("a lock goes at one end of a run", "konkan_tiles.lock_run_only")
    if meld["locked"][0 if side == "left" else 1]:
        reason = f"the {side} end of meld {number + 1} is already locked"
        if side == "left":
            raise IllegalMove(reason, "konkan_tiles.left_end_locked", number=number + 1)
        raise IllegalMove(reason, "konkan_tiles.right_end_locked", number=number + 1)
    shapes = M.extend(meld, [(tile, stand)], joker, side=side)
    if len(shapes) != 1:
        reason = f"{tile} does not fit the {side} end of meld {number + 1}"
        if side == "left":
            raise IllegalMove(reason, "konkan_tiles.left_end_no_fit", tile=tile, number=number + 1)
        raise IllegalMove(reason, "konkan_tiles.right_end_no_fit", tile=tile, number=number + 1)
    over = len(finish["locks"]) >= finish["allowed"] or _locks_left(state) <= 0
    return Action("lock", f"lock {tile} to {number + 1} {side}", tiles=[tile], shapes=shapes, number=number,
                  side=side, eliminates=over)


def _check_finish(state: State, seat: int, words: list[str]) -> Action:
    turn = state["turn"]
    if len(words) != 1:
        raise IllegalMove("write: finish T (the tile you put on the indicator)", "konkan_tiles.finish_syntax")
    tile, stand = _entry(words[0])
    if stand is not None:
        raise IllegalMove("write the tile plainly, e.g. finish K5", "konkan_tiles.finish_plain")
    hand = state["hands"][seat]
    _need_in_hand(hand, [tile])
    if state["konkan"][seat]:
        raise IllegalMove("in Konkan mode you finish only by Konkan", "konkan_tiles.finish_konkan_mode")
    if state["opened"][seat] is not None or turn["opening"] > 0 or turn["finish"]:
        raise IllegalMove("the hidden finish is for a player with nothing on the table: lay your tiles instead",
                          "konkan_tiles.hidden_finish_opened")
    rest = list(hand)
    rest.remove(tile)
    if M.partition(tuple(sorted(rest, key=tile_key)), state["joker"]) is None:
        raise IllegalMove("your other tiles do not all form melds", "konkan_tiles.hidden_finish_melds")
    taken = _waiting_taken(state, seat)
    if taken is not None and taken not in rest:
        raise IllegalMove(f"you took {taken}: it must be inside your melds, not the tile you put on the indicator",
                          "konkan_tiles.hidden_finish_taken", tile=taken)
    return Action("finish", f"finish {tile}", tiles=[tile])


def _check_discard(state: State, seat: int, words: list[str]) -> Action:
    turn = state["turn"]
    if len(words) != 1:
        raise IllegalMove("write: discard T, e.g. discard K13", "konkan_tiles.discard_syntax")
    tile, stand = _entry(words[0])
    if stand is not None:
        raise IllegalMove("write the discarded tile plainly, e.g. discard R8", "konkan_tiles.discard_plain")
    hand = state["hands"][seat]
    _need_in_hand(hand, [tile])
    taken = _waiting_taken(state, seat)
    if taken is not None and turn["opening"] > 0:
        raise IllegalMove(f"you took {taken}: lay it in your opening melds before you discard",
                          "konkan_tiles.taken_before_discard", tile=taken)
    finish = turn["finish"]
    if finish and len(finish["locks"]) < finish["allowed"]:
        left = finish["allowed"] - len(finish["locks"])
        raise IllegalMove(f"lock {left} more tile{'s' if left > 1 else ''} before your last discard",
                          "konkan_tiles.locks_before_discard", n=left)
    return Action("discard", f"discard {tile}", tiles=[tile])


# ---- listing moves --------------------------------------------------------------------------------------------
def _collect(out: list[str], seen: set[str], check: Any, state: State, seat: int, text: str) -> None:
    try:
        move = check(state, seat, text.split()).text
    except IllegalMove:
        return
    if move not in seen:
        seen.add(move)
        out.append(move)


def _play_moves(state: State, seat: int) -> list[str]:
    turn = state["turn"]
    joker = state["joker"]
    hand = state["hands"][seat]
    key = tuple(sorted(hand, key=tile_key))
    out: list[str] = []
    seen: set[str] = set()
    if turn["finish"]:
        for index, meld in enumerate(state["melds"]):
            if meld["kind"] != "run" or index in turn["laid"]:
                continue
            for side in ("left", "right"):
                for tile in sorted(set(hand), key=tile_key):
                    _collect(out, seen, _check_lock, state, seat, f"{tile} to {index + 1} {side}")
        for tile in sorted(set(hand), key=tile_key):
            _collect(out, seen, _check_discard, state, seat, tile)
        return out
    konkan = state["konkan"][seat]
    opened = state["opened"][seat] is not None
    if konkan:
        for text in _konkan_finishes(state, seat, key):
            _collect(out, seen, _check_meld, state, seat, text)
    else:
        for shape in M.hand_melds(key, joker):
            _collect(out, seen, _check_meld, state, seat, " ".join(shape.cells))
        if not opened:
            must = _waiting_taken(state, seat)
            value, shapes = M.best_opening(key, joker, must)
            if len(shapes) > 1 and value + turn["opening"] >= _minimum(state, seat):
                ordered = sorted(shapes, key=lambda shape: [tile_key(tile) for tile in shape.tiles])
                _collect(out, seen, _check_meld, state, seat, " | ".join(" ".join(s.cells) for s in ordered))
        if opened or turn["opening"] == 0:
            for index, meld in enumerate(state["melds"]):
                for tiles in _add_options(meld, hand, joker):
                    _collect(out, seen, _check_add, state, seat, f"{' '.join(tiles)} to {index + 1}")
    if opened or konkan:
        for index, meld in enumerate(state["melds"]):
            for tiles in _swap_options(meld, hand, joker):
                _collect(out, seen, _check_swap, state, seat, f"{' '.join(tiles)} for {index + 1}")
    if not konkan and not opened and turn["opening"] == 0:
        for tile in M.finishing_tiles(hand, joker):
            _collect(out, seen, _check_finish, state, seat, tile)
    for tile in sorted(set(hand), key=tile_key):
        _collect(out, seen, _check_discard, state, seat, tile)
    return out


def _add_options(meld: dict, hand: list[str], joker: str | None) -> list[list[str]]:
    """Tile lists (with `:` positions for jokers) that could extend `meld` from `hand`."""
    have = Counter(hand)
    wilds = have.get(joker, 0) if joker else 0
    out: list[list[str]] = []
    if meld["kind"] == "set":
        present = {natural(bare(cell), joker) for cell in meld["cards"]}
        colors = {item[0] for item in present if item is not None}
        if len(meld["cards"]) >= 4:
            return out
        for color in "RKBY":
            if color in colors:
                continue
            code = M.code_for(color, meld["number"], joker)
            if have.get(code):
                out.append([code])
        if wilds:
            out.append([joker])  # type: ignore[list-item]
        return out
    size = len(meld["cards"])
    color = meld["color"]
    left_open, right_open = not meld["locked"][0], not meld["locked"][1]
    for grow_left in range(0, 3):
        for grow_right in range(0, 3):
            grow = grow_left + grow_right
            if grow == 0 or size + grow > 5:
                continue
            if (grow_left and not left_open) or (grow_right and not right_open):
                continue
            low, high = meld["low"] - grow_left, meld["high"] + grow_right
            if low < 1 or high > 14:
                continue
            spots = [*range(low, meld["low"]), *range(meld["high"] + 1, high + 1)]
            choices: list[list[str]] = [[]]
            for p in spots:
                code = M.code_for(color, p, joker)
                nxt = []
                for chosen in choices:
                    if have.get(code, 0) > chosen.count(code):
                        nxt.append([*chosen, code])
                    if joker and wilds > sum(1 for c in chosen if c.startswith(joker + ":")):
                        nxt.append([*chosen, f"{joker}:{M.position_code(color, p)}"])
                choices = nxt
            out.extend(choices)
    return out


def _swap_options(meld: dict, hand: list[str], joker: str | None) -> list[list[str]]:
    have = Counter(hand)
    wild_cells = [cell for cell in meld["cards"] if natural(bare(cell), joker) is None]
    if not wild_cells:
        return []
    if meld["kind"] == "run":
        needs = [M.code_for(meld["color"], int(cell.split(":")[1][1:]), joker) for cell in wild_cells]
        singles = [[code] for code in dict.fromkeys(needs) if have.get(code)]
        out = list(singles)
        if len(needs) == 2 and all(have.get(code, 0) >= needs.count(code) for code in needs):
            out.append(needs)
        return out
    present = {natural(bare(cell), joker)[0] for cell in meld["cards"] if natural(bare(cell), joker)}
    codes = [M.code_for(color, meld["number"], joker) for color in "RKBY" if color not in present]
    held = [code for code in codes if have.get(code)]
    out = [[code] for code in held]
    if len(wild_cells) == 2 and len(held) == 2:
        out.append(held)
    return out


def _konkan_finishes(state: State, seat: int, key: tuple[str, ...]) -> list[str]:
    joker = state["joker"]
    out = []
    sulaymaniyah = state["options"]["rules"] == "sulaymaniyah"
    for run in M.hand_melds(key, joker, True):
        rest = list(key)
        for tile in run.tiles:
            rest.remove(tile)
        if sulaymaniyah and len(rest) == SULAYMANIYAH_LOCKS + 1:
            out.append(" ".join(run.cells))
        for extra in M.hand_melds(tuple(rest), joker):
            if len(extra.cells) in (3, 4) and len(rest) - len(extra.cells) in (1, 2):
                out.append(" ".join(run.cells) + " | " + " ".join(extra.cells))
    return out


# ---- applying moves -------------------------------------------------------------------------------------------
def _do(state: State, seat: int, action: Action) -> None:
    state["last_move"] = {"seat": seat, "move": action.text}
    state["ghosts"] = []
    verb = action.verb
    if verb == "option":
        _apply_option(state, action.text.split()[1])
    elif verb == "draw":
        state["hands"][seat].append(state["stock"].pop(0))
        state["phase"] = "play"
    elif verb == "take":
        _apply_take(state, seat)
    elif verb == "meld":
        _apply_meld(state, seat, action)
    elif verb == "add":
        _take_from_hand(state, seat, action.tiles)
        _set_cells(state["melds"][action.number], action.shapes[0])
        if state["opened"][seat] is None:
            state["konkan"][seat] = True  # the trap: laying off before opening forces Konkan mode
    elif verb == "swap":
        _take_from_hand(state, seat, action.tiles)
        meld = state["melds"][action.number]
        taken = len(action.tiles)
        meld["cards"] = list(action.cells)
        state["hands"][seat].extend([state["joker"]] * taken)
        state["stolen"][seat] += taken
    elif verb == "lock":
        _apply_lock(state, seat, action)
    elif verb == "finish":
        _take_from_hand(state, seat, action.tiles)
        state["discard"].insert(0, action.tiles[0])
        _end_round(state, seat, "hidden")
    else:
        _apply_discard(state, seat, action.tiles[0])


def _set_cells(meld: dict, shape: M.Shape) -> None:
    meld["cards"] = list(shape.cells)
    meld["low"], meld["high"] = shape.low, shape.high


def _apply_take(state: State, seat: int) -> None:
    tile = state["discard"].pop(0)
    last = state["last_discard"]
    state["hands"][seat].append(tile)
    turn = state["turn"]
    if state["opened"][seat] is None and not state["konkan"][seat]:
        turn["taken"] = tile
    if last["konkan"] and not state["konkan"][seat]:
        state["konkan_takes"][seat] += 1
        if state["konkan_takes"][seat] >= 2:
            turn["must_finish"] = True
    state["last_discard"] = None
    state["phase"] = "play"


def _apply_meld(state: State, seat: int, action: Action) -> None:
    turn = state["turn"]
    if turn.get("taken") is not None and turn["taken"] in action.tiles:
        turn["taken_laid"] = True
    _take_from_hand(state, seat, action.tiles)
    for shape in action.shapes:
        turn["laid"].append(len(state["melds"]))
        state["melds"].append(shape.as_table(seat))
    if action.finish:
        allowed = SULAYMANIYAH_LOCKS if action.finish == "konkan10" else (
            0 if any(len(s.cells) == 4 for s in action.shapes if len(s.cells) != M.KONKAN_RUN) else 1)
        turn["finish"] = {"kind": action.finish, "allowed": allowed, "locks": []}
        return
    value = sum(shape.value for shape in action.shapes)
    if state["opened"][seat] is None:
        turn["opening"] += value
        if turn["opening"] >= _minimum(state, seat):
            state["opened"][seat] = turn["opening"]
            turn["opened_now"] = True
    elif turn.get("opened_now"):
        turn["opening"] += value
        state["opened"][seat] = turn["opening"]


def _apply_lock(state: State, seat: int, action: Action) -> None:
    turn = state["turn"]
    if action.eliminates:
        _undo_turn_table(state, seat)
        _take_from_hand(state, seat, action.tiles)
        state["discard"].insert(0, action.tiles[0])
        state["last_discard"] = {"seat": seat, "takeable": False, "konkan": False}
        _eliminate(state, seat)
        _next_turn(state, seat)
        return
    _take_from_hand(state, seat, action.tiles)
    meld = state["melds"][action.number]
    _set_cells(meld, action.shapes[0])
    meld["locked"][0 if action.side == "left" else 1] = True
    turn["finish"]["locks"].append({"meld": action.number, "side": action.side, "tile": action.tiles[0]})
    state["locks_used"] += 1


def _undo_turn_table(state: State, seat: int) -> None:
    """Put this turn's melds and locks back into the hand (a failed opening or a failed Konkan finish)."""
    turn = state["turn"]
    hand = state["hands"][seat]
    finish = turn.get("finish")
    for lock in reversed(finish["locks"] if finish else []):
        meld = state["melds"][lock["meld"]]
        index = 0 if lock["side"] == "left" else -1
        cell = meld["cards"].pop(index)
        if index == 0:
            meld["low"] += 1
        else:
            meld["high"] -= 1
        meld["locked"][0 if lock["side"] == "left" else 1] = False
        hand.append(bare(cell))
        state["locks_used"] -= 1
    for number in sorted(turn["laid"], reverse=True):
        meld = state["melds"].pop(number)
        hand.extend(bare(cell) for cell in meld["cards"])
    turn["laid"] = []
    turn["finish"] = None
    turn["opening"] = 0


def _eliminate(state: State, seat: int) -> None:
    state["eliminated"][seat] = True
    state["konkan"][seat] = False


def _apply_discard(state: State, seat: int, tile: str) -> None:
    turn = state["turn"]
    _take_from_hand(state, seat, [tile])
    state["discard"].insert(0, tile)
    if turn["finish"]:
        _end_round(state, seat, turn["finish"]["kind"])
        return
    eliminated = False
    if state["opened"][seat] is None and turn["opening"] > 0:
        _undo_turn_table(state, seat)  # a failed opening: its tiles go back, the player is out
        eliminated = True
    elif not state["hands"][seat]:
        _end_round(state, seat, "normal")
        return
    elif turn["must_finish"]:
        eliminated = True
    if eliminated:
        _eliminate(state, seat)
    elif turn["taken"] is not None and state["opened"][seat] is None:
        state["konkan"][seat] = True  # took a discard without opening with it: voluntary Konkan
    state["last_discard"] = {"seat": seat, "takeable": not eliminated, "konkan": state["konkan"][seat]}
    _next_turn(state, seat)


# ---- turns, reshuffles, ghosts --------------------------------------------------------------------------------
def _fresh_turn(seat: int) -> dict[str, Any]:
    return {"seat": seat, "taken": None, "taken_laid": False, "opening": 0, "laid": [], "finish": None,
            "must_finish": False, "opened_now": False}


def _refill(state: State) -> bool:
    """Make sure the draw pile has a tile: reshuffle the discards under the top one (at most three times a
    round). False when the round is void instead."""
    if state["stock"]:
        return True
    if state["reshuffles"] >= RESHUFFLES or len(state["discard"]) < 2:
        _end_round(state, None, "void")
        return False
    state["rng"], state["stock"] = rng.shuffled(state["rng"], state["discard"][1:])
    state["discard"] = state["discard"][:1]
    state["reshuffles"] += 1
    return True


def _next_turn(state: State, seat: int) -> None:
    """Pass the turn on; eliminated seats play their ghost turns (draw, discard the same tile) on the way."""
    players = state["players"]
    while True:
        seat = (seat + 1) % players
        if not _refill(state):
            return
        if not state["eliminated"][seat]:
            state["to_move"] = seat
            state["phase"] = "draw"
            state["turn"] = _fresh_turn(seat)
            return
        tile = state["stock"].pop(0)
        state["discard"].insert(0, tile)
        state["last_discard"] = {"seat": seat, "takeable": True, "konkan": False}
        state["ghosts"].append({"seat": seat, "tile": tile})


# ---- rounds -----------------------------------------------------------------------------------------------------
def _reset_round(state: State) -> None:
    players = state["players"]
    state.update(
        melds=[], opened=[None] * players, konkan=[False] * players, eliminated=[False] * players,
        stolen=[0] * players, konkan_takes=[0] * players, reshuffles=0, locks_used=0, last_discard=None,
    )


def _turn_indicator(state: State) -> None:
    """Turn the next draw-pile tile as the indicator; a false joker is shuffled back and another one turned."""
    stock = state["stock"]
    while True:
        tile = stock.pop(0)
        if tile != FALSE_JOKER:
            break
        state["rng"], spot = rng.below(state["rng"], len(stock) + 1)
        stock.insert(spot, tile)
    state["indicator"] = tile
    state["joker"] = joker_of(tile)


def _deal(state: State, option_phase: bool = True) -> None:
    players = state["players"]
    state["rng"], tiles = rng.shuffled(state["rng"], DECK)
    hands: list[list[str]] = [[] for _ in range(players)]
    captain = state["captain"]
    position = 0
    for step in range(players):
        seat = (captain + step) % players
        count = 15 if seat == captain else 14
        hands[seat] = tiles[position:position + count]
        position += count
    state["hands"] = hands
    state["stock"] = tiles[position:]
    state["discard"] = []
    _reset_round(state)
    _turn_indicator(state)
    _start_round(state, option_phase)


def _start_round(state: State, option_phase: bool = True) -> None:
    """Forced Konkan for the trailing side of a decider, its option first; then the captain's first turn."""
    captain = state["captain"]
    for seat in state["forced"]:
        state["konkan"][seat] = True
    state["last_move"] = None
    state["ghosts"] = []
    state["turn"] = _fresh_turn(captain)
    if state["forced"] and option_phase:
        players = state["players"]
        chooser = next(s for s in ((captain + k) % players for k in range(players)) if s in state["forced"])
        state["to_move"] = chooser
        state["phase"] = "option"
        return
    state["to_move"] = captain
    state["phase"] = "play"


def _apply_option(state: State, choice: str) -> None:
    if choice == "reshuffle":
        _deal(state, option_phase=False)
        return
    if choice == "joker":
        stock = state["stock"]
        state["rng"], spot = rng.below(state["rng"], len(stock) + 1)
        stock.insert(spot, state["indicator"])
        _turn_indicator(state)
    state["to_move"] = state["captain"]
    state["phase"] = "play"
    state["turn"] = _fresh_turn(state["captain"])


def _end_round(state: State, finisher: int | None, kind: str) -> None:
    points, detail = round_points(state, finisher, kind)
    state["history"].append(points)
    state["scores"] = [a + b for a, b in zip(state["scores"], points, strict=True)]
    state["last_round"] = {"round": state["round"], "finisher": finisher, "kind": kind, "points": points,
                           "detail": detail}
    state.setdefault("round_log", []).append({**clone(state["last_round"]), "totals": list(state["scores"])})
    if finisher is not None:
        state["captain"] = finisher
    scores = state["scores"]
    gap = abs(scores[0] - scores[1])
    if state["decider"] or (state["round"] >= state["rounds"] and gap > DECIDER_REACH):
        _finish_match(state)
        return
    if state["round"] >= state["rounds"]:
        state["decider"] = True
        trailing = None if gap == 0 else (0 if scores[0] < scores[1] else 1)
        state["forced"] = [] if trailing is None else _teams(state["players"])[trailing]
    state["round"] += 1
    _deal(state)


def _finish_match(state: State) -> None:
    scores = state["scores"]
    best = max(scores)
    state["winners"] = [side for side, score in enumerate(scores) if score == best]
    state["draw"] = len(state["winners"]) > 1
    state["over"] = True
    state["phase"] = "over"
    state["to_move"] = None


# ---- layouts ----------------------------------------------------------------------------------------------------
def _from_layout(state: State, layout: dict[str, Any]) -> None:
    players = state["players"]
    unknown = sorted(set(layout) - _LAYOUT_KEYS)
    if unknown:
        raise ValueError(f"unknown layout key(s) for konkan_tiles: {', '.join(unknown)}")

    def tiles_of(items: Any, what: str) -> list[str]:
        try:
            return [parse_tile(str(item)) for item in items or []]
        except IllegalMove as error:
            raise ValueError(f"{what}: {error.reason}") from None

    hands = [tiles_of(hand, "hands") for hand in (layout.get("hands") or [[] for _ in range(players)])]
    if len(hands) != players:
        raise ValueError(f"a {players}-player layout needs {players} hands")
    indicator = layout.get("indicator")
    indicator = parse_tile(str(indicator)) if indicator is not None else None
    if indicator == FALSE_JOKER:
        raise ValueError("indicator: a false joker is never the indicator")
    joker = joker_of(indicator)
    stock = tiles_of(layout.get("stock"), "stock")
    discard = tiles_of(layout.get("discard"), "discard")
    everything = stock + discard + [tile for hand in hands for tile in hand] + ([indicator] if indicator else [])
    if FALSE_JOKER in everything and joker is None:
        raise ValueError("a layout with false jokers needs an indicator")
    melds = []
    for meld in layout.get("melds") or []:
        seat = int(meld.get("seat", 0))
        if not 0 <= seat < players:
            raise ValueError(f"melds: no seat {seat}")
        try:
            entries = [_entry(str(cell)) for cell in meld.get("cards") or []]
            shape = M.check(entries, joker, konkan=len(entries) == M.KONKAN_RUN)
        except IllegalMove as error:
            raise ValueError(f"melds: {error.reason}") from None
        table = shape.as_table(seat)
        table["locked"] = [bool(flag) for flag in meld.get("locked", [False, False])]
        melds.append(table)
        everything += shape.tiles
    check_counts(everything, DECK, "tile")
    scores = [int(score) for score in (layout.get("scores") or [0, 0])]
    if len(scores) != 2:
        raise ValueError("scores: one total per team (two numbers)")
    state["round"] = int(layout.get("round", 1))
    state["scores"] = scores
    state["captain"] = int(layout.get("captain", 0)) % players
    state.update(hands=hands, stock=stock, discard=discard, indicator=indicator, joker=joker)
    _reset_round(state)
    state["melds"] = melds
    opened = list(layout.get("opened") or [None] * players)
    if len(opened) != players:
        raise ValueError(f"opened: one entry per seat ({players})")
    for seat in range(players):
        if opened[seat] is None and any(meld["seat"] == seat for meld in melds):
            opened[seat] = sum(_value_of(meld) for meld in melds if meld["seat"] == seat)
    state["opened"] = [None if value is None else int(value) for value in opened]
    for key in ("konkan", "eliminated"):
        if layout.get(key) is not None:
            state[key] = [bool(flag) for flag in layout[key]]
    state["reshuffles"] = int(layout.get("reshuffles", 0))
    if state["round"] > state["rounds"]:
        state["decider"] = True
        gap = abs(scores[0] - scores[1])
        if 0 < gap <= DECIDER_REACH:
            state["forced"] = _teams(players)[0 if scores[0] < scores[1] else 1]
    _start_round(state)


GAME = KonkanTilesGame()

__all__ = ["GAME", "KonkanTilesGame"]
