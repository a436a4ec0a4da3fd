"""Storage: every field of the records comes back as written (messages, chats, players, deadlines, options), the
timer guard of `set_deadline`, and the errors the service tells apart. A controllable clock stamps each write."""

from __future__ import annotations

from pathlib import Path

import pytest

from storage import NotFound, StaleVersion, Store, TableBusy, WrongStatus
from tests.clock import Clock


@pytest.fixture
async def clock() -> Clock:
    return Clock(1000.0)


@pytest.fixture
def store(any_store: Store, clock: Clock) -> Store:
    """Each test here runs on SQLite and on PostgreSQL (when MAJLIS_TEST_DATABASE_URL is set), stamped by `clock`."""
    any_store._clock = clock
    return any_store


@pytest.fixture
async def sqlite_store(tmp_path: Path, clock: Clock):
    """For what only SQLite has: pragmas, the file another process opens."""
    store = await Store.open(str(tmp_path / "records.db"), clock=clock)
    yield store
    await store.close()


async def started(store: Store, chat: str = "c") -> int:
    player = await store.upsert_player("tg", f"{chat}-u", "Amina")
    match = await store.create_match("kenza", "classic", {"target": 151}, "tg", chat, player.id, 5)
    await store.add_seat(match.id, player_id=player.id)
    await store.add_seat(match.id, bot_level="normal")
    await store.start_match(match.id, {"n": 0}, 50.0)
    return match.id


# ---- messages ---------------------------------------------------------------------------------------------------
async def test_a_saved_message_comes_back_with_every_field(store: Store, clock: Clock) -> None:
    match_id = await started(store)
    clock.now = 1234.5
    saved = await store.save_message("tg", -100, 77, "rack", match_id=match_id, seat=1)
    assert (saved.match_id, saved.platform, saved.chat_id, saved.message_id, saved.kind, saved.seat,
            saved.updated) == (match_id, "tg", "-100", "77", "rack", 1, 1234.5)
    assert isinstance(saved.id, int) and saved.id > 0
    got = await store.get_message("tg", "rack", match_id=match_id, seat=1)
    assert got == saved


async def test_saving_a_slot_again_replaces_the_message_and_its_chat(store: Store, clock: Clock) -> None:
    match_id = await started(store)
    first = await store.save_message("tg", 10, 1, "rack", match_id=match_id, seat=0)
    clock.now = 2000.0
    again = await store.save_message("tg", 11, 2, "rack", match_id=match_id, seat=0)
    assert again.id == first.id
    assert (again.chat_id, again.message_id, again.updated) == ("11", "2", 2000.0)
    other_seat = await store.save_message("tg", 12, 3, "rack", match_id=match_id, seat=1)
    table = await store.save_message("tg", 10, 4, "table", match_id=match_id)
    other_platform = await store.save_message("dc", 10, 5, "rack", match_id=match_id, seat=0)
    assert len({first.id, other_seat.id, table.id, other_platform.id}) == 4
    assert (await store.get_message("tg", "rack", match_id=match_id, seat=0)).message_id == "2"
    assert (await store.get_message("dc", "rack", match_id=match_id, seat=0)).message_id == "5"
    assert (await store.get_message("tg", "table", match_id=match_id)).message_id == "4"
    assert await store.get_message("tg", "table", match_id=match_id, seat=0) is None
    assert await store.get_message("tg", "notice", match_id=match_id) is None


async def test_messages_without_a_match_are_kept_per_chat(store: Store) -> None:
    lobby = await store.save_message("tg", 5, 1, "help")
    assert lobby.match_id is None and lobby.seat is None
    assert await store.get_message("tg", "help", chat_id=5) == lobby
    assert await store.get_message("tg", "help", chat_id=6) is None
    assert await store.get_message("dc", "help", chat_id=5) is None
    with pytest.raises(ValueError, match="get_message needs a match_id or a chat_id"):
        await store.get_message("tg", "help")


