"""Konkan with cards (Sahrat) match state machine (../shared/rules/konkan-cards.md, ../shared/NOTATION.md).

A turn runs in phases: "first" (the round's first turn: the seat after the dealer, holding 15 cards, only
discards), "draw" (`draw`, `take`, and `commit` in the final round) and "play" (`meld`, `add`, `swap` and the
`discard` that ends the turn). Taking the discard sets `must_use`: the next meld or lay-off must hold that card
(before opening, that move is the opening), and nothing else is legal until it does but a joker swap that leaves
such a meld or lay-off possible (the obligation stays through the swap).

Decisions where the rules file is silent, taken as the seed's app would play them:
- The first dealer of a seeded match is drawn by lot from the seed; a layout's default dealer is the last seat, so
  seat 0 moves first. Turn order is seat order (the Gulf's "to the right"), and the deal passes to the next seat.
- The last card is always discarded, so a meld, lay-off or swap must leave a card in hand, and it must leave a
  card that is not a joker (a joker is never discarded). The one exception: a hand of nothing but jokers (both of
  them, drawn onto a lone joker) may discard one, since a turn must end with a discard.
- The stock is rebuilt when a turn begins with it empty (the pile but its top card, shuffled from the state's
  generator). With no reshuffle left, or a pile too small to make a stock, the round ends void at once.
- "Hand" is judged by the moves of the round: the player's only lay-down of the round is one meld move (so it was
  unopened before it and laid no card on others' melds), then the discard that goes out.
- A Konkan is "all laid down in one turn": one meld move, or several in the turn that goes out (lay-offs on the
  player's own new melds included, none on others'). In rounds 1-4 it scores as a Hand; in the final round an
  uncommitted Konkan laid in several moves is an ordinary going out (one laid in a single move is a Hand anyway).
- A Konkan (run of 10 with a set of 4, or 11 with 3, in one meld move leaving the card to discard) needs no
  opening minimum; a committed player may meld only such a move, and may neither lay off nor swap.
- A committed Konkan completed in the final round scores its round as a Hand and ends the match with that seat
  as the only winner, whatever the totals.
- `commit` is offered in the final round (5 and any extra round) at the seat's first turn, before it draws (for
  the seat that starts the round: before its discard-only first turn).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from itertools import combinations
from typing import Any

from engine import rng
from engine.base import VERSION_KEY, Game, GameInfo, OptionSpec, State, StateChange, clone, dropping, nothing_to_fill
from engine.cards import JOKER
from engine.errors import IllegalMove
from engine.konkan_cards.cards import (
    DECK,
    SUIT_ORDER,
    card_key,
    check_deck,
    is_joker,
    parse_token,
    rank_number,
    sort_cards,
)
from engine.konkan_cards.melds import (
    Meld,
    Token,
    best_opening,
    candidate_melds,
    find_konkan,
    is_konkan,
    keeps_a_discard,
    lay_off,
    read_meld,
    swap_needs,
    swapped,
    tokens_of,
)
from engine.konkan_cards.scoring import round_points

MINIMUMS = {"konkan51": 51, "konkan71": 71}
ROUNDS = 5
RESHUFFLES = 3
HAND_SIZE = 14
_LAYOUT_KEYS = {"hands", "stock", "discard", "dealer", "round", "melds", "scores"}


class KonkanCardsGame(Game):
    info = GameInfo(
        id="konkan_cards",
        names={"en": "Konkan", "ar": "كونكان"},
        min_players=2,
        max_players=4,
        options={"variant": OptionSpec(default="konkan51", choices=tuple(MINIMUMS))},
        lower_is_better=True,  # rules: "Scoring (lower is better)", lowest total wins the match
    )
    # Version 2 (the score sheet's round breakdowns) added each finished round's breakdown (round_log), and the last
    # round's running totals; a state stored before knows none of it.
    state_changes = (StateChange(2, nothing_to_fill, dropping("round_log", inside={"last_round": ("totals",)})),)

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
            "scores": [0] * players,
            "history": [],
            "over": False,
            "winners": [],
            "konkan_winner": None,
            "last_move": None,
            "last_round": None,
        }
        if layout is None:
            state["rng"], dealer = rng.below(state["rng"], players)
            state["dealer"] = dealer
            _deal(state)
        else:
            _from_layout(state, layout)
        return state

    # ---- play -----------------------------------------------------------------------------------------------
    def to_move(self, state: State) -> int | None:
        return None if state["over"] else state["turn"]

    def legal_moves(self, state: State, seat: int) -> list[str]:
        if self.to_move(state) != seat:
            return []
        phase = state["phase"]
        moves: list[str] = []
        if _can_commit(state, seat):
            moves.append("commit")
        if phase == "first":
            return moves + _discards(state["hands"][seat])
        if phase == "draw":
            moves.append("draw")
            if _take_refusal(state, seat) is None:
                moves.append("take")
            return moves
        return _play_moves(state, seat)

    def parse_move(self, state: State, seat: int, text: str) -> str:
        words = str(text).replace("|", " | ").split()
        if not words:
            raise IllegalMove("empty move", "canasta.empty_move")
        if state["over"]:
            raise IllegalMove("the match is over", "match_over")
        if self.to_move(state) != seat:
            raise IllegalMove("it is not your turn", "not_your_turn")
        verb = words[0].lower()
        phase = state["phase"]
        if verb == "commit":
            if len(words) != 1:
                raise IllegalMove("write just: commit", "konkan.write_just", word="commit")
            refusal = _commit_refusal(state, seat)
            if refusal:
                raise refusal
            return "commit"
        if verb in ("draw", "take"):
            if len(words) != 1:
                raise IllegalMove(f"write just: {verb}", "konkan.write_just", word=verb)
            if phase == "first":
                raise IllegalMove("the first turn of a round is a discard only", "konkan.first_turn_discard")
            if phase == "play":
                raise IllegalMove("you have already drawn this turn: meld, add, swap or discard", "konkan.already_drew")
            if verb == "take":
                refusal = _take_refusal(state, seat)
                if refusal:
                    raise refusal
            return verb
        if verb not in ("meld", "add", "swap", "discard"):
            raise IllegalMove(f"unknown move '{words[0]}': use draw, take, meld, add, swap, discard or commit",
                              "konkan.unknown_verb", word=words[0])
        if phase == "draw":
            raise IllegalMove("first draw from the stock or take the discard", "konkan.draw_first")
        if verb == "discard":
            if len(words) != 2:
                raise IllegalMove("write: discard CARD, e.g. discard 7H", "canasta.discard_syntax")
            card, stands = parse_token(words[1])
            if stands is not None:
                raise IllegalMove("write the discarded card plainly, e.g. discard 7H", "konkan.discard_plain")
            return _check_discard(state, seat, card)
        if phase == "first":
            raise IllegalMove("the first turn of a round is a discard only", "konkan.first_turn_discard")
        if verb == "meld":
            return _check_meld(state, seat, _parse_groups(words[1:]))
        if verb == "add":
            syntax = IllegalMove("write: add C [C ...] to N, e.g. add 8H to 2", "konkan.add_syntax")
            tokens, number = _parse_target(words[1:], "to", state, syntax)
            return _check_add(state, seat, tokens, number)
        syntax = IllegalMove("write: swap C [C] for N, e.g. swap 7H for 3", "konkan.swap_syntax")
        tokens, number = _parse_target(words[1:], "for", state, syntax)
        if any(stands is not None or card == JOKER for card, stands in tokens):
            raise IllegalMove("name the real card(s) that replace the joker, e.g. swap 7H for 3", "konkan.swap_real")
        return _check_swap(state, seat, [card for card, _ in tokens], number)

    def _play(self, state: State, seat: int, move: str) -> None:
        words = move.split()
        verb = words[0]
        state["last_move"] = {"seat": seat, "move": move}
        hand = state["hands"][seat]
        if verb == "commit":
            state["committed"][seat] = True
        elif verb == "draw":
            hand.append(state["stock"].pop(0))
            state["phase"] = "play"
        elif verb == "take":
            card = state["discard"].pop(0)
            hand.append(card)
            state["must_use"] = None if state["committed"][seat] else card
            state["phase"] = "play"
        elif verb == "discard":
            hand.remove(words[1])
            state["discard"].insert(0, words[1])
            state["turns"][seat] += 1
            if not hand:
                _end_round(state, seat)
            else:
                _begin_turn(state, (seat + 1) % state["players"])
        elif verb == "meld":
            groups = [part.split() for part in move[len("meld "):].split(" | ")]
            for cards in groups:
                state["melds"].append({"seat": seat, "kind": read_meld(tokens_of(cards)).kind, "cards": cards})
            _take_from_hand(state, seat, [card for cards in groups for card in cards], seat)
        elif verb == "add":
            number = int(words[-1])
            meld = state["melds"][number - 1]
            added = words[1:-2]
            meld["cards"] = list(lay_off(meld["cards"], tokens_of(added)).cards)
            _take_from_hand(state, seat, added, meld["seat"])
        elif verb == "swap":
            number = int(words[-1])
            meld = state["melds"][number - 1]
            given = words[1:-2]
            meld["cards"] = list(swapped(meld["cards"], given))
            waiting = state["must_use"]
            _take_from_hand(state, seat, given, meld["seat"])
            state["must_use"] = waiting  # a swap does not use the taken card: the next meld or lay-off must
            hand.append(JOKER)

    # ---- information ----------------------------------------------------------------------------------------
    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        players = state["players"]
        pile = state["discard"]
        opened = _opened(state)
        mine = seat is not None and 0 <= seat < players
        return {
            "game": state["game"],
            "seat": seat,
            "players": players,
            "variant": state["options"]["variant"],
            "minimum": MINIMUMS[state["options"]["variant"]],
            "round": state["round"],
            "rounds": ROUNDS,
            "final_round": state["round"] >= ROUNDS,
            "dealer": state["dealer"],
            "to_move": self.to_move(state),
            "turn": None if state["over"] else state["turn"],
            "phase": "over" if state["over"] else state["phase"],
            "hand": sort_cards(state["hands"][seat]) if mine else None,
            "hand_sizes": [len(hand) for hand in state["hands"]],
            "stock_size": len(state["stock"]),
            "reshuffles_left": state["reshuffles_left"],
            "discard_top": pile[0] if pile else None,
            "pile_size": len(pile),
            "melds": [
                {"number": index + 1, "seat": meld["seat"], "kind": meld["kind"], "cards": list(meld["cards"])}
                for index, meld in enumerate(state["melds"])
            ],
            "opened": opened,
            "committed": list(state["committed"]),
            "can_commit": mine and self.to_move(state) == seat and _can_commit(state, seat),
            "must_use": state["must_use"],
            "scores": list(state["scores"]),
            "history": [list(row) for row in state["history"]],
            "details": clone(state.get("round_log", [])),  # each finished round's breakdown, in order
            "last_move": dict(state["last_move"]) if state["last_move"] else None,
            "last_round": clone(state["last_round"]),
            "over": state["over"],
            "winners": list(state["winners"]),
            "konkan_winner": state["konkan_winner"],
        }

    def result(self, state: State) -> dict[str, Any]:
        return {
            "over": state["over"],
            "round": state["round"],
            "scores": list(state["scores"]),
            "history": [list(row) for row in state["history"]],
            "winners": list(state["winners"]),
            "draw": False,
            "konkan_winner": state["konkan_winner"],
        }


# ---- questions about the position -----------------------------------------------------------------------------
def _opened(state: State) -> list[bool]:
    seats = {meld["seat"] for meld in state["melds"]}
    return [seat in seats for seat in range(state["players"])]


def _minimum(state: State) -> int:
    return MINIMUMS[state["options"]["variant"]]


def _counts(cards: list[str]) -> Counter:
    return Counter(JOKER if is_joker(card) else card for card in cards)


def _commit_refusal(state: State, seat: int) -> IllegalMove | None:
    """Why `seat` may not commit to Konkan now (the refusal, for the caller to raise), or None."""
    if state["round"] < ROUNDS:
        return IllegalMove(f"you can commit to Konkan only in the final round (round {ROUNDS} or an extra round)",
                           "konkan.commit_final_round", round=ROUNDS)
    if state["committed"][seat]:
        return IllegalMove("you have already committed to Konkan", "konkan.already_committed")
    if state["turns"][seat] > 0 or state["phase"] == "play":
        return IllegalMove("commit on your first turn of the round, before drawing", "konkan.commit_first_turn")
    return None


def _can_commit(state: State, seat: int) -> bool:
    return _commit_refusal(state, seat) is None


def _discards(hand: list[str]) -> list[str]:
    cards = sorted(set(hand), key=card_key)
    plain = [card for card in cards if card != JOKER]
    return [f"discard {card}" for card in (plain or cards)]


# ---- move text ------------------------------------------------------------------------------------------------
def _group_key(meld: Meld) -> tuple[int, int, int]:
    reals = [card for card in meld.cards if not is_joker(card)]
    first = meld.cards[0][2:] if is_joker(meld.cards[0]) else meld.cards[0]
    if meld.kind == "run":
        return (0, SUIT_ORDER[first[1]], rank_number(first))
    return (1, rank_number(reals[0]), 0)


def _meld_text(melds: list[Meld]) -> str:
    return "meld " + " | ".join(meld.text() for meld in sorted(melds, key=_group_key))


def _parse_groups(words: list[str]) -> list[list[Token]]:
    groups: list[list[Token]] = [[]]
    for word in words:
        if word == "|":
            groups.append([])
            continue
        groups[-1].append(parse_token(word))
    if any(not group for group in groups):
        raise IllegalMove("write melds as: meld C C C [| C C C ...], e.g. meld 7H 8H 9H", "konkan.meld_syntax")
    return groups


def _parse_target(words: list[str], joiner: str, state: State, syntax: IllegalMove) -> tuple[list[Token], int]:
    """The cards and meld number of `C [C ...] <joiner> N`; `syntax` is the refusal that shows how to write it."""
    lowered = [word.lower() for word in words]
    if joiner not in lowered or lowered.index(joiner) != len(words) - 2 or lowered.index(joiner) == 0:
        raise syntax
    if not words[-1].isdigit():
        raise IllegalMove(f"'{words[-1]}' is not a meld number", "konkan.not_meld_number", word=words[-1])
    number = int(words[-1])
    if not 1 <= number <= len(state["melds"]):
        raise IllegalMove(f"there is no meld {number} on the table", "konkan.no_meld", number=number)
    return [parse_token(word) for word in words[:-2]], number


# ---- move checks (shared by parse_move and legal_moves) -------------------------------------------------------
def _use_from_hand(hand: list[str], used: Counter) -> Counter:
    """The hand left after laying `used`; IllegalMove naming a card that is not there."""
    have = _counts(hand)
    for card, number in used.items():
        if have[card] < number:
            raise IllegalMove(f"{card} is not in your hand", "not_in_hand", card=card)
    left = have - used
    if not keeps_a_discard(left):
        raise IllegalMove("keep a card to discard (the last card is always discarded, and never a joker)",
                          "konkan.keep_discard")
    return left


def _check_must_use(state: State, used: Counter, what: str) -> None:
    card = state["must_use"]
    if card is None or used[card] > 0:
        return
    if what == "opening":
        code = "konkan.must_use_opening"
    elif what == "meld":
        code = "konkan.must_use_meld"
    else:
        code = "konkan.must_use_lay_off"
    raise IllegalMove(f"you took {card} from the discard: your {what} must use it", code, card=card)


def _check_meld(state: State, seat: int, groups: list[list[Token]]) -> str:
    melds = [read_meld(group) for group in groups]
    used: Counter = Counter()
    for meld in melds:
        used += meld.use
    hand = state["hands"][seat]
    left = _use_from_hand(hand, used)
    konkan = is_konkan(melds) and sum(left.values()) == 1
    if state["committed"][seat] and not konkan:
        raise IllegalMove("you committed to Konkan: meld only the whole of it at once "
                          "(a run of 10 and a set of 4, or a run of 11 and a set of 3, keeping one card)",
                          "konkan.committed_whole")
    opened = _opened(state)[seat]
    _check_must_use(state, used, "opening" if not opened else "meld")
    if not opened and not konkan:
        worth = sum(meld.value for meld in melds)
        if worth < _minimum(state):
            raise IllegalMove(f"your first meld needs {_minimum(state)} points; this is {worth}",
                              "konkan.opening_minimum", n=_minimum(state), worth=worth)
    return _meld_text(melds)


def _check_add(state: State, seat: int, tokens: list[Token], number: int) -> str:
    if state["committed"][seat]:
        raise IllegalMove("you committed to Konkan: you may not lay off", "konkan.committed_no_lay_off")
    if not _opened(state)[seat]:
        raise IllegalMove("lay off on the table only after you have opened", "konkan.lay_off_unopened")
    if not tokens:
        raise IllegalMove("name the cards to add, e.g. add 8H to 1", "konkan.add_what")
    table = state["melds"][number - 1]["cards"]
    grown = lay_off(table, tokens)
    used = _counts([card for card, _ in tokens])
    _use_from_hand(state["hands"][seat], used)
    _check_must_use(state, used, "lay-off")
    added = list(grown.cards)
    for card in table:
        added.remove(card)
    return f"add {' '.join(added)} to {number}"


def _check_swap(state: State, seat: int, cards: list[str], number: int) -> str:
    if state["committed"][seat]:
        raise IllegalMove("you committed to Konkan: you may not swap a joker", "konkan.committed_no_swap")
    if not _opened(state)[seat]:
        raise IllegalMove("swap a joker only after you have opened", "konkan.swap_unopened")
    if not cards:
        raise IllegalMove("name the real card(s) for the joker, e.g. swap 7H for 3", "konkan.swap_what")
    cells = swapped(state["melds"][number - 1]["cards"], cards)
    hand = list(state["hands"][seat])
    have = _counts(hand)
    for card, count in Counter(cards).items():
        if have[card] < count:
            raise IllegalMove(f"{card} is not in your hand", "not_in_hand", card=card)
    left = have - Counter(cards) + Counter({JOKER: 1})
    if not keeps_a_discard(left):
        raise IllegalMove("keep a card to discard (a joker is never discarded)", "konkan.keep_discard_swap")
    if state["must_use"] is not None:
        _keep_taken_usable(state, seat, cards, number, cells)
    return f"swap {' '.join(sorted(cards, key=lambda card: SUIT_ORDER[card[1]]))} for {number}"


def _keep_taken_usable(state: State, seat: int, cards: list[str], number: int, cells: Any) -> None:
    """A swap while a taken discard waits keeps the obligation (konkan-cards.md, joker swap [decision]): refused
    when no meld or lay-off using the taken card would be left after it (the taken card given for the joker, or
    the cards it needed), since its discard would then be refused for good."""
    hand = list(state["hands"][seat])
    for card in cards:
        hand.remove(card)
    hand.append(JOKER)
    melds = [dict(meld) for meld in state["melds"]]
    melds[number - 1]["cards"] = list(cells)
    hands = list(state["hands"])
    hands[seat] = hand
    trial = {**state, "hands": hands, "melds": melds}
    if next(_each_play_move(trial, seat, swaps=False), None) is None:
        card = state["must_use"]
        raise IllegalMove(f"you took {card} from the discard: first meld it", "konkan.must_use_first", card=card)


def _check_discard(state: State, seat: int, card: str) -> str:
    if state["must_use"] is not None:
        raise IllegalMove(f"you took {state['must_use']} from the discard: meld it before you discard",
                          "konkan.must_use_discard", card=state["must_use"])
    hand = state["hands"][seat]
    if card not in hand:
        raise IllegalMove(f"{card} is not in your hand", "not_in_hand", card=card)
    if card == JOKER and any(other != JOKER for other in hand):
        raise IllegalMove("a joker is never discarded", "konkan.joker_discard")
    return f"discard {card}"


def _take_refusal(state: State, seat: int) -> IllegalMove | None:
    """Why `seat` may not take the discard now (the refusal, for the caller to raise), or None."""
    if state["phase"] != "draw":
        return IllegalMove("you may take the discard only instead of drawing", "konkan.take_instead")
    pile = state["discard"]
    if not pile:
        return IllegalMove("the discard pile is empty", "konkan.pile_empty")
    if state["committed"][seat]:
        return None
    hands = list(state["hands"])
    hands[seat] = [*hands[seat], pile[0]]
    trial = {**state, "hands": hands, "discard": pile[1:], "must_use": pile[0], "phase": "play"}
    if next(_each_play_move(trial, seat, swaps=False), None) is not None:
        return None
    if not _opened(state)[seat]:
        return IllegalMove(f"you may take {pile[0]} only to meld it at once: with your hand it makes no opening "
                           f"of {_minimum(state)} points", "konkan.take_no_opening", card=pile[0], n=_minimum(state))
    return IllegalMove(f"you may take {pile[0]} only to meld it at once, and it fits no meld with your hand",
                       "konkan.take_no_meld", card=pile[0])


# ---- move generation ------------------------------------------------------------------------------------------
def _fresh(seen: set[str], check: Any, *args: Any) -> Iterator[str]:
    """The move `check` makes of `args`, unless it is refused or already listed."""
    try:
        move = check(*args)
    except IllegalMove:
        return
    if move not in seen:
        seen.add(move)
        yield move


def _play_moves(state: State, seat: int) -> list[str]:
    """Melds (each single meld; plus the best several-meld opening and any Konkan), lay-offs, swaps, discards."""
    return list(_each_play_move(state, seat))


def _each_play_move(state: State, seat: int, swaps: bool = True) -> Iterator[str]:
    """`_play_moves` one at a time, in its order: whether there is any (may the discard be taken?) is known at
    the first, without the searches behind the rest. `swaps=False` leaves joker swaps out: taking needs a meld or
    lay-off using the card at once, and a swap made while it waits must leave one."""
    hand = state["hands"][seat]
    seen: set[str] = set()
    single = False  # a single meld is listed: the several-meld opening is not searched
    opened = _opened(state)[seat]
    committed = state["committed"][seat]
    forced = state["must_use"]
    konkan = find_konkan(hand)
    if konkan:
        for move in _fresh(seen, _check_meld, state, seat, [tokens_of(meld.cards) for meld in konkan]):
            single = single or (move.startswith("meld") and "|" not in move)
            yield move
    if committed:
        yield from _discards(hand)
        return
    for meld in candidate_melds(hand):
        if forced is None or forced in meld.use:
            for move in _fresh(seen, _check_meld, state, seat, [tokens_of(meld.cards)]):
                single = single or (move.startswith("meld") and "|" not in move)
                yield move
    if not opened and not single:
        best = best_opening(hand, _minimum(state), forced=forced)
        if best:
            yield from _fresh(seen, _check_meld, state, seat, [tokens_of(meld.cards) for meld in best])
    if opened:
        for number, meld in enumerate(state["melds"], start=1):
            for tokens in _lay_off_options(meld["cards"], hand):
                if forced is None or any(card == forced for card, _ in tokens):
                    yield from _fresh(seen, _check_add, state, seat, tokens, number)
            needs = swap_needs(meld["cards"])
            if needs and swaps:
                yield from _fresh(seen, _check_swap, state, seat, needs, number)
    if forced is None:
        yield from _discards(hand)


def _lay_off_options(table: list[str], hand: list[str]) -> list[list[Token]]:
    """Card groups from the hand that could grow a table meld (checked again by `_check_add`)."""
    counts = _counts(hand)
    jokers = counts[JOKER] > 0 and not any(is_joker(card) for card in table)
    meld = read_meld(tokens_of(table))
    out: list[list[Token]] = []
    if meld.kind == "set":
        rank = next(card for card in table if not is_joker(card))[0]
        missing = [rank + suit for suit in "SHDC" if rank + suit not in table and counts[rank + suit]]
        room = 4 - len(table)
        for size in range(1, room + 1):
            for picked in combinations(missing, size):
                out.append([(card, None) for card in picked])
            if jokers:
                for picked in combinations(missing, size - 1):
                    out.append([*((card, None) for card in picked), (JOKER, None)])
        return out
    suit = next(card for card in table if not is_joker(card))[1]
    first = table[0][2:] if is_joker(table[0]) else table[0]
    last = table[-1][2:] if is_joker(table[-1]) else table[-1]
    low = 1 if first[0] == "A" else rank_number(first)
    high = 14 if last[0] == "A" and len(table) > 1 and low != 1 else rank_number(last)
    below = [p for p in range(low - 1, 0, -1)]
    above = [p for p in range(high + 1, 15)]
    room = 13 - len(table)

    def card_at(position: int) -> str:
        return "A" + suit if position in (1, 14) else "A23456789TJQK"[position - 1] + suit

    allowed = 1 if jokers else 0  # missing cards a group may have (a joker fills one)
    for down in range(0, min(len(below), room) + 1):
        if sum(1 for p in below[:down] if not counts[card_at(p)]) > allowed:
            break  # reaching further down only misses more, whatever goes up
        for up in range(0, min(len(above), room - down) + 1):
            if down + up == 0:
                continue
            places = below[:down] + above[:up]
            missing = [p for p in places if not counts[card_at(p)]]
            if len(missing) > allowed:
                break  # reaching further up only misses more
            if missing:
                out.append([(JOKER, card_at(p)) if p == missing[0] else (card_at(p), None) for p in places])
                continue
            out.append([(card_at(p), None) for p in places])
            if jokers:
                for joker_at in places:
                    out.append([(JOKER, card_at(p)) if p == joker_at else (card_at(p), None) for p in places])
    return out


# ---- laying cards, turns, dealing, scoring --------------------------------------------------------------------
def _take_from_hand(state: State, seat: int, cards: list[str], owner: int) -> None:
    """Lay `cards` from the hand onto a meld of `owner`, keeping what judging a Hand and a Konkan needs: how many
    lay-downs the seat made this round, in which of its turns the first, and whether it touched others' melds."""
    hand = state["hands"][seat]
    for card in cards:
        hand.remove(JOKER if is_joker(card) else card)
    if state["must_use"] is not None and state["must_use"] in cards:
        state["must_use"] = None
    if state["laid"][seat] == 0:
        state["first_lay"][seat] = state["turns"][seat]
    state["laid"][seat] += 1
    state["touched"][seat] = state["touched"][seat] or owner != seat


