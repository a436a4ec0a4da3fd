"""Discord over several workers: DISCORD_SHARD_COUNT / DISCORD_SHARD_IDS give each worker discord.py's sharded
client over its own shards, commands are published once (by shard 0's worker), and a match's interactions work
whichever worker receives them — here two workers (two services, two stores on one database) take turns."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import discord
import pytest

from bot.config import ConfigError, Settings
from bot.discord_adapter import DiscordAdapter
from bot.service import Service
from storage import Store
from tests.dc_harness import (
    AMINA,
    BADR,
    EPHEMERAL,
    FakeDiscord,
    button_id,
    custom_ids,
    open_table,
    settings,
    whose_turn,
)


def test_shard_settings_are_read_and_checked() -> None:
    env = {"DISCORD_BOT_TOKEN": "t", "DISCORD_SHARD_COUNT": "4", "DISCORD_SHARD_IDS": "0, 2-3"}
    read = Settings.from_env(env)
    assert (read.discord_shard_count, read.discord_shard_ids, read.discord_sharded) == (4, (0, 2, 3), True)
    assert Settings.from_env({"DISCORD_SHARD_COUNT": "2"}).discord_shard_ids is None
    assert not Settings.from_env({}).discord_sharded
    for bad, reason in ((("DISCORD_SHARD_IDS", "4"), "config.shard_ids"),
                        (("DISCORD_SHARD_IDS", "1-0"), "config.shard_ids"),
                        (("DISCORD_SHARD_IDS", "a"), "config.shard_ids"),
                        (("DISCORD_SHARD_COUNT", "0"), "config.shard_count")):
        with pytest.raises(ConfigError) as error:
            Settings.from_env({"DISCORD_SHARD_COUNT": "4", bad[0]: bad[1]})
        assert error.value.reason == reason
    with pytest.raises(ConfigError) as alone:
        Settings.from_env({"DISCORD_SHARD_IDS": "0"})
    assert alone.value.reason == "config.shard_ids_need_count"


def _sharded(shard_ids: tuple[int, ...] | None, count: int = 2) -> Settings:
    return dataclasses.replace(settings(), discord_shard_count=count, discord_shard_ids=shard_ids)


async def test_each_worker_runs_its_shards_and_only_shard_zero_publishes_commands(tmp_path: Path) -> None:
    store = await Store.open(str(tmp_path / "s.db"))
    try:
        plain = DiscordAdapter(Service(store, seed_source=random.Random(1)), settings())
        assert not isinstance(plain.client, discord.AutoShardedClient)
        first = DiscordAdapter(Service(store, seed_source=random.Random(1)), _sharded((0,)))
        second = DiscordAdapter(Service(store, seed_source=random.Random(1)), _sharded((1,)))
        for adapter, ids in ((first, [0]), (second, [1])):
            assert isinstance(adapter.client, discord.AutoShardedClient)
            assert (adapter.client.shard_count, adapter.client.shard_ids) == (2, ids)
        fake = FakeDiscord()
        await fake.login(first)
        await fake.login(second)
        syncs = [c for c in fake.calls if c.method == "PUT" and "/commands" in c.path]
        assert len(syncs) == 1, "only shard 0's worker publishes the slash commands"
        for adapter in (plain, first, second):
            await adapter.client.close()
    finally:
        await store.close()


async def test_a_match_is_played_through_whichever_worker_gets_each_interaction(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.db")
    stores = [await Store.open(path), await Store.open(path)]
    fake = FakeDiscord()
    adapters = [DiscordAdapter(Service(store, seed_source=random.Random(n)), _sharded((n,)))
                for n, store in enumerate(stores)]
    try:
        for adapter in adapters:
            await fake.login(adapter)
        match_id = await open_table(fake, adapters[0], stores[0])
        presses = 0
        movers: set[int] = set()
        for _turn in range(8):
            match, who = await whose_turn(stores[1], match_id)
            if who is None:
                break
            movers.add(id(who))
            worker = adapters[presses % 2]
            table = fake.last_with_button("h:")
            payload = fake.press(who, table["id"], button_id(table, "h:"))
            await fake.feed(worker.client, payload)
            presses += 1
            rack = fake.original(payload["token"])
            assert rack is not None and rack["flags"] & EPHEMERAL
            for _ in range(3):  # a capture choice (a pick) then the move: each press to the other worker
                code = (custom_ids(rack, "m:") or custom_ids(rack, "p:"))[0]
                await fake.feed(adapters[presses % 2].client, fake.press(who, rack["id"], code))
                presses += 1
                rack = fake.messages[rack["id"]]
                if code.startswith("m:"):
                    break
            after = await stores[presses % 2].get_match(match_id)
            assert after.version > match.version, f"turn {_turn}: the move was not played"
            assert "out of date" not in rack["content"]
        assert presses >= 16
        assert [m.seq for m in await stores[0].moves(match_id)] == list(range(1, after.version + 1))
        assert movers == {id(AMINA), id(BADR)}, "both players took turns, through both workers"
    finally:
        for adapter in adapters:
            await adapter.service.close()
            await adapter.client.close()
        for store in stores:
            await store.close()
