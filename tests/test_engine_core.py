"""The shared engine pieces every game stands on: NOTATION.md's card and tile codes, the engine contract's set-up
and apply guards, the seeded generator replays rely on, and the bot registry."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

import engine
from engine import bots, cards, rng
from engine.base import OptionSpec, clone
from engine.errors import IllegalMove

KENZA = engine.get("kenza")


def message(error_type, call, *args, **kwargs) -> str:
    """The exact text of the error `call` raises: players read these reasons word for word."""
    with pytest.raises(error_type) as raised:
        call(*args, **kwargs)
    return raised.value.reason if isinstance(raised.value, IllegalMove) else str(raised.value)


# ----------------------------------------------------------------------------------------------------- registry
def test_game_ids_are_the_implemented_games_sorted():
    ids = engine.game_ids()
    assert ids == sorted(ids)
    assert {"canasta", "kenza", "tunj"} <= set(ids)
    assert all(engine.get(game_id).id == game_id for game_id in ids)


def test_get_returns_one_rules_object_per_game_and_refuses_unknown_ids():
    assert engine.get("kenza") is engine.get("kenza")
    with pytest.raises(KeyError, match="unknown game 'chess'; known: canasta, kenza"):
        engine.get("chess")
    with pytest.raises(KeyError):
        engine.get("konkan_tiles") if "konkan_tiles" not in engine.game_ids() else engine.get("chess")


# --------------------------------------------------------------------------------------------------- set-up
def test_option_spec_with_choices_accepts_numbers_typed_as_text():
    spec = OptionSpec(151, choices=(101, 151, 301))
    assert spec.check("target", "301") == 301
    assert spec.check("target", 101) == 101
    assert message(ValueError, spec.check, "target", "99") == "option 'target' must be one of [101, 151, 301], not '99'"
    words = OptionSpec("kenza", choices=("kenza", "rabaeen"))
    assert words.check("variant", "rabaeen") == "rabaeen"
    with pytest.raises(ValueError):
        words.check("variant", "KENZA")


def test_option_spec_bounds_are_inclusive_and_refuse_what_is_not_a_whole_number():
    spec = OptionSpec(60, minimum=10, maximum=600)
    assert spec.check("timer", 10) == 10
    assert spec.check("timer", "600") == 600
    assert spec.check("timer", " 42 ") == 42
    assert message(ValueError, spec.check, "timer", 9) == "option 'timer' must be at least 10"
    assert message(ValueError, spec.check, "timer", "601") == "option 'timer' must be at most 600"
    for bad in (True, 1.5, "ten", "4-2", None, "X5", "--5", "-", ""):
        assert message(ValueError, spec.check, "timer", bad) == f"option 'timer' must be a whole number, not {bad!r}"
    assert OptionSpec(0, minimum=-5).check("offset", "-5") == -5
    assert OptionSpec(1).check("any", 10**9) == 10**9


def test_check_options_fills_defaults_and_refuses_wrong_players_or_unknown_keys():
    info = KENZA.info
    assert KENZA.check_options(info.min_players, None) == {name: spec.default for name, spec in info.options.items()}
    assert KENZA.check_options(str(info.max_players), {"target": "301"})["target"] == 301
    for players in (info.min_players - 1, info.max_players + 1):
        assert message(ValueError, KENZA.check_options, players, {}) == \
            f"kenza is for {info.min_players}-{info.max_players} players, not {players}"
    assert message(ValueError, KENZA.check_options, 2, {"speed": 1, "colour": "red", "target": 151}) == \
        "unknown option(s) for kenza: colour, speed"
    assert message(ValueError, KENZA.check_options, 2, {"target": 99}) == \
        "option 'target' must be one of [101, 151, 301], not 99"


def test_clone_copies_nested_json_so_changing_the_copy_leaves_the_original():
    original = {"hands": [["1O", "2C"], []], "scores": {"0": [1, 2]}, "over": False, "n": None}
    copy = clone(original)
    assert copy == original
    copy["hands"][0].append("3E")
    copy["scores"]["0"][0] = 99
    copy["over"] = True
    assert original == {"hands": [["1O", "2C"], []], "scores": {"0": [1, 2]}, "over": False, "n": None}


# --------------------------------------------------------------------------------------------------- play
def test_apply_refuses_the_wrong_seat_and_a_finished_match_and_never_changes_the_state():
    state = KENZA.new(2, {}, seed=3)
    seat = KENZA.to_move(state)
    before = json.dumps(state, sort_keys=True)
    assert message(IllegalMove, KENZA.apply, state, 1 - seat, KENZA.legal_moves(state, seat)[0]) == \
        "it is not your turn"
    after = KENZA.apply(state, seat, KENZA.legal_moves(state, seat)[0])
    assert json.dumps(state, sort_keys=True) == before
    assert after != state
    over = dict(state, over=True)
    assert KENZA.to_move(over) is None
    assert message(IllegalMove, KENZA.apply, over, seat, KENZA.legal_moves(state, seat)[0]) == "the match is over"


def test_json_round_trip_and_from_json_refuses_another_games_state():
    state = KENZA.new(3, {}, seed=11)
    data = KENZA.to_json(state)
    assert KENZA.from_json(data) == state
    assert KENZA.from_json(json.dumps(data)) == state
    loaded = KENZA.from_json(data)
    loaded["hands"][0].clear()
    assert data["hands"][0], "from_json must hand back a copy"
    assert KENZA.players(state) == 3
    tunj = engine.get("tunj")
    assert message(ValueError, KENZA.from_json, tunj.to_json(tunj.new(2, {}, seed=1))) == "not a kenza state"
    with pytest.raises(ValueError, match="not a kenza state"):
        KENZA.from_json("[1, 2]")


def test_illegal_move_carries_its_reason_and_is_a_value_error():
    error = IllegalMove("that card is not in your hand")
    assert error.reason == "that card is not in your hand" == str(error)
    assert isinstance(error, ValueError)


# --------------------------------------------------------------------------------------------------- rng
def test_seed_state_maps_every_seed_kind_to_64_bits():
    assert rng.seed_state(None) == rng.seed_state(0) == 0
    assert rng.seed_state(7) == 7
    assert rng.seed_state("7") != 7
    assert rng.seed_state("ab") == 97 * 131 + 98
    assert rng.seed_state("") == 0
    assert rng.seed_state(-1) == 2**64 - 1
    assert rng.seed_state(2**64 + 5) == 5
    long = "x" * 40
    value = 0
    for byte in long.encode():
        value = (value * 131 + byte) % 2**64
    assert rng.seed_state(long) == value


def test_next_u64_is_splitmix64():
    # Reference outputs of SplitMix64 seeded with 0 and with 1234567 (Vigna's splitmix64.c).
    state, first = rng.next_u64(0)
    assert state == 0x9E3779B97F4A7C15
    assert first == 0xE220A8397B1DCDAF
    _, second = rng.next_u64(state)
    assert second == 0x6E789E6AA1B965F4
    state, value = rng.next_u64(1234567)
    assert value == 6457827717110365317
    _, value = rng.next_u64(state)
    assert value == 3203168211198807973


def test_below_is_in_range_reaches_every_value_and_refuses_an_empty_range():
    for bad in (0, -3):
        assert message(ValueError, rng.below, 1, bad) == "n must be positive"
    state, seen = 42, Counter()
    for _ in range(600):
        state, value = rng.below(state, 6)
        seen[value] += 1
    assert set(seen) == set(range(6))
    assert min(seen.values()) > 60, seen
    assert rng.below(5, 1)[1] == 0
    # below(n) consumes exactly the u64 it accepts: the state it returns is the generator's next state
    assert rng.below(9, 10)[0] == rng.next_u64(9)[0]
    assert rng.below(9, 10)[1] == rng.next_u64(9)[1] % 10


def test_below_rejects_the_biased_top_of_the_range():
    # With n = 2**63 + 1 the limit is 2**63 + 1: an output above it must be drawn again, not folded by modulo.
    n = 2**63 + 1
    state = 0
    while True:  # find a state whose next output is at or above the limit
        following, value = rng.next_u64(state)
        if value >= n:
            break
        state = following
    expected_state = following
    while True:  # 2**64 % n == 2**63 - 1, so the accepted outputs are those below 2**63 + 1
        expected_state, value = rng.next_u64(expected_state)
        if value < 2**63 + 1:
            break
    assert rng.below(state, n) == (expected_state, value)


def test_shuffled_is_a_seeded_permutation_of_a_copy():
    deck = cards.spanish_deck()
    state, once = rng.shuffled(5, deck)
    assert sorted(once) == sorted(deck) and once != deck
    assert deck == cards.spanish_deck(), "the input is not changed"
    assert rng.shuffled(5, deck) == (state, once)
    assert rng.shuffled(6, deck)[1] != once
    assert rng.shuffled(5, []) == (5, [])
    assert rng.shuffled(5, ["a"]) == (5, ["a"])
    # every position can receive the first card
    firsts = {rng.shuffled(seed, list(range(4)))[1].index(0) for seed in range(60)}
    assert firsts == {0, 1, 2, 3}


# --------------------------------------------------------------------------------------------------- cards
def test_french_codes_read_as_notation_says():
    assert cards.parse_french("10h") == "TH"
    assert cards.parse_french(" as ") == "AS"
    assert cards.parse_french("x") == cards.JOKER == "X"
    assert cards.parse_french("qd") == "QD"
    for bad in ("1S", "11H", "AX", "T", "ASS", "", "XX"):
        assert message(IllegalMove, cards.parse_french, bad) == f"'{bad}' is not a card (e.g. AS, TH, 7C, X)"


def test_french_card_parts():
    assert [cards.french_rank_index(code) for code in ("AS", "2H", "TD", "JC", "QS", "KH")] == [1, 2, 10, 11, 12, 13]
    assert cards.french_rank("QD") == "Q" and cards.french_suit("QD") == "D"
    assert cards.french_suit("X") == ""
    assert [cards.is_red(code) for code in ("AH", "7D", "7S", "KC", "X")] == [True, True, False, False, False]


def test_french_deck_holds_each_card_once_per_deck_plus_the_jokers():
    one = cards.french_deck()
    assert len(one) == 52 == len(set(one))
    assert one[:2] == ["AS", "2S"] and one[-1] == "KC"
    two = cards.french_deck(2, 4)
    counts = Counter(two)
    assert len(two) == 108 and counts["X"] == 4 and counts["AS"] == 2 and len(counts) == 53


def test_spanish_codes_read_as_notation_says():
    assert cards.parse_spanish("6o") == "6O"
    assert cards.parse_spanish(" 12c ") == "12C"
    assert cards.parse_spanish("01e") == "1E"
    for bad in ("8O", "9B", "13C", "0O", "6X", "O6", "123O"):
        assert message(IllegalMove, cards.parse_spanish, bad) == f"'{bad}' is not a card (e.g. 1O, 7C, 10E, 12B)"
    assert cards.spanish_value("12B") == 12 and cards.spanish_value("1O") == 1
    assert cards.spanish_suit("12B") == "B"
    deck = cards.spanish_deck()
    assert len(deck) == 40 == len(set(deck))
    assert {cards.spanish_value(code) for code in deck} == set(cards.SPANISH_VALUES)
    assert deck[0] == "1O" and deck[-1] == "12B"


def test_tile_codes_read_as_notation_says():
    assert cards.parse_tile("r9") == "R9"
    assert cards.parse_tile(" k13 ") == "K13"
    assert cards.parse_tile("b01") == "B1"
    assert cards.parse_tile("f") == cards.FALSE_JOKER == "F"
    for bad in ("R0", "R14", "G5", "9R", "R", "FF"):
        assert message(IllegalMove, cards.parse_tile, bad) == f"'{bad}' is not a tile (e.g. R9, K13, B1, F)"
    tiles = cards.tile_set()
    counts = Counter(tiles)
    assert len(tiles) == 106 and counts["F"] == 2 and counts["Y13"] == 2 and counts["R1"] == 2 and len(counts) == 53


def test_split_wild_reads_what_a_wild_stands_for():
    assert cards.split_wild("X:7H") == ("X", "7H")
    assert cards.split_wild(" R8 : B6 ") == ("R8", "B6")
    assert cards.split_wild(" 7H ") == ("7H", None)
    assert cards.split_wild("X:7H:8H") == ("X", "7H:8H")


def test_check_counts_allows_up_to_the_deck_and_names_the_excess():
    deck = cards.french_deck(2, 4)
    cards.check_counts(["AS", "AS", "X", "X", "X", "X"], deck)
    assert message(ValueError, cards.check_counts, ["AS", "AS", "AS"], deck) == \
        "card AS appears 3 times; the deck has 2"
    assert message(ValueError, cards.check_counts, ["Z9"], cards.tile_set(), what="tile") == \
        "tile Z9 appears 1 times; the deck has 0"
    cards.check_counts([], deck)


def test_remove_cards_takes_one_copy_each_and_refuses_a_missing_card():
    pile = ["AS", "AS", "7H"]
    assert cards.remove_cards(pile, ["AS"]) == ["AS", "7H"]
    assert cards.remove_cards(pile, ["AS", "AS"]) == ["7H"]
    assert pile == ["AS", "AS", "7H"]
    assert message(IllegalMove, cards.remove_cards, pile, ["7H", "7H"]) == "7H is not in your hand"


# --------------------------------------------------------------------------------------------------- bots
def test_bot_registry_finds_each_games_levels_and_refuses_unknown_ones():
    for game_id in ("kenza", "canasta", "tunj"):
        for level in bots.LEVELS:
            bot = bots.get(game_id, level)
            assert bot.level == level
    assert message(ValueError, bots.get, "kenza", "hard") == \
        "unknown bot level 'hard'; choose one of random, normal, expert"


def test_random_bot_picks_every_legal_move_and_refuses_none():
    bot = bots.RandomBot()
    chooser = random.Random(1)
    picked = Counter(bot.choose({}, ["a", "b", "c"], chooser) for _ in range(300))
    assert set(picked) == {"a", "b", "c"} and min(picked.values()) > 60
    assert bot.choose({}, ["only"], chooser) == "only"
    assert message(ValueError, bot.choose, {}, [], chooser) == "no legal move to choose from"


def test_decide_asks_the_level_with_the_seats_own_view_and_moves():
    state = KENZA.new(2, {}, seed=8)
    seat = KENZA.to_move(state)
    legal = KENZA.legal_moves(state, seat)
    for level in bots.LEVELS:
        move = bots.decide("kenza", state, seat, level, random.Random(3))
        assert move in legal
        assert move == bots.get("kenza", level).choose(KENZA.view(state, seat), legal, random.Random(3))
    random_moves = {bots.decide("kenza", state, seat, "random", random.Random(n)) for n in range(40)}
    assert random_moves == set(legal)
    tunj = engine.get("tunj")  # its normal bot reads the seat's own piles from the view
    state = tunj.new(2, {}, seed=2)
    seat = tunj.to_move(state)
    assert bots.decide("tunj", state, seat, "normal", random.Random(1)) in tunj.legal_moves(state, seat)


def test_games_load_once_and_a_missing_game_module_is_not_offered(monkeypatch):
    import importlib

    monkeypatch.setattr(engine, "_loaded", {})
    first = engine.get("tunj")
    assert first is engine.get("tunj") and first.id == "tunj" and engine._loaded == {"tunj": first}
    monkeypatch.setattr(engine, "_MODULES", {**engine._MODULES, "ghost": "engine.ghost_game_not_written"})
    assert "ghost" not in engine.game_ids()
    real = importlib.import_module

    def broken(name, *args):
        if name == "engine.broken":
            raise ModuleNotFoundError("No module named 'pillowx'", name="pillowx")
        return real(name, *args)

    monkeypatch.setattr(engine.importlib, "import_module", broken)
    monkeypatch.setattr(engine, "_MODULES", {**engine._MODULES, "broken": "engine.broken"})
    with pytest.raises(ModuleNotFoundError, match="pillowx"):
        engine.get("broken")  # a game whose own dependency is missing is an error, not an absent game