async def test_messages_for_match_lists_them_by_kind_then_seat_and_delete_forgets_one(store: Store) -> None:
    match_id = await started(store)
    other = await started(store, chat="d")
    rack1 = await store.save_message("tg", 1, 11, "rack", match_id=match_id, seat=1)
    table = await store.save_message("tg", 1, 12, "table", match_id=match_id)
    rack0 = await store.save_message("tg", 1, 13, "rack", match_id=match_id, seat=0)
    await store.save_message("tg", 2, 14, "table", match_id=other)
    assert [m.id for m in await store.messages_for_match(match_id)] == [rack0.id, rack1.id, table.id]
    await store.delete_message(rack1.id)
    assert [m.id for m in await store.messages_for_match(match_id)] == [rack0.id, table.id]
    await store.delete_message(10_000)  # unknown: ignored
    assert len(await store.messages_for_match(other)) == 1


# ---- chats and players ------------------------------------------------------------------------------------------
async def test_chat_settings_merge_and_a_none_returns_to_the_default(store: Store, clock: Clock) -> None:
    chat = await store.get_chat("tg", -5)
    assert (chat.platform, chat.chat_id, chat.language, chat.defaults, chat.created) == ("tg", "-5", None, {}, 1000.0)
    assert chat.turn_timer is None
    clock.now = 1500.0
    chat = await store.set_chat_defaults("tg", -5, {"turn_timer": 30, "theme": "green"})
    assert chat.defaults == {"turn_timer": 30, "theme": "green"} and chat.turn_timer == 30
    assert chat.created == 1000.0, "changing a setting keeps the chat's creation time"
    chat = await store.set_chat_defaults("tg", -5, {"turn_timer": None})
    assert chat.defaults == {"theme": "green"} and chat.turn_timer is None
    chat = await store.set_chat_defaults("tg", -5, {"turn_timer": 0})
    assert chat.turn_timer == 0
    assert (await store.get_chat("tg", -5)).defaults == {"theme": "green", "turn_timer": 0}
    assert (await store.get_chat("dc", -5)).defaults == {}, "another platform's chat with the same id is its own"
    fresh = await store.set_chat_defaults("tg", 99, {"turn_timer": 15})
    assert fresh.defaults == {"turn_timer": 15}


async def test_chat_language_is_set_and_cleared_per_chat(store: Store) -> None:
    chat = await store.set_chat_language("tg", 1, "en")
    assert (chat.chat_id, chat.language) == ("1", "en")
    assert (await store.get_chat("tg", 2)).language is None
    assert (await store.get_chat("tg", 1)).language == "en"
    assert (await store.set_chat_language("tg", 1, None)).language is None


async def test_player_language_is_set_cleared_and_refused_for_an_unknown_player(store: Store) -> None:
    player = await store.upsert_player("tg", 42, "Badr", client_language="ar")
    other = await store.upsert_player("tg", 43, "Amina")
    changed = await store.set_player_language(player.id, "en")
    assert (changed.id, changed.language, changed.display_name, changed.client_language) == (player.id, "en", "Badr",
                                                                                            "ar")
    assert (await store.get_player(other.id)).language is None
    assert (await store.set_player_language(player.id, None)).language is None
    with pytest.raises(NotFound, match="no player 9999"):
        await store.set_player_language(9999, "en")


# ---- matches ----------------------------------------------------------------------------------------------------
async def test_set_deadline_moves_the_timer_only_from_the_version_it_was_computed_on(store: Store,
                                                                                     clock: Clock) -> None:
    match_id = await started(store)
    clock.now = 3000.0
    match = await store.set_deadline(match_id, 99.5)
    assert (match.deadline, match.updated, match.version) == (99.5, 3000.0, 0)
    assert (await store.set_deadline(match_id, 120.0, expected_version=0)).deadline == 120.0
    await store.apply_move(match_id, 0, 0, "human", "a", {"n": 1}, 130.0)
    with pytest.raises(StaleVersion) as stale:
        await store.set_deadline(match_id, 1.0, expected_version=0)
    assert (stale.value.match_id, stale.value.expected, stale.value.current, stale.value.status) == (match_id, 0, 1,
                                                                                                     "active")
    assert (await store.get_match(match_id)).deadline == 130.0
    assert (await store.set_deadline(match_id, None, expected_version=1)).deadline is None
    await store.cancel_match(match_id)
    with pytest.raises(StaleVersion) as stale:
        await store.set_deadline(match_id, 5.0)
    assert (stale.value.expected, stale.value.current, stale.value.status) == (1, 1, "cancelled")
    with pytest.raises(NotFound):
        await store.set_deadline(12345, 5.0)


