"""Every field of a Canasta view, by name and value (NOTATION.md: "game.view(state, seat) — JSON-safe dict of what
that seat may see; seat=None: the public view"). The chat UI and the renderer read these fields by name, so a
renamed or mis-valued field is a broken table; each value below follows from the layout and rules/canasta.md."""

from __future__ import annotations

import engine
from tests.contract import refused_reason

GAME = engine.get("canasta")


def table():
    """Four players, seat 0 to move (dealer 3). Team 0 (seats 0 and 2) at 1500 has not melded; team 1 (seats 1
    and 3) at -20 has a meld of 7s, and seats 1 and 3 a red 3 each. The pile is 9D on a 2C: a wild inside freezes it."""
    return GAME.new(4, {}, layout={
        "hands": [["KS", "KH", "5D", "9C"], ["4S", "QS", "QH"], ["AS", "AH"], ["6C", "6D"]],
        "dealer": 3, "stock": ["8D", "8C"], "discard": ["9D", "2C"],
        "melds": [{"team": 1, "cards": ["7S", "7H", "X"]}], "red3s": [[], ["3H"], [], ["3D"]], "scores": [1500, -20],
    })


def test_a_seats_view_has_every_field_with_its_value():
    """Teams are seats {0, 2} and {1, 3} (NOTATION.md); classic4 needs 1 canasta to go out and plays to 5000;
    the first-meld minimum is 90 for a team score of 1500–2995 and 15 below 0; "the pile is frozen … for
    everybody while it contains a wild card"; a red 3 is laid face up and counts for its team."""
    assert GAME.view(table(), 0) == {
        "game": "canasta", "seat": 0, "players": 4, "variant": "classic4", "target": 5000,
        "teams": [[0, 2], [1, 3]], "team": 0, "canastas_needed": 1, "round": 1, "dealer": 3,
        "to_move": 0, "turn": 0, "phase": "draw",
        "hand": ["5D", "9C", "KS", "KH"], "hand_sizes": [4, 3, 2, 2], "stock_size": 2,
        "discard_top": "9D", "pile_size": 2, "frozen": True, "frozen_for": [True, True], "pile_blocked": False,
        "melds": [{"number": 1, "team": 1, "rank": "7", "cards": ["7S", "7H", "X"], "canasta": None}],
        "opened": [False, True], "red3s": [[], ["3H"], [], ["3D"]], "team_red3s": [[], ["3H", "3D"]],
        "min_meld": [90, 15], "must_use": None, "pile_taken": 0, "taken_cards": None, "ask": None,
        "scores": [1500, -20], "history": [], "details": [], "last_move": None, "last_hand": None,
        "over": False, "winners": [],
    }


def test_the_public_view_shows_no_hand_and_no_team():
    public = GAME.view(table(), None)
    assert public["seat"] is None and public["hand"] is None and public["team"] is None
    assert public["hand_sizes"] == [4, 3, 2, 2]


def test_a_pile_without_wilds_is_frozen_only_for_the_team_that_has_not_melded():
    """"The pile is frozen for a team that has not yet melded, and for everybody while it contains a wild card or
    a red 3"; a wild on top cannot be melded, so nobody may take the pile (pile_blocked)."""
    state = GAME.new(4, {}, layout={
        "hands": [["KS", "KH", "5D", "9C"], ["4S", "QS", "QH"], ["AS", "AH"], ["6C", "6D"]],
        "dealer": 3, "stock": ["8D", "8C"], "discard": ["9D", "4C"],
        "melds": [{"team": 1, "cards": ["7S", "7H", "X"]}],
    })
    view = GAME.view(state, 1)
    assert view["frozen"] is False and view["frozen_for"] == [True, False] and view["pile_blocked"] is False
    assert view["team"] == 1 and view["hand"] == ["4S", "QS", "QH"]
    wild_top = GAME.new(4, {}, layout={"hands": [["KS"], ["4S"], ["AS"], ["6C"]], "dealer": 3, "stock": ["8D"],
                                       "discard": ["2C", "9D"]})
    assert GAME.view(wild_top, 0)["pile_blocked"] is True