def _begin_turn(state: State, seat: int, first: bool = False) -> None:
    state["turn"] = seat
    state["must_use"] = None
    state["phase"] = "first" if first else "draw"
    if first or state["stock"]:
        return
    pile = state["discard"]
    if state["reshuffles_left"] > 0 and len(pile) > 1:
        state["rng"], stock = rng.shuffled(state["rng"], pile[1:])
        state["stock"] = stock
        state["discard"] = pile[:1]
        state["reshuffles_left"] -= 1
        return
    _end_round(state, None)


def _deal(state: State) -> None:
    players = state["players"]
    state["rng"], deck = rng.shuffled(state["rng"], DECK)
    first = (state["dealer"] + 1) % players
    hands: list[list[str]] = [[] for _ in range(players)]
    position = 0
    for _ in range(HAND_SIZE):
        for step in range(players):
            hands[(first + step) % players].append(deck[position])
            position += 1
    hands[first].append(deck[position])
    _start_round(state, hands, deck[position + 1:], [], [])


def _start_round(state: State, hands: list[list[str]], stock: list[str], pile: list[str], melds: list) -> None:
    players = state["players"]
    state.update(
        hands=hands,
        stock=stock,
        discard=pile,
        melds=melds,
        reshuffles_left=RESHUFFLES,
        committed=[False] * players,
        turns=[0] * players,
        laid=[0] * players,
        opened_before=[any(meld["seat"] == seat for meld in melds) for seat in range(players)],
        first_lay=[None] * players,
        touched=[False] * players,
        must_use=None,
    )
    _begin_turn(state, (state["dealer"] + 1) % players, first=True)


