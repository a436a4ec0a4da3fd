"""Coin tables: grants, stakes held at the start and paid with the final move, refunds, who may sit, `/coins`,
the lobby's stake, and a whole two-player coin match by buttons with the balances after it."""

from __future__ import annotations

import random

import pytest
from sqlalchemy import text

import engine
from bot import callbacks
from bot.coin_tables import finishing_places, next_stake, parse_stake
from bot.i18n import t, tn
from bot.messages import Actor, ChatRef
from bot.service import Service
from storage import Store
from storage.coins import CoinGrants, split_pot
from storage.errors import NotEnoughCoins
from tests.chat import Clock, fake_service
from tests.test_konkan_cards_chat import Player, choose

GAME = engine.get("konkan_cards")
GROUP = ChatRef("fake", "-700", private=False)
ALI = Actor("fake", "31", "Ali", language="en")
MONA = Actor("fake", "32", "Mona", language="en")
SAMI = Actor("fake", "33", "Sami", language="en")
DAY = 86_400.0



@pytest.fixture
async def setup(tmp_path):
    async with fake_service(tmp_path / "majlis.db", 12, store_clock=True,
                            coin_grants=CoinGrants(starting=100, daily=7)) as (service, transport, store, clock):
        await service.command(Actor("fake", "30", "Admin", language="en", is_admin=True), GROUP, "lang", ["en"])
        yield service, transport, store, clock


# ---- the pot ----------------------------------------------------------------------------------------------------
def test_two_players_winner_takes_all_three_or_four_seventy_thirty():
    assert split_pot(100, [[1], [0]], 2) == {1: 100, 0: 0}
    assert split_pot(150, [[2], [0], [1]], 3) == {2: 105, 0: 45, 1: 0}
    assert split_pot(200, [[3], [1], [0], [2]], 4) == {3: 140, 1: 60, 0: 0, 2: 0}
    # a tie for second shares the 30 %; a coin that does not split goes to the lower seat
    assert split_pot(150, [[0], [1, 2]], 3) == {0: 105, 1: 23, 2: 22}
    assert sum(split_pot(333, [[0], [3], [1, 2]], 4).values()) == 333


def test_finishing_places_lower_is_better_and_a_committed_konkan_comes_first():
    result = {"scores": [120, 40, 75, 40], "winners": [1], "konkan_winner": None}
    assert finishing_places("konkan_cards", result, 4) == [[1], [3], [2], [0]]
    result = {"scores": [120, 40, 75, 10], "winners": [0], "konkan_winner": 0}  # the Konkan wins whatever the totals
    assert finishing_places("konkan_cards", result, 4) == [[0], [3], [1], [2]]
    assert finishing_places("konkan_cards", {"scores": [50, 30, 30], "winners": [0]}, 3) == [[0], [1, 2]]


def test_typed_stakes_and_the_lobby_cycle():
    assert parse_stake("50") == 50 and parse_stake("0") == 0
    assert parse_stake("-5") is None and parse_stake("٥٠") is None and parse_stake("abc") is None
    assert [next_stake(s) for s in (0, 10, 50, 100, 250, 37)] == [10, 50, 100, 250, 0, 50]


# ---- storage ----------------------------------------------------------------------------------------------------
async def test_grants_start_then_once_a_day(tmp_path):
    clock = Clock()
    store = await Store.open(str(tmp_path / "c.db"), clock=clock)
    ali = await store.upsert_player("fake", "1", "Ali")
    grants = CoinGrants(starting=100, daily=7)
    assert await store.coins(ali.id, grants) == 100
    assert await store.coins(ali.id, grants) == 100  # the first day is the starting grant only
    clock.now += DAY
    assert await store.coins(ali.id, grants) == 107
    assert await store.coins(ali.id, grants) == 107
    clock.now += 3 * DAY  # days missed are not added up
    assert await store.coins(ali.id, grants) == 114
    assert [reason for _, _, reason in await store.coin_ledger(ali.id)] == ["start", "daily", "daily"]
    await store.close()


