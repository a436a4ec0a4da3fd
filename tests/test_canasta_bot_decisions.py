"""The Canasta normal bot keeps the plan its docstring promises (engine/canasta/bots.py): take the pile whenever it
may, meld a taken top card with naturals rather than wild cards, go out as soon as the whole hand can be melded,
and discard what the opponents can least use (black 3s first, never a wild card, never a rank they melded)."""

import random

import pytest

import engine
from engine.bots import get

GAME = engine.get("canasta")
BOT = get("canasta", "normal")


def four(hands, **layout):
    hands = list(hands) + [[] for _ in range(4 - len(hands))]
    return GAME.new(4, {}, layout={"hands": hands, "dealer": 3, **layout})


def choice(state, seed=0):
    seat = GAME.to_move(state)
    return BOT.choose(GAME.view(state, seat), GAME.legal_moves(state, seat), random.Random(seed))


def test_no_legal_move_is_an_error():
    with pytest.raises(ValueError, match="^no legal move to choose from$"):
        BOT.choose(GAME.view(four([["5S"]], stock=["4C"], discard=["QC"]), 0), [], random.Random(0))


def test_takes_the_pile_whenever_it_may_else_draws():
    eights = [{"team": 0, "cards": ["8S", "8H", "8D"]}]
    takes = four([["9H", "9D", "5S", "KC"]], stock=["4C"], discard=["9S", "4D"], melds=eights)
    assert GAME.legal_moves(takes, 0) == ["draw", "take"]
    assert choice(takes) == "take"
    draws = four([["9H", "5S", "KC"]], stock=["4C"], discard=["QS", "4D"])
    assert choice(draws) == "draw"


def test_with_the_stock_gone_it_takes_rather_than_passes():
    melds = [{"team": 0, "cards": ["9S", "9H", "9C"]}]
    state = four([["5S", "5H", "KC", "KD"]], stock=[], discard=["5D", "4D"], melds=melds)
    assert GAME.legal_moves(state, 0) == ["take", "pass"]
    assert choice(state) == "take"


def test_melds_a_taken_top_card_with_naturals_not_wild_cards():
    eights = [{"team": 0, "cards": ["8S", "8H", "8D"]}]
    state = four([["9H", "9D", "X", "2C", "5S", "KC"]], stock=["4C"], discard=["9S", "4D", "6D"], melds=eights)
    state = GAME.apply(state, 0, "take")
    legal = GAME.legal_moves(state, 0)
    assert "meld 9S 9H 9D" in legal and any("X" in move for move in legal)
    for seed in range(5):
        assert choice(state, seed) == "meld 9S 9H 9D"


def test_goes_out_concealed_when_the_whole_hand_melds():
    """Unopened, after a stock draw: the bot lays every meld at once (ranks in order) and goes out."""
    aces = ["AS", "AS", "AH", "AH", "AD", "AD", "AC"]
    state = GAME.apply(four([aces + ["5S", "5H"]], stock=["5D", "8C"], discard=["QC"]), 0, "draw")
    move = choice(state)
    assert move == "meld 5S 5H 5D | AS AS AH AH AD AD AC"
    after = GAME.apply(state, 0, move)
    assert after["last_hand"]["went_out"] == 0 and after["last_hand"]["concealed"]


def test_discards_a_black_three_first_and_never_a_wild_card():
    melds = [{"team": 0, "cards": ["9S", "9H", "9C"]}]
    state = GAME.apply(four([["X", "2C", "3S", "KC", "7D"]], stock=["4C"], discard=["QC"], melds=melds), 0, "draw")
    assert choice(state) == "discard 3S"
    state = GAME.apply(four([["X", "2C", "KC", "7D"]], stock=["4C"], discard=["QC"], melds=melds), 0, "draw")
    assert choice(state) not in ("discard X", "discard 2C")


def test_does_not_discard_a_rank_the_opponents_melded():
    """KD is otherwise the cheapest discard to give up (a lone 10-point card), but the opponents melded kings."""
    melds = [{"team": 0, "cards": ["9S", "9H", "9C"]}]
    plain = GAME.apply(four([["KD", "5H", "6S", "4D"]], stock=["7C"], discard=["JC"], melds=melds), 0, "draw")
    assert choice(plain) == "discard KD"
    melds.append({"team": 1, "cards": ["KS", "KH", "KC"]})
    theirs = GAME.apply(four([["KD", "5H", "6S", "4D"]], stock=["7C"], discard=["JC"], melds=melds), 0, "draw")
    assert choice(theirs) != "discard KD"


def test_the_partner_answers_with_a_legal_reply():
    melds = [{"team": 0, "cards": ["KS"] * 2 + ["KH"] * 2 + ["KD"] * 2 + ["KC"]},
             {"team": 0, "cards": ["9S", "9H", "9D"]}]
    for partner in (["4S"], ["AS", "AH", "AD", "AC", "X", "X"]):
        state = four([["5S", "5H", "5D", "9C"], [], partner], stock=["4C", "8C"], discard=["QC"], melds=melds)
        state = GAME.apply(GAME.apply(state, 0, "draw"), 0, "ask")
        assert GAME.to_move(state) == 2
        assert choice(state) in GAME.legal_moves(state, 2)


def test_an_opened_team_goes_out_in_the_same_turn():
    """With a canasta on the table and a hand that melds whole (add 9C, meld the 5s, discard 4C), the bot goes
    out before the turn passes."""
    melds = [{"team": 0, "cards": ["KS"] * 2 + ["KH"] * 2 + ["KD"] * 2 + ["KC"]},
             {"team": 0, "cards": ["9S", "9H", "9D"]}]
    state = four([["5S", "5H", "5D", "9C"]], stock=["4C", "8C"], discard=["QC"], melds=melds)
    state = GAME.apply(state, 0, "draw")
    while state["round"] == 1:
        assert GAME.to_move(state) == 0
        state = GAME.apply(state, 0, choice(state))
    assert state["last_hand"]["went_out"] == 0 and not state["last_hand"]["concealed"]



NINES = [{"team": 0, "cards": ["9S", "9H", "9D"]}]


def drawn(hand, melds, stock=("4C",)):
    return GAME.apply(four([hand], stock=list(stock) + ["8C"], discard=["JC"], melds=melds), 0, "draw")


def test_lays_a_natural_on_its_teams_meld_at_once():
    assert choice(drawn(["9C", "KD", "QH", "6S", "7D"], NINES)) == "add 9C to 1"


def test_melds_naturals_while_keeping_cards_for_the_next_pile():
    """Three 5s with five cards to spare: meld them; with only two left after: keep them (pairs take piles)."""
    assert choice(drawn(["5S", "5H", "5D", "KD", "QH", "6S", "7D"], NINES, stock=("JD",))) == "meld 5S 5H 5D"
    assert not choice(drawn(["5S", "5H", "5D", "KD"], NINES)).startswith("meld")


def test_a_wild_card_goes_on_a_meld_only_to_make_a_canasta():
    six = [{"team": 0, "cards": ["9S", "9S", "9H", "9H", "9D", "9D"]}]
    assert choice(drawn(["X", "KD", "QH", "6S", "7D"], six)) == "add X to 1"
    assert choice(drawn(["X", "KD", "QH", "6S", "7D"], NINES)) != "add X to 1"