async def test_set_match_options_replaces_options_and_keeps_the_mode_unless_given(store: Store,
                                                                                  clock: Clock) -> None:
    player = await store.upsert_player("tg", "u", "Amina")
    match = await store.create_match("canasta", "classic", {"target": 5000}, "tg", "c", player.id, 1)
    clock.now = 4000.0
    changed = await store.set_match_options(match.id, {"variant": "duo"})
    assert (changed.options, changed.mode, changed.updated, changed.created) == ({"variant": "duo"}, "classic",
                                                                               4000.0, 1000.0)
    assert (await store.set_match_options(match.id, {}, mode="private")).mode == "private"
    await store.add_seat(match.id, player_id=player.id)
    await store.start_match(match.id, {"n": 0}, None)
    with pytest.raises(WrongStatus, match="is active, not lobby"):
        await store.set_match_options(match.id, {"variant": "classic4"})


async def test_latest_match_is_the_chats_newest_table_of_any_status(store: Store) -> None:
    assert await store.latest_match("tg", "c") is None
    first = await started(store)
    await store.cancel_match(first)
    second = await started(store)
    await started(store, chat="other")
    latest = await store.latest_match("tg", "c")
    assert latest.id == second and latest.status == "active"
    await store.cancel_match(second)
    assert (await store.latest_match("tg", "c")).id == second
    assert await store.latest_match("dc", "c") is None


async def test_remove_seat_closes_the_gap_and_refuses_a_missing_seat(store: Store) -> None:
    players = [await store.upsert_player("tg", f"u{i}", f"P{i}") for i in range(3)]
    match = await store.create_match("kenza", "classic", {}, "tg", "c", players[0].id, 1)
    for player in players:
        await store.add_seat(match.id, player_id=player.id)
    left = await store.remove_seat(match.id, 1)
    assert [(s.seat, s.player_id, s.display_name) for s in left] == [(0, players[0].id, "P0"),
                                                                      (1, players[2].id, "P2")]
    with pytest.raises(NotFound, match=f"match {match.id} has no seat 2"):
        await store.remove_seat(match.id, 2)


async def test_table_busy_names_the_open_match(store: Store) -> None:
    match_id = await started(store)
    with pytest.raises(TableBusy, match=f"tg chat c already has open match {match_id}") as busy:
        await store.create_match("kenza", "classic", {}, "tg", "c", None, 1)
    assert busy.value.match_id == match_id


async def test_pragma_reads_the_connection_settings_and_refuses_anything_else(sqlite_store: Store) -> None:
    store = sqlite_store
    assert await store.pragma("journal_mode") == "wal"
    assert await store.pragma("foreign_keys") == 1
    assert await store.pragma("busy_timeout") == 5000
    assert await store.pragma("synchronous") == 2
    for bad in ("journal_mode; DROP TABLE players", "busy timeout", ""):
        with pytest.raises(ValueError, match="not a pragma name"):
            await store.pragma(bad)


# ---- reads never wait for a writer ----------------------------------------------------------------------------
READS = {
    "get_match": lambda store, ids: store.get_match(ids["match"]),
    "lobby_or_active_match": lambda store, ids: store.lobby_or_active_match("tg", "c"),
    "latest_match": lambda store, ids: store.latest_match("tg", "c"),
    "player_active_match": lambda store, ids: store.player_active_match("tg", ids["player"]),
    "due_timers": lambda store, ids: store.due_timers(10_000.0),
    "active_matches": lambda store, ids: store.active_matches("tg"),
    "moves": lambda store, ids: store.moves(ids["match"]),
    "seats": lambda store, ids: store.seats(ids["match"]),
    "get_player": lambda store, ids: store.get_player(ids["player"]),
    "find_player": lambda store, ids: store.find_player("tg", "@nobody"),
    "get_message": lambda store, ids: store.get_message("tg", "rack", match_id=ids["match"], seat=0),
    "messages_for_match": lambda store, ids: store.messages_for_match(ids["match"]),
    "leaderboard": lambda store, ids: store.leaderboard(None, "tg"),
    "player_stats": lambda store, ids: store.player_stats(ids["player"]),
    "pragma": lambda store, ids: store.pragma("journal_mode"),
}