async def test_stakes_held_at_start_paid_with_the_final_move_or_refunded(tmp_path):
    store = await Store.open(str(tmp_path / "c.db"))
    grants = CoinGrants(starting=100, daily=0)
    ids = [(await store.upsert_player("fake", str(n), f"P{n}")).id for n in range(3)]
    for player_id in ids:
        await store.coins(player_id, grants)
    match = await store.create_match("konkan_cards", "casual", {}, "fake", "-1", ids[0], 1, stake=60)
    for player_id in ids:
        await store.add_seat(match.id, player_id=player_id)
    state = GAME.new(3, {}, seed=1)
    match = await store.start_match(match.id, GAME.to_json(state), None)
    assert [await store.coins(p, grants) for p in ids] == [40, 40, 40]
    result = {"over": True, "scores": [10, 90, 40], "winners": [0], "draw": False}
    await store.apply_move(match.id, 0, 0, "human", "discard 2C", GAME.to_json(state), None, result,
                           places=[[0], [2], [1]])
    assert [await store.coins(p, grants) for p in ids] == [40 + 126, 40, 40 + 54]  # pot 180: 70 % / 30 %

    short = await store.create_match("konkan_cards", "casual", {}, "fake", "-2", ids[1], 1, stake=50)
    for player_id in ids:
        await store.add_seat(short.id, player_id=player_id)
    with pytest.raises(NotEnoughCoins) as refused:
        await store.start_match(short.id, GAME.to_json(state), None)
    assert refused.value.player_ids == [ids[1]]
    assert (await store.get_match(short.id)).status == "lobby"
    assert [await store.coins(p, grants) for p in ids] == [166, 40, 94]  # nothing was taken from anyone

    await store.remove_seat(short.id, 1)
    await store.add_seat(short.id, player_id=ids[1])
    await store.set_match_stake(short.id, 40)
    await store.start_match(short.id, GAME.to_json(state), None)
    assert [await store.coins(p, grants) for p in ids] == [126, 0, 54]
    await store.cancel_match(short.id)  # abandoned in play: every stake goes back
    assert [await store.coins(p, grants) for p in ids] == [166, 40, 94]
    await store.close()


# ---- the service ------------------------------------------------------------------------------------------------
async def test_coins_command_and_who_may_sit(setup):
    service, transport, store, clock = setup
    reply = await service.command(ALI, GROUP, "coins")
    assert reply.text == tn("en", "coins.balance_first_day", 100, daily=7) and reply.private
    assert (await service.command(ALI, GROUP, "new", ["kenza", "stake=10"])).text == t(
        "en", "coins.not_this_game", game="Kenza")
    assert (await service.command(ALI, GROUP, "new", ["konkan_cards", "stake=lots"])).text == t(
        "en", "coins.bad_stake")
    assert (await service.command(ALI, GROUP, "new", ["konkan_cards", "stake=500"])).text == tn(
        "en", "coins.short", 500, balance=100)
    assert await store.lobby_or_active_match("fake", "-700") is None
    await service.command(ALI, GROUP, "new", ["konkan_cards", "stake=80"])
    match = await store.lobby_or_active_match("fake", "-700")
    assert match.stake == 80
    lobby = transport.latest("-700")
    assert tn("en", "coins.lobby_stake", 80) in lobby.text
    assert not any(b.data.startswith("b:") for row in lobby.keyboard for b in row)  # no bot buttons
    reply = await service.press(ALI, GROUP, callbacks.encode("b", match.id, "normal"))  # forged or stale
    assert reply.alert and reply.text == t("en", "coins.no_bots")
    # Mona has spent all but 30 of her coins elsewhere
    mona = await store.upsert_player("fake", "32", "Mona")
    await store.coins(mona.id, service.coin_grants)
    async with store.transaction() as db:
        await db.execute(text("UPDATE coins SET balance = 30 WHERE player_id = :id"), {"id": mona.id})
    reply = await service.command(MONA, GROUP, "join")
    assert reply.alert and reply.text == tn("en", "coins.short", 80, balance=30)
    clock.now += DAY * 8  # eight days later the daily grant (7) still leaves her short: one grant, not eight
    reply = await service.command(MONA, GROUP, "join")
    assert reply.text == tn("en", "coins.short", 80, balance=37)
    # the creator lowers the stake with the lobby button: 80 -> 100 -> 250 -> free -> 10
    for expected in (100, 250, 0, 10):
        await service.press(ALI, GROUP, callbacks.encode("o", match.id, "stake"))
        assert (await store.get_match(match.id)).stake == expected
    assert (await service.command(MONA, GROUP, "join")).text == t("en", "lobby.joined")
    reply = await service.press(MONA, GROUP, callbacks.encode("o", match.id, "stake"))
    assert reply.alert and reply.text == t("en", "err.creator_only")


async def test_a_bot_at_a_free_table_blocks_a_stake(setup):
    service, transport, store, _ = setup
    await service.command(ALI, GROUP, "new", ["konkan_cards"])
    match = await store.lobby_or_active_match("fake", "-700")
    assert t("en", "coins.lobby_free") in transport.latest("-700").text
    await service.press(ALI, GROUP, callbacks.encode("b", match.id, "random"))
    reply = await service.press(ALI, GROUP, callbacks.encode("o", match.id, "stake"))
    assert reply.alert and reply.text == t("en", "coins.remove_bots")
    assert (await store.get_match(match.id)).stake == 0


