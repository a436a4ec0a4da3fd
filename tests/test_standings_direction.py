"""Each game ranks in its own direction: Konkan with cards by the lowest totals, the others by the highest; the
operator's coin settings read from the environment."""

from __future__ import annotations

import random

import pytest

import engine
from bot.config import ConfigError, Settings
from bot.core.standings import lower_is_better_games
from bot.i18n import t
from bot.messages import Actor, ChatRef
from bot.service import Service
from storage import Store

GROUP = ChatRef("fake", "-900", private=False)


def test_the_direction_is_a_property_of_each_game():
    assert engine.get("konkan_cards").info.lower_is_better
    assert not engine.get("konkan_tiles").info.lower_is_better  # the side that collected more penalties wins
    assert lower_is_better_games() == frozenset({"konkan_cards"})
    assert not any(engine.get(g).info.lower_is_better for g in ("kenza", "canasta", "tunj"))


async def finished(store: Store, game: str, players: list[int], scores: list[int], winners: list[int]) -> None:
    """A match stored to its end through `apply_move` (the path that feeds the stats)."""
    rules = engine.get(game)
    match = await store.create_match(game, "casual", {}, "fake", "-9", players[0], 1)
    for player_id in players:
        await store.add_seat(match.id, player_id=player_id)
    state = rules.new(len(players), {}, seed=1)
    match = await store.start_match(match.id, rules.to_json(state), None)
    await store.apply_move(match.id, 0, 0, "human", "x", rules.to_json(state), None,
                           {"over": True, "scores": scores, "winners": winners, "draw": False})


@pytest.fixture
async def ranked(tmp_path):
    store = await Store.open(str(tmp_path / "s.db"))
    ids = [(await store.upsert_player("fake", str(n), name)).id for n, name in enumerate(("Ali", "Mona", "Sami"))]
    # Konkan: Ali and Mona each win once; Ali's totals are the lower, so Ali ranks first.
    await finished(store, "konkan_cards", ids, [30, 150, 200], [0])
    await finished(store, "konkan_cards", ids, [120, 60, 200], [1])
    # Kenza: Mona and Sami each win once; Sami's points are the higher, so Sami ranks first.
    await finished(store, "kenza", ids[1:], [101, 40], [0])
    await finished(store, "kenza", ids[1:], [20, 130], [1])
    yield store, ids
    await store.close()


async def test_leaderboards_rank_each_game_in_its_own_direction(ranked):
    store, ids = ranked
    lower = lower_is_better_games()
    konkan = await store.leaderboard("konkan_cards", "fake", lower_games=lower)
    assert [row.display_name for row in konkan] == ["Ali", "Mona", "Sami"]
    kenza = await store.leaderboard("kenza", "fake", lower_games=lower)
    assert [row.display_name for row in kenza] == ["Sami", "Mona"]
    assert [row.display_name for row in await store.leaderboard("konkan_cards", "fake")] == ["Mona", "Ali", "Sami"]
    assert await store.player_rank(ids[0], "konkan_cards", "fake", lower) == (1, 3)
    assert await store.player_rank(ids[0], "kenza", "fake", lower) is None


async def test_top_and_stats_commands_follow_the_direction(ranked):
    store, ids = ranked
    service = Service(store, seed_source=random.Random(1))
    ali = Actor("fake", "0", "Ali", language="en")
    await service.command(Actor("fake", "0", "Ali", language="en", is_admin=True), GROUP, "lang", ["en"])
    top = (await service.command(ali, GROUP, "top", ["konkan_cards"])).message.text.splitlines()
    assert top[1].startswith("1. Ali") and top[2].startswith("2. Mona")
    top = (await service.command(ali, GROUP, "top", ["kenza"])).message.text.splitlines()
    assert top[1].startswith("1. Sami")
    stats = (await service.command(ali, GROUP, "stats", ["@nobody"])).text
    assert stats == t("en", "err.no_player")
    stats = (await service.command(ali, GROUP, "stats", ["2"])).message.text
    game = t("en", "game.konkan_cards")
    assert t("en", "stats.rank", rank=3, total=3, game=game) in stats
    assert t("en", "stats.rank", rank=1, total=2, game=t("en", "game.kenza")) in stats


def test_coin_settings_from_the_environment():
    settings = Settings.from_env({"STARTING_COINS": "1000", "DAILY_COINS": "0"})
    assert (settings.coin_grants.starting, settings.coin_grants.daily) == (1000, 0)
    assert Settings.from_env({}).coin_grants.starting == 500
    with pytest.raises(ConfigError) as error:
        Settings.from_env({"DAILY_COINS": "-5"})
    assert error.value.reason == "config.coins"