@pytest.mark.parametrize("read", sorted(READS))
async def test_a_read_does_not_wait_for_another_process_writing(sqlite_store: Store, read: str) -> None:
    """WAL lets a backup or a second process write while the bot reads: a read must not ask for the write lock
    (it would wait the whole busy timeout and then fail with "database is locked")."""
    import sqlite3

    store = sqlite_store
    match_id = await started(store)
    player = (await store.seats(match_id))[0].player_id
    other = sqlite3.connect(store.path, isolation_level=None, timeout=0.1)
    try:
        other.execute("BEGIN IMMEDIATE")
        other.execute("UPDATE players SET display_name = 'writer' WHERE id = ?", (player,))
        await READS[read](store, {"match": match_id, "player": player})
    finally:
        other.execute("ROLLBACK")
        other.close()


# ---- more of the records' contract -------------------------------------------------------------------------------
async def test_clearing_a_chat_setting_it_never_had_is_harmless(store: Store) -> None:
    chat = await store.set_chat_defaults("tg", 7, {"turn_timer": None, "theme": "sand"})
    assert chat.defaults == {"theme": "sand"}


async def test_find_player_by_handle_strips_only_the_at_sign(store: Store) -> None:
    xena = await store.upsert_player("tg", 1, "Xena", username="Xena")
    assert (await store.find_player("tg", "@Xena")).id == xena.id
    assert (await store.find_player("tg", "@xena")).id == xena.id
    assert (await store.find_player("tg", "XENA")).id == xena.id
    await store.upsert_player("tg", 2, "Nameless", username="")
    assert await store.find_player("tg", "@") is None, "a bare @ is nobody's handle"
    xx = await store.upsert_player("dc", 3, "Xx", username="XX")  # Discord handles may be two letters
    assert (await store.find_player("dc", "@XX")).id == xx.id
    assert await store.find_player("dc", "@xena") is None


async def test_pragma_without_a_value_reads_none(sqlite_store: Store) -> None:
    assert await sqlite_store.pragma("no_such_pragma") is None


async def test_pragma_is_refused_on_postgresql(store: Store) -> None:
    if store.dialect == "sqlite":
        pytest.skip("SQLite has pragmas")
    with pytest.raises(ValueError, match="only SQLite has pragmas"):
        await store.pragma("journal_mode")


async def test_a_finished_match_cannot_be_cancelled(store: Store) -> None:
    match_id = await started(store)
    await store.apply_move(match_id, 0, 0, "human", "a", {"n": 1}, None,
                           finished_result={"over": True, "scores": [10, 5], "winners": [0]})
    with pytest.raises(WrongStatus, match=f"match {match_id} is already finished"):
        await store.cancel_match(match_id)
    assert (await store.get_match(match_id)).status == "finished"
    cancelled = await started(store, chat="d")
    assert (await store.cancel_match(cancelled)).status == "cancelled"
    assert (await store.cancel_match(cancelled)).status == "cancelled", "cancelling twice is harmless"


async def test_stats_count_a_human_seated_after_a_bot(store: Store) -> None:
    human = await store.upsert_player("tg", "h", "Human")
    match = await store.create_match("kenza", "classic", {}, "tg", "c", human.id, 1)
    await store.add_seat(match.id, bot_level="normal")
    await store.add_seat(match.id, player_id=human.id)
    await store.start_match(match.id, {"n": 0}, None)
    await store.apply_move(match.id, 0, 1, "human", "a", {"n": 1}, None,
                           finished_result={"over": True, "scores": [40, 110], "winners": [1]})
    stats = (await store.player_stats(human.id))["kenza"]
    assert (stats.played, stats.won, stats.drawn, stats.points) == (1, 1, 0, 110)


