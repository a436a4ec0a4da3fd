"""The achievements catalogue: every entry has its texts, each rule reads the engines' own result and details, and
a match only earns what its seat did."""

from __future__ import annotations

import random

import engine
from bot import achievements
from bot.achievements import CATALOGUE, Finish, earned
from bot.console import play
from bot.i18n import You, catalog, t
from engine.bots import decide
from storage.ladder import Standing
from tests.chat import console_service, typed_lines


def finish(game: str, seat: int = 0, *, mode: str = "casual", won: bool = False, result: dict | None = None,
           details: list | None = None, **extra) -> Finish:
    return Finish(game, mode, seat, seat % 2, won, result or {}, {"details": details or []}, **extra)


def test_every_achievement_has_a_name_in_both_languages_and_a_known_rule():
    assert len({a.code for a in CATALOGUE}) == len(CATALOGUE)
    for lang in ("ar", "en"):
        for achievement in CATALOGUE:
            assert (None, f"ach.{achievement.code}") in catalog(lang).messages, achievement.code
    assert {a.kind for a in CATALOGUE} <= set(achievements._RULES)


def test_a_first_win_is_per_game_and_only_for_a_winner():
    assert earned(finish("kenza", won=True)) == ["first_win.kenza"]
    assert earned(finish("kenza", won=False)) == []
    assert earned(finish("tunj", won=True)) == ["first_win.tunj"]


def test_round_feats_belong_to_the_seat_that_did_them():
    konkan = [{"finisher": 1, "kind": "plain"}, {"finisher": 2, "kind": "konkan10"}]
    assert "konkan_finish" in earned(finish("konkan_tiles", 2, details=konkan))
    assert "konkan_finish" not in earned(finish("konkan_tiles", 1, details=konkan))
    hand = [{"went_out": 0, "hand": False}, {"went_out": 1, "hand": True}]
    assert "hand" in earned(finish("konkan_cards", 1, details=hand))
    assert "hand" not in earned(finish("konkan_cards", 0, details=hand))
    canasta = [{"counts": [{"natural": 0}, {"natural": 1}]}]
    assert "natural_canasta" in earned(finish("canasta", 3, details=canasta))  # seat 3 plays for team 1
    assert "natural_canasta" not in earned(finish("canasta", 2, details=canasta))


def test_counted_feats_need_their_count():
    assert "turbo_ten" in earned(finish("konkan_tiles", mode="turbo", won=True, mode_wins=10))
    assert "turbo_ten" not in earned(finish("konkan_tiles", mode="turbo", won=True, mode_wins=9))
    assert "turbo_ten" not in earned(finish("konkan_tiles", mode="quick", won=True, mode_wins=12))
    assert "kenza_sweeps" in earned(finish("kenza", 1, result={"sweeps": [0, 5]}))
    assert "kenza_sweeps" not in earned(finish("kenza", 0, result={"sweeps": [4, 5]}))
    assert "on_fire" in earned(finish("tunj", won=True, standing=Standing(streak=5)))
    assert "on_fire" not in earned(finish("tunj", won=True, standing=Standing(streak=4)))
    assert "placed" in earned(finish("tunj", placed_now=True))


def test_a_real_kenza_match_is_read_from_the_engines_own_result():
    game = engine.get("kenza")
    state = game.new(2, {"target": 101}, seed=3)
    chooser = random.Random(3)
    while not game.result(state)["over"]:
        seat = game.to_move(state)
        state = game.apply(state, seat, decide("kenza", state, seat, "normal", chooser))
    result, view = game.result(state), game.view(state, None)
    winner = result["winners"][0]
    for seat in (0, 1):
        got = earned(Finish("kenza", "casual", seat, seat, seat == winner, result, view))
        assert ("first_win.kenza" in got) == (seat == winner)
        assert ("kenza_sweeps" in got) == (result["sweeps"][seat] >= 5)


async def _terminal_kenza_won_by_you(lang: str) -> str:
    """A terminal Kenza that the keyboard's player wins (seed 3 against random bots, first button every turn)."""
    store, service, transport, out = await console_service(3)
    read = typed_lines(["1"] * 600)

    await play(service, transport, "kenza", 2, {"target": "101"}, lang, read=read, bots="random")
    match = await store.get_match(1)
    await store.close()
    assert match.status == "finished" and match.result["winners"] == [0]  # seat 0 is the terminal's player
    return out.getvalue()


async def test_the_terminal_player_is_told_their_achievement_in_the_second_person():
    """The terminal's player has no name of their own: the news names them "You", never "?" (issue 25, defect 2)."""
    for lang in ("en", "ar"):
        news = [line for line in (await _terminal_kenza_won_by_you(lang)).splitlines() if "🎖" in line]
        assert news == [t(lang, "ach.news", name=You(t(lang, "console.you")),
                          achievement=t(lang, "ach.first_win.kenza"))], news
        assert "?" not in news[0]
    assert t("en", "ach.news", name=You("You"), achievement="X") == "🎖 You earned an achievement: X"
