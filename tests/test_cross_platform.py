"""A button press or command from one platform never acts on another platform's table.

One `Service` serves Telegram and Discord at once (as `majlis run` does), and players are per platform: a Discord
user whose id is the same digits as a Telegram player's is someone else. Here Telegram users are given exactly the
ids of the Discord users, and each side forges the other's codes (lobby, admin cancel, moves, hand, score): every
press is refused to the presser alone, the other table does not change, and nothing is sent on the other platform.
"""

from __future__ import annotations

import random
from typing import Any

from bot import callbacks
from bot.i18n import t
from bot.messages import Actor, ChatRef
from bot.service import Service
from storage import Store
from tests.dc_harness import (
    ADMIN,
    AMINA,
    BADR,
    CHANNEL_ID,
    FakeDiscord,
    answers,
    start_adapter,
)
from tests.dc_harness import user as dc_user
from tests.fakes import FakeTransport
from tests.tg_harness import GROUP_ID, Bot, FakeTelegram, first_data, lobby_keyboard, open_table, seat_to_move
from tests.tg_harness import user as tg_user

CHAMS = dc_user(3, "Chams")
# Telegram users holding exactly the Discord users' ids.
TG_AMINA = tg_user(int(AMINA["id"]), "Amina on Telegram")
TG_BADR = tg_user(int(BADR["id"]), "Badr on Telegram")
TG_CHAMS = tg_user(int(CHAMS["id"]), "Chams on Telegram")
DC_BY_ID = {AMINA["id"]: AMINA, BADR["id"]: BADR, CHAMS["id"]: CHAMS}
REFUSED = t("en", "err.bad_button")


async def table_state(store: Store, match_id: int) -> tuple[Any, ...]:
    match = await store.get_match(match_id)
    seats = await store.seats(match_id)
    return match.status, match.version, match.options, [(s.player_id, s.bot_level, s.away) for s in seats]


async def dc_forges(fake: FakeDiscord, adapter: Any, who: dict[str, Any], on_message: str, code: str,
                    server: FakeTelegram, store: Store, match_id: int, admin: bool = False) -> None:
    """`who` clicks `code` (another platform's) added to a Discord message: refused to them only, no change."""
    before = await table_state(store, match_id)
    telegram_calls = len(server.api_calls())
    calls = await fake.feed(adapter.client, fake.press(who, on_message, code, forge=True,
                                                       permissions=ADMIN if admin else "0"))
    assert any(REFUSED in text for text in answers(calls)), (code, answers(calls))
    assert await table_state(store, match_id) == before, code
    assert server.api_calls()[telegram_calls:] == [], f"{code} made Telegram calls"


async def test_presses_from_the_other_platform_are_refused_both_ways(store):
    server = FakeTelegram()
    fake = FakeDiscord()
    async with Bot(server, store, seed=3, images=True) as bot:
        adapter = await start_adapter(store, fake, service=bot.service)
        try:
            # A Discord lobby, so Discord users have a message to click on, and Telegram users a table to forge.
            await fake.feed(adapter.client, fake.command(AMINA, "new", {"game": "kenza"}))
            dc_match = await store.lobby_or_active_match("discord", str(CHANNEL_ID))
            dc_lobby = fake.last_with_button("j:")["id"]

            # A Telegram lobby opened by the Telegram user with Amina's id: Discord Amina (same digits), an admin
            # of her server, and Chams forge its lobby codes.
            await bot.command(TG_AMINA, GROUP_ID, "/new kenza")
            tg_match = await store.lobby_or_active_match("telegram", str(GROUP_ID))
            for who, code, admin in [
                (CHAMS, callbacks.encode("j", tg_match.id), False),
                (AMINA, callbacks.encode("j", tg_match.id), False),
                (AMINA, callbacks.encode("o", tg_match.id, "target"), False),
                (AMINA, callbacks.encode("b", tg_match.id, "normal"), False),
                (AMINA, callbacks.encode("s", tg_match.id), False),
                (AMINA, callbacks.encode("x", tg_match.id), True),
            ]:
                await dc_forges(fake, adapter, who, dc_lobby, code, server, store, tg_match.id, admin=admin)
            await bot.command(TG_AMINA, GROUP_ID, "/cancel")

            # A running Telegram table of the users holding Amina's and Badr's ids.
            match_id = await open_table(bot, TG_AMINA, [TG_BADR])
            match, seat = await seat_to_move(store, match_id)
            mover = (TG_AMINA, TG_BADR)[seat] if (await store.seats(match_id))[0].display_name == \
                TG_AMINA["first_name"] else (TG_BADR, TG_AMINA)[seat]
            _, keyboard = server.rack(mover["id"])
            move = first_data(keyboard, "m:", "p:")
            twin = DC_BY_ID[str(mover["id"])]  # the Discord user with the mover's id
            for code in (move, callbacks.encode("h", match_id), callbacks.encode("c", match_id),
                         callbacks.encode("i", match_id), callbacks.encode("l", match_id)):
                await dc_forges(fake, adapter, twin, dc_lobby, code, server, store, match_id)

            # And back: Telegram users holding the Discord users' ids forge the Discord lobby's codes.
            discord_calls = len(fake.calls)
            before = await table_state(store, dc_match.id)
            lobby_id, _ = lobby_keyboard(server)
            for who, code in [(TG_BADR, callbacks.encode("j", dc_match.id)),
                              (TG_AMINA, callbacks.encode("s", dc_match.id)),
                              (TG_AMINA, callbacks.encode("b", dc_match.id, "normal")),
                              (TG_AMINA, callbacks.encode("x", dc_match.id))]:
                answer = await bot.press(who, GROUP_ID, lobby_id, code)
                assert answer.get("show_alert") and answer.get("text") == REFUSED, (code, answer)
            assert await table_state(store, dc_match.id) == before
            assert fake.calls[discord_calls:] == [], "a Telegram press made Discord calls"
        finally:
            await adapter.client.close()


async def test_an_actor_and_a_chat_of_different_platforms_are_refused(tmp_path):
    """The service does not trust an adapter to pair them: a Discord actor in a Telegram chat (same user id as a
    Telegram player) neither joins, plays, nor sees anything there."""
    store = await Store.open(str(tmp_path / "mixed.db"))
    service = Service(store, seed_source=random.Random(2))
    telegram, discord = FakeTransport(), FakeTransport()
    telegram.platform, discord.platform = "telegram", "discord"
    service.attach(telegram, images=False)
    service.attach(discord, images=False)
    group = ChatRef("telegram", "-100")
    ali = Actor("telegram", "7", "Ali", language="en")
    twin = Actor("discord", "7", "Not Ali", language="en")
    await service.command(ali, group, "new", ["kenza"])
    match = await store.lobby_or_active_match("telegram", "-100")
    before = await table_state(store, match.id)
    sent = (len(telegram.calls), len(discord.calls))
    for name, args in (("join", []), ("start", []), ("cancel", []), ("hand", []), ("m", ["play", "1O"])):
        reply = await service.command(twin, group, name, args)
        assert reply.alert, (name, reply.text)
    for op, args in (("j", ()), ("b", ("normal",)), ("s", ()), ("c", ()), ("h", ())):
        reply = await service.press(twin, group, callbacks.encode(op, match.id, *args))
        assert reply.alert and reply.text == REFUSED, (op, reply.text)
    reply = await service.press(Actor("discord", "7", "Not Ali", language="en", is_admin=True), group,
                                callbacks.encode("x", match.id))
    assert reply.alert and reply.text == REFUSED
    assert await table_state(store, match.id) == before
    assert (len(telegram.calls), len(discord.calls)) == sent
    await store.close()
