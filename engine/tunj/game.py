"""Tunj (two-player Crapette) match state machine (../shared/rules/tunj.md, NOTATION.md).

A move that breaks a building rule or neglects a mandatory priority is not refused: it becomes an attempt
that opens a claim, and the opponent either calls `tunj` or lets it `expire` (the service owns the clock;
`claim_seconds` is only validated and shown here). IllegalMove is kept for what cannot be attempted at all.
`legal_moves` lists only the moves that break no rule (what bots and searches play); `attempts` adds those that
neglect a priority (what the chat offers: spotting such a slip is the opponent's skill). The bots that sit at
casual tables make such slips on purpose at `engine.tunj.bots.SLIP_RATE`; the "strong" level never does.

Decisions the rules file and the seed leave open, taken as the seed's app would play them:
- The turned card must be played before any other move; another move (or turning again) meanwhile is an
  attempt breaking that rule. It is not a priority, so nothing is corrected when such a claim expires.
- When a claim is called and the turn passes, a turned card still in play goes to the offender's waste.
- A compulsory move made for a player (correction or call) is, among the allowed ones, the first in the
  order reserve, turned card, H1..H8, onto the first foundation (or, for priority 3, empty house) that fits.
- A player with no legal move left (no building move and nothing to turn) passes automatically, so a turn
  never needs a move the notation lacks; two stuck players reach the deadlock rule quickly.
- Moving back to a position already seen in the same turn is refused as IllegalMove: it is the app's
  guarantee that turns end, not a rule of play the opponent could call on.
- A player whose reserve, hand and waste are empty at the start of their turn (only possible in a layout)
  has won.
- Priority 3 concerns every empty house on the table: both players build on all eight.
- The waste is turned over only when the player turns a card with an empty hand, never at the start of a turn
  (rules/tunj.md, "Turn"): until then the opponent may load onto it.
- A call or an expiry event repeats what the attempt broke: the chat names it only once the claim is resolved.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from engine import rng
from engine.base import VERSION_KEY, Game, GameInfo, OptionSpec, State, StateChange, clone, dropping, nothing_to_fill
from engine.cards import french_deck
from engine.errors import IllegalMove
from engine.tunj.deal import deal, deck_contents, load_layout, starter
from engine.tunj.judge import PRIORITY_TEXT, building_faults, building_moves, neglected, repeats, turned_playable
from engine.tunj.moves import Move, parse
from engine.tunj.table import (
    FOUNDATIONS,
    HOUSES,
    SEATS,
    TURNED,
    burden,
    flip_waste,
    hand,
    houses_key,
    player_empty,
    position_key,
    reserve,
    source_pile,
    target_pile,
    transfer,
    waste,
)

WIN_BONUS = 30
DEADLOCK_REPEATS = 3
NO_CLAIM = "there is no claim to call: 'tunj' only answers a move that broke a rule"


class TunjGame(Game):
    info = GameInfo(
        id="tunj",
        names={"en": "Tunj", "ar": "طنج"},
        min_players=2,
        max_players=2,
        options={
            "target": OptionSpec(default=None, minimum=1, maximum=100_000),
            "claim_seconds": OptionSpec(default=10, minimum=1, maximum=120),
        },
    )
    # Version 2 (the score sheet's round breakdowns) added each finished hand's breakdown (hand_log); a state stored
    # before knows none of it.
    state_changes = (StateChange(2, nothing_to_fill, dropping("hand_log")),)

    def check_options(self, players: int, options: dict[str, Any] | None) -> dict[str, Any]:
        """`target: None` means one hand, the same as leaving it out."""
        given = dict(options or {})
        if "target" in given and given["target"] is None:
            del given["target"]
        return super().check_options(players, given)

    # ---- set-up ---------------------------------------------------------------------------------------------
    def new(
        self,
        players: int,
        options: dict[str, Any] | None = None,
        *,
        seed: int | str | None = None,
        layout: dict[str, Any] | None = None,
    ) -> State:
        opts = self.check_options(players, options)
        state: State = {
            "game": self.info.id,
            VERSION_KEY: self.state_version,
            "players": 2,
            "options": opts,
            "rng": rng.seed_state(seed),
            "round": 1,
            "scores": [0, 0],
            "history": [],
            "over": False,
            "draw": False,
            "winners": [],
            "to_move": 0,
            "claim": None,
            "last_move": None,
            "events": [],
            "turn_seen": [],
            "start_seen": {},
            "hand_result": None,
            "full_deal": layout is None,
        }
        if layout is None:
            deal(state)
            first = starter(state["piles"])
        else:
            first = load_layout(state, layout)
        _begin_turn(state, first)
        return state

    # ---- play -----------------------------------------------------------------------------------------------
    def legal_moves(self, state: State, seat: int) -> list[str]:
        """The moves that break no building rule and neglect no priority: what a bot or a search may play."""
        if self.to_move(state) != seat:
            return []
        if state["claim"] is not None:
            return ["tunj", "expire"]
        piles = state["piles"]
        return [str(move) for move in building_moves(state, seat) if neglected(piles, seat, move, []) is None]

    def attempts(self, state: State, seat: int) -> list[str]:
        """The legal moves plus those that neglect a mandatory priority (each opens a claim when played).

        This is what the chat offers as buttons: spotting the opponent's slip is the game, so a player must be
        able to make one. Moves that break a building rule are left out (they can still be typed)."""
        if self.to_move(state) != seat:
            return []
        if state["claim"] is not None:
            return ["tunj", "expire"]
        return [str(move) for move in building_moves(state, seat)]

    def apply(self, state: State, seat: int, move: Any) -> State:
        """As Game.apply, but a call with no claim open says so instead of "not your turn"."""
        if not state["over"] and state["claim"] is None and str(move).strip().lower() in ("tunj", "expire"):
            raise IllegalMove(NO_CLAIM, "tunj.no_claim")
        return super().apply(state, seat, move)

    def parse_move(self, state: State, seat: int, text: str) -> str:
        move = parse(text)
        claim = state["claim"]
        if move.kind in ("tunj", "expire"):
            if claim is None:
                raise IllegalMove(NO_CLAIM, "tunj.no_claim")
            if seat != claim["caller"]:
                raise IllegalMove("only the opponent of the attempt may call Tunj or let the claim expire",
                                  "tunj.not_caller")
            return str(move)
        if claim is not None:
            raise IllegalMove("a claim is open: the opponent may call 'tunj' until it expires", "tunj.claim_open")
        piles = state["piles"]
        if move.kind == "turn":
            if not (piles[hand(seat)] or piles[waste(seat)]):
                raise IllegalMove("your hand and waste are empty: there is no card to turn", "tunj.nothing_to_turn")
            return str(move)
        source = piles[source_pile(seat, move.src)]
        if not source:
            if move.src == "R":
                raise IllegalMove("your reserve is empty", "tunj.reserve_empty")
            if move.src == "T":
                raise IllegalMove("you have no turned card", "tunj.no_turned")
            raise IllegalMove(f"house {move.src} is empty", "tunj.house_empty", pile=move.src)
        if len(source) < move.count:
            raise IllegalMove(f"house {move.src} has only {len(source)} card(s)", "tunj.run_too_long", pile=move.src,
                              n=len(source))
        if repeats(state, move) and not building_faults(piles, seat, move):
            raise IllegalMove("that move would bring back a position already seen this turn", "tunj.repeat")
        return str(move)

    def _play(self, state: State, seat: int, move: str) -> None:
        parsed = parse(move)
        state["events"] = []
        state["last_move"] = {"seat": seat, "move": move}
        if parsed.kind == "tunj":
            _call(state)
        elif parsed.kind == "expire":
            _expire(state)
        else:
            _attempt(state, seat, parsed)

    # ---- information ----------------------------------------------------------------------------------------
    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """Everything here is public: hands are face down even to their owner, so only counts are shown."""
        piles = state["piles"]
        claim = state["claim"]
        return {
            "game": self.info.id,
            "seat": seat,
            "round": state["round"],
            "to_move": self.to_move(state),
            "phase": "over" if state["over"] else ("claim" if claim else "play"),
            "reserves": [
                {"count": len(piles[reserve(s)]), "top": piles[reserve(s)][-1] if piles[reserve(s)] else None}
                for s in SEATS
            ],
            "houses": [list(piles[name]) for name in HOUSES],
            "foundations": [list(piles[name]) for name in FOUNDATIONS],
            "hand_sizes": [len(piles[hand(s)]) for s in SEATS],
            "waste_sizes": [len(piles[waste(s)]) for s in SEATS],
            "waste_tops": [piles[waste(s)][-1] if piles[waste(s)] else None for s in SEATS],
            "turned": piles[TURNED][-1] if piles[TURNED] else None,
            "claim": {
                "open": claim is not None,
                "by": claim["by"] if claim else None,
                "caller": claim["caller"] if claim else None,
                "attempt": claim["attempt"] if claim else None,
                "broke": list(claim["broke"]) if claim else [],
                "neglected": claim["neglected"] if claim else None,
            },
            "burdens": [burden(piles, s) for s in SEATS],
            "scores": list(state["scores"]),
            "history": [list(row) for row in state["history"]],
            "details": clone(state.get("hand_log", [])),  # each finished round's breakdown, in order
            "target": state["options"]["target"],
            "claim_seconds": state["options"]["claim_seconds"],
            "last_move": dict(state["last_move"]) if state["last_move"] else None,
            "events": [dict(event) for event in state["events"]],
            "hand_result": dict(state["hand_result"]) if state["hand_result"] else None,
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


# ---- the turn ---------------------------------------------------------------------------------------------
def _attempt(state: State, seat: int, move: Move) -> None:
    """Play a move, or open a claim when it breaks a building rule or neglects a priority."""
    piles = state["piles"]
    faults = building_faults(piles, seat, move)
    need = neglected(piles, seat, move, faults)
    if faults or need:
        broke = faults + ([PRIORITY_TEXT[need[0]]] if need else [])
        state["claim"] = {
            "by": seat,
            "caller": 1 - seat,
            "attempt": str(move),
            "broke": broke,
            "neglected": str(need[1]) if need else None,
        }
        state["to_move"] = 1 - seat
        state["events"].append({"type": "claim", "seat": seat, "attempt": str(move), "broke": broke})
        return
    _settle(state, seat, _execute(state, seat, move))


def _execute(state: State, seat: int, move: Move) -> bool:
    """Carry out a rule-abiding move; True when it ends the turn (a turned card nobody can use)."""
    piles = state["piles"]
    if move.kind == "turn":
        if not piles[hand(seat)]:
            flip_waste(state, seat)
            state["events"].append({"type": "flip", "seat": seat})
        card = transfer(state, hand(seat), TURNED)[0]
        state["events"].append({"type": "turned", "seat": seat, "card": card})
        state["turn_seen"] = [houses_key([piles[name] for name in HOUSES])]
        if not turned_playable(piles, seat):
            transfer(state, TURNED, waste(seat))
            state["events"].append({"type": "to_waste", "seat": seat, "card": card})
            return True
        return False
    cards = transfer(state, source_pile(seat, move.src), target_pile(seat, move.dst), move.count)
    state["events"].append({"type": "moved", "seat": seat, "move": str(move), "cards": cards})
    if move.dst in FOUNDATIONS:
        state["start_seen"] = {}
    key = houses_key([piles[name] for name in HOUSES])
    if move.src in HOUSES and move.dst in HOUSES:
        state["turn_seen"].append(key)
    else:
        state["turn_seen"] = [key]  # nothing irreversible can be undone, so older positions cannot recur
    return False


def _has_moves(state: State, seat: int) -> bool:
    piles = state["piles"]
    if piles[TURNED] or piles[hand(seat)] or piles[waste(seat)]:
        return True
    return bool(building_moves(state, seat))


def _settle(state: State, seat: int, turn_over: bool) -> None:
    """After a move: a win ends the hand; a spent turn passes."""
    if player_empty(state["piles"], seat):
        _finish_hand(state, seat)
    elif turn_over or not _has_moves(state, seat):
        _pass_turn(state, seat)


def _pass_turn(state: State, seat: int) -> None:
    if state["piles"][TURNED]:
        card = transfer(state, TURNED, waste(seat))[0]
        state["events"].append({"type": "to_waste", "seat": seat, "card": card})
    _begin_turn(state, 1 - seat)


def _begin_turn(state: State, seat: int) -> None:
    """Start `seat`'s turn: count the position for the deadlock rule, skip a stuck seat.

    An empty hand is not refilled here: the waste is turned over only when a card must be turned (`_execute`),
    so until then it stays a pile the opponent may load onto (rules/tunj.md, "Turn").

    Ends: two stuck seats pass without changing the table, so a position soon comes back a third time.
    """
    piles = state["piles"]
    while True:
        state["to_move"] = seat
        if player_empty(piles, seat):
            _finish_hand(state, seat)
            return
        state["turn_seen"] = [houses_key([piles[name] for name in HOUSES])]
        key = position_key(piles, seat)
        seen = state["start_seen"][key] = state["start_seen"].get(key, 0) + 1
        if seen >= DEADLOCK_REPEATS:
            _finish_hand(state, None)
            return
        if _has_moves(state, seat):
            return
        state["events"].append({"type": "pass", "seat": seat})
        seat = 1 - seat


# ---- claims -----------------------------------------------------------------------------------------------
def _call(state: State) -> None:
    """A correct call: the attempt is void, any neglected compulsory move is made, the caller's turn starts."""
    claim, state["claim"] = state["claim"], None
    offender = claim["by"]
    state["events"].append({"type": "called", "seat": claim["caller"], "attempt": claim["attempt"],
                            "broke": list(claim["broke"])})
    if claim["neglected"]:
        _correct(state, offender, claim["neglected"])
        if player_empty(state["piles"], offender):
            _finish_hand(state, offender)
            return
    _pass_turn(state, offender)


