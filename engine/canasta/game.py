"""Canasta match state machine (../shared/rules/canasta.md, ../shared/NOTATION.md).

A turn is a sequence of moves in phases: "draw" (`draw`, `take`, or `pass` once the stock is gone), "play"
(melds, additions, `ask`, and the `discard` that ends the turn) and, in `classic4`, "answer" while the partner
answers `ask`. Taking the pile opens a pending step: the top card waits beside the hand and the taker's next
move must meld it (with cards from the hand as they were before the take); the rest of the pile joins the hand
right after. That also makes the opening minimum count only the top card and the hand, as the rules say.

Decisions the rules file leaves open, taken as the seed's app would play them:
- Dealer by lot: each seat draws from the seeded shuffle (jokers skipped); the highest rank deals (ace high, then
  suits spades, hearts, diamonds, clubs); identical cards draw again.
- After the deal the upcard is turned first, then red 3s are laid and replaced seat by seat from the dealer's left
  (the order of the seed's set-up steps). Red 3s in a layout's hands are laid the same way.
- A red 3 lying in a taken pile (a frozen upcard) goes straight to the taker's red 3s, without a replacement.
- `ask` is asked after drawing (and after melding a taken pile's top card), at most once a turn, with two or
  more cards in hand, and only when the asker could go out; "yes" binds the asker to go out this turn (only moves
  that keep going out possible stay legal), "no" forbids going out this turn. `duo` has no `ask`.
- A meld or addition may leave the player with one card or none only when the team could go out then; black 3s
  are melded only in such a going-out move.
- Going out concealed: the player's team had no meld when the turn began; taking the pile does not prevent it.
- Once the stock is gone, `pass` is also the only move of a player who cannot take the discard; it ends the
  hand (the rules: "the hand ends when a player cannot or does not take it").
- A concealed going out after a stock draw is exempt from the opening minimum (rules file, "Going out"); the
  exemption covers the one move that lays the whole hand (every meld at once, leaving nothing or the single card
  of the final discard), since an opening of several melds is one move. An unopened team with no pending top card
  has drawn from the stock: taking the pile opens the team with the meld that holds the top card, and that meld
  must reach the minimum.
- With two players and no `variant` given the default `classic4` still applies, so `players=2` needs
  `{"variant": "duo"}` (ValueError otherwise), as the brief's validation asks.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from engine import rng
from engine.base import VERSION_KEY, Game, GameInfo, OptionSpec, State, StateChange, clone, dropping, nothing_to_fill
from engine.canasta.cards import (
    DECK,
    card_key,
    check_deck,
    is_black_three,
    is_red_three,
    is_wild,
    parse_card,
    rank_key,
    sort_cards,
    total,
)
from engine.canasta.melds import (
    Slot,
    best_opening,
    canasta_kind,
    going_out_plan,
    meld_problem,
    submultisets,
)
from engine.canasta.scoring import hand_points
from engine.errors import BadOption, IllegalMove

VARIANTS: dict[str, dict[str, int]] = {
    "classic4": {"players": 4, "deal": 11, "canastas": 1},
    "duo": {"players": 2, "deal": 15, "canastas": 2},
}
_RANK_NAMES = {"A": "aces", "K": "kings", "Q": "queens", "J": "jacks", "T": "10s", "3": "black 3s"}
_LAYOUT_KEYS = {"hands", "stock", "discard", "red3s", "dealer", "scores", "melds", "round"}


def minimum_meld(score: int) -> int:
    """The first-meld minimum for a team's cumulative score at the start of the hand."""
    if score < 0:
        return 15
    if score < 1500:
        return 50
    if score < 3000:
        return 90
    return 120


def _rank_name(rank: str) -> str:
    return _RANK_NAMES.get(rank, f"{rank}s")


def _rank_code(rank: str) -> str:
    """A rank as the cards show it (`T` -> `10`): the parameter of a refusal, which each language words."""
    return "10" if rank == "T" else rank


@dataclass
class _Turn:
    """Everything the rules ask about the seat to play, gathered once per question."""

    seat: int
    team: int
    hand: list[str]
    melds: dict[str, tuple[int, Slot]]  # rank -> (table number, meld) for this seat's team
    opened: bool
    minimum: int
    need: int
    canastas: int
    pending: dict[str, Any] | None
    ask: str | None
    table: list[dict[str, Any]]  # every meld on the table, in order (numbers in `add ... to N`)

    def slots(self) -> dict[str, Slot]:
        return {rank: slot for rank, (_, slot) in self.melds.items()}