async def test_a_whole_coin_match_by_buttons_pays_the_winner(setup):
    service, transport, store, _ = setup
    await service.command(ALI, GROUP, "new", ["konkan_cards", "stake=50"])
    await service.command(SAMI, GROUP, "join")
    match = await store.lobby_or_active_match("fake", "-700")
    for actor in (ALI, SAMI):
        await service.command(actor, ChatRef("fake", actor.user_id, private=True), "start")
    await service.press(ALI, GROUP, callbacks.encode("s", match.id))
    match = await store.get_match(match.id)
    assert match.status == "active"
    seats = await store.seats(match.id)
    players = {seat.seat: Player(service, transport, ALI if seat.player_id == (await store.find_player(
        "fake", "31")).id else SAMI) for seat in seats}
    assert [(await service.command(a, GROUP, "coins")).text for a in (ALI, SAMI)] == [
        tn("en", "coins.balance_first_day", 50, daily=7)] * 2
    for _ in range(5000):
        match = await store.get_match(match.id)
        if match.status != "active":
            break
        state = GAME.from_json(match.snapshot)
        seat = GAME.to_move(state)
        view, legal = GAME.view(state, seat), GAME.legal_moves(state, seat)
        await players[seat].play(choose(view, legal), view, legal)
    assert match.status == "finished"
    winner = match.result["winners"][0]
    balances = {seat: int((await service.command(players[seat].actor, GROUP, "coins")).text.split()[3])
                for seat in players}
    assert balances == {winner: 150, 1 - winner: 50}


async def test_a_terminal_coin_table_pass_and_play_to_the_end():
    """`majlis play konkan_cards --players 3 --stake 40`: three players at one keyboard, /coins before and after."""
    import io

    from bot.console import ConsoleTransport
    from bot.console import play as console_play
    from engine.bots import decide

    store = await Store.open(":memory:")
    out = io.StringIO()
    service = Service(store, seed_source=random.Random(3))
    transport = ConsoleTransport(out)
    service.attach(transport, images=False)
    typed = {"n": 0}
    asked: list[str] = []

    async def read(prompt: str) -> str:
        if prompt.startswith(t("en", "console.pass_to", name="")[:10]):
            return ""  # Enter: the next player at the keyboard is ready to see their cards
        typed["n"] += 1
        match = await store.lobby_or_active_match("console", "table")
        state = GAME.from_json(match.snapshot)
        seat = GAME.to_move(state)
        if typed["n"] <= 3:
            asked.append(prompt)
            return "/coins"
        return decide("konkan_cards", state, seat, "normal", random.Random(typed["n"]))

    await console_play(service, transport, "konkan_cards", 3, {}, "en", read=read, stake=40)
    match = await store.get_match(1)
    seats = await store.seats(1)
    balances = [await store.coins(seat.player_id, CoinGrants()) for seat in seats]
    await store.close()
    assert match.status == "finished" and match.stake == 40
    assert all(seat.is_human for seat in seats)
    places = finishing_places("konkan_cards", match.result, 3)
    first, second = places[0][0], places[1][0]
    assert balances[first] == 460 + 84 and balances[second] == 460 + 36
    assert sorted(balances) == sorted([544, 496, 460])
    text = out.getvalue()
    assert text.count(tn("en", "coins.balance_first_day", 460, daily=50)) >= 1  # /coins in play: the stake is held
    assert all(p.startswith("[") for p in asked)  # the prompt names the player at the keyboard
    assert "Winner" in text
    beginning = text[:text.index(tn("en", "coins.lobby_stake", 40))]
    for name in ("Player 1", "Player 2", "Player 3"):  # each player's balance before the stakes were taken
        assert f"{name}: " + tn("en", "coins.balance_first_day", 500, daily=50) in beginning
    ending = text[text.rindex("Winner"):]
    for balance in (544, 496, 460):  # each player's /coins said after the end
        assert tn("en", "coins.balance_first_day", balance, daily=50) in ending