async def test_leaderboard_lists_ten_by_default_with_each_players_id(store: Store) -> None:
    ids = []
    for number in range(11):
        player = await store.upsert_player("tg", f"p{number}", f"P{number}")
        ids.append(player.id)
        match = await store.create_match("kenza", "classic", {}, "tg", f"chat{number}", player.id, 1)
        await store.add_seat(match.id, player_id=player.id)
        await store.add_seat(match.id, bot_level="random")
        await store.start_match(match.id, {"n": 0}, None)
        await store.apply_move(match.id, 0, 0, "human", "a", {"n": 1}, None,
                               finished_result={"over": True, "scores": [number, 0], "winners": [0]})
    board = await store.leaderboard("kenza", "tg")
    assert len(board) == 10
    assert [row.player_id for row in board] == ids[::-1][:10], "equal wins: more points first"
    assert [row.rank for row in board] == list(range(1, 11))
    assert len(await store.leaderboard("kenza", "tg", limit=11)) == 11


def test_seat_outcomes_reads_teams_and_ignores_scores_that_are_not_numbers():
    from storage.stats import seat_outcomes

    # one score for two seats: both seats are side 0 (seat s belongs to side s % len(scores))
    assert seat_outcomes({"scores": [70], "winners": [0]}, 2) == [(True, False, 70), (True, False, 70)]
    assert seat_outcomes({"scores": [3, 9], "winners": [1]}, 2) == [(False, False, 3), (True, False, 9)]
    assert seat_outcomes({"scores": [None, True, "12", 12.6], "winners": []}, 4) == [
        (False, False, 0), (False, False, 0), (False, False, 0), (False, False, 13)]


async def test_errors_name_what_was_refused(store: Store) -> None:
    from storage import AlreadySeated

    async def text(error_type, call) -> str:
        with pytest.raises(error_type) as raised:
            await call
        return str(raised.value)

    player = await store.upsert_player("tg", "u", "Amina")
    match = await store.create_match("kenza", "classic", {}, "tg", "c", player.id, 1)
    assert await text(WrongStatus, store.start_match(match.id, {}, None)) == f"match {match.id} has no seats"
    for both in ({"player_id": player.id, "bot_level": "normal"}, {}):
        assert await text(ValueError, store.add_seat(match.id, **both)) == \
            "a seat takes exactly one of player_id and bot_level"
    await store.add_seat(match.id, player_id=player.id)
    assert await text(AlreadySeated, store.add_seat(match.id, player_id=player.id)) == \
        f"player {player.id} already has seat 0 in match {match.id}"
    assert await text(NotFound, store.add_seat(match.id, player_id=777)) == "no player 777"
    await store.add_seat(match.id, bot_level="normal")
    assert await text(ValueError, store.start_match(match.id, {}, None, seat_order=[0, 2])) == \
        "seat_order must be a permutation of 0..1, not [0, 2]"
    assert await text(NotFound, store.set_match_options(4242, {})) == "no match 4242"
    await store.start_match(match.id, {}, None)
    assert await text(WrongStatus, store.add_seat(match.id, bot_level="normal")) == \
        f"match {match.id} is active, not lobby"
    assert await text(ValueError, store.apply_move(match.id, 0, 0, "ghost", "a", {}, None)) == \
        "actor must be one of ('human', 'bot', 'timer'), not 'ghost'"
    assert await text(StaleVersion, store.apply_move(match.id, 3, 0, "human", "a", {}, None)) == \
        f"match {match.id}: expected version 3, it is at 0 and active"
    assert await text(NotFound, store.set_seat_flags(match.id, 5, away=True)) == f"match {match.id} has no seat 5"
    assert await text(NotFound, store.remove_seat(4242, 0)) == "no match 4242"
    assert await text(NotFound, store.set_player_language(9999, "en")) == "no player 9999"
    assert await text(ValueError, store.get_message("tg", "help")) == "get_message needs a match_id or a chat_id"
    assert await text(TableBusy, store.create_match("kenza", "classic", {}, "tg", "c", None, 1)) == \
        f"tg chat c already has open match {match.id}"
    assert await text(ValueError, store.pragma("a b")) == "not a pragma name: 'a b'"
    finished = await started(store, chat="f")
    await store.apply_move(finished, 0, 0, "human", "a", {}, None, finished_result={"over": True, "winners": [0]})
    assert await text(WrongStatus, store.cancel_match(finished)) == f"match {finished} is already finished"