def _expire(state: State) -> None:
    """No call in time: the attempt stays refused, a neglected priority is made good, the offender goes on."""
    claim, state["claim"] = state["claim"], None
    offender = claim["by"]
    state["to_move"] = offender
    state["events"].append({"type": "expired", "seat": offender, "attempt": claim["attempt"],
                            "broke": list(claim["broke"])})
    turn_over = _correct(state, offender, claim["neglected"]) if claim["neglected"] else False
    _settle(state, offender, turn_over)


def _correct(state: State, seat: int, move_text: str) -> bool:
    state["events"].append({"type": "corrected", "seat": seat, "move": move_text})
    return _execute(state, seat, parse(move_text))


# ---- end of hand ------------------------------------------------------------------------------------------
def _finish_hand(state: State, winner: int | None) -> None:
    """Score a normal win (`winner`) or a deadlock (None), then end the match or deal the next hand."""
    piles = state["piles"]
    burdens = [burden(piles, s) for s in SEATS]
    points = [0, 0]
    kind = "win"
    if winner is not None:
        points[winner] = WIN_BONUS + burdens[1 - winner]
    else:
        kind = "deadlock"
        if burdens[0] != burdens[1]:
            winner = 0 if burdens[0] < burdens[1] else 1
            points[winner] = abs(burdens[0] - burdens[1])
    state["history"].append(points)
    state["scores"] = [state["scores"][s] + points[s] for s in SEATS]
    state["hand_result"] = {
        "round": state["round"],
        "kind": kind,
        "winner": winner,
        "points": points,
        "burdens": burdens,
    }
    state.setdefault("hand_log", []).append({
        **state["hand_result"],
        "parts": [{"hand": len(piles[hand(s)]), "waste": len(piles[waste(s)]), "reserve": len(piles[reserve(s)])}
                  for s in SEATS],
        "totals": list(state["scores"]),
    })
    state["events"].append({"type": "hand_over", **state["hand_result"]})
    state["claim"] = None
    _send_cards_home(state)
    target = state["options"]["target"]
    if target is None or max(state["scores"]) >= target:
        state["over"] = True
        if target is None:
            state["winners"] = [winner] if winner is not None else list(SEATS)
        else:
            best = max(state["scores"])
            state["winners"] = [s for s in SEATS if state["scores"][s] == best]
        state["draw"] = len(state["winners"]) > 1
        return
    state["round"] += 1
    state["start_seen"] = {}
    state["full_deal"] = True
    deal(state)
    state["events"].append({"type": "new_hand", "round": state["round"]})
    _begin_turn(state, starter(state["piles"]))


def _send_cards_home(state: State) -> None:
    """Each deck goes back to its owner whole before the next deal; a dealt hand must not have lost a card."""
    if not state["full_deal"]:
        return
    full = Counter(french_deck())
    for seat, cards in enumerate(deck_contents(state)):
        if cards != full:
            raise RuntimeError(f"seat {seat}'s deck is not intact at the end of the hand")


GAME = TunjGame()
