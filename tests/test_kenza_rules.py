"""Every rule and worked example of kenza.md, through the public engine contract."""

import pytest

import engine
from engine import IllegalMove

GAME = engine.get("kenza")


def layout_state(hands, table, stock=(), dealer=None, players=2, variant="kenza", target=151):
    layout = {"hands": [list(h) for h in hands], "table": list(table), "stock": list(stock)}
    if dealer is not None:
        layout["dealer"] = dealer
    return GAME.new(players, {"variant": variant, "target": target}, layout=layout)


def test_contract_lists_kenza():
    assert "kenza" in engine.game_ids()
    assert engine.get("kenza") is GAME


def test_six_on_four_five_rey_takes_four_and_five():
    state = layout_state([["6O"], ["1C"]], ["4C", "5E", "12B"], stock=[])
    assert GAME.legal_moves(state, 0) == ["play 6O take 4C 5E"]
    after = GAME.apply(state, 0, "play 6o take 5e 4c")
    assert after["table"] == ["12B"]


def test_six_on_two_three_four_five_offers_both_subsets():
    state = layout_state([["6O"], ["1C"]], ["2C", "3C", "4C", "5C"])
    assert sorted(GAME.legal_moves(state, 0)) == ["play 6O take 2C 3C 4C", "play 6O take 4C 5C"]
    for move in ("play 6O take 4C 5C", "play 6O take 2C 3C 4C"):
        assert GAME.parse_move(state, 0, move) == move


def test_rey_takes_three_and_seven_never_takes_a_single_card():
    state = layout_state([["12O", "7C"], ["1C"]], ["3E"])
    assert "play 12O take 3E" in GAME.legal_moves(state, 0)
    state = layout_state([["7C"], ["1C"]], ["7E"])
    assert GAME.legal_moves(state, 0) == ["play 7C"]
    after = GAME.apply(state, 0, "play 7C")
    assert after["table"] == ["7E", "7C"]


def test_five_does_not_take_five_and_faces_pair_up():
    state = layout_state([["5C"], ["1C"]], ["5E"])
    assert GAME.legal_moves(state, 0) == ["play 5C"]
    for face, partner in (("12C", "3O"), ("11C", "4O"), ("10C", "5O")):
        state = layout_state([[face], ["1C"]], [partner])
        assert GAME.legal_moves(state, 0) == [f"play {face} take {partner}"]
        state = layout_state([[partner], ["1C"]], [face])
        assert GAME.legal_moves(state, 0) == [f"play {partner} take {face}"]


def test_rabaeen_rey_takes_sota_caballo_seven():
    state = layout_state([["12C"], ["1C"]], ["10E", "11B", "7O"], variant="rabaeen")
    assert GAME.legal_moves(state, 0) == ["play 12C take 10E 11B 7O"]
    after = GAME.apply(state, 0, "play 12C take 7O 10E 11B")
    assert after["table"] == [] and after["sweeps"][0] == 1


def test_capture_is_mandatory_for_a_card_that_can_capture():
    state = layout_state([["6O", "1C"], ["2C"]], ["4C", "5E"])
    with pytest.raises(IllegalMove, match="mandatory"):
        GAME.parse_move(state, 0, "play 6O")
    assert "play 1C" in GAME.legal_moves(state, 0)  # another card that cannot capture may be played instead


def test_when_every_card_can_capture_the_player_must_capture():
    state = layout_state([["6O", "10C"], ["2C"]], ["4C", "5E"])
    moves = GAME.legal_moves(state, 0)
    assert moves and all(" take " in move for move in moves)


def test_wrong_sum_and_unknown_cards_are_refused_with_reasons():
    state = layout_state([["6O", "1C"], ["2C"]], ["4C", "5E", "3B"])
    with pytest.raises(IllegalMove, match="makes 13, not 15"):
        GAME.parse_move(state, 0, "play 6O take 4C 3B")
    with pytest.raises(IllegalMove, match="not on the table"):
        GAME.parse_move(state, 0, "play 6O take 4C 7E")
    with pytest.raises(IllegalMove, match="not in your hand"):
        GAME.parse_move(state, 0, "play 7O")
    with pytest.raises(IllegalMove, match="not a card"):
        GAME.parse_move(state, 0, "play 9O")
    with pytest.raises(IllegalMove, match="not your turn"):
        GAME.apply(state, 1, "play 2C")
    with pytest.raises(IllegalMove):
        GAME.parse_move(state, 0, "throw 6O")