async def test_records_carry_every_field_as_written(store: Store, clock: Clock) -> None:
    player = await store.upsert_player("tg", 5, "Amina", client_language="ar", username="amina")
    assert (player.platform, player.user_id, player.display_name, player.created) == ("tg", "5", "Amina", 1000.0)
    clock.now = 1100.0
    match = await store.create_match("kenza", "classic", {"target": 151}, "tg", -7, player.id, 42)
    assert (match.game, match.mode, match.options, match.status, match.seed, match.platform, match.chat_id,
            match.creator_id, match.created, match.updated, match.snapshot, match.version, match.finished,
            match.result) == ("kenza", "classic", {"target": 151}, "lobby", 42, "tg", "-7", player.id, 1100.0,
                              1100.0, None, 0, None, None)
    seat = await store.add_seat(match.id, player_id=player.id)
    assert (seat.match_id, seat.seat, seat.player_id, seat.bot_level, seat.timeouts_in_a_row, seat.away,
            seat.display_name) == (match.id, 0, player.id, None, 0, False, "Amina")
    await store.start_match(match.id, {"n": 0}, 70.0)
    clock.now = 1200.0
    await store.apply_move(match.id, 0, 0, "timer", "play 1O", {"n": 1}, None)
    [move] = await store.moves(match.id)
    assert (move.match_id, move.seq, move.seat, move.actor, move.move, move.at) == (match.id, 1, 0, "timer",
                                                                                   "play 1O", 1200.0)


async def test_json_columns_keep_arabic_readable_and_compact(store: Store) -> None:
    from sqlalchemy import text as sql

    player = await store.upsert_player("tg", 5, "Amina")
    match = await store.create_match("kenza", "classic", {"name": "مجلس", "n": 1}, "tg", 1, player.id, 1)
    async with store.transaction(write=False) as db:
        text = (await db.execute(sql("SELECT options FROM matches WHERE id = :id"), {"id": match.id})).scalar_one()
    assert text == '{"name":"مجلس","n":1}'


async def test_a_closed_store_refuses_to_work_and_closing_twice_is_harmless(tmp_path: Path) -> None:
    store = await Store.open(str(tmp_path / "closed.db"))
    await store.close()
    await store.close()
    with pytest.raises(ValueError):
        await store.get_match(1)


def test_database_url_drops_its_query():
    from storage import database_path

    assert database_path("sqlite:///data/x.db?mode=ro") == "data/x.db"
    assert database_path("sqlite:///data/x.db?mode=ro?cache=shared") == "data/x.db"


async def test_url_errors_say_what_is_wrong() -> None:
    from storage import database_path

    for url, reason in (("sqlite://data.db", "'sqlite://data.db': expected sqlite:///path (three slashes)"),
                        ("postgres://h/db", "'postgres://h/db': a PostgreSQL URL names a server, not a file"),
                        ("mysql://h/db", "'mysql://h/db': only sqlite and postgresql are supported")):
        with pytest.raises(ValueError) as bad:
            database_path(url)
        assert str(bad.value) == f"DATABASE_URL {reason}"


def test_postgresql_urls_go_to_asyncpg_with_their_schema() -> None:
    from storage.url import database_target

    target = database_target("postgres://majlis:secret@db.example:5433/majlis?search_path=bots")
    assert target.url.drivername == "postgresql+asyncpg"
    assert (target.url.host, target.url.port, target.url.database) == ("db.example", 5433, "majlis")
    assert target.connect_args == {"server_settings": {"search_path": "bots"}}
    assert "secret" not in target.where and not target.is_sqlite
    plain = database_target("postgresql://u@h/d")
    assert plain.connect_args == {} and dict(plain.url.query) == {}
    local = database_target(None, environ={})
    assert (local.where, local.is_sqlite, str(local.url)) == ("data/majlis.db", True, "sqlite+aiosqlite:///data/majlis.db")
