"""Tournament storage on both engines: the event, entries of one or two players, withdrawing (a team's members
renumbered, an emptied entry gone), the draw (dropped entries, seeds, the bracket, once only), and bracket games
updated field by field."""

from __future__ import annotations

import pytest

from storage import Store
from storage.errors import AlreadySeated, NotFound, WrongStatus


@pytest.fixture
def store(any_store: Store) -> Store:
    """On SQLite and on PostgreSQL (when MAJLIS_TEST_DATABASE_URL is set); each write one second after the last."""
    clock = iter(range(1000, 10**6))
    any_store._clock = lambda: float(next(clock))
    return any_store


async def players(store: Store, count: int) -> list[int]:
    return [(await store.upsert_player("fake", f"u{n}", f"P{n}")).id for n in range(count)]


async def new_tournament(store: Store, team_size: int = 2, *, platform: str = "fake", starts: float = 300.0,
                         creator: int | None = None) -> int:
    made = await store.create_tournament(platform, -601, "kenza", "tournament", {"target": 101}, team_size,
                                         100.0, 200.0, starts, 60.0, "a coffee pot", creator)
    return made.id


async def test_a_tournament_is_created_listed_and_finished(store):
    (op,) = await players(store, 1)
    first = await new_tournament(store, creator=op, starts=500.0)
    second = await new_tournament(store, starts=400.0)
    elsewhere = await new_tournament(store, platform="other")
    made = await store.get_tournament(first)
    assert (made.platform, made.chat_id, made.game, made.mode, made.options, made.team_size) == (
        "fake", "-601", "kenza", "tournament", {"target": 101}, 2)
    assert (made.opens, made.closes, made.starts, made.grace, made.prize) == (100.0, 200.0, 500.0, 60.0,
                                                                            "a coffee pot")
    assert (made.status, made.champion, made.created_by) == ("registering", None, op)
    assert made.registering_at(150.0) and not made.registering_at(200.0)
    assert [t.id for t in await store.tournaments("fake")] == [second, first], "the soonest start first"
    assert (await store.latest_tournament("fake")).id == second
    assert (await store.latest_tournament("other")).id == elsewhere
    assert await store.latest_tournament("none") is None and await store.get_tournament(999) is None
    running = await store.set_tournament_status(first, "running")
    assert (running.status, running.champion) == ("running", None)
    done = await store.set_tournament_status(first, "finished", champion=7)
    assert (done.status, done.champion) == ("finished", 7)
    kept = await store.set_tournament_status(first, "finished")
    assert kept.champion == 7, "no champion given: the one recorded stays"
    assert [t.id for t in await store.tournaments("fake")] == [second]
    assert [t.id for t in await store.tournaments("fake", ("finished",))] == [first]
    with pytest.raises(NotFound):
        await store.set_tournament_status(999, "cancelled")


async def test_teams_form_and_fall_apart_before_the_draw(store):
    a, b, c = await players(store, 3)
    tour = await new_tournament(store)
    created = (await store.get_tournament(tour)).created
    team = await store.add_entry(tour, "-601", a)
    assert (team.tournament_id, team.chat_id, team.seed, team.registered) == (tour, "-601", None, created + 1)
    team = await store.join_entry(tour, team.id, b, 2)
    assert team.player_ids == (a, b) and team.name() == "P0 & P1"
    with pytest.raises(AlreadySeated):
        await store.add_entry(tour, "-602", b)
    with pytest.raises(WrongStatus):
        await store.join_entry(tour, team.id, c, 2)  # full
    other = await new_tournament(store)
    with pytest.raises(NotFound):
        await store.join_entry(other, team.id, c, 2)  # not this tournament's entry
    # The first member withdraws: the partner moves up to position 0 and a third player can join after them.
    left = await store.withdraw(tour, a)
    assert left.player_ids == (a, b)
    (entry,) = await store.entries(tour)
    assert entry.player_ids == (b,)
    entry = await store.join_entry(tour, entry.id, c, 2)
    assert entry.player_ids == (b, c)
    assert await store.withdraw(tour, a) is None, "not entered any more"
    await store.withdraw(tour, b)
    await store.withdraw(tour, c)
    assert await store.entries(tour) == [], "an entry left empty goes"
    # Another tournament's entries are its own.
    assert (await store.add_entry(other, "-601", a)).player_ids == (a,)
    assert [e.player_ids for e in await store.entries(other)] == [(a,)]


async def test_the_draw_seeds_drops_and_writes_the_bracket_once(store):
    a, b, c, d, e = await players(store, 5)
    tour = await new_tournament(store, team_size=1)
    entries = [await store.add_entry(tour, "-601", player) for player in (a, b, c, d, e)]
    ids = [entry.id for entry in entries]
    games = [(1, 1, ids[0], None), (1, 2, ids[3], ids[2]), (2, 1, None, None)]
    await store.draw_bracket(tour, {ids[0]: 1, ids[2]: 3, ids[3]: 2}, drop=[ids[1], ids[4]], games=games)
    assert (await store.get_tournament(tour)).status == "running"
    assert [(entry.id, entry.seed) for entry in await store.entries(tour)] == [(ids[0], 1), (ids[2], 3),
                                                                              (ids[3], 2)]
    bracket = await store.bracket(tour)
    assert [(g.round, g.slot, g.entry_a, g.entry_b) for g in bracket] == games
    assert all((g.match_id, g.deadline, g.ready, g.winner, g.outcome) == (None, None, (), None, None)
               for g in bracket)
    with pytest.raises(WrongStatus):
        await store.draw_bracket(tour, {}, drop=[], games=[])
    with pytest.raises(WrongStatus):
        await store.add_entry(tour, "-601", b)  # registration is over
    with pytest.raises(WrongStatus):
        await store.withdraw(tour, a)
    # A bracket game moves on field by field; its match leads back to it.
    match = await store.create_match("kenza", "tournament", {}, "fake", "-601", c, 1)
    game = await store.update_game(tour, 1, 2, match_id=match.id, deadline=900.5, ready=[c])
    assert (game.match_id, game.deadline, game.ready, game.winner) == (match.id, 900.5, (c,), None)
    game = await store.update_game(tour, 1, 2, winner=ids[3], outcome="played")
    assert (game.ready, game.winner, game.outcome) == ((c,), ids[3], "played")
    assert await store.tournament_game_of_match(match.id) == game
    assert await store.tournament_game_of_match(match.id + 1) is None
    final = await store.update_game(tour, 2, 1, entry_a=ids[0], entry_b=ids[3])
    assert (final.entry_a, final.entry_b) == (ids[0], ids[3])
    assert await store.update_game(tour, 2, 1) == final, "no fields: read as it is"
    with pytest.raises(ValueError, match="not a bracket game field"):
        await store.update_game(tour, 2, 1, seed=3)
    with pytest.raises(NotFound):
        await store.update_game(tour, 3, 1, winner=ids[0])


async def test_host_chats_are_the_groups_that_had_a_table(store):
    (a,) = await players(store, 1)
    for chat in ("-9", "-1", "-9"):  # a chat's earlier table is over before its next one opens
        await store.cancel_match((await store.create_match("kenza", "casual", {}, "fake", chat, a, 1)).id)
    await store.create_match("kenza", "casual", {}, "other", "-5", a, 1)
    assert await store.host_chats("fake") == ["-1", "-9"]
    assert await store.host_chats("nowhere") == []
