"""Refusals as the bot shows them: the engine's English reason word for word, its code, and its parameters.

engine/errors.py: a refusal carries "a `code` and its `params` — card codes, numbers, command words, never prose —
which the bot translates from its catalogs (`illegal.<code>`)"; "the English reason stays the contract's". So for
every refusal here the English catalog entry filled with the refusal's own params must read exactly as the reason:
a code the catalog does not know, a parameter left out or given as None, or a reason reworded, all show up as a
difference an English player would read.
"""

from __future__ import annotations

import pytest

import engine
from bot.i18n import has, refusal
from engine import BadOption, IllegalMove, cards
from engine.konkan_tiles import modes
from tests.tunj_tables import table


def raised(error_type: type[Exception], call, *args) -> Exception:
    with pytest.raises(error_type) as caught:
        call(*args)
    return caught.value


def shown(error: Exception, reason: str, code: str, english: str | None = None) -> None:
    """`error` says `reason` under `code`, and the English catalog, filled with its params, reads the same (or
    `english`, where the catalog lists choices without the reason's Python brackets)."""
    assert (error.reason, error.code) == (reason, code)
    assert has("en", f"illegal.{code}"), code
    assert refusal("en", error) == (english or reason), (refusal("en", error), reason)


# ---- table options (NOTATION.md: "unknown keys raise ValueError"; each game's players and variants) --------------
def test_a_player_count_outside_the_games_range_names_the_range():
    kenza = engine.get("kenza")
    shown(raised(BadOption, kenza.check_options, 5, {}), "kenza is for 2-4 players, not 5", "players_range")
    assert raised(BadOption, kenza.check_options, 1, {}).params == {"game": "kenza", "min": 2, "n": 4, "players": 1}


def test_unknown_option_keys_are_named_in_order():
    shown(raised(BadOption, engine.get("kenza").check_options, 2, {"speed": 1, "colour": "red"}),
          "unknown option(s) for kenza: colour, speed", "option_unknown")
    shown(raised(BadOption, engine.get("konkan_tiles").new, 4, {"timer": 5, "bots": 1}),
          "unknown option(s) for konkan_tiles: bots, timer", "option_unknown")


def test_konkan_tiles_modes_refused_with_their_reason():
    """konkan-tiles.md, Modes: `kirkuk` is "coming soon … cannot be started"; ranked, quick … seat 2v2 (4 players);
    `private` seats 4 (2v2) or 2 (1v1); a private room's creator chooses Erbil or Sulaymaniyah rules."""
    game = engine.get("konkan_tiles")
    shown(raised(BadOption, game.new, 4, {"mode": "kirkuk"}),
          "Konkan Kirkuk rules are coming soon and cannot be played yet", "konkan_tiles.kirkuk")
    shown(raised(BadOption, game.new, 2, {"mode": "quick"}), "Konkan quick is for 4 players, not 2",
          "konkan_tiles.mode_players")
    shown(raised(BadOption, game.new, 3, {"mode": "turbo"}), "konkan_tiles is for 2 or 4 players, not 3",
          "konkan_tiles.players")
    # The game seats 2 or 4 before the mode is read; the mode's own check names its seats for any other count.
    shown(raised(BadOption, modes.check_options, 3, {"mode": "turbo"}), "Konkan turbo is for 4 players, not 3",
          "konkan_tiles.mode_players")
    shown(raised(BadOption, modes.check_options, 3, {"mode": "private"}),
          "Konkan private is for 2 or 4 players, not 3", "konkan_tiles.mode_players_either")
    shown(raised(BadOption, game.new, 2, {"mode": "private", "rules": "kirkuk"}),
          "option 'rules' must be one of ['erbil', 'sulaymaniyah'], not 'kirkuk'", "option_choice",
          "option 'rules' must be one of erbil, sulaymaniyah, not 'kirkuk'")
    shown(raised(BadOption, game.new, 4, {"mode": "blitz"}),
          "option 'mode' must be one of ['quick', 'ranked', 'sulaymaniyah', 'turbo', 'tournament', 'private'], "
          "not 'blitz'", "option_choice",
          "option 'mode' must be one of quick, ranked, sulaymaniyah, turbo, tournament, private, not 'blitz'")
    shown(raised(BadOption, game.new, 4, {"mode": "quick", "rules": "sulaymaniyah"}),
          "rules are chosen only in private rooms; quick plays erbil", "konkan_tiles.rules_private")


