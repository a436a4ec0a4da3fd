"""Kenza / Rabaeen match state machine (../shared/rules/kenza.md).

Decisions the rules file leaves to the app, taken as the seed's app (Koutchina) plays them:
- Cards are dealt three at a time to each player in turn, starting after the dealer, from the top of the stock;
  the four table cards follow on the first deal of each hand only.
- When a layout's stock runs short of three cards each, the remaining cards go round one at a time and a player
  with an empty hand is skipped until everybody is out of cards.
- A sweep played with the last card of a deal is still recorded as a sweep (sweeps are a statistic only).
"""

from __future__ import annotations

from typing import Any

from engine import rng
from engine.base import VERSION_KEY, Game, GameInfo, OptionSpec, State, StateChange, clone, dropping, nothing_to_fill
from engine.cards import check_counts, parse_spanish, spanish_deck
from engine.errors import IllegalMove
from engine.kenza.rules import CAPTURE_SUM, GOLD, capture_subsets, pile_points

CARDS_PER_DEAL = 3
TABLE_CARDS = 4


class KenzaGame(Game):
    info = GameInfo(
        id="kenza",
        names={"en": "Kenza", "ar": "كينزة"},
        min_players=2,
        max_players=4,
        options={
            "variant": OptionSpec(default="kenza", choices=("kenza", "rabaeen")),
            "target": OptionSpec(default=151, choices=(101, 151, 301)),
        },
        teams_at=(4,),
    )
    # Version 2 (the score sheet's round breakdowns) added each finished deal's breakdown (deal_log); a state stored
    # before knows none of it.
    state_changes = (StateChange(2, nothing_to_fill, dropping("deal_log")),)

    # ---- set-up ---------------------------------------------------------------------------------------------
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
        state: State = {
            "game": self.info.id,
            VERSION_KEY: self.state_version,
            "players": players,
            "options": opts,
            "rng": rng.seed_state(seed),
            "round": 1,
            "scores": [0] * _sides(players),
            "history": [],
            "over": False,
            "draw": False,
            "winners": [],
        }
        if layout is None:
            state["rng"], first_dealer = rng.below(state["rng"], players)
            _start_deal(state, first_dealer)
        else:
            _start_from_layout(state, layout)
        return state

    # ---- play -----------------------------------------------------------------------------------------------
    def legal_moves(self, state: State, seat: int) -> list[str]:
        if self.to_move(state) != seat:
            return []
        total = _capture_sum(state)
        table = state["table"]
        moves: list[str] = []
        for card in state["hands"][seat]:
            subsets = capture_subsets(table, card, total)
            if subsets:
                moves.extend(_move_text(card, [table[i] for i in subset]) for subset in subsets)
            else:
                moves.append(_move_text(card, []))
        return moves

    def parse_move(self, state: State, seat: int, text: str) -> str:
        words = str(text).split()
        if not words or words[0].lower() != "play" or len(words) < 2:
            raise IllegalMove("write a move as: play CARD [take CARD CARD ...], e.g. play 6O take 4C 5E",
                              "kenza.syntax")
        card = parse_spanish(words[1])
        rest = words[2:]
        if rest and rest[0].lower() != "take":
            raise IllegalMove("after the card write 'take' and the table cards, e.g. play 6O take 4C 5E",
                              "kenza.take_word")
        if rest and len(rest) == 1:
            raise IllegalMove("name the table cards to take after 'take'", "kenza.take_what")
        taken = [parse_spanish(word) for word in rest[1:]]
        if card not in state["hands"][seat]:
            raise IllegalMove(f"{card} is not in your hand", "not_in_hand", card=card)
        table = state["table"]
        for code in taken:
            if code not in table:
                raise IllegalMove(f"{code} is not on the table", "kenza.not_on_table", card=code)
        if len(set(taken)) != len(taken):
            raise IllegalMove("a table card is named twice", "kenza.named_twice")
        total = _capture_sum(state)
        if taken:
            picked = sum(_value(code) for code in taken) + _value(card)
            if picked != total:
                raise IllegalMove(f"{card} with {' '.join(taken)} makes {picked}, not {total}", "kenza.wrong_sum",
                                  card=card, cards=" ".join(taken), sum=picked, total=total)
            ordered = [code for code in table if code in taken]
            return _move_text(card, ordered)
        subsets = capture_subsets(table, card, total)
        if subsets:
            example = " ".join(table[i] for i in subsets[0])
            raise IllegalMove(f"{card} can capture (e.g. take {example}): capture is mandatory for it",
                              "kenza.must_capture", card=card, cards=example)
        return _move_text(card, [])

    def _play(self, state: State, seat: int, move: str) -> None:
        words = move.split()
        card, taken = words[1], words[3:]
        state["hands"][seat].remove(card)
        if taken:
            state["table"] = [code for code in state["table"] if code not in taken]
            state["captured"][seat].extend(taken + [card])
            state["last_capturer"] = seat
            if not state["table"]:
                state["sweeps"][seat] += 1
        else:
            state["table"].append(card)
        state["last_move"] = {"seat": seat, "move": move}
        _advance(state, seat)

    # ---- information ----------------------------------------------------------------------------------------
    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        players = state["players"]
        view: dict[str, Any] = {
            "game": self.info.id,
            "variant": state["options"]["variant"],
            "target": state["options"]["target"],
            "capture_sum": _capture_sum(state),
            "players": players,
            "teams": players == 4,
            "seat": seat,
            "dealer": state["dealer"],
            "to_move": self.to_move(state),
            "round": state["round"],
            "hand_sizes": [len(hand) for hand in state["hands"]],
            "table": list(state["table"]),
            "stock_size": len(state["stock"]),
            "captured_counts": [len(pile) for pile in state["captured"]],
            "sweeps": list(state["sweeps"]),
            "scores": list(state["scores"]),
            "history": [list(row) for row in state["history"]],
            "details": clone(state.get("deal_log", [])),  # each finished round's breakdown, in order
            "last_move": dict(state["last_move"]) if state["last_move"] else None,
            "last_capturer": state["last_capturer"],
            "over": state["over"],
            "winners": list(state["winners"]),
            "draw": state["draw"],
        }
        if seat is not None:
            view["hand"] = list(state["hands"][seat])
        return view

    def result(self, state: State) -> dict[str, Any]:
        out: dict[str, Any] = {
            "over": state["over"],
            "round": state["round"],
            "scores": list(state["scores"]),
            "history": [list(row) for row in state["history"]],
            "winners": list(state["winners"]),
            "sweeps": list(state["sweeps_total"]),
        }
        if state["draw"]:
            out["draw"] = True
        return out


