"""Storage: schema migrations, connection settings, DATABASE_URL, players, chats, lobbies, seats, messages."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from storage import (
    CHAT_DEFAULTS,
    AlreadySeated,
    NotFound,
    Store,
    TableBusy,
    WrongStatus,
    database_path,
)
from storage.migrate import revision_numbers
from tests.legacy_migrations import MIGRATIONS as LEGACY


@pytest.fixture
def store(any_store: Store) -> Store:
    """Each test here runs on SQLite and on PostgreSQL (when MAJLIS_TEST_DATABASE_URL is set)."""
    return any_store


async def _lobby(store: Store, chat: str = "c1", humans: int = 1, bots: int = 1):
    players = [await store.upsert_player("tg", f"u{i}", f"P{i}") for i in range(humans)]
    match = await store.create_match("kenza", "classic", {"target": 151}, "tg", chat, players[0].id, 7)
    for player in players:
        await store.add_seat(match.id, player_id=player.id)
    for _ in range(bots):
        await store.add_seat(match.id, bot_level="normal")
    return match, players


# ---- migrations and connection ----------------------------------------------------------------------------------

async def test_fresh_database_is_migrated_and_recorded(tmp_path: Path) -> None:
    path = tmp_path / "fresh.db"
    store = await Store.open(str(path))
    # every version of the hand-written runner has its revision, and the revisions after it go on counting
    assert store.migrations_applied == revision_numbers() == list(range(1, revision_numbers()[-1] + 1))
    assert revision_numbers()[:len(LEGACY)] == list(range(1, len(LEGACY) + 1))
    await store.close()
    import sqlite3
    with sqlite3.connect(path) as conn:
        versions = [row[0] for row in conn.execute("SELECT version_num FROM alembic_version")]
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert versions == [f"{revision_numbers()[-1]:04d}"]
    assert {"players", "chats", "matches", "seats", "moves", "messages", "stats"} <= tables


async def test_reopen_applies_nothing_and_keeps_data(tmp_path: Path) -> None:
    path = str(tmp_path / "again.db")
    first = await Store.open(path)
    player = await first.upsert_player("tg", 1, "Ali")
    await first.close()
    second = await Store.open(path)
    assert second.migrations_applied == []
    assert await second.get_player(player.id) == player
    await second.close()


async def test_connection_settings(tmp_path: Path) -> None:
    store = await Store.open(str(tmp_path / "settings.db"))
    assert await store.pragma("journal_mode") == "wal"
    assert await store.pragma("foreign_keys") == 1
    assert await store.pragma("busy_timeout") == 5000
    await store.close()


async def test_default_path_creates_data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    store = await Store.open()
    await store.close()
    assert (tmp_path / "data" / "majlis.db").is_file()


async def test_database_url_env_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "nested" / "dir" / "env.db"
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{target}")
    store = await Store.open()
    assert store.path == str(target)
    await store.close()
    assert target.is_file()


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("sqlite:///data/x.db", "data/x.db"),
        ("sqlite:////var/lib/majlis.db", "/var/lib/majlis.db"),
        ("sqlite:///:memory:", ":memory:"),
        ("sqlite://", ":memory:"),
        (":memory:", ":memory:"),
        ("/abs/plain.db", "/abs/plain.db"),
        ("rel/plain.db", "rel/plain.db"),
        ("  sqlite:///spaced.db ", "spaced.db"),
    ],
)
def test_database_url_forms(url: str, expected: str) -> None:
    assert database_path(url, environ={}) == expected


def test_database_url_precedence_and_errors() -> None:
    assert database_path(None, environ={}) == "data/majlis.db"
    assert database_path(None, environ={"DATABASE_URL": ""}) == "data/majlis.db"
    assert database_path(None, environ={"DATABASE_URL": "sqlite:///e.db"}) == "e.db"
    assert database_path("given.db", environ={"DATABASE_URL": "sqlite:///e.db"}) == "given.db"
    with pytest.raises(ValueError, match="names a server, not a file"):
        database_path("postgres://host/db", environ={})
    with pytest.raises(ValueError, match="only sqlite and postgresql"):
        database_path("mysql://host/db", environ={})
    with pytest.raises(ValueError):
        database_path("sqlite://host/db", environ={})


async def test_memory_database_works() -> None:
    store = await Store.open(":memory:")
    player = await store.upsert_player("dc", 1, "A")
    assert await store.find_player("dc", "1") == player
    await store.close()


# ---- players and chats ----------------------------------------------------------------------------------------

async def test_upsert_player_creates_once_and_follows_renames(store: Store) -> None:
    first = await store.upsert_player("tg", 42, "Ali")
    again = await store.upsert_player("tg", "42", "Ali B")
    assert again.id == first.id and again.display_name == "Ali B" and again.user_id == "42"
    other_platform = await store.upsert_player("dc", 42, "Ali")
    assert other_platform.id != first.id
    assert await store.find_player("tg", 42) == again
    assert await store.find_player("tg", 43) is None
    assert await store.get_player(999) is None


async def test_player_language(store: Store) -> None:
    player = await store.upsert_player("tg", 1, "Ali")
    assert player.language is None
    assert (await store.set_player_language(player.id, "ar")).language == "ar"
    assert (await store.upsert_player("tg", 1, "Ali")).language == "ar"  # a rename keeps the choice
    with pytest.raises(NotFound):
        await store.set_player_language(999, "en")


async def test_chat_created_on_first_use_with_defaults(store: Store) -> None:
    chat = await store.get_chat("tg", -100123)
    assert chat.chat_id == "-100123" and chat.language is None
    assert chat.defaults == CHAT_DEFAULTS and chat.turn_timer is None
    assert (await store.get_chat("tg", -100123)).created == chat.created


async def test_chat_language_and_defaults_merge(store: Store) -> None:
    await store.set_chat_language("tg", 5, "en")
    chat = await store.set_chat_defaults("tg", 5, {"turn_timer": 45, "target": 101})
    assert chat.language == "en" and chat.turn_timer == 45 and chat.defaults["target"] == 101
    chat = await store.set_chat_defaults("tg", 5, {"turn_timer": None})
    assert chat.turn_timer is None and chat.defaults["target"] == 101  # back to the game's default
    assert (await store.get_chat("dc", 5)).language is None  # same id, other platform: another chat


# ---- matches and seats ----------------------------------------------------------------------------------------

async def test_one_open_table_per_chat(store: Store) -> None:
    match, players = await _lobby(store)
    assert match.status == "lobby" and match.options == {"target": 151} and match.seed == 7
    assert (await store.lobby_or_active_match("tg", "c1")) == await store.get_match(match.id)
    with pytest.raises(TableBusy) as busy:
        await store.create_match("kenza", "classic", {}, "tg", "c1", players[0].id, 1)
    assert busy.value.match_id == match.id
    other = await store.create_match("kenza", "classic", {}, "tg", "c2", players[0].id, 1)  # other chat is fine
    assert other.id != match.id
    await store.start_match(match.id, {"s": 0}, None)
    with pytest.raises(TableBusy):
        await store.create_match("kenza", "classic", {}, "tg", "c1", None, 1)
    await store.cancel_match(match.id)
    assert await store.lobby_or_active_match("tg", "c1") is None
    fresh = await store.create_match("kenza", "classic", {}, "tg", "c1", None, 1)
    assert (await store.lobby_or_active_match("tg", "c1")).id == fresh.id


async def test_database_itself_refuses_a_second_open_table(store: Store) -> None:
    await _lobby(store)
    with pytest.raises(IntegrityError):
        async with store.transaction() as db:
            await db.execute(text(
                """INSERT INTO matches (game, mode, status, platform, chat_id, created, updated)
                   VALUES ('kenza', 'm', 'active', 'tg', 'c1', 0, 0)"""
            ))


async def test_seat_add_remove_renumbers(store: Store) -> None:
    players = [await store.upsert_player("tg", i, f"P{i}") for i in range(3)]
    match = await store.create_match("kenza", "classic", {}, "tg", "c", players[0].id, 1)
    for player in players:
        await store.add_seat(match.id, player_id=player.id)
    bot = await store.add_seat(match.id, bot_level="random")
    assert bot.seat == 3 and bot.bot_level == "random" and not bot.is_human
    remaining = await store.remove_seat(match.id, 1)
    assert [s.seat for s in remaining] == [0, 1, 2]
    assert [s.player_id for s in remaining] == [players[0].id, players[2].id, None]
    assert [s.display_name for s in remaining] == ["P0", "P2", None]
    assert remaining == await store.seats(match.id)
    assert (await store.add_seat(match.id, player_id=players[1].id)).seat == 3
    assert [s.seat for s in await store.remove_seat(match.id, 0)] == [0, 1, 2]
    with pytest.raises(NotFound):
        await store.remove_seat(match.id, 7)


async def test_seat_rules(store: Store) -> None:
    match, players = await _lobby(store, bots=0)
    with pytest.raises(AlreadySeated):
        await store.add_seat(match.id, player_id=players[0].id)
    with pytest.raises(ValueError):
        await store.add_seat(match.id)
    with pytest.raises(ValueError):
        await store.add_seat(match.id, player_id=players[0].id, bot_level="normal")
    with pytest.raises(NotFound):
        await store.add_seat(match.id, player_id=12345)
    with pytest.raises(NotFound):
        await store.add_seat(999, bot_level="normal")
    await store.add_seat(match.id, bot_level="normal")
    await store.start_match(match.id, {}, None)
    with pytest.raises(WrongStatus):
        await store.add_seat(match.id, bot_level="normal")
    with pytest.raises(WrongStatus):
        await store.remove_seat(match.id, 0)


async def test_seat_flags(store: Store) -> None:
    match, _ = await _lobby(store)
    seat = await store.set_seat_flags(match.id, 0, timeouts_in_a_row=2)
    assert seat.timeouts_in_a_row == 2 and seat.away is False
    seat = await store.set_seat_flags(match.id, 0, away=True)
    assert seat.timeouts_in_a_row == 2 and seat.away is True
    seat = await store.set_seat_flags(match.id, 0, timeouts_in_a_row=0, away=False)
    assert (seat.timeouts_in_a_row, seat.away) == (0, False)
    with pytest.raises(NotFound):
        await store.set_seat_flags(match.id, 9, away=True)


async def test_start_match_with_seat_order(store: Store) -> None:
    match, players = await _lobby(store, humans=2, bots=1)  # seats: P0, P1, bot
    started = await store.start_match(match.id, {"state": 1}, 1234.5, seat_order=[2, 0, 1])
    assert (started.status, started.version, started.snapshot, started.deadline) == ("active", 0, {"state": 1},
                                                                                        1234.5)
    seats = await store.seats(match.id)
    assert [(s.bot_level, s.player_id) for s in seats] == [("normal", None), (None, players[0].id),
                                                           (None, players[1].id)]
    assert [m.id for m in await store.active_matches()] == [match.id]
    assert await store.active_matches("dc") == []
    with pytest.raises(WrongStatus):
        await store.start_match(match.id, {}, None)


async def test_start_match_checks(store: Store) -> None:
    match, _ = await _lobby(store)
    with pytest.raises(ValueError):
        await store.start_match(match.id, {}, None, seat_order=[0, 0])
    assert (await store.get_match(match.id)).status == "lobby"
    empty = await store.create_match("kenza", "classic", {}, "tg", "other", None, 1)
    with pytest.raises(WrongStatus):
        await store.start_match(empty.id, {}, None)


async def test_lobby_options_and_cancel(store: Store) -> None:
    match, _ = await _lobby(store)
    changed = await store.set_match_options(match.id, {"target": 301}, mode="ranked")
    assert changed.options == {"target": 301} and changed.mode == "ranked"
    cancelled = await store.cancel_match(match.id)
    assert cancelled.status == "cancelled" and cancelled.finished is not None
    assert (await store.cancel_match(match.id)) == cancelled
    with pytest.raises(WrongStatus):
        await store.set_match_options(match.id, {})
    with pytest.raises(NotFound):
        await store.cancel_match(999)
    assert await store.get_match(999) is None


# ---- messages -------------------------------------------------------------------------------------------------

async def test_messages_upsert_by_slot(store: Store) -> None:
    match, _ = await _lobby(store)
    table = await store.save_message("tg", "c1", 10, "table", match_id=match.id)
    moved = await store.save_message("tg", "c1", 11, "table", match_id=match.id)
    assert moved.id == table.id and moved.message_id == "11"
    rack0 = await store.save_message("tg", "dm-u0", 20, "rack", match_id=match.id, seat=0)
    rack1 = await store.save_message("tg", "dm-u1", 21, "rack", match_id=match.id, seat=1)
    assert rack0.id != rack1.id
    assert (await store.get_message("tg", "rack", match_id=match.id, seat=1)).message_id == "21"
    assert await store.get_message("tg", "rack", match_id=match.id, seat=3) is None
    assert await store.get_message("dc", "table", match_id=match.id) is None
    assert [m.kind for m in await store.messages_for_match(match.id)] == ["rack", "rack", "table"]

    notice = await store.save_message("tg", "c1", 30, "notice")
    assert (await store.get_message("tg", "notice", chat_id="c1")).id == notice.id
    assert (await store.save_message("tg", "c1", 31, "notice")).id == notice.id
    assert (await store.save_message("tg", "c2", 32, "notice")).id != notice.id
    await store.delete_message(notice.id)
    assert await store.get_message("tg", "notice", chat_id="c1") is None
    with pytest.raises(ValueError):
        await store.get_message("tg", "notice")


# ---- transactions ---------------------------------------------------------------------------------------------

async def test_outer_transaction_rolls_back_everything(store: Store) -> None:
    with pytest.raises(RuntimeError):
        async with store.transaction():
            await store.upsert_player("tg", 1, "A")
            await store.get_chat("tg", "c")
            raise RuntimeError("boom")
    assert await store.find_player("tg", 1) is None
    async with store.transaction(write=False) as db:
        assert (await db.execute(text("SELECT count(*) FROM chats"))).scalar_one() == 0


async def test_failed_inner_call_rolls_back_only_itself(store: Store) -> None:
    async with store.transaction():
        player = await store.upsert_player("tg", 1, "A")
        with pytest.raises(NotFound):
            await store.set_player_language(999, "ar")
        await store.set_player_language(player.id, "ar")
    assert (await store.get_player(player.id)).language == "ar"


async def test_other_tasks_wait_for_a_transaction(store: Store) -> None:
    """SQLite's one connection: the reader asks while the writer holds its transaction; the writer then makes one
    more round trip to the database. Were the reader not held back by the lock, its query would reach the
    connection first and finish before "writer out"."""
    if store.dialect != "sqlite":
        pytest.skip("PostgreSQL gives each transaction its own connection: readers do not wait for writers")
    order: list[str] = []
    inside, reader_asked = asyncio.Event(), asyncio.Event()

    async def writer() -> None:
        async with store.transaction():
            await store.upsert_player("tg", 1, "A")
            order.append("writer in")
            inside.set()
            await reader_asked.wait()
            await store.find_player("tg", 1)
            order.append("writer out")

    async def reader() -> None:
        await inside.wait()
        reader_asked.set()
        found = await store.find_player("tg", 1)
        order.append(f"reader saw {found is not None}")

    await asyncio.gather(writer(), reader())
    assert order == ["writer in", "writer out", "reader saw True"]


async def test_cancelled_transaction_rolls_back_and_store_stays_usable(store: Store) -> None:
    inside = asyncio.Event()

    async def slow() -> None:
        async with store.transaction():
            await store.upsert_player("tg", 1, "A")
            inside.set()
            await asyncio.Event().wait()  # until cancelled

    task = asyncio.create_task(slow())
    await inside.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await store.find_player("tg", 1) is None
    assert (await store.upsert_player("tg", 2, "B")).display_name == "B"


async def test_close_twice_is_harmless(tmp_path: Path) -> None:
    store = await Store.open(str(tmp_path / "c.db"))
    await store.close()
    await store.close()


async def test_players_keep_client_language_and_username(store: Store) -> None:
    player = await store.upsert_player("tg", 7, "Ali", client_language="en", username="ali_b")
    assert player.client_language == "en" and player.username == "ali_b"
    again = await store.upsert_player("tg", 7, "Ali")  # an update without them keeps what was known
    assert again.client_language == "en" and again.username == "ali_b"
    assert (await store.find_player("tg", "@ALI_B")).id == player.id
    assert (await store.find_player("tg", "7")).id == player.id
    assert await store.find_player("dc", "@ali_b") is None
    moved = await store.upsert_player("tg", 7, "Ali", client_language="ar", username="ali_new")
    assert moved.client_language == "ar" and (await store.find_player("tg", "ali_new")).id == player.id


async def test_a_write_cancelled_on_the_connections_thread_commits_whole_and_blocks_nothing(store: Store):
    """A store write runs as one step on the connection's thread (`Database.run`): its caller cancelled meanwhile
    leaves the whole write (the thread runs it to its end), and the next transactions run normally."""
    if store.dialect != "sqlite":
        pytest.skip("PostgreSQL: a cancelled statement rolls its transaction back; nothing runs on a thread")
    match = await store.create_match("kenza", "classic", {}, "tg", "c-cancel-write", None, 1)
    await store.add_seat(match.id, bot_level="normal")
    await store.add_seat(match.id, bot_level="normal")
    match = await store.start_match(match.id, {"state": 0}, deadline=None)
    task = asyncio.create_task(store.apply_move(match.id, 0, 0, "bot", "x", {"state": 1}, None))
    await asyncio.sleep(0)  # the step is queued on the thread
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    after = await store.apply_move(match.id, 1, 1, "bot", "y", {"state": 2}, None)  # the first one went through
    assert after.version == 2 and [r.move for r in await store.moves(match.id)] == ["x", "y"]


async def test_a_task_cancelled_during_its_begin_leaves_no_transaction_open(store: Store):
    """The BEGIN runs on the connection's thread; a task cancelled while waiting for it must still end the
    transaction that BEGIN opens, or every later BEGIN fails with "cannot start a transaction within a
    transaction" (seen when a bench stopped its players mid-run)."""
    match = await store.create_match("kenza", "classic", {}, "tg", "c-cancel", None, 1)

    async def read() -> None:
        async with store.transaction(write=False):  # (a lone read outside a transaction never leaves the loop)
            await store.get_match(match.id)

    task = asyncio.create_task(read())
    for _ in range(3):  # let the task take the lock and send its BEGIN to the thread, not yet answered
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert (await store.get_match(match.id)).id == match.id  # the next transaction begins normally


