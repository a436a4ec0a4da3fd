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


def canasta_of_kings(team=0):
    return {"team": team, "cards": ["KS"] * 2 + ["KH"] * 2 + ["KD"] * 2 + ["KC"]}


def moved(state, *moves):
    for move in moves:
        state = GAME.apply(state, GAME.to_move(state), move)
    return state


@pytest.mark.parametrize(
    ("hand", "layout", "moves", "text", "reason", "code", "params"),
    [
        # NOTATION.md: "A wild card … may say what it stands for with `:`" — only a wild card.
        (["9S", "9H", "5C"], {"melds": OPENED}, ["draw"], "meld 9S 9H 5C:9D",
         "only a wild card can stand for another ('5C:9D')", "canasta.wild_only_stands", {"token": "5C:9D"}),
        # Going out: "the team needs at least one canasta" — melding down to one card is going out's first half.
        (["9S", "9H", "9D"], {"melds": OPENED}, ["draw"], "meld 9S 9H 9D",
         "that leaves you 1 card: going out needs 1 canasta", "canasta.go_out_needs", {"left": 1, "n": 1}),
        # A player holding no card draws one: discarding it is going out, which needs a canasta.
        ([], {"melds": OPENED}, ["draw"], "discard 4C",
         "discarding your last card goes out, which needs 1 canasta", "canasta.discard_goes_out", {"n": 1}),
        # "Before going out a player may ask their partner": there is nothing to ask with a hand that cannot.
        (["KS", "5C", "9D"], {}, ["draw"], "ask",
         "you cannot go out with this hand, so there is nothing to ask", "canasta.cannot_go_out", {}),
        # The pile is frozen (a wild in it): "A frozen pile can be taken only with a natural pair of the top card's
        # rank from hand", and the top card's meld must be that pair.
        (["9S", "9H", "X", "5C"], {"melds": OPENED, "discard": ["9D", "X"]}, ["take"], "meld 9D 9S X",
         "the pile is frozen: 9D must be melded with two natural 9s from hand", "canasta.frozen_pair",
         {"card": "9D", "rank": "9"}),
        # "The top card must be used at once in a meld".
        (["9S", "9H", "5C"], {"melds": OPENED, "discard": ["9D", "4D"]}, ["take"], "discard 5C",
         "you took the pile: first meld its top card 9D", "canasta.meld_top_first", {"card": "9D"}),
        # Black 3s: "3 or 4 black 3s with no wild card".
        (["3S", "3C", "X", "5C"], {"melds": [canasta_of_kings()]}, ["draw"], "meld 3S 3C X",
         "a meld of black 3s takes no wild cards", "canasta.black3_wilds", {}),
    ],
)
def test_refusals_of_the_going_out_and_pile_rules(hand, layout, moves, text, reason, code, params):
    state = moved(four([hand], **{"stock": ["4C", "6C", "7C"], "discard": ["QC"], **layout}), *moves)
    assert refusal(state, 0, text) == (reason, code, params)


def test_duo_needs_two_canastas_to_go_out_and_says_so():
    """canasta.md, Variants: `duo` needs 2 canastas to go out."""
    state = GAME.new(2, {"variant": "duo"}, layout={"hands": [["9S", "9H", "9D"], ["5C"]], "stock": ["4C", "6C"],
                                                     "discard": ["QC"], "dealer": 1, "melds": OPENED})
    state = GAME.apply(state, 0, "draw")
    assert refusal(state, 0, "meld 9S 9H 9D") == ("that leaves you 1 card: going out needs 2 canastas",
                                                  "canasta.go_out_needs", {"left": 1, "n": 2})


def test_the_asker_and_the_partner_are_answered_by_the_rule_they_break():
    """canasta.md: "Before going out a player may ask their partner 'may I go out?'; the answer binds." Asking
    needs a hand that can go out in two steps (a meld, then the discard); after "yes" the asker must go out this
    turn, so a meld that leaves cards which cannot go out is refused."""
    hand = ["QS", "QH", "QD", "X", "5C", "5D"]
    state = moved(four([hand[:-1]], stock=["5D", "6C"], discard=["QC"], melds=[canasta_of_kings(), OPENED[0]]),
                  "draw")
    yes = moved(state, "ask", "answer yes")
    assert refusal(yes, 0, "meld QS QH QD X") == (
        "your partner said yes, so you must go out this turn; this move makes it impossible",
        "canasta.partner_yes_blocked", {})
    assert refusal(moved(state, "ask"), 2, "draw") == (
        "your partner asked to go out: reply 'answer yes' or 'answer no'", "canasta.answer_needed", {})
    one = moved(four([["8C", "8D"]], stock=["8H", "6C"], discard=["QC"], melds=[canasta_of_kings(), OPENED[0]]),
                "draw", "add 8C 8D to 2")
    assert refusal(one, 0, "ask") == ("ask with at least two cards in hand", "canasta.ask_two_cards", {})


def test_an_addition_after_yes_counts_its_wild_once():
    """After "yes" the asker must go out this turn (canasta.md: "the answer binds"), so each move is checked for
    leaving a hand that can still go out. Adding one joker to four natural 7s makes 4 naturals + 1 wild: two more
    2s make 4 + 3 = 7 cards, a mixed canasta ("at most 3 wild cards; never more wilds than naturals"), and the last
    card is discarded. Counting the added joker as two wilds would call that impossible and refuse the addition."""
    sevens = {"team": 0, "cards": ["7S", "7H", "7D", "7C"]}
    state = moved(four([["X", "2C", "2D"]], stock=["KS", "6C"], discard=["QC"], melds=[sevens]),
                  "draw", "ask", "answer yes")
    state = moved(state, "add X to 1", "add 2C 2D to 1")
    assert GAME.view(state, 0)["melds"][0]["canasta"] == "mixed"
    state = moved(state, "discard KS")
    assert GAME.view(state, None)["last_hand"]["went_out"] == 0


def test_a_mixed_canasta_lets_the_team_go_out_and_ask():
    """canasta.md: a canasta is "a meld of 7 or more cards … with a wild = mixed", and going out needs one. Five
    kings with a joker and a 2 are a canasta, so a hand that melds its three 9s and discards the last card can go
    out, and "ask" is offered and passes the move to the partner."""
    mixed = {"team": 0, "cards": ["KS", "KS", "KH", "KH", "KD", "X", "2S"]}
    state = moved(four([["9S", "9H", "9D"]], stock=["4C", "6C"], discard=["QC"], melds=[mixed]), "draw")
    assert "ask" in GAME.legal_moves(state, 0)
    asked = moved(state, "ask")
    assert GAME.to_move(asked) == 2 and GAME.view(asked, 2)["phase"] == "answer"


def test_a_take_to_open_counts_the_joker_where_only_one_wild_may_be_laid():
    """canasta.md: at 1500–2995 the first meld needs 90; "when taking the discard pile to open, only its top card
    may count toward the minimum, together with cards from hand", and the take is legal only when such a use
    exists. 5D 5S 5H (15) with A A and the joker (40 + 50) make 105 and keep 2C 9D in hand; laying the 2 as well
    would leave one card (no canasta to go out), and A A with the 2 instead of the joker makes only 75."""
    state = four([["5S", "5H", "AS", "AH", "X", "2C", "9D"]], stock=["4C", "6C"], discard=["5D"], scores=[1600, 0])
    assert GAME.legal_moves(state, 0) == ["draw", "take"]
    assert GAME.legal_moves(moved(state, "take"), 0) == ["meld 5S 5H 5D | AS AH X"]