class CanastaGame(Game):
    info = GameInfo(
        id="canasta",
        names={"en": "Canasta", "ar": "كاناستا"},
        min_players=2,
        max_players=4,
        options={
            "variant": OptionSpec(default="classic4", choices=("classic4", "duo")),
            "target": OptionSpec(default=5000, choices=(5000, 2500)),
        },
        teams_at=(4,),
    )
    # Version 2 (the score sheet's round breakdowns) added each finished hand's breakdown (hand_log), and the last
    # hand's counts and running totals; a state stored before knows none of it.
    state_changes = (StateChange(2, nothing_to_fill, dropping("hand_log", inside={"last_hand": ("counts", "totals")})),)

    # ---- set-up ---------------------------------------------------------------------------------------------
    def check_options(self, players: int, options: dict[str, Any] | None) -> dict[str, Any]:
        """With no variant named, two players can only play `duo`; `classic4` stays the default for four."""
        given = dict(options or {})
        if "variant" not in given and int(players) == VARIANTS["duo"]["players"]:
            given["variant"] = "duo"
        return super().check_options(players, given)

    def new(
        self,
        players: int,
        options: dict[str, Any] | None = None,
        *,
        seed: int | str | None = None,
        layout: dict[str, Any] | None = None,
    ) -> State:
        players = int(players)
        opts = self.check_options(players, options)
        wanted = VARIANTS[opts["variant"]]["players"]
        if players != wanted:
            raise BadOption(f"Canasta {opts['variant']} is for {wanted} players, not {players}",
                            "canasta.variant_players", variant=opts["variant"], n=wanted, players=players)
        state: State = {
            "game": self.info.id,
            VERSION_KEY: self.state_version,
            "players": players,
            "options": opts,
            "rng": rng.seed_state(seed),
            "round": 1,
            "scores": [0, 0],
            "history": [],
            "over": False,
            "winners": [],
            "last_move": None,
            "last_hand": None,
        }
        if layout is None:
            state["dealer"] = _dealer_by_lot(state)
            _deal(state)
        else:
            _from_layout(state, layout)
        return state

    # ---- play -----------------------------------------------------------------------------------------------
    def to_move(self, state: State) -> int | None:
        if state["over"]:
            return None
        if state["phase"] == "answer":
            return _partner(state, state["turn"])
        return state["turn"]

    def legal_moves(self, state: State, seat: int) -> list[str]:
        if self.to_move(state) != seat:
            return []
        phase = state["phase"]
        if phase == "answer":
            return ["answer yes", "answer no"]
        if phase == "draw":
            return self._draw_moves(state, seat)
        turn = _turn(state, seat)
        if turn.pending is not None:
            return _forced_moves(turn)
        return _play_moves(state, turn)

    def _draw_moves(self, state: State, seat: int) -> list[str]:
        forced = _take_uses(state, seat)
        if state["stock"]:
            return ["draw", "take"] if forced else ["draw"]
        if any(move.startswith("add") for move in forced):
            return ["take"]
        return ["take", "pass"] if forced else ["pass"]

    def parse_move(self, state: State, seat: int, text: str) -> str:
        words = str(text).replace("|", " | ").split()
        if not words:
            raise IllegalMove("empty move", "canasta.empty_move")
        verb = words[0].lower()
        if self.to_move(state) != seat:
            if state["over"]:
                raise IllegalMove("the match is over", "match_over")
            raise IllegalMove("it is not your turn", "not_your_turn")
        phase = state["phase"]
        if phase == "answer":
            if verb != "answer" or len(words) != 2 or words[1].lower() not in ("yes", "no"):
                raise IllegalMove("your partner asked to go out: reply 'answer yes' or 'answer no'",
                                  "canasta.answer_needed")
            return f"answer {words[1].lower()}"
        if verb == "answer":
            raise IllegalMove("nobody is waiting for an answer", "canasta.no_question")
        if phase == "draw":
            return self._parse_draw(state, seat, verb, words)
        if verb in ("draw", "take", "pass"):
            raise IllegalMove("you have already drawn this turn: meld, add or discard", "canasta.already_drew")
        turn = _turn(state, seat)
        if verb == "meld":
            return _check_meld(turn, _parse_groups(words[1:]))
        if verb == "add":
            cards, number = _parse_add(words[1:], state)
            return _check_add(turn, cards, number)
        if verb == "discard":
            if len(words) != 2:
                raise IllegalMove("write: discard CARD, e.g. discard 7H", "canasta.discard_syntax")
            card, stands = parse_card(words[1])
            if stands is not None:
                raise IllegalMove("write the discarded card plainly, e.g. discard X", "canasta.discard_plain")
            return _check_discard(turn, card)
        if verb == "ask":
            if len(words) != 1:
                raise IllegalMove("write just: ask", "canasta.ask_syntax")
            return _check_ask(state, turn)
        raise IllegalMove(f"unknown move '{words[0]}': use meld, add, discard or ask", "canasta.unknown_verb",
                          word=words[0])

    def _parse_draw(self, state: State, seat: int, verb: str, words: list[str]) -> str:
        if len(words) != 1 or verb not in ("draw", "take", "pass"):
            if verb in ("meld", "add", "discard", "ask"):
                raise IllegalMove("first draw from the stock or take the discard pile", "canasta.draw_first")
            raise IllegalMove("start your turn with draw or take (or pass once the stock is empty)",
                              "canasta.start_turn")
        if verb == "draw":
            if not state["stock"]:
                raise IllegalMove("the stock is empty: take the discard or pass", "canasta.stock_empty")
            return "draw"
        refusal = _take_refusal(state, seat)
        if verb == "take":
            if refusal is not None:
                raise refusal
            return "take"
        if state["stock"]:
            raise IllegalMove("pass is only for the end of the stock: draw or take", "canasta.pass_early")
        if refusal is None and any(move.startswith("add") for move in _take_uses(state, seat)):
            raise IllegalMove("the top card fits one of your team's melds: with the stock gone you must take it",
                              "canasta.must_take")
        return "pass"

    def _play(self, state: State, seat: int, move: str) -> None:
        words = move.split()
        verb = words[0]
        state["last_move"] = {"seat": seat, "move": move}
        if verb == "answer":
            state["ask"] = words[1]
            state["phase"] = "play"
        elif verb == "ask":
            state["ask"] = "pending"
            state["phase"] = "answer"
        elif verb == "draw":
            _draw(state, seat)
        elif verb == "take":
            _take(state, seat)
        elif verb == "pass":
            _end_hand(state, None)
        elif verb == "discard":
            hand = state["hands"][seat]
            hand.remove(words[1])
            if not hand:
                _end_hand(state, seat)
                return
            state["discard"].insert(0, words[1])
            _begin_turn(state, (seat + 1) % state["players"])
        else:
            _lay(state, seat, move)

    # ---- information ----------------------------------------------------------------------------------------
    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        players = state["players"]
        pile = state.get("discard", [])
        team_count = 2
        pending = state.get("pending")
        melds = [
            {
                "number": index + 1,
                "team": meld["team"],
                "rank": meld["rank"],
                "cards": list(meld["cards"]),
                "canasta": canasta_kind(meld["cards"]),
            }
            for index, meld in enumerate(state.get("melds", []))
        ]
        opened = [any(meld["team"] == team for meld in state.get("melds", [])) for team in range(team_count)]
        red3s = [list(cards) for cards in state.get("red3s", [[] for _ in range(players)])]
        out: dict[str, Any] = {
            "game": state["game"],
            "seat": seat,
            "players": players,
            "variant": state["options"]["variant"],
            "target": state["options"]["target"],
            "teams": _teams(players),
            "team": None if seat is None else seat % 2,
            "canastas_needed": VARIANTS[state["options"]["variant"]]["canastas"],
            "round": state["round"],
            "dealer": state["dealer"],
            "to_move": self.to_move(state),
            "turn": None if state["over"] else state["turn"],
            "phase": "over" if state["over"] else state["phase"],
            "hand": sort_cards(state["hands"][seat]) if seat is not None else None,
            "hand_sizes": [len(hand) for hand in state["hands"]],
            "stock_size": len(state["stock"]),
            "discard_top": pile[0] if pile else None,
            "pile_size": len(pile),
            "frozen": _pile_frozen(pile),
            "frozen_for": [_pile_frozen(pile) or not opened[team] for team in range(team_count)],
            "pile_blocked": bool(pile) and (is_black_three(pile[0]) or is_wild(pile[0]) or is_red_three(pile[0])),
            "melds": melds,
            "opened": opened,
            "red3s": red3s,
            "team_red3s": [sum((red3s[s] for s in _teams(players)[team]), []) for team in range(team_count)],
            "min_meld": [minimum_meld(score) for score in state["hand_start_scores"]],
            "must_use": pending["top"] if pending else None,
            "pile_taken": len(pending["rest"]) if pending else 0,
            "taken_cards": sort_cards(pending["rest"]) if pending and seat == state["turn"] else None,
            "ask": state.get("ask"),
            "scores": list(state["scores"]),
            "history": [list(row) for row in state["history"]],
            "details": clone(state.get("hand_log", [])),  # each finished round's breakdown, in order
            "last_move": dict(state["last_move"]) if state["last_move"] else None,
            "last_hand": clone(state["last_hand"]),
            "over": state["over"],
            "winners": list(state["winners"]),
        }
        return out

    def result(self, state: State) -> dict[str, Any]:
        return {
            "over": state["over"],
            "round": state["round"],
            "scores": list(state["scores"]),
            "history": [list(row) for row in state["history"]],
            "winners": list(state["winners"]),
            "draw": False,
        }