def test_a_card_missing_from_the_hand_is_named():
    """engine/cards.py: `remove_cards` refuses "if one is missing", naming the card."""
    shown(raised(IllegalMove, cards.remove_cards, ["AS", "7H"], ["7H", "7H"]), "7H is not in your hand", "not_in_hand")


def test_illegal_move_is_a_value_error_with_its_reason():
    error = IllegalMove("a reason", "a.code", n=1)
    assert isinstance(error, ValueError) and str(error) == "a reason" and error.params == {"n": 1}


# ---- Konkan tiles (konkan-tiles.md) ------------------------------------------------------------------------------
TILES = engine.get("konkan_tiles")
RUN10 = ["B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9", "B10", "B11"]


def tiles_table(hands, **layout):
    """Four seats, seat 0 the captain (moves first, no draw), indicator Y5 so the joker is Y4."""
    return TILES.new(4, {}, layout={"indicator": "Y5", "stock": ["B5", "B6", "R13", "K12"], "hands": hands,
                                    **layout})


def test_konkan_tiles_turn_swap_and_set_refusals():
    """konkan-tiles.md: stealing a joker "by putting in the real tile it stands for" (one tile, or for a 3-tile set
    a missing colour); "Two jokers in a 3-tile meld are never valid (ambiguous)"; a set is 3 or 4 tiles of one
    number in different colours; a joker stands for a tile, never the false joker."""
    melds = [{"seat": 1, "cards": ["K7", "Y4:K8", "K9"]}]
    state = tiles_table([["K8", "B11", "Y11", "R1"], ["R2"], ["R3"], ["R6"]], melds=melds,
                        opened=[90, None, None, None])
    shown(raised(IllegalMove, TILES.apply, state, 1, "draw"), "it is not your turn", "not_your_turn")
    shown(raised(IllegalMove, TILES.apply, state, 0, "swap K8 B11 Y11 for 1"), "a swap gives one or two tiles",
          "konkan_tiles.swap_count")
    state = tiles_table([["R9", "K9", "Y4", "Y4", "B11", "R1"], ["R2"], ["R3"], ["R6"]])
    shown(raised(IllegalMove, TILES.apply, state, 0, "meld R9 Y4 Y4"), "two jokers in a 3-tile meld are ambiguous",
          "konkan_tiles.two_jokers")
    shown(raised(IllegalMove, TILES.apply, state, 0, "meld R9 K9 Y4:R9"), "the jokers do not fit that set",
          "konkan_tiles.set_jokers")
    shown(raised(IllegalMove, TILES.apply, state, 0, "meld R9 Y4:F B11"),
          "a joker stands for a numbered tile, e.g. R8:B6", "konkan_tiles.joker_target")


def test_a_lock_that_fits_neither_end_names_the_end_tried():
    """konkan-tiles.md, Lock: "insert it at one end of an open meld" — K10 goes after K9, never before K7."""
    state = TILES.apply(tiles_table([RUN10 + ["R12", "K12", "B12", "K10", "Y1"], ["R2", "K3"], ["R3", "K4"],
                                     ["R6", "K6"]], konkan=[True, False, False, False],
                                    melds=[{"seat": 1, "cards": ["K7", "K8", "K9"]}]),
                        0, "meld B2 B3 B4 B5 B6 B7 B8 B9 B10 B11 | R12 K12 B12")
    shown(raised(IllegalMove, TILES.apply, state, 0, "lock K10 to 1 left"), "K10 does not fit the left end of meld 1",
          "konkan_tiles.left_end_no_fit")
    shown(raised(IllegalMove, TILES.apply, state, 0, "lock Y1 to 1 right"), "Y1 does not fit the right end of meld 1",
          "konkan_tiles.right_end_no_fit")