def test_a_finished_match_shows_no_turn_and_the_winning_team():
    """"First team to reach the target wins": team 1 at 4940 with three aces melded (+60) reaches 5000 exactly when the
    stock is gone and seat 0 cannot take the discard ("the hand ends when a player cannot or does not take it";
    team 0 loses its K and Q left in hand, −20). Then nobody is to move: the view's turn is None."""
    state = GAME.new(4, {}, layout={"hands": [["KS", "QS"], [], [], []], "dealer": 3, "stock": [],
                                    "discard": ["5H"], "scores": [0, 4940],
                                    "melds": [{"team": 1, "cards": ["AS", "AH", "AD"]}]})
    assert GAME.legal_moves(state, 0) == ["pass"]
    view = GAME.view(GAME.apply(state, 0, "pass"), None)
    assert view["last_move"] == {"seat": 0, "move": "pass"}
    assert view["last_hand"]["points"] == [-20, 60] and view["last_hand"]["went_out"] is None
    assert view["details"] == [view["last_hand"]] and view["details"][0]["totals"] == [-20, 5000]
    assert view["over"] and view["winners"] == [1] and view["scores"] == [-20, 5000] and view["history"] == [[-20, 60]]
    assert view["turn"] is None and view["to_move"] is None and view["phase"] == "over"


def test_two_players_are_two_teams_of_one():
    """duo: "2 players", each for themself; a red 3 counts for its holder alone."""
    state = GAME.new(2, {"variant": "duo"}, layout={"hands": [["KS", "QS"], ["4S"]], "dealer": 1, "stock": ["8D"],
                                                    "discard": ["9D"], "red3s": [["3H"], []]})
    view = GAME.view(state, 1)
    assert view["teams"] == [[0], [1]] and view["team"] == 1 and view["canastas_needed"] == 2
    assert view["team_red3s"] == [["3H"], []]


def test_red_and_black_threes_on_top_block_the_pile_and_an_empty_pile_does_not():
    """"A black 3 on top: nobody may take the pile"; a red 3 cannot be melded either (bonus cards only)."""
    def blocked(discard):
        state = GAME.new(4, {}, layout={"hands": [["KS"], ["4S"], ["AS"], ["6C"]], "dealer": 3, "stock": ["8D"],
                                        "discard": discard})
        return GAME.view(state, 0)["pile_blocked"]

    assert blocked(["3S", "9D"]) is True and blocked(["3H", "9D"]) is True
    assert blocked(["9D", "3S"]) is False and blocked([]) is False


def test_the_taker_sees_the_taken_cards_and_the_top_card_to_meld():
    """"The top card must be used at once in a meld … The taker gets all cards of the pile": after `take` the
    view names the top card to meld (must_use) and how many cards came with it, and shows them to the taker."""
    state = GAME.new(4, {}, layout={"hands": [["AS", "AH", "5D"], ["4S"], ["KS"], ["6C"]], "dealer": 3,
                                    "stock": ["8D"], "discard": ["AD", "9C", "4H"],
                                    "melds": [{"team": 0, "cards": ["7S", "7H", "7D"]}]})
    taken = GAME.apply(state, 0, "take")
    view = GAME.view(taken, 0)
    assert view["must_use"] == "AD" and view["pile_taken"] == 2 and view["taken_cards"] == ["4H", "9C"]
    assert view["phase"] == "play" and view["discard_top"] is None and view["pile_size"] == 0
    assert GAME.view(taken, 1)["pile_taken"] == 2


def test_add_needs_cards_before_to():
    """NOTATION.md: `add C [C ...] to N`; "add to 1" names no card and is refused with that syntax."""
    state = GAME.new(4, {}, layout={"hands": [["AS", "AH", "5D"], ["4S"], ["KS"], ["6C"]], "dealer": 3,
                                    "stock": ["8D"], "discard": ["9C"],
                                    "melds": [{"team": 0, "cards": ["7S", "7H", "7D"]}]})
    drawn = GAME.apply(state, 0, "draw")
    assert refused_reason(GAME, drawn, 0, "add to 1") == "write: add C [C ...] to N, e.g. add 7H X to 2"