# ---- helpers (module level: they work on the private copy `_play` is given) -----------------------------------
def _sides(players: int) -> int:
    return 2 if players == 4 else players


def _side_of(players: int, seat: int) -> int:
    return seat % 2 if players == 4 else seat


def _capture_sum(state: State) -> int:
    return CAPTURE_SUM[state["options"]["variant"]]


def _value(code: str) -> int:
    return int(code[:-1])


def _move_text(card: str, taken: list[str]) -> str:
    return f"play {card} take {' '.join(taken)}" if taken else f"play {card}"


def _fresh_deal_fields(state: State, dealer: int) -> None:
    players = state["players"]
    state["dealer"] = dealer
    state["captured"] = [[] for _ in range(players)]
    state["sweeps"] = [0] * players
    state.setdefault("sweeps_total", [0] * players)
    state["last_capturer"] = None
    state["last_move"] = None
    state["to_move"] = (dealer + 1) % players


def _start_deal(state: State, dealer: int) -> None:
    """Shuffle a full baraja from the state's generator and deal hands plus the four table cards."""
    state["rng"], stock = rng.shuffled(state["rng"], spanish_deck())
    state["stock"] = stock
    state["hands"] = [[] for _ in range(state["players"])]
    _fresh_deal_fields(state, dealer)
    _deal_hands(state)
    state["table"] = state["stock"][:TABLE_CARDS]
    state["stock"] = state["stock"][TABLE_CARDS:]