def test_konkan_tiles_taken_tile_refusals_read_in_both_languages():
    """konkan-tiles.md, turn 1 and hidden finish [decisions]: the discard waits for a tile taken before opening once
    an opening is started; a hidden finish after such a take keeps the taken tile inside the melds."""
    hand = ["R9", "K9", "B10", "B11", "B12", "B13", "K6", "K7", "K8", "Y13", "B3"]
    state = TILES.apply(TILES.apply(tiles_table([["Y9", "R1"], hand, ["R5"], ["R2"]]), 0, "discard Y9"), 1, "take")
    state = TILES.apply(state, 1, "meld B10 B11 B12 B13")
    error = raised(IllegalMove, TILES.apply, state, 1, "discard Y13")
    shown(error, "you took Y9: lay it in your opening melds before you discard", "konkan_tiles.taken_before_discard")
    assert error.params == {"tile": "Y9"} and "Y9" in refusal("ar", error)
    melds14 = ["R9", "K9", "Y9", "B10", "B11", "B12", "K7", "K8", "K9", "R2", "R3", "R4", "R5", "R6"]
    onto = TILES.apply(TILES.apply(tiles_table([["Y13", "R1"], melds14, ["B1"], ["Y1"]]), 0, "discard Y13"), 1,
                       "take")
    error = raised(IllegalMove, TILES.apply, onto, 1, "finish Y13")
    shown(error, "you took Y13: it must be inside your melds, not the tile you put on the indicator",
          "konkan_tiles.hidden_finish_taken")
    assert "Y13" in refusal("ar", error) and refusal("ar", error) != refusal("en", error)


# ---- Tunj (tunj.md, "Calling Tunj"; NOTATION.md: while a claim is open its legal moves are `tunj` and `expire`) --
def test_tunj_claim_and_turn_refusals():
    """Only the opponent of an attempt calls or lets the claim expire; a player turns a card from their hand, or
    from their waste turned over once the hand is empty — with neither there is nothing to turn."""
    tunj = engine.get("tunj")
    state = table(reserves=(["9D", "8S"], ["9S"]), hands=(["5H", "4D"], ["5C"]), houses={"H1": ["8C"]})
    attempt = tunj.apply(state, 0, "move R H1")  # 9D on 8C: wrong rank, a claim opens
    shown(raised(IllegalMove, tunj.parse_move, attempt, 0, "tunj"),
          "only the opponent of the attempt may call Tunj or let the claim expire", "tunj.not_caller")
    shown(raised(IllegalMove, tunj.parse_move, attempt, 0, "expire"),
          "only the opponent of the attempt may call Tunj or let the claim expire", "tunj.not_caller")
    empty = table(reserves=(["QH", "9D"], ["9S"]), hands=((), ["5C"]))  # QH fits on a black king: seat 0 moves
    shown(raised(IllegalMove, tunj.apply, empty, 0, "turn"), "your hand and waste are empty: there is no card to turn",
          "tunj.nothing_to_turn")


# ---- Konkan cards (konkan-cards.md: "At most one joker per meld") ---------------------------------------------------
def test_a_second_joker_on_a_meld_is_refused_with_its_code():
    cards_game = engine.get("konkan_cards")
    melds = [{"seat": 0, "cards": ["7H", "7S", "X"]}]
    state = cards_game.new(2, {}, layout={"hands": [["X", "5C", "9D"], ["AS", "2C", "5D"]], "stock": ["QS", "6D"],
                                          "dealer": 0, "melds": melds})
    state = cards_game.apply(cards_game.apply(state, 1, "discard 2C"), 0, "draw")
    shown(raised(IllegalMove, cards_game.apply, state, 0, "add X to 1"), "that meld already holds its one joker",
          "konkan.meld_has_joker")