# ---- turn context ---------------------------------------------------------------------------------------------
def _teams(players: int) -> list[list[int]]:
    return [[0, 2], [1, 3]] if players == 4 else [[0], [1]]


def _partner(state: State, seat: int) -> int:
    return (seat + 2) % 4 if state["players"] == 4 else seat


def _pile_frozen(pile: list[str]) -> bool:
    """Frozen for everybody: a wild card or a red 3 lies somewhere in the pile."""
    return any(is_wild(card) or is_red_three(card) for card in pile)


def _turn(state: State, seat: int, pending: dict[str, Any] | None = None) -> _Turn:
    team = seat % 2
    melds: dict[str, tuple[int, Slot]] = {}
    canastas = 0
    for index, meld in enumerate(state["melds"]):
        if meld["team"] != team:
            continue
        wilds = sum(1 for card in meld["cards"] if is_wild(card))
        melds[meld["rank"]] = (index + 1, Slot(len(meld["cards"]) - wilds, wilds))
        canastas += len(meld["cards"]) >= 7
    return _Turn(
        seat=seat,
        team=team,
        hand=state["hands"][seat],
        melds=melds,
        opened=bool(melds),
        minimum=minimum_meld(state["hand_start_scores"][team]),
        need=VARIANTS[state["options"]["variant"]]["canastas"],
        canastas=canastas,
        pending=pending if pending is not None else state.get("pending"),
        ask=state.get("ask"),
        table=state["melds"],
    )