def _start_from_layout(state: State, layout: dict[str, Any]) -> None:
    players = state["players"]
    unknown = sorted(set(layout) - {"hands", "table", "stock", "dealer"})
    if unknown:
        raise ValueError(f"unknown layout key(s) for kenza: {', '.join(unknown)}")
    hands = [[parse_spanish(code) for code in hand] for hand in layout.get("hands", [])]
    if len(hands) > players:
        raise ValueError(f"layout has {len(hands)} hands for {players} players")
    hands += [[] for _ in range(players - len(hands))]
    table = [parse_spanish(code) for code in layout.get("table", [])]
    stock = [parse_spanish(code) for code in layout.get("stock", [])]
    check_counts([c for hand in hands for c in hand] + table + stock, spanish_deck())
    dealer = int(layout.get("dealer", players - 1)) % players
    _fresh_deal_fields(state, dealer)
    state["hands"], state["table"], state["stock"] = hands, table, stock
    if not any(hands):
        if stock:
            _deal_hands(state)
        else:
            raise ValueError("layout has no cards to play")
    state["to_move"] = _next_with_cards(state, dealer)


def _deal_hands(state: State) -> None:
    """Three cards to each player from the top of the stock, starting after the dealer."""
    players = state["players"]
    order = [(state["dealer"] + 1 + i) % players for i in range(players)]
    stock = state["stock"]
    if len(stock) >= CARDS_PER_DEAL * players:
        for seat in order:
            state["hands"][seat].extend(stock[:CARDS_PER_DEAL])
            stock = stock[CARDS_PER_DEAL:]
    else:
        turn = 0
        while stock and turn < CARDS_PER_DEAL * players:
            state["hands"][order[turn % players]].append(stock[0])
            stock = stock[1:]
            turn += 1
    state["stock"] = stock


def _next_with_cards(state: State, after: int) -> int:
    players = state["players"]
    for step in range(1, players + 1):
        seat = (after + step) % players
        if state["hands"][seat]:
            return seat
    raise AssertionError("nobody holds a card")


def _advance(state: State, seat: int) -> None:
    """Pass the turn; deal again when hands are empty; score the deal when the stock is out too."""
    if any(state["hands"]):
        state["to_move"] = _next_with_cards(state, seat)
        return
    if state["stock"]:
        _deal_hands(state)
        state["to_move"] = _next_with_cards(state, seat)
        return
    _finish_deal(state)


def _deal_record(state: State, leftover: list[str], deal_points: list[int]) -> dict[str, Any]:
    """A finished deal's breakdown per side (captured cards, gold points, sweeps) for the score sheet; the
    leftover table cards are already in the last capturer's pile and counted there."""
    players = state["players"]
    sides = [{"cards": 0, "gold": 0, "others": 0, "sweeps": 0} for _ in range(_sides(players))]
    for seat, pile in enumerate(state["captured"]):
        side = sides[_side_of(players, seat)]
        side["cards"] += len(pile)
        side["gold"] += pile_points([card for card in pile if card.endswith(GOLD)])
        side["others"] += sum(1 for card in pile if not card.endswith(GOLD))
        side["sweeps"] += state["sweeps"][seat]
    # The leftover cards as a count and points, not codes: the next deal reuses the codes, and a view must not
    # print a code that is then in somebody's hidden hand.
    return {"round": state["round"], "last_capturer": state["last_capturer"], "leftover": len(leftover),
            "leftover_points": pile_points(leftover),
            "points": list(deal_points), "sides": sides, "totals": list(state["scores"])}


def _finish_deal(state: State) -> None:
    players = state["players"]
    leftover = list(state["table"]) if state["last_capturer"] is not None else []
    if state["table"] and state["last_capturer"] is not None:
        state["captured"][state["last_capturer"]].extend(state["table"])
        state["table"] = []
    deal_points = [0] * _sides(players)
    for seat, pile in enumerate(state["captured"]):
        deal_points[_side_of(players, seat)] += pile_points(pile)
    for seat, count in enumerate(state["sweeps"]):
        state["sweeps_total"][seat] += count
    state["history"].append(deal_points)
    state["scores"] = [total + gained for total, gained in zip(state["scores"], deal_points, strict=True)]
    state.setdefault("deal_log", []).append(_deal_record(state, leftover, deal_points))
    target = state["options"]["target"]
    if max(state["scores"]) >= target:
        best = max(state["scores"])
        leaders = [side for side, total in enumerate(state["scores"]) if total == best]
        state["over"] = True
        state["winners"] = leaders
        state["draw"] = len(leaders) > 1
        state["to_move"] = None
        return
    state["round"] += 1
    _start_deal(state, (state["dealer"] + 1) % players)


GAME = KenzaGame()
