"""Tunj layouts (NOTATION.md, "layout") and what a refused attempt says: a layout the rules forbid is refused with a
ValueError naming what is wrong; each card of a layout belongs to one of the two decks (rules/tunj.md: each player
has their own deck), and an attempt's claim names the pile it could not go on."""

import pytest

import engine
from engine.tunj.deal import deck_contents

GAME = engine.get("tunj")
KINGS = ["KS", "KH", "KD", "KC"]


def layout(**given):
    base = {"reserves": [["QD"], ["QS"]], "hands": [["5H"], ["5C"]]}
    base.update(given)
    return base


def houses(**given):
    """Eight houses of lone kings, some replaced (bottom first)."""
    out = {f"H{i}": [KINGS[(i - 1) % 4]] for i in range(1, 9)}
    out.update(given)
    return [out[f"H{i}"] for i in range(1, 9)]


@pytest.mark.parametrize(
    ("given", "match"),
    [
        ({"tableau": [], "colour": 1}, r"^unknown layout key\(s\) for tunj: colour, tableau$"),
        ({"houses": [[]] * 4}, r"^layout 'houses' needs 8 lists, bottom first$"),
        ({"foundations": [[]] * 9}, r"^layout 'foundations' needs 8 lists, bottom first$"),
        ({"foundations": [["AS", "3S"]] + [[]] * 7}, r"^foundation F1 must go up by suit from the ace"),
        ({"reserves": [["X"], ["QS"]]}, r"^Tunj is played without jokers$"),
        ({"hands": [["5H"], ["x"]]}, r"^Tunj is played without jokers$"),
        ({"to_move": 2}, r"^layout 'to_move' must be 0 or 1$"),
        ({"reserves": [["QD"], ["QS"], ["KS"]]}, r"^layout 'reserves' needs one list per seat, top first$"),
        ({"wastes": [["QD"]]}, r"^layout 'wastes' needs one list per seat, top first$"),
    ],
)
def test_bad_layouts_are_refused_saying_why(given, match):
    with pytest.raises(ValueError, match=match):
        GAME.new(2, layout=layout(**given))


def test_layout_cards_belong_to_the_seat_whose_piles_they_lie_in():
    """Reserve, hand and waste of a seat, and its four houses (H1-H4 seat 0, H5-H8 seat 1), come from its deck."""
    state = GAME.new(2, layout=layout(reserves=[["2C"], ["3C"]], hands=[["4C"], ["5C"]], wastes=[["6C"], ["7C"]],
                                      houses=houses(H1=["9D"], H4=["8D"], H5=["7D"], H8=["6D"])))
    owners = state["owners"]
    assert owners["R0"] == [0] and owners["N0"] == [0] and owners["W0"] == [0]
    assert owners["R1"] == [1] and owners["N1"] == [1] and owners["W1"] == [1]
    assert [owners[f"H{i}"] for i in range(1, 9)] == [[0]] * 4 + [[1]] * 4
    decks = deck_contents(state)
    assert decks[0]["9D"] == 1 and decks[1]["6D"] == 1 and decks[0]["6D"] == 0


def test_no_deck_holds_a_code_twice():
    """Two copies in one seat's pile, or on foundations (nobody's pile), go one to each deck."""
    state = GAME.new(2, layout=layout(reserves=[["QD", "QD"], ["QS"]],
                                      foundations=[["AS"], ["AS"], ["AH"]] + [[]] * 5))
    decks = deck_contents(state)
    assert decks[0]["AS"] == 1 and decks[1]["AS"] == 1
    assert decks[0]["QD"] == 1 and decks[1]["QD"] == 1
    assert decks[0]["AH"] + decks[1]["AH"] == 1
    assert all(count <= 1 for deck in decks for count in deck.values())


@pytest.mark.parametrize(
    ("dst", "pile", "text"),
    [
        ("OR", "reserves", "8S cannot load 8C on the opponent's reserve (same suit, one rank up or down)"),
        ("OW", "wastes", "8S cannot load 8C on the opponent's waste (same suit, one rank up or down)"),
    ],
)
def test_a_wrong_load_names_the_opponents_pile(dst, pile, text):
    given = {"reserves": [["QD"], ["8C", "2D"] if pile == "reserves" else ["2D"]],
             "wastes": [[], ["8C"]] if pile == "wastes" else [[], []]}
    state = GAME.new(2, layout=layout(houses=houses(H3=["8S"]), to_move=0, **given))
    claim = GAME.view(GAME.apply(state, 0, f"move H3 {dst}"), None)["claim"]
    assert claim["open"] and claim["broke"] == [text]


def test_loading_an_empty_waste_names_it():
    state = GAME.new(2, layout=layout(houses=houses(H1=["7C"]), to_move=0))
    claim = GAME.view(GAME.apply(state, 0, "move H1 OW"), None)["claim"]
    assert claim["broke"] == ["the opponent's waste is empty and cannot be loaded"]


def test_a_wrong_house_or_foundation_names_that_pile():
    state = GAME.new(2, layout=layout(houses=houses(H1=["7C"], H2=["8S"]), to_move=0))
    claim = GAME.view(GAME.apply(state, 0, "move H1 H2"), None)["claim"]
    assert claim["broke"] == ["7C cannot go on 8S in H2 (one rank down, other colour)"]
    claim = GAME.view(GAME.apply(state, 0, "move R F3"), None)["claim"]
    assert claim["broke"] == ["QD cannot go on foundation F3 (an ace starts it, then the same suit one rank up)"]


# ---- what cannot be attempted, word for word (reason, code and parameters the bot translates) ---------------
@pytest.mark.parametrize(
    ("text", "reason", "code", "params"),
    [
        ("move H9 F1", "there is no pile H9 to move from (R, T or H1-H8)", "tunj.no_source", {"pile": "H9"}),
        ("move R F0", "there is no pile F0 to move to (F1-F8, H1-H8, OR or OW)", "tunj.no_target", {"pile": "F0"}),
        ("play 7H", "'play 7H' is not a Tunj move (e.g. 'move R F1', 'move H2 H5', 'move H3:2 H7', 'move T OR', "
         "'turn')", "tunj.syntax", {"text": "play 7H"}),
        ("move H1 H1", "H1 is both the source and the target", "tunj.same_pile", {"pile": "H1"}),
        ("move R:2 H1", "only a house can give a run of several cards (move Hn:k TO)", "tunj.run_source", {}),
        ("move H1:1 H2", "a run needs k >= 2 cards (move Hn:k TO); move one card as 'move Hn TO'", "tunj.run_size",
         {}),
        ("move H1:9 H2", "house H1 has only 2 card(s)", "tunj.run_too_long", {"pile": "H1", "n": 2}),
        ("tunj", "there is no claim to call: 'tunj' only answers a move that broke a rule", "tunj.no_claim", {}),
        ("move T H1", "you have no turned card", "tunj.no_turned", {}),
        ("move H3 H1", "house H3 is empty", "tunj.house_empty", {"pile": "H3"}),
    ],
)
def test_refusals_word_for_word(text, reason, code, params):
    state = GAME.new(2, layout=layout(houses=houses(H1=["3D", "2C"], H2=["TC"], H3=[]), to_move=0))
    with pytest.raises(engine.IllegalMove) as caught:
        GAME.apply(state, 0, text)
    assert (caught.value.reason, caught.value.code, caught.value.params) == (reason, code, params)
