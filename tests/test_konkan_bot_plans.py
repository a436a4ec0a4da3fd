"""The Konkan bots' documented plans (engine/konkan_cards/bots.py and engine/konkan_tiles/bots.py docstrings), one
decision at a time from an explicit layout: what each normal bot does when its plan says what to do. The whole
matches and the strength tests stay in tests/test_konkan_*_bots.py."""

from __future__ import annotations

import random

import engine
from engine.konkan_cards.bots import NormalBot as CardsBot
from engine.konkan_cards.bots import konkan_distance
from engine.konkan_tiles.bots import NormalBot as TilesBot

CARDS = engine.get("konkan_cards")
TILES = engine.get("konkan_tiles")
KONKAN_HAND = ["3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH", "KS", "KH", "KD", "2D"]


def layout(hands, **rest):
    """Konkan cards: seat 0 deals, so seat 1 has the first (discard-only) turn."""
    return CARDS.new(len(hands), {}, layout={"hands": hands, "dealer": 0, **rest})


def choose(state):
    seat = CARDS.to_move(state)
    return CardsBot().choose(CARDS.view(state, seat), CARDS.legal_moves(state, seat), random.Random(0))


def lay(**layout):
    """Konkan tiles: four seats, seat 0 the captain, indicator Y5 (joker Y4)."""
    layout.setdefault("indicator", "Y5")
    layout.setdefault("stock", ["B5", "B6", "R13", "K12"])
    return TILES.new(4, {}, layout=layout)


# ---- Konkan cards ------------------------------------------------------------------------------------------------


def test_opens_as_soon_as_the_minimum_allows_when_no_hand_is_near():
    """The bot's plan (engine/konkan_cards/bots.py): "open as soon as the minimum allows unless the whole hand is
    one or two cards away from going out by Hand". K K K (30) + 7 8 9 of clubs (24) = 54 ≥ 51 leaves five loose
    cards: far from a Hand, so it opens."""
    hand = ["KS", "KH", "KD", "7C", "8C", "9C", "2D", "5S", "JH", "4C"]
    state = CARDS.apply(layout([hand, ["AS", "2C", "5D"]], stock=["9H", "6D"]), 1, "discard 2C")
    state = CARDS.apply(state, 0, "draw")
    assert choose(state) == "meld 7C 8C 9C | KS KH KD"


def test_discards_a_lone_card_rather_than_one_with_partners():
    """The bot's plan: discard "a lone card over one that has partners" — 2H and 3H could grow into a run of hearts;
    the king and the queen of other suits have no partner."""
    state = CARDS.apply(layout([["2H", "3H", "KS"], ["AS", "2C", "5D"]], stock=["QD", "6D"]), 1, "discard 2C")
    state = CARDS.apply(state, 0, "draw")
    assert choose(state) in ("discard KS", "discard QD")


def test_a_committed_bot_discards_a_card_outside_its_konkan():
    """konkan-cards.md: after committing "you may only meld when the Konkan is complete", so the committed bot keeps
    its run of hearts and its kings and throws a card that belongs to neither."""
    state = layout([KONKAN_HAND, ["6S", "5D", "KC", "9S"]], stock=["4C", "8C"], round=5, scores=[300, 0])
    state = CARDS.apply(state, 1, "discard 9S")
    state = CARDS.apply(state, 0, "commit")
    assert choose(state) == "draw"
    state = CARDS.apply(state, 0, "draw")
    move = choose(state)
    assert move in CARDS.legal_moves(state, 0) and move in ("discard 2D", "discard 4C")


def test_konkan_distance_lets_the_joker_fill_a_gap_in_the_run():
    """konkan_distance: how many cards the hand lacks for a Konkan, "each meld may take one joker" (rules: "Jokers
    allowed, one per meld") — a run of hearts missing its 7 plus a joker, and four kings, lack nothing."""
    run = ["3H", "4H", "5H", "6H", "X", "8H", "9H", "TH", "JH", "QH"]
    assert konkan_distance(run + ["KS", "KH", "KD", "KC"]) == 0
    assert konkan_distance(run[:4] + run[5:] + ["2D", "KS", "KH", "KD", "KC"]) == 1


# ---- Konkan tiles -------------------------------------------------------------------------------------------------


def test_normal_takes_a_discard_that_brings_a_konkan_run_to_eight():
    """The bot's plan (engine/konkan_tiles/bots.py): "take the last discard only when it opens the hand, improves an
    opened hand, or feeds a Konkan run that is close (eight of its ten tiles in hand)". Blue 2-8 with B9 make eight
    of the blue 1-10 run, and B9 cannot make the 81 an opening needs (blue runs are at most 5 tiles: 35 + 9)."""
    blues = ["B2", "B3", "B4", "B5", "B6", "B7", "B8", "R11", "K13", "Y1", "R6", "K3", "Y9", "R13"]
    state = TILES.apply(lay(hands=[["B9", "R2"], blues, ["R5", "R7"], ["R3", "R4"]]), 0, "discard B9")
    assert "take" in TILES.legal_moves(state, 1)
    assert TilesBot().choose(TILES.view(state, 1), TILES.legal_moves(state, 1), random.Random(1)) == "take"


def test_normal_locks_a_tile_before_the_last_discard_of_a_konkan_finish():
    """konkan-tiles.md, Lock: "if your second meld has only 3 tiles, one more tile of yours must be locked into a
    meld on the table" before the discard; the bot's plan finishes whenever it can, so of its two tiles it locks one
    (K6 before K7 or K10 after K9) and discards the other: a second lock would eliminate it."""
    run = ["B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9", "B10", "B11"]
    state = lay(hands=[run + ["R12", "K12", "B12", "K10", "K6"], ["R2", "K3"], ["R3", "K4"], ["R6", "K11"]],
                konkan=[True, False, False, False], melds=[{"seat": 1, "cards": ["K7", "K8", "K9"]}])
    state = TILES.apply(state, 0, "meld B2 B3 B4 B5 B6 B7 B8 B9 B10 B11 | R12 K12 B12")
    legal = TILES.legal_moves(state, 0)
    assert legal == ["lock K6 to 1 left", "lock K10 to 1 right"]
    move = TilesBot().choose(TILES.view(state, 0), legal, random.Random(1))
    assert move in legal
    state = TILES.apply(state, 0, move)
    legal = TILES.legal_moves(state, 0)  # a second lock is legal too, and eliminates: the bot discards
    assert TILES.view(state, 0)["finish"]["locks_done"] == 1 and len(legal) == 2
    move = TilesBot().choose(TILES.view(state, 0), legal, random.Random(1))
    assert move.startswith("discard ")
    assert TILES.apply(state, 0, move)["last_round"]["kind"] == "konkan"
