"""Konkan (cards) bots: whole matches end, only legal moves, decisions from the seat's view, and the normal bot's
plan (take to meld, Hand when it can, safe discards, committing in the final round and completing the Konkan)."""

import random

import engine
from engine.bots import decide
from engine.konkan_cards.bots import NormalBot, konkan_distance
from engine.konkan_cards.melds import is_konkan, read_meld, tokens_of
from tests import bot_play

GAME = engine.get("konkan_cards")
KONKAN_HAND = ["3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH", "KS", "KH", "KD", "2D"]


def play_out(levels, seed):
    return bot_play.play_out("konkan_cards", levels, seed, {}, 30000)


def test_four_player_matches_end_and_normal_usually_wins():
    wins = 0
    for seed in range(4):
        levels = ["random"] * 4
        levels[seed % 4] = "normal"
        result = GAME.result(play_out(levels, seed))
        assert result["over"] and len(result["history"]) >= 5
        wins += result["winners"] == [seed % 4]
    assert wins >= 3


def test_normal_bots_against_each_other_end():
    result = GAME.result(play_out(["normal", "normal"], 7))
    assert result["over"] and len(result["winners"]) == 1


def test_the_bot_sees_only_its_view():
    state = GAME.new(3, {}, seed=12)
    for step in range(40):
        seat = GAME.to_move(state)
        hidden = GAME.from_json(GAME.to_json(state))
        others = [s for s in range(3) if s != seat]
        pool = [c for s in others for c in hidden["hands"][s]] + hidden["stock"]
        random.Random(step).shuffle(pool)
        for s in others:
            size = len(hidden["hands"][s])
            hidden["hands"][s], pool = pool[:size], pool[size:]
        hidden["stock"] = pool
        move = decide("konkan_cards", state, seat, "normal", random.Random(step))
        assert decide("konkan_cards", hidden, seat, "normal", random.Random(step)) == move
        state = GAME.apply(state, seat, move)


def layout(hands, **rest):
    return GAME.new(len(hands), {}, layout={"hands": hands, "dealer": 0, **rest})


def choose(state):
    seat = GAME.to_move(state)
    return NormalBot().choose(GAME.view(state, seat), GAME.legal_moves(state, seat), random.Random(0))


def test_goes_out_by_hand_when_it_can():
    hand = ["KS", "KH", "KD", "7C", "8C", "9C"]
    state = GAME.apply(layout([hand, ["AS", "2C", "5D"]], stock=["4D"]), 1, "discard 2C")
    assert choose(state) == "draw"
    state = GAME.apply(state, 0, "draw")
    assert choose(state) == "meld 7C 8C 9C | KS KH KD"


def test_takes_a_discard_it_can_meld_and_then_melds_it():
    melds = [{"seat": 0, "cards": ["5H", "6H", "7H"]}]
    state = GAME.apply(layout([["JC", "QD", "2S", "9S"], ["8H", "3C"]], stock=["4S", "9D"], melds=melds), 1,
                       "discard 8H")
    assert choose(state) == "take"
    state = GAME.apply(state, 0, "take")
    assert choose(state) == "add 8H to 1"


def test_discards_a_lone_card_not_one_that_fits_the_table():
    melds = [{"seat": 1, "cards": ["5H", "6H", "7H"]}]
    hand = ["8H", "KC", "KD", "2S", "9D", "TD"]
    state = GAME.apply(layout([hand, ["4C", "3C", "QS"]], stock=["AC"], melds=melds), 1, "discard 4C")
    state = GAME.apply(state, 0, "draw")
    assert choose(state) == "discard 2S"


def test_commits_near_a_konkan_in_the_final_round_and_completes_it():
    state = layout([KONKAN_HAND, ["6S", "5D", "KC", "9S"]], stock=["4C", "8C"], round=5, scores=[300, 0])
    assert konkan_distance(KONKAN_HAND) == 1
    state = GAME.apply(state, 1, "discard KC")
    assert choose(state) == "commit"
    state = GAME.apply(state, 0, "commit")
    assert choose(state) == "take"
    state = GAME.apply(state, 0, "take")
    move = choose(state)
    groups = [read_meld(tokens_of(part.split())) for part in move[len("meld "):].split(" | ")]
    assert move.startswith("meld ") and is_konkan(groups)
    state = GAME.apply(GAME.apply(state, 0, move), 0, "discard 2D")
    assert GAME.result(state)["winners"] == [0] and GAME.result(state)["konkan_winner"] == 0


def test_does_not_commit_far_from_a_konkan():
    hand = ["2S", "5H", "9C", "KD", "3D", "7S", "JH", "AC", "4C", "8D", "QS", "6H", "TC", "2H"]
    state = GAME.apply(layout([hand, ["6S", "5D", "KC", "9S"]], stock=["4S", "8C"], round=5), 1, "discard KC")
    assert konkan_distance(hand) > 3
    assert choose(state) == "draw"