# ---- move text ------------------------------------------------------------------------------------------------
def _meld_text(groups: list[list[str]]) -> str:
    ordered = sorted((sort_cards(group) for group in groups), key=lambda group: rank_key(_group_rank(group)))
    return "meld " + " | ".join(" ".join(group) for group in ordered)


def _add_text(cards: list[str], number: int) -> str:
    return f"add {' '.join(sort_cards(cards))} to {number}"


def _group_rank(cards: list[str], stands: list[str | None] | None = None) -> str:
    ranks = {card[0] for card in cards if not is_wild(card)}
    ranks |= {rank for rank in (stands or []) if rank}
    if len(ranks) > 1:
        raise IllegalMove("a meld holds cards of one rank only (no runs in Canasta)", "canasta.one_rank")
    if not ranks:
        raise IllegalMove("there is no meld of wild cards only: a meld needs two natural cards", "canasta.wilds_only")
    return ranks.pop()


def _parse_groups(words: list[str]) -> list[list[str]]:
    groups: list[list[str]] = [[]]
    stands: list[list[str | None]] = [[]]
    for word in words:
        if word == "|":
            groups.append([])
            stands.append([])
            continue
        card, rank = parse_card(word)
        groups[-1].append(card)
        stands[-1].append(rank)
    if any(not group for group in groups):
        raise IllegalMove("write melds as: meld C C C [| C C C ...], e.g. meld 7H 7S X", "canasta.meld_syntax")
    for group, marks in zip(groups, stands, strict=True):
        _group_rank(group, marks)
    return groups


def _parse_add(words: list[str], state: State) -> tuple[list[str], int]:
    lowered = [word.lower() for word in words]
    if "to" not in lowered or lowered.index("to") != len(words) - 2 or lowered.index("to") == 0:
        raise IllegalMove("write: add C [C ...] to N, e.g. add 7H X to 2", "canasta.add_syntax")
    if not words[-1].isdigit():
        raise IllegalMove(f"'{words[-1]}' is not a meld number", "canasta.not_meld_number", word=words[-1])
    number = int(words[-1])
    if not 1 <= number <= len(state["melds"]):
        raise IllegalMove(f"there is no meld {number} on the table", "canasta.no_meld", number=number)
    rank = state["melds"][number - 1]["rank"]
    cards = []
    for word in words[:-2]:
        card, stands = parse_card(word)
        if stands is not None and stands != rank:
            raise IllegalMove(f"meld {number} is a meld of {_rank_name(rank)}, not {_rank_name(stands)}",
                              "canasta.meld_rank_stands", number=number, rank=_rank_code(rank),
                              other=_rank_code(stands))
        cards.append(card)
    return cards, number


# ---- move checks (shared by parse_move and legal_moves) -------------------------------------------------------
def _use_cards(turn: _Turn, cards: list[str]) -> tuple[int, bool]:
    """Check `cards` are in hand (one copy of the pending top card may come from the pile); (cards from the
    hand, whether the top card is used)."""
    top = turn.pending["top"] if turn.pending else None
    needed = Counter(cards)
    uses_top = top is not None and needed[top] > 0
    if uses_top:
        needed[top] -= 1
    have = Counter(turn.hand)
    for card, count in needed.items():
        if have[card] < count:
            raise IllegalMove(f"{card} is not in your hand", "not_in_hand", card=card)
    if top is not None and not uses_top:
        raise IllegalMove(f"you took the pile: first meld its top card {top}", "canasta.meld_top_first", card=top)
    return sum(needed.values()), uses_top


def _check_pile_use(turn: _Turn, cards: list[str]) -> None:
    """The meld or addition holding a taken top card needs a natural pair from hand when the pile was frozen."""
    if turn.pending is None:
        return
    top = turn.pending["top"]
    own = sum(1 for card in cards if card[0] == top[0] and not is_wild(card)) - 1
    if turn.pending["frozen"] and own < 2:
        raise IllegalMove(f"the pile is frozen: {top} must be melded with two natural {_rank_name(top[0])} from hand",
                          "canasta.frozen_pair", card=top, rank=_rank_code(top[0]))


def _check_left(turn: _Turn, left: int, canastas: int, blacks: bool, after: tuple[list[str], dict] | None) -> None:
    """The two-card rule, black 3s and the partner's answer, for a move that leaves `left` cards."""
    if left <= 1:
        if turn.ask == "no":
            raise IllegalMove("your partner said no: you may not go out this turn, so keep two cards",
                              "canasta.partner_no_keep_two")
        if canastas < turn.need:
            plural = "canasta" if turn.need == 1 else "canastas"
            raise IllegalMove(
                f"that leaves you {left} card{'s' if left != 1 else ''}: going out needs {turn.need} {plural}",
                "canasta.go_out_needs", left=left, n=turn.need,
            )
    elif blacks:
        raise IllegalMove("black 3s may be melded only when going out", "canasta.black3_only_out")
    if turn.ask == "yes" and left > 0 and after is not None:
        hand, slots = after
        if going_out_plan(hand, slots, opened=True, minimum=0, need=turn.need) is None:
            raise IllegalMove("your partner said yes, so you must go out this turn; this move makes it impossible",
                              "canasta.partner_yes_blocked")