async def test_the_connections_thread_follows_a_connection_terminated_by_a_cancel(tmp_path: Path) -> None:
    """SQLAlchemy terminates the connection of a task cancelled in the middle of one of its awaits and opens a
    new one at the next use. The whole-transaction writes that run on the connection's thread (`Database.run`)
    must follow it to the new connection, and closing must not touch the dead one (seen when a bench stopped mid
    move: every later move and the close failed with "Connection closed")."""
    store = await Store.open(str(tmp_path / "t.db"))
    try:
        match = await store.create_match("kenza", "classic", {}, "tg", "c-terminated", None, 1)
        await store.add_seat(match.id, bot_level="normal")
        await store.add_seat(match.id, bot_level="normal")
        match = await store.start_match(match.id, {"state": 0}, deadline=None)
        for turns in range(1, 6):  # cancel at each of the transaction's awaits in turn
            async def read() -> None:
                async with store.transaction(write=False):
                    await store.get_match(match.id)

            task = asyncio.create_task(read())
            for _ in range(turns):
                await asyncio.sleep(0)
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        first = await store.apply_move(match.id, 0, 0, "bot", "x", {"state": 1}, None)
        for _ in range(50):  # SQLAlchemy closes a terminated aiosqlite connection in a task of its own
            await asyncio.sleep(0)
        after = await store.apply_move(match.id, 1, 1, "bot", "y", {"state": 2}, None)
        assert (first.version, after.version) == (1, 2)
        assert [r.move for r in await store.moves(match.id)] == ["x", "y"]
    finally:
        await store.close()