def test_sweep_gives_no_bonus_and_is_recorded():
    state = layout_state([["6O"], ["1C"]], ["4C", "5E"])
    after = GAME.apply(state, 0, "play 6O take 4C 5E")
    assert after["sweeps"] == [1, 0]
    after = GAME.apply(after, 1, "play 1C")
    result = GAME.result(after)
    # 6O (6) + 4C + 5E = 8 points, then the leftover 1C goes to the last capturer: 9; no sweep bonus.
    assert result["history"] == [[9, 0]]
    assert result["sweeps"] == [1, 0]


def test_leftovers_go_to_last_capturer_or_nobody():
    state = layout_state([["6O", "2C"], ["1C", "11C"]], ["4C", "5E", "7O"], dealer=1)
    state = GAME.apply(state, 0, "play 6O take 4C 5E")
    state = GAME.apply(state, 1, "play 1C")
    state = GAME.apply(state, 0, "play 2C")
    state = GAME.apply(state, 1, "play 11C")
    # Table holds 7O 1C 2C 11C at the end: all to seat 0, the last capturer.
    assert GAME.result(state)["history"][0] == [6 + 1 + 1 + 7 + 1 + 1 + 1, 0]
    nobody = layout_state([["2C"], ["1C"]], ["7O"])
    nobody = GAME.apply(GAME.apply(nobody, 0, "play 2C"), 1, "play 1C")
    assert GAME.result(nobody)["history"][0] == [0, 0]


def test_scoring_example_fifty_eight_to_forty_two():
    from engine.kenza.rules import pile_points

    gold = ["1O", "2O", "7O", "10O", "12O"]
    plain = [f"{v}{s}" for s in "CEB" for v in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)][:17]
    assert pile_points(gold + plain) == 58
    from engine.cards import spanish_deck

    rest = [card for card in spanish_deck() if card not in gold + plain]
    assert pile_points(rest) == 42


def test_a_deal_gives_exactly_one_hundred_points():
    import random

    for players in (2, 3, 4):
        state = GAME.new(players, {"target": 301}, seed=players)
        chooser = random.Random(players)
        while len(GAME.result(state)["history"]) == 0:
            seat = GAME.to_move(state)
            moves = GAME.legal_moves(state, seat)
            state = GAME.apply(state, seat, chooser.choice(moves))
        assert sum(GAME.result(state)["history"][0]) == 100


def test_first_deal_shapes_for_two_three_four_players():
    for players, rounds in ((2, 6), (3, 4), (4, 3)):
        state = GAME.new(players, seed=11)
        assert [len(hand) for hand in state["hands"]] == [3] * players
        assert len(state["table"]) == 4
        assert len(state["stock"]) == 40 - 4 - 3 * players
        assert len(state["stock"]) == 3 * players * (rounds - 1)


def test_table_gets_cards_on_the_first_deal_only():
    state = layout_state([["1C"], ["2C"]], ["7O"], stock=["3C", "4C", "5C", "6C", "1E", "2E"])
    state = GAME.apply(state, 0, "play 1C")
    state = GAME.apply(state, 1, "play 2C")
    assert state["table"] == ["7O", "1C", "2C"]
    assert [len(hand) for hand in state["hands"]] == [3, 3]
    assert state["hands"][0] == ["3C", "4C", "5C"]  # three at a time, starting after the dealer (seat 1)


def test_play_starts_after_dealer_and_deal_rotates():
    state = GAME.new(3, seed=5)
    assert GAME.to_move(state) == (state["dealer"] + 1) % 3
    first_dealer = state["dealer"]
    while GAME.result(state)["round"] == 1 and not GAME.result(state)["over"]:
        seat = GAME.to_move(state)
        state = GAME.apply(state, seat, GAME.legal_moves(state, seat)[0])
    assert state["dealer"] == (first_dealer + 1) % 3
    assert GAME.to_move(state) == (first_dealer + 2) % 3


def test_four_players_score_as_teams():
    state = layout_state([["6O"], ["1C"], ["2C"], ["3C"]], ["4O", "5O"], players=4)
    assert state["scores"] == [0, 0]
    for seat, move in enumerate(["play 6O take 4O 5O", "play 1C", "play 2C", "play 3C"]):
        state = GAME.apply(state, seat, move)
    result = GAME.result(state)
    assert result["history"][0] == [15 + 3, 0]  # seat 0 took the leftovers (1C 2C 3C) too