def _check_meld(turn: _Turn, groups: list[list[str]]) -> str:
    if not groups:
        raise IllegalMove("name the cards to meld, e.g. meld 7H 7S 7D", "canasta.meld_what")
    ranks: list[str] = []
    for cards in groups:
        rank = _group_rank(cards)
        if rank in turn.melds:
            raise IllegalMove(
                f"your team already has a meld of {_rank_name(rank)}: add to meld {turn.melds[rank][0]}",
                "canasta.rank_melded", rank=_rank_code(rank), number=turn.melds[rank][0],
            )
        if rank in ranks:
            raise IllegalMove(f"a team melds {_rank_name(rank)} only once: put them in one meld", "canasta.rank_twice",
                              rank=_rank_code(rank))
        problem = meld_problem(rank, cards)
        if problem:
            raise problem
        ranks.append(rank)
    every = [card for cards in groups for card in cards]
    used, _ = _use_cards(turn, every)
    if turn.pending is not None:
        top = turn.pending["top"]
        holder = next((cards for cards in groups if top in cards), None)
        if holder is None:
            raise IllegalMove(f"you took the pile: first meld its top card {top}", "canasta.meld_top_first",
                              card=top)
        _check_pile_use(turn, holder)
    rest = _after_hand(turn, every)
    canastas = turn.canastas + sum(1 for cards in groups if len(cards) >= 7)
    if not turn.opened:
        worth = total(every)
        going_out = len(rest) <= 1 and canastas >= turn.need and turn.ask != "no"
        if worth < turn.minimum and not (going_out and _stock_drawn(turn)):
            raise IllegalMove(f"your team's first meld needs {turn.minimum} points; this is {worth}",
                              "canasta.opening_minimum", n=turn.minimum, worth=worth)
    slots = turn.slots()
    for rank, cards in zip(ranks, groups, strict=True):
        wilds = sum(1 for card in cards if is_wild(card))
        slots[rank] = Slot(len(cards) - wilds, wilds)
    _check_left(turn, len(rest), canastas, "3" in ranks, (rest, slots))
    return _meld_text(groups)


def _check_add(turn: _Turn, cards: list[str], number: int) -> str:
    meld = turn.table[number - 1]
    if meld["team"] != turn.team:
        raise IllegalMove(f"meld {number} belongs to the other team", "canasta.other_team_meld", number=number)
    if not cards:
        raise IllegalMove("name the cards to add, e.g. add 7H to 1", "canasta.add_what")
    rank = meld["rank"]
    for card in cards:
        if not is_wild(card) and card[0] != rank:
            raise IllegalMove(f"meld {number} is a meld of {_rank_name(rank)}: {card} does not fit",
                              "canasta.meld_rank_card", number=number, rank=_rank_code(rank), card=card)
    combined = meld["cards"] + cards
    problem = meld_problem(rank, combined)
    if problem:
        raise problem
    _use_cards(turn, cards)
    _check_pile_use(turn, cards)
    rest = _after_hand(turn, cards)
    grew = len(meld["cards"]) < 7 <= len(combined)
    slots = turn.slots()
    wilds = sum(1 for card in combined if is_wild(card))
    slots[rank] = Slot(len(combined) - wilds, wilds)
    _check_left(turn, len(rest), turn.canastas + grew, False, (rest, slots))
    return _add_text(cards, number)


def _stock_drawn(turn: _Turn) -> bool:
    """An unopened team's turn that began with a stock draw: its concealed going out needs no minimum.

    Without a pending top card an unopened team cannot have taken the pile this turn (the meld holding the top
    card opens the team), so no separate record of the draw is needed.
    """
    return not turn.opened and turn.pending is None


def _going_out_minimum(turn: _Turn) -> int:
    """The minimum a going out by this seat must reach now: none once opened or after a stock draw."""
    return 0 if turn.opened or _stock_drawn(turn) else turn.minimum


def _after_hand(turn: _Turn, cards: list[str]) -> list[str]:
    """The hand after laying `cards` (the pending top card first), plus the rest of a taken pile."""
    rest = list(turn.hand)
    pool = list(cards)
    if turn.pending is not None:
        pool.remove(turn.pending["top"])
        rest += turn.pending["rest"]
    for card in pool:
        rest.remove(card)
    return rest


def _check_discard(turn: _Turn, card: str) -> str:
    if turn.pending is not None:
        raise IllegalMove(f"you took the pile: first meld its top card {turn.pending['top']}",
                          "canasta.meld_top_first", card=turn.pending["top"])
    if card not in turn.hand:
        raise IllegalMove(f"{card} is not in your hand", "not_in_hand", card=card)
    if len(turn.hand) == 1:
        if turn.ask == "no":
            raise IllegalMove("your partner said no: you may not go out this turn", "canasta.partner_no")
        if turn.canastas < turn.need:
            plural = "canasta" if turn.need == 1 else "canastas"
            raise IllegalMove(f"discarding your last card goes out, which needs {turn.need} {plural}",
                              "canasta.discard_goes_out", n=turn.need)
    elif turn.ask == "yes":
        raise IllegalMove("your partner said yes: meld your cards and go out this turn", "canasta.partner_yes_go_out")
    return f"discard {card}"