def _from_layout(state: State, layout: dict[str, Any]) -> None:
    players = state["players"]
    unknown = sorted(set(layout) - _LAYOUT_KEYS)
    if unknown:
        raise ValueError(f"unknown layout key(s) for konkan_cards: {', '.join(unknown)}")

    def cards_of(items: Any, what: str) -> list[str]:
        out = []
        for item in items or []:
            try:
                card, stands = parse_token(str(item))
            except IllegalMove as error:
                raise ValueError(f"{what}: {error.reason}") from None
            if stands is not None:
                raise ValueError(f"{what}: only a meld's joker says what it stands for")
            out.append(card)
        return out

    hands = [cards_of(hand, "hands") for hand in (layout.get("hands") or [[] for _ in range(players)])]
    if len(hands) != players:
        raise ValueError(f"a {players}-player layout needs {players} hands")
    melds = []
    for meld in layout.get("melds") or []:
        seat = int(meld.get("seat", 0))
        if not 0 <= seat < players:
            raise ValueError(f"melds: seat {seat} is not at this table")
        try:
            read = read_meld([parse_token(str(item)) for item in meld.get("cards") or []])
        except IllegalMove as error:
            raise ValueError(f"melds: {error.reason}") from None
        melds.append({"seat": seat, "kind": read.kind, "cards": list(read.cards)})
    stock = cards_of(layout.get("stock"), "stock")
    pile = cards_of(layout.get("discard"), "discard")
    everything = stock + pile + [card for hand in hands for card in hand]
    everything += [card for meld in melds for card in meld["cards"]]
    check_deck(everything)
    scores = [int(score) for score in (layout.get("scores") or [0] * players)]
    if len(scores) != players:
        raise ValueError(f"scores: one total per seat ({players} numbers)")
    state["round"] = int(layout.get("round", 1))
    if state["round"] < 1:
        raise ValueError("round: rounds count from 1")
    state["scores"] = scores
    state["dealer"] = int(layout.get("dealer", players - 1)) % players
    _start_round(state, hands, stock, pile, melds)