async def test_migration_5_upgrades_a_version_4_database(tmp_path):
    """A database written before coin tables: its matches become free tables, and coins start from the grant."""
    import aiosqlite

    from storage.migrate import revision_numbers
    from tests.legacy_migrations import MIGRATIONS, apply_migrations

    path = str(tmp_path / "old.db")
    async with aiosqlite.connect(path, isolation_level=None) as conn:
        assert await apply_migrations(conn, MIGRATIONS[:4]) == [1, 2, 3, 4]
        await conn.execute("INSERT INTO players (platform, user_id, display_name, created) VALUES ('t', '1', 'A', 0)")
        await conn.execute("""INSERT INTO matches (game, mode, platform, chat_id, created, updated)
                              VALUES ('konkan_cards', 'casual', 't', '-1', 0, 0)""")
    store = await Store.open(path)
    assert store.migrations_applied == list(range(5, revision_numbers()[-1] + 1))  # 5, and any later ones
    assert (await store.get_match(1)).stake == 0
    assert await store.coins(1, CoinGrants(starting=321, daily=1)) == 321
    async with store.transaction() as db:  # a balance can never go below zero, whatever the caller does
        with pytest.raises(Exception, match="CHECK"):
            await db.execute(text("UPDATE coins SET balance = -1 WHERE player_id = 1"))
    await store.close()


async def test_a_stake_raised_after_someone_sat_is_checked_at_start(setup):
    service, transport, store, _ = setup
    await service.command(ALI, GROUP, "new", ["konkan_cards"])
    match = await store.lobby_or_active_match("fake", "-700")
    await service.command(MONA, GROUP, "join")
    mona = await store.find_player("fake", "32")
    await store.coins(mona.id, service.coin_grants)
    async with store.transaction() as db:
        await db.execute(text("UPDATE coins SET balance = 30 WHERE player_id = :id"), {"id": mona.id})
    for _ in range(2):  # free -> 10 -> 50
        await service.press(ALI, GROUP, callbacks.encode("o", match.id, "stake"))
    for actor in (ALI, MONA):
        await service.command(actor, ChatRef("fake", actor.user_id, private=True), "start")
    reply = await service.press(ALI, GROUP, callbacks.encode("s", match.id))
    assert reply.alert and reply.text == tn("en", "coins.short_at_start", 50, names="Mona")
    assert (await store.get_match(match.id)).status == "lobby"
    assert await store.coins(mona.id, service.coin_grants) == 30
    assert await store.coins((await store.find_player("fake", "31")).id, service.coin_grants) == 100


async def test_coins_on_the_first_day_says_the_daily_grant_starts_tomorrow(setup):
    """A new player's first day is covered by the starting coins (storage/coins.py): /coins says so and that the
    daily grant starts tomorrow, instead of promising one today; from the next UTC day on it says the usual."""
    service, transport, store, clock = setup
    first = (await service.command(ALI, GROUP, "coins")).text
    assert first == tn("en", "coins.balance_first_day", 100, daily=7)
    assert "from tomorrow (UTC), a daily grant of 7" in first
    assert (await service.command(ALI, GROUP, "coins")).text == first  # still the first day: no grant yet
    clock.now += DAY
    assert (await service.command(ALI, GROUP, "coins")).text == tn("en", "coins.balance", 107, daily=7)
    await service.command(SAMI, GROUP, "lang", ["ar"])
    arabic = (await service.command(SAMI, GROUP, "coins")).text
    assert arabic == tn("ar", "coins.balance_first_day", 100, daily=7) and "ومن الغد" in arabic


async def test_stakes_are_counted_with_the_plural_form_arabic_needs():
    """"المقعد بـ10 عملات", "بعملتين", "50 عملة": the coin counts of the lobby and the refusals are plural entries."""
    assert tn("ar", "coins.stake_set", 10) == "الرهان: 10 عملات للمقعد."
    assert tn("ar", "coins.stake_set", 2) == "الرهان: عملتان للمقعد."
    assert tn("ar", "coins.stake_set", 50) == "الرهان: 50 عملة للمقعد."
    assert tn("ar", "coins.lobby_stake", 1).startswith("🪙 طاولة رهان: عملة واحدة للمقعد")
    assert "بعملتين" in tn("ar", "coins.short", 2, balance=1)
    assert tn("en", "coins.short_at_start", 1, names="Mona") == \
        "Cannot start: Mona no longer has the 1 coin this table's seat costs."


async def test_a_balance_of_one_coin_is_said_in_the_singular_in_both_languages(setup):
    service, transport, store, clock = setup
    await service.command(ALI, GROUP, "coins")
    async with store.transaction() as db:
        await db.execute(text("UPDATE coins SET balance = 1"))
    assert (await service.command(ALI, GROUP, "coins")).text.startswith("🪙 You have 1 coin. ")
    await service.command(ALI, GROUP, "lang", ["ar"])
    assert (await service.command(ALI, GROUP, "coins")).text.startswith("🪙 رصيدك عملة واحدة.")