def _check_ask(state: State, turn: _Turn) -> str:
    if state["players"] != 4:
        raise IllegalMove("there is no partner to ask in a two-player game", "canasta.no_partner")
    if turn.pending is not None:
        raise IllegalMove(f"you took the pile: first meld its top card {turn.pending['top']}",
                          "canasta.meld_top_first", card=turn.pending["top"])
    if turn.ask is not None:
        raise IllegalMove("you have already asked this turn", "canasta.already_asked")
    if len(turn.hand) < 2:
        raise IllegalMove("ask with at least two cards in hand", "canasta.ask_two_cards")
    if going_out_plan(
        turn.hand, turn.slots(), opened=turn.opened, minimum=_going_out_minimum(turn), need=turn.need
    ) is None:
        raise IllegalMove("you cannot go out with this hand, so there is nothing to ask", "canasta.cannot_go_out")
    return "ask"


# ---- move generation ------------------------------------------------------------------------------------------
def _wild_options(hand: list[str]) -> list[tuple[str, ...]]:
    return submultisets((card for card in hand if is_wild(card)), 0, 3)


def _naturals(hand: list[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for card in hand:
        if not is_wild(card):
            out.setdefault(card[0], []).append(card)
    return out


def _collect(moves: list[str], seen: set[str], check: Any, *args: Any) -> None:
    try:
        move = check(*args)
    except IllegalMove:
        return
    if move not in seen:
        seen.add(move)
        moves.append(move)


def _forced_moves(turn: _Turn) -> list[str]:
    """Moves that meld a just-taken top card (the only moves allowed until it is melded)."""
    top = turn.pending["top"]
    rank = top[0]
    frozen = turn.pending["frozen"]
    naturals = _naturals(turn.hand).get(rank, [])
    wilds = _wild_options(turn.hand)
    low = 2 if frozen else (0 if rank in turn.melds else 1)
    moves: list[str] = []
    seen: set[str] = set()
    for own in submultisets(naturals, low, len(naturals)):
        for extra in wilds:
            cards = [top, *own, *extra]
            if rank in turn.melds:
                _collect(moves, seen, _check_add, turn, cards, turn.melds[rank][0])
            else:
                _collect(moves, seen, _check_meld, turn, [cards])
    if not turn.opened and not moves:
        groups = best_opening(
            turn.hand,
            minimum=turn.minimum,
            need=turn.need,
            may_go_out=turn.ask != "no",
            top=top,
            from_hand=2 if frozen else 1,
            extra_left=len(turn.pending["rest"]),
        )
        if groups:
            _collect(moves, seen, _check_meld, turn, groups)
    return moves


def _play_moves(state: State, turn: _Turn) -> list[str]:
    moves: list[str] = []
    seen: set[str] = set()
    naturals = _naturals(turn.hand)
    wilds = _wild_options(turn.hand)
    for rank in sorted(naturals, key=rank_key):
        cards = naturals[rank]
        if rank == "3":
            blacks = [card for card in cards if is_black_three(card)]
            for group in submultisets(blacks, 3, 4):
                _collect(moves, seen, _check_meld, turn, [list(group)])
            continue
        if rank in turn.melds:
            number, slot = turn.melds[rank]
            for own in submultisets(cards, 0, len(cards)):
                for extra in wilds:
                    if (own or extra) and len(extra) <= slot.room + len(own):
                        _collect(moves, seen, _check_add, turn, [*own, *extra], number)
            continue
        if len(cards) < 2:
            continue
        for own in submultisets(cards, 2, len(cards)):
            for extra in wilds:
                if len(extra) <= len(own) and len(own) + len(extra) >= 3:
                    _collect(moves, seen, _check_meld, turn, [[*own, *extra]])
    for rank, (number, slot) in turn.melds.items():
        if rank in naturals or slot.room == 0:
            continue
        for extra in wilds:
            if extra:
                _collect(moves, seen, _check_add, turn, list(extra), number)
    if not turn.opened:
        _opening_combinations(turn, moves, seen)
    for card in sorted(set(turn.hand), key=card_key):
        _collect(moves, seen, _check_discard, turn, card)
    _collect(moves, seen, _check_ask, state, turn)
    return moves


def _opening_combinations(turn: _Turn, moves: list[str], seen: set[str]) -> None:
    """The best several-meld opening when no single meld reaches the minimum, and a concealed going out (which
    after a stock draw needs no minimum)."""
    if not any(move.startswith("meld") for move in moves):
        groups = best_opening(turn.hand, minimum=turn.minimum, need=turn.need, may_go_out=turn.ask != "no")
        if groups:
            _collect(moves, seen, _check_meld, turn, groups)
    if turn.ask != "no":
        plan = going_out_plan(turn.hand, {}, opened=False, minimum=_going_out_minimum(turn), need=turn.need)
        if plan is not None and plan.new:
            _collect(moves, seen, _check_meld, turn, plan.new)


# ---- taking the pile ------------------------------------------------------------------------------------------
def _take_refusal(state: State, seat: int) -> IllegalMove | None:
    """Why `seat` may not take the discard pile now (the refusal, for the caller to raise), or None."""
    pile = state["discard"]
    if not pile:
        return IllegalMove("the discard pile is empty", "canasta.pile_empty")
    top = pile[0]
    if is_black_three(top):
        return IllegalMove("a black 3 on top blocks the discard pile", "canasta.black3_blocks")
    if is_wild(top) or is_red_three(top):
        return IllegalMove(f"{top} on top cannot be melded, so the pile cannot be taken", "canasta.top_unmeldable",
                           card=top)
    if len(state["hands"][seat]) == 1 and len(pile) == 1:
        return IllegalMove("with one card left you may not take a pile of one card", "canasta.last_card_pile")
    if not _take_uses(state, seat):
        turn = _turn(state, seat)
        if _pile_frozen(pile) or not turn.opened:
            why = "the pile is frozen" if _pile_frozen(pile) else "your team has not melded yet"
            extra = f" for at least {turn.minimum} points" if not turn.opened else ""
            code = "canasta.take_frozen" if _pile_frozen(pile) else "canasta.take_unopened"
            if _pile_frozen(pile) and not turn.opened:
                code = "canasta.take_frozen_unopened"
            return IllegalMove(f"{why}: you need two natural {_rank_name(top[0])} in hand to meld {top}{extra}", code,
                               rank=_rank_code(top[0]), card=top, n=turn.minimum)
        return IllegalMove(f"you cannot meld {top} from your hand, so you may not take the pile",
                           "canasta.take_cannot_meld", card=top)
    return None


def _take_uses(state: State, seat: int) -> list[str]:
    """The moves that would meld the pile's top card if `seat` took the pile now (empty: no take)."""
    pile = state["discard"]
    if not pile:
        return []
    top = pile[0]
    if is_black_three(top) or is_wild(top) or is_red_three(top):
        return []
    if len(state["hands"][seat]) == 1 and len(pile) == 1:
        return []
    turn = _turn(state, seat)
    pending = {
        "top": top,
        "rest": [card for card in pile[1:] if not is_red_three(card)],
        "frozen": _pile_frozen(pile) or not turn.opened,
    }
    turn.pending = pending
    turn.ask = None
    return _forced_moves(turn)


def _take(state: State, seat: int) -> None:
    pile = state["discard"]
    opened = any(meld["team"] == seat % 2 for meld in state["melds"])
    red = [card for card in pile[1:] if is_red_three(card)]
    state["red3s"][seat].extend(red)
    state["pending"] = {
        "top": pile[0],
        "rest": [card for card in pile[1:] if not is_red_three(card)],
        "frozen": _pile_frozen(pile) or not opened,
    }
    state["discard"] = []
    state["phase"] = "play"


# ---- laying cards ---------------------------------------------------------------------------------------------
def _lay(state: State, seat: int, move: str) -> None:
    hand = state["hands"][seat]
    pending = state.get("pending")
    team = seat % 2
    if move.startswith("meld"):
        groups = [part.split() for part in move[len("meld ") :].split(" | ")]
        laid = [card for cards in groups for card in cards]
        for cards in groups:
            state["melds"].append({"team": team, "rank": _group_rank(cards), "cards": list(cards)})
    else:
        words = move.split()
        laid = words[1:-2]
        meld = state["melds"][int(words[-1]) - 1]
        meld["cards"] = sort_cards(meld["cards"] + laid)
    pool = list(laid)
    if pending is not None:
        pool.remove(pending["top"])
        hand.extend(pending["rest"])
        state["pending"] = None
    for card in pool:
        hand.remove(card)
    if not hand:
        _end_hand(state, seat)


# ---- turns, dealing, scoring ----------------------------------------------------------------------------------
def _begin_turn(state: State, seat: int) -> None:
    state["turn"] = seat
    state["phase"] = "draw"
    state["ask"] = None
    state["pending"] = None
    state["opened_at_turn_start"] = any(meld["team"] == seat % 2 for meld in state["melds"])


def _draw(state: State, seat: int) -> None:
    stock = state["stock"]
    card = stock.pop(0)
    while is_red_three(card):
        state["red3s"][seat].append(card)
        if not stock:
            _end_hand(state, None)  # the last stock card was a red 3: the hand ends at once
            return
        card = stock.pop(0)
    state["hands"][seat].append(card)
    state["phase"] = "play"


def _lay_red_threes(state: State) -> None:
    """Red 3s in the hands go face up at once, each replaced from the stock, seat by seat from the dealer's left."""
    players = state["players"]
    for step in range(1, players + 1):
        seat = (state["dealer"] + step) % players
        hand = state["hands"][seat]
        while True:
            reds = [card for card in hand if is_red_three(card)]
            if not reds:
                break
            for card in reds:
                hand.remove(card)
                state["red3s"][seat].append(card)
                if state["stock"]:
                    hand.append(state["stock"].pop(0))


def _dealer_by_lot(state: State) -> int:
    order = "23456789TJQKA"
    suits = "CDHS"
    while True:
        state["rng"], deck = rng.shuffled(state["rng"], DECK)
        drawn = [card for card in deck if card != "X"][: state["players"]]
        keys = [(order.index(card[0]), suits.index(card[1])) for card in drawn]
        best = max(keys)
        if keys.count(best) == 1:
            return keys.index(best)


def _deal(state: State) -> None:
    players = state["players"]
    size = VARIANTS[state["options"]["variant"]]["deal"]
    state["rng"], deck = rng.shuffled(state["rng"], DECK)
    hands: list[list[str]] = [[] for _ in range(players)]
    position = 0
    for _ in range(size):
        for step in range(1, players + 1):
            hands[(state["dealer"] + step) % players].append(deck[position])
            position += 1
    stock = deck[position:]
    pile = [stock.pop(0)]
    while is_wild(pile[0]) or is_red_three(pile[0]):
        pile.insert(0, stock.pop(0))
    state.update(
        hands=hands,
        stock=stock,
        discard=pile,
        melds=[],
        red3s=[[] for _ in range(players)],
        hand_start_scores=list(state["scores"]),
    )
    _lay_red_threes(state)
    _begin_turn(state, (state["dealer"] + 1) % players)


def _from_layout(state: State, layout: dict[str, Any]) -> None:
    players = state["players"]
    unknown = sorted(set(layout) - _LAYOUT_KEYS)
    if unknown:
        raise ValueError(f"unknown layout key(s) for canasta: {', '.join(unknown)}")

    def cards_of(items: Any, what: str) -> list[str]:
        try:
            return [parse_card(str(item))[0] for item in items or []]
        except IllegalMove as error:
            raise ValueError(f"{what}: {error.reason}") from None

    hands = [cards_of(hand, "hands") for hand in (layout.get("hands") or [[] for _ in range(players)])]
    red3s = [cards_of(cards, "red3s") for cards in (layout.get("red3s") or [[] for _ in range(players)])]
    if len(hands) != players or len(red3s) != players:
        raise ValueError(f"a {players}-player layout needs {players} hands and red3s lists")
    if any(not is_red_three(card) for cards in red3s for card in cards):
        raise ValueError("red3s may hold only 3H and 3D")
    melds = []
    for meld in layout.get("melds") or []:
        cards = cards_of(meld.get("cards"), "melds")
        stands = [parse_card(str(item))[1] for item in meld.get("cards") or []]
        team = int(meld.get("team", 0))
        if team not in (0, 1):
            raise ValueError("a meld's team is 0 or 1")
        try:
            rank = _group_rank(cards, stands)
        except IllegalMove as error:
            raise ValueError(f"melds: {error.reason}") from None
        problem = meld_problem(rank, cards)
        reason = problem.reason if problem else ("black 3s are melded only when going out" if rank == "3" else None)
        if reason:
            raise ValueError(f"melds: {reason}")
        if any(other["team"] == team and other["rank"] == rank for other in melds):
            raise ValueError(f"melds: team {team} has two melds of {_rank_name(rank)}")
        melds.append({"team": team, "rank": rank, "cards": sort_cards(cards)})
    stock = cards_of(layout.get("stock"), "stock")
    pile = cards_of(layout.get("discard"), "discard")
    everything = stock + pile + [card for hand in hands for card in hand] + [c for r in red3s for c in r]
    everything += [card for meld in melds for card in meld["cards"]]
    check_deck(everything)
    scores = [int(score) for score in (layout.get("scores") or [0, 0])]
    if len(scores) != 2:
        raise ValueError("scores: one total per team (two numbers)")
    dealer = int(layout.get("dealer", players - 1)) % players
    state.update(
        round=int(layout.get("round", 1)),
        scores=scores,
        dealer=dealer,
        hands=hands,
        stock=stock,
        discard=pile,
        melds=melds,
        red3s=red3s,
        hand_start_scores=list(scores),
    )
    _lay_red_threes(state)
    _begin_turn(state, (dealer + 1) % players)


def _hand_counts(state: State) -> list[dict[str, int]]:
    """What each team's hand points are made of, counted (the score sheet shows them beside the points)."""
    counts = []
    for team in (0, 1):
        seats = [seat for seat in range(state["players"]) if seat % 2 == team]
        kinds = [canasta_kind(meld["cards"]) for meld in state["melds"] if meld["team"] == team]
        counts.append({
            "natural": kinds.count("natural"),
            "mixed": kinds.count("mixed"),
            "red3s": sum(len(state["red3s"][seat]) for seat in seats),
            "melded": sum(len(meld["cards"]) for meld in state["melds"] if meld["team"] == team),
            "left": sum(len(state["hands"][seat]) for seat in seats),
        })
    return counts


def _end_hand(state: State, went_out: int | None) -> None:
    concealed = went_out is not None and not state["opened_at_turn_start"]
    points, detail = hand_points(state, went_out, concealed)
    state["history"].append(points)
    state["scores"] = [before + gained for before, gained in zip(state["scores"], points, strict=True)]
    state["last_hand"] = {
        "round": state["round"],
        "went_out": went_out,
        "concealed": concealed,
        "points": points,
        "detail": detail,
        "counts": _hand_counts(state),
        "totals": list(state["scores"]),
    }
    state.setdefault("hand_log", []).append(clone(state["last_hand"]))
    state["pending"] = None
    state["ask"] = None
    scores = state["scores"]
    target = state["options"]["target"]
    if max(scores) >= target and scores[0] != scores[1]:
        state["over"] = True
        state["winners"] = [0 if scores[0] > scores[1] else 1]
        state["phase"] = "over"
        return
    state["round"] += 1
    state["dealer"] = (state["dealer"] + 1) % state["players"]
    _deal(state)


GAME = CanastaGame()

__all__ = ["GAME", "CanastaGame", "VARIANTS", "minimum_meld"]