def test_four_players_team_points_by_seat_zero_two_against_one_three():
    """Each seat captures a different amount, so any other pairing of seats gives other team totals."""
    state = layout_state([["6O"], ["12C"], ["10O"], ["7E"]], ["4O", "5O", "3C", "5C", "1E", "7B", "2O"],
                         dealer=3, players=4)
    for seat, move in enumerate(["play 6O take 4O 5O", "play 12C take 3C", "play 10O take 5C",
                                 "play 7E take 1E 7B"]):
        assert GAME.to_move(state) == seat
        state = GAME.apply(state, seat, move)
    # Seat points: 0: 6O 4O 5O = 15; 1: 12C 3C = 2; 2: 10O 5C = 11; 3: 7E 1E 7B + the leftover 2O = 5.
    result = GAME.result(state)
    assert result["history"] == [[15 + 11, 2 + 5]]
    assert result["scores"] == [26, 7] and not result["over"]
    view = GAME.view(state, 1)
    assert view["teams"] is True and view["scores"] == [26, 7]


def _deal_points_by_seat(before: dict, seat: int, move: str) -> list[int]:
    """Each seat's points for a deal whose last move is `move`, worked out from the state before it."""
    from engine.kenza.rules import pile_points

    piles = [list(pile) for pile in before["captured"]]
    table = list(before["table"])
    words = move.split()
    card, taken = words[1], words[3:]
    last = before["last_capturer"]
    if taken:
        piles[seat] += taken + [card]
        table = [code for code in table if code not in taken]
        last = seat
    else:
        table.append(card)
    if last is not None:
        piles[last] += table
    return [pile_points(pile) for pile in piles]


def test_four_player_match_credits_teams_by_seat_and_names_the_winning_team():
    """A whole seeded four-player match: every deal's row is (seats 0+2, seats 1+3), the totals add the rows,
    and the winner is the team that reached the target with the higher total."""
    import random

    state = GAME.new(4, {"target": 101}, seed=21)
    chooser = random.Random(21)
    deals = 0
    while not GAME.result(state)["over"]:
        seat = GAME.to_move(state)
        move = chooser.choice(GAME.legal_moves(state, seat))
        before = state
        state = GAME.apply(state, seat, move)
        history = GAME.result(state)["history"]
        if len(history) > deals:
            deals = len(history)
            points = _deal_points_by_seat(before, seat, move)
            assert history[-1] == [points[0] + points[2], points[1] + points[3]]
    result = GAME.result(state)
    assert deals >= 2 and len(result["scores"]) == 2
    assert result["scores"] == [sum(row[0] for row in result["history"]), sum(row[1] for row in result["history"])]
    best = max(result["scores"])
    assert best >= 101 and result["winners"] == [result["scores"].index(best)]
    assert result["scores"][0] != result["scores"][1]  # this seed has a winner, not a draw


def test_target_reached_highest_wins_and_equal_top_is_a_draw():
    from engine.kenza.game import _finish_deal

    state = layout_state([["1C"], ["2C"]], [], target=101)
    state["scores"] = [60, 40]
    state["captured"] = [["12O", "11O", "10O", "1O"], ["7O", "6O", "5O", "4O", "3O", "2O", "1C", "2B", "3E"]]
    state["hands"] = [[], []]
    state["stock"] = []
    _finish_deal(state)
    assert state["over"] and state["scores"] == [103, 70] and state["winners"] == [0]
    tie = layout_state([["1C"], ["2C"]], [], target=101)
    tie["scores"] = [60, 60]
    tie["captured"] = [["12O", "11O", "10O", "1O"], ["12O", "11O", "10O", "1O"]]
    tie["hands"], tie["stock"] = [[], []], []
    _finish_deal(tie)
    assert tie["over"] and tie["draw"] and tie["winners"] == [0, 1]
    assert GAME.result(tie)["draw"] is True


def test_options_are_checked():
    with pytest.raises(ValueError):
        GAME.new(2, {"target": 200})
    with pytest.raises(ValueError):
        GAME.new(2, {"colour": "red"})
    with pytest.raises(ValueError):
        GAME.new(5)
    with pytest.raises(ValueError):
        layout_state([["1C", "1C"], []], [])
    assert GAME.new(2, seed=1)["options"] == {"variant": "kenza", "target": 151}
