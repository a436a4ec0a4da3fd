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
    CHANNEL_ID,
    EPHEMERAL,
    GUILD_ID,
    FakeDiscord,
    button_id,
    custom_ids,
    open_table,
    settings,
    user,
    whose_turn,
)
from tests.engines import create_schema, drop_schema, fresh_schema_url


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


SECOND_CHANNEL = CHANNEL_ID + 1


def shard_of(guild_id: int, count: int = 2) -> int:
    """The shard Discord delivers a guild's events on: (guild_id >> 22) % shard_count."""
    return (guild_id >> 22) % count


async def test_two_sharded_workers_each_play_the_match_of_a_guild_on_its_shard(tmp_path: Path) -> None:
    """Issue 26 point 9: DISCORD_SHARD_COUNT=2, two workers (services and stores of their own on one PostgreSQL
    schema), worker N running shard N only. A guild on each shard opens a table; every interaction of a guild
    reaches only the worker of its shard, as the gateway routes them; both matches are played on, each through its
    own worker, and the database holds both logs whole."""
    base, schema = fresh_schema_url()  # skips without MAJLIS_TEST_DATABASE_URL
    url = await create_schema(base, schema)
    other_guild = GUILD_ID + (1 << 22)  # the next shard's guild
    guilds = {CHANNEL_ID: GUILD_ID, SECOND_CHANNEL: other_guild}
    assert {shard_of(g) for g in guilds.values()} == {0, 1}
    stores = [await Store.open(url), await Store.open(url)]
    fake = FakeDiscord()
    fake.guilds[str(SECOND_CHANNEL)] = other_guild
    adapters = [DiscordAdapter(Service(store, seed_source=random.Random(n)), _sharded((n,)))
                for n, store in enumerate(stores)]
    players = {CHANNEL_ID: (AMINA, BADR), SECOND_CHANNEL: (CHADI, DUNIA)}
    fed: dict[int, set[int]] = {0: set(), 1: set()}  # worker -> channels whose interactions it received
    try:
        for adapter in adapters:
            await fake.login(adapter)

        async def feed(channel: int, payload: dict) -> list:
            worker = shard_of(guilds[channel])
            fed[worker].add(channel)
            return await fake.feed(adapters[worker].client, payload)

        matches = {channel: await _open(fake, feed, stores[0], channel, *players[channel]) for channel in guilds}
        turns = {channel: 0 for channel in guilds}
        for _ in range(TURNS):
            for channel, match_id in matches.items():
                if await _play_turn(fake, feed, stores[1], match_id, channel, players[channel]):
                    turns[channel] += 1
        assert fed == {shard_of(GUILD_ID): {CHANNEL_ID}, shard_of(other_guild): {SECOND_CHANNEL}}, fed
        for channel, match_id in matches.items():
            match = await stores[0].get_match(match_id)
            assert turns[channel] >= min(TURNS, 4), f"guild {guilds[channel]}: only {turns[channel]} turns"
            assert [m.seq for m in await stores[1].moves(match_id)] == list(range(1, match.version + 1))
            assert match.chat_id == str(channel)
            tables = [m for m in fake.channel_messages() if m["channel_id"] == str(channel)
                      and any(a["filename"] == "table.png" for a in m.get("attachments", []))]
            assert len(tables) == 1, f"guild {guilds[channel]}: {len(tables)} table messages"
        print(f"\n[discord shards] 2 workers, 2 guilds (shards {shard_of(GUILD_ID)} and {shard_of(other_guild)}), "
              f"turns {sorted(turns.values())}, {len(fake.calls)} REST calls")
    finally:
        for adapter in adapters:
            await adapter.service.close()
            await adapter.client.close()
        for store in stores:
            await store.close()
        await drop_schema(base, schema)


TURNS = 10  # human turns per match (two humans each); a whole match is the in-process tests' job
CHADI, DUNIA = user(3, "Chadi"), user(4, "Dunia")


def _newest(fake: FakeDiscord, channel: int, prefix: str) -> dict:
    for message in reversed(list(fake.messages.values())):
        if message["channel_id"] == str(channel) and custom_ids(message, prefix):
            return message
    raise LookupError(prefix)


async def _open(fake: FakeDiscord, feed, store: Store, channel: int, creator: dict, joiner: dict) -> int:
    """/new kenza target=101 in the channel, a second player joins, Start."""
    await feed(channel, fake.command(creator, "new", {"game": "kenza", "target": "101"}, channel_id=channel))
    match = await store.lobby_or_active_match("discord", str(channel))
    assert match is not None, f"no lobby in {channel}"
    lobby = _newest(fake, channel, "j:")
    await feed(channel, fake.press(joiner, lobby["id"], button_id(lobby, "j:")))
    lobby = fake.messages[lobby["id"]]
    await feed(channel, fake.press(creator, lobby["id"], button_id(lobby, "s:")))
    assert (await store.get_match(match.id)).status == "active"
    return match.id


async def _play_turn(fake: FakeDiscord, feed, store: Store, match_id: int, channel: int,
                     players: tuple[dict, dict]) -> bool:
    """The player to move opens their hand from the table and plays its first move; False when the match is over."""
    match, who = await whose_turn(store, match_id, dict(enumerate(players)))
    if who is None:
        return False
    table = _newest(fake, channel, "h:")
    payload = fake.press(who, table["id"], button_id(table, "h:"))
    await feed(channel, payload)
    rack = fake.original(payload["token"])
    assert rack is not None and rack["flags"] & EPHEMERAL
    for _ in range(3):  # a capture choice (a pick), then the move
        code = (custom_ids(rack, "m:") or custom_ids(rack, "p:"))[0]
        assert code.split(":")[2] == str(match.version), "the hand shows an old version"
        await feed(channel, fake.press(who, rack["id"], code))
        rack = fake.messages[rack["id"]]
        if code.startswith("m:"):
            break
    assert (await store.get_match(match_id)).version > match.version, "the move was not played"
    return True