def _end_round(state: State, went_out: int | None) -> None:
    by_hand = went_out is not None and state["laid"][went_out] == 1 and not state["opened_before"][went_out]
    konkan = went_out is not None and _laid_a_konkan(state, went_out)
    final = state["round"] >= ROUNDS
    committed_win = konkan and state["committed"][went_out] and final
    opened = _opened(state)
    like_hand = by_hand or (konkan and not final)
    points, detail = round_points(state["hands"], opened, state["committed"], went_out, like_hand)
    state["history"].append(points)
    state["scores"] = [before + gained for before, gained in zip(state["scores"], points, strict=True)]
    state["last_round"] = {
        "round": state["round"],
        "went_out": went_out,
        "void": went_out is None,
        "hand": by_hand,
        "konkan": konkan,
        "committed_konkan": committed_win,
        "points": points,
        "detail": detail,
        "left": [sort_cards(hand) for hand in state["hands"]],
        "totals": list(state["scores"]),
    }
    state.setdefault("round_log", []).append(clone(state["last_round"]))
    state["must_use"] = None
    scores = state["scores"]
    if committed_win:
        _finish(state, [went_out])
        state["konkan_winner"] = went_out
        return
    if state["round"] >= ROUNDS:
        low = min(scores)
        leaders = [seat for seat, score in enumerate(scores) if score == low]
        if len(leaders) == 1:
            _finish(state, leaders)
            return
    state["round"] += 1
    state["dealer"] = (state["dealer"] + 1) % state["players"]
    _deal(state)


def _laid_a_konkan(state: State, seat: int) -> bool:
    """The seat went out laying all its melds in this, its last turn (one move or several), on nobody else's
    melds, and they are a run of 10 with a set of 4 or a run of 11 with a set of 3."""
    if state["opened_before"][seat] or state["touched"][seat] or state["first_lay"][seat] != state["turns"][seat] - 1:
        return False
    melds = [read_meld(tokens_of(meld["cards"])) for meld in state["melds"] if meld["seat"] == seat]
    return is_konkan(melds)


def _finish(state: State, winners: list[int]) -> None:
    state["over"] = True
    state["winners"] = winners
    state["phase"] = "over"


GAME = KonkanCardsGame()

__all__ = ["GAME", "KonkanCardsGame", "MINIMUMS", "RESHUFFLES", "ROUNDS"]
