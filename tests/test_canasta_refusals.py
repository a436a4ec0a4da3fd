"""Canasta refusals word for word (NOTATION.md: `parse_move`/`apply` raise IllegalMove(reason)): the English reason a
player reads, and the code and parameters the bot translates it from. Each names the rule the move breaks."""

import pytest

import engine
from engine import IllegalMove

GAME = engine.get("canasta")
OPENED = [{"team": 0, "cards": ["8S", "8H", "8D"]}]


def four(hands, **layout):
    hands = list(hands) + [[] for _ in range(4 - len(hands))]
    return GAME.new(4, {}, layout={"hands": hands, "dealer": 3, **layout})


def after_draw():
    """Seat 0 (team 0, meld 2 of 7s) has drawn; team 1 has meld 1 of 8s."""
    melds = [{"team": 1, "cards": ["8S", "8H", "8D"]}, {"team": 0, "cards": ["7S", "7H", "X:7D"]}]
    hands = [["7C", "9S", "9H", "TD", "KS", "5C", "X"], ["QS", "QH", "4S"], ["AS", "AH"], ["JS", "JD"]]
    state = GAME.new(4, {}, layout={"hands": hands, "stock": ["TH", "6C"], "discard": ["9D", "4H"], "melds": melds,
                                    "dealer": 3})
    return state, GAME.apply(state, 0, "draw")


def refusal(state, seat, text):
    with pytest.raises(IllegalMove) as caught:
        GAME.apply(state, seat, text)
    return caught.value.reason, caught.value.code, caught.value.params


@pytest.mark.parametrize(
    ("text", "reason", "code", "params"),
    [
        ("", "empty move", "canasta.empty_move", {}),
        ("jump", "unknown move 'jump': use meld, add, discard or ask", "canasta.unknown_verb", {"word": "jump"}),
        ("take", "you have already drawn this turn: meld, add or discard", "canasta.already_drew", {}),
        ("discard QS", "QS is not in your hand", "not_in_hand", {"card": "QS"}),
        ("discard X:7H", "write the discarded card plainly, e.g. discard X", "canasta.discard_plain", {}),
        ("discard", "write: discard CARD, e.g. discard 7H", "canasta.discard_syntax", {}),
        ("add 7C to 9", "there is no meld 9 on the table", "canasta.no_meld", {"number": 9}),
        ("add 7C to 1", "meld 1 belongs to the other team", "canasta.other_team_meld", {"number": 1}),
        ("add 9S to 2", "meld 2 is a meld of 7s: 9S does not fit", "canasta.meld_rank_card",
         {"number": 2, "rank": "7", "card": "9S"}),
        ("add 7C", "write: add C [C ...] to N, e.g. add 7H X to 2", "canasta.add_syntax", {}),
        ("add 7C to x", "'x' is not a meld number", "canasta.not_meld_number", {"word": "x"}),
        ("add X:9S to 2", "meld 2 is a meld of 7s, not 9s", "canasta.meld_rank_stands",
         {"number": 2, "rank": "7", "other": "9"}),
        ("meld 9S 9H |", "write melds as: meld C C C [| C C C ...], e.g. meld 7H 7S X", "canasta.meld_syntax", {}),
        ("meld 7C 7C X", "your team already has a meld of 7s: add to meld 2", "canasta.rank_melded",
         {"rank": "7", "number": 2}),
        ("meld 9S 9H X | 9S X 2C", "a team melds 9s only once: put them in one meld", "canasta.rank_twice",
         {"rank": "9"}),
        ("meld X 2C 2D", "there is no meld of wild cards only: a meld needs two natural cards", "canasta.wilds_only",
         {}),
        ("meld 9S 9H", "a meld needs at least three cards", "canasta.three_cards", {}),
        ("meld 9S X X", "a meld needs at least two natural cards", "canasta.two_naturals", {}),
        ("meld 9S 7C X", "a meld holds cards of one rank only (no runs in Canasta)", "canasta.one_rank", {}),
        ("meld X:3S 9S 9H", "a wild card stands for a natural card from 4 to ace, not 3S", "canasta.wild_target",
         {"card": "3S"}),
        ("ask extra", "write just: ask", "canasta.ask_syntax", {}),
        ("answer yes", "nobody is waiting for an answer", "canasta.no_question", {}),
    ],
)
def test_play_phase_refusals(text, reason, code, params):
    assert refusal(after_draw()[1], 0, text) == (reason, code, params)


def test_draw_phase_refusals():
    state = after_draw()[0]
    assert refusal(state, 1, "draw") == ("it is not your turn", "not_your_turn", {})
    assert refusal(state, 0, "discard KS") == ("first draw from the stock or take the discard pile",
                                               "canasta.draw_first", {})
    assert refusal(state, 0, "hello") == ("start your turn with draw or take (or pass once the stock is empty)",
                                          "canasta.start_turn", {})
    assert refusal(state, 0, "pass") == ("pass is only for the end of the stock: draw or take", "canasta.pass_early",
                                         {})


@pytest.mark.parametrize(
    ("hand", "layout", "reason", "code", "params"),
    [
        (["5S", "9C"], {"discard": []}, "the discard pile is empty", "canasta.pile_empty", {}),
        (["5S", "9C"], {"discard": ["3S", "9H"]}, "a black 3 on top blocks the discard pile", "canasta.black3_blocks",
         {}),
        (["5S", "9C"], {"discard": ["2S", "9H"]}, "2S on top cannot be melded, so the pile cannot be taken",
         "canasta.top_unmeldable", {"card": "2S"}),
        (["9C"], {"discard": ["9H"], "melds": OPENED}, "with one card left you may not take a pile of one card",
         "canasta.last_card_pile", {}),
        (["9C", "X", "5S"], {"discard": ["9H", "X"], "melds": OPENED},
         "the pile is frozen: you need two natural 9s in hand to meld 9H", "canasta.take_frozen",
         {"rank": "9", "card": "9H", "n": 50}),
        (["9C", "X", "5S"], {"discard": ["9H", "4D"]},
         "your team has not melded yet: you need two natural 9s in hand to meld 9H for at least 50 points",
         "canasta.take_unopened", {"rank": "9", "card": "9H", "n": 50}),
        (["9C", "X", "5S"], {"discard": ["9H", "X"], "scores": [1600, 0]},
         "the pile is frozen: you need two natural 9s in hand to meld 9H for at least 90 points",
         "canasta.take_frozen_unopened", {"rank": "9", "card": "9H", "n": 90}),
        (["5C", "5S"], {"discard": ["9H", "4D"], "melds": OPENED},
         "you cannot meld 9H from your hand, so you may not take the pile", "canasta.take_cannot_meld",
         {"card": "9H"}),
    ],
)
def test_take_refusals(hand, layout, reason, code, params):
    state = four([hand], **{"stock": ["4C"], **layout})
    assert refusal(state, 0, "take") == (reason, code, params)


def test_refusals_once_the_stock_is_gone():
    must = four([["9C", "9S", "5S"]], stock=[], discard=["8C", "4D"], melds=OPENED)
    assert refusal(must, 0, "pass") == ("the top card fits one of your team's melds: with the stock gone you must "
                                        "take it", "canasta.must_take", {})
    assert refusal(must, 0, "draw") == ("the stock is empty: take the discard or pass", "canasta.stock_empty", {})
