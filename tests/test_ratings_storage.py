"""The ranked ladder in storage: rating updates for teams and free-for-all (checked against openskill itself),
placement, streaks, abandoned seats, bots and unrated tables kept out, leaderboard paging, and the rebuild."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce
from sqlalchemy import text

from storage import Store, ladder
from storage.ladder import Standing, sides_and_places

MODEL = PlackettLuce()


@pytest.fixture
def store(any_store: Store) -> Store:
    """On SQLite and on PostgreSQL (when MAJLIS_TEST_DATABASE_URL is set); each write one second after the last."""
    clock = iter(range(1000, 10**6))
    any_store._clock = lambda: float(next(clock))
    return any_store


async def players(store: Store, count: int, platform: str = "fake") -> list[int]:
    return [(await store.upsert_player(platform, f"u{n}", f"P{n}")).id for n in range(count)]


async def play(store: Store, seat_players: list[int | None], result: dict, *, game: str = "kenza",
               mode: str = "casual", rated: bool = True, away: tuple[int, ...] = (), chat: str = "-1",
               lower: bool = False, record_stats: bool = True, platform: str = "fake") -> int:
    """One table to its end through apply_move, its sides computed as the service computes them."""
    match = await store.create_match(game, mode, {}, platform, chat, seat_players[0], 1, rated=rated)
    for player_id in seat_players:
        if player_id is None:
            await store.add_seat(match.id, bot_level="normal")
        else:
            await store.add_seat(match.id, player_id=player_id)
    match = await store.start_match(match.id, {"s": 0}, None)
    for seat in away:
        await store.set_seat_flags(match.id, seat, away=True)
    result = {"over": True, "draw": False, **result}
    sides = sides_and_places(result, len(seat_players), lower)
    await store.apply_move(match.id, 0, 0, "human", "x", {"s": 1}, None, result, record_stats=record_stats,
                           sides=sides)
    return match.id


def team_win(winner: int) -> dict:
    return {"scores": [300, 100] if winner == 0 else [100, 300], "winners": [winner]}


async def test_a_team_match_moves_both_teams_as_openskill_says(store):
    a, b, c, d = await players(store, 4)
    await play(store, [a, b, c, d], team_win(0))  # seats 0+2 (a, c) beat 1+3 (b, d)
    expected = MODEL.rate([[MODEL.rating(), MODEL.rating()], [MODEL.rating(), MODEL.rating()]], ranks=[0, 1])
    for player, (team, member) in {a: (0, 0), c: (0, 1), b: (1, 0), d: (1, 1)}.items():
        standing = await store.rating_of(player, "kenza", "casual")
        assert (standing.mu, standing.sigma) == (expected[team][member].mu, expected[team][member].sigma)
    winner, loser = await store.rating_of(a, "kenza", "casual"), await store.rating_of(b, "kenza", "casual")
    assert (winner.wins, winner.losses, winner.streak, winner.points) == (1, 0, 1, 300)
    assert (loser.wins, loser.losses, loser.streak, loser.points) == (0, 1, 0, 100)
    assert winner.mu > 25 > loser.mu


async def test_free_for_all_ranks_every_place(store):
    a, b, c = await players(store, 3)
    await play(store, [a, b, c], {"scores": [50, 160, 90], "winners": [1]})  # b first, c second, a third
    expected = MODEL.rate([[MODEL.rating()], [MODEL.rating()], [MODEL.rating()]], ranks=[2, 0, 1])
    got = [await store.rating_of(p, "kenza", "casual") for p in (a, b, c)]
    assert [(s.mu, s.sigma) for s in got] == [(r[0].mu, r[0].sigma) for r in expected]
    assert got[1].mu > got[2].mu > got[0].mu
    assert [(s.wins, s.losses) for s in got] == [(0, 1), (1, 0), (0, 1)]  # a runner-up is not a winner


def test_places_follow_each_games_direction_and_a_konkan_winner():
    assert sides_and_places({"scores": [30, 150, 200], "winners": [0]}, 3, True) == [(0, 0), (1, 1), (2, 2)]
    assert sides_and_places({"scores": [30, 150, 150], "winners": [0]}, 3, True) == [(0, 0), (1, 1), (2, 1)]
    assert sides_and_places({"scores": [10, 400], "winners": [1]}, 4, False) == [(0, 1), (1, 0), (0, 1), (1, 0)]
    konkan = {"scores": [80, 10, 40], "winners": [1, 2], "konkan_winner": 2}
    assert sides_and_places(konkan, 3, True) == [(0, 2), (1, 1), (2, 0)]
    drawn = {"scores": [200, 200], "winners": [0, 1], "draw": True}
    assert sides_and_places(drawn, 2, False) == [(0, 0), (1, 0)]


async def test_placement_hides_the_rating_until_the_fifth_match(store):
    a, b = await players(store, 2)
    for number in range(1, 6):
        await play(store, [a, b], {"scores": [200, 100], "winners": [0]})
        standing = await store.rating_of(a, "kenza", "casual")
        assert standing.placement == number and standing.placed == (number == ladder.PLACEMENT_MATCHES)
        board = await store.ladder("kenza", "casual", "fake")
        if number < ladder.PLACEMENT_MATCHES:
            assert board.rows == [] and board.in_placement == 2 and standing.tier is None
        else:
            assert [row.player_id for row in board.rows] == [a, b] and board.in_placement == 0
            assert standing.tier == ladder.tier_of(standing.rating)


async def test_streaks_count_wins_in_a_row_and_a_draw_ends_one(store):
    a, b = await players(store, 2)
    for winners, draw in (([0], False), ([0], False), ([0], False), ([1], False), ([0], False), ([0, 1], True),
                          ([0], False)):
        await play(store, [a, b], {"scores": [200, 200 if draw else 100], "winners": winners, "draw": draw})
    standing = await store.rating_of(a, "kenza", "casual")
    assert (standing.wins, standing.draws, standing.losses) == (5, 1, 1)
    assert (standing.streak, standing.best_streak) == (1, 3)


async def test_an_abandoning_player_loses_even_when_the_away_bot_wins(store):
    a, b, c, d = await players(store, 4)
    await play(store, [a, b, c, d], team_win(0), away=(2,))  # c left; the away-bot finished and their side won
    partner, quitter = await store.rating_of(a, "kenza", "casual"), await store.rating_of(c, "kenza", "casual")
    assert (partner.wins, partner.losses) == (1, 0) and partner.mu > 25
    assert (quitter.wins, quitter.losses, quitter.streak) == (0, 1, 0) and quitter.mu < 25
    forced = MODEL.rate([[MODEL.rating(), MODEL.rating()], [MODEL.rating(), MODEL.rating()]], ranks=[2, 1])
    assert (quitter.mu, quitter.sigma) == (forced[0][1].mu, forced[0][1].sigma)
    changes = {change.player_id: change for change in await store.rating_changes(1)}
    assert changes[c].abandoned and changes[c].outcome == ladder.LOSS and changes[a].outcome == ladder.WIN


async def test_bots_private_and_unrated_tables_never_move_a_rating(store):
    a, b, c = await players(store, 3)
    await play(store, [a, None, c, b], team_win(0))  # a bot-filled table
    await play(store, [a, b], {"scores": [200, 100], "winners": [0]}, rated=False)  # a chat that does not rate
    await play(store, [a, b], {"scores": [200, 100], "winners": [0]}, record_stats=False)  # a private room
    for player in (a, b, c):
        assert await store.rating_of(player, "kenza", "casual") == Standing()
    assert await store.player_ratings(a) == []
    assert (await store.rebuild_ratings()).matches == 0


async def test_leaderboard_pages_in_order_per_chat_and_global(store):
    ids = await players(store, 23)
    # Each player i plays 5 matches against the next one; lower index wins: the board is mostly index order.
    for round_ in range(5):
        for i in range(0, 22, 2):
            chat = "-1" if i < 12 else "-2"
            await play(store, [ids[i], ids[i + 1]], {"scores": [200, 100], "winners": [0]}, chat=chat)
        await play(store, [ids[22], ids[round_]], {"scores": [200, 100], "winners": [1]}, chat="-2")
    first = await store.ladder("kenza", "casual", "fake", page=0)
    assert (first.pages, first.placed, len(first.rows)) == (3, 23, 10)
    pages = [first, await store.ladder("kenza", "casual", "fake", page=1),
             await store.ladder("kenza", "casual", "fake", page=2)]
    ranks = [row.rank for page in pages for row in page.rows]
    assert ranks == list(range(1, 24))
    ratings = [(row.standing.rating, row.standing.mu) for page in pages for row in page.rows]
    assert ratings == sorted(ratings, reverse=True)
    assert len({row.player_id for page in pages for row in page.rows}) == 23
    assert (await store.ladder("kenza", "casual", "fake", page=9)).page == 2  # past the end: the last page
    here = await store.ladder("kenza", "casual", "fake", chat_id="-1")
    here_rest = await store.ladder("kenza", "casual", "fake", chat_id="-1", page=1)
    assert {row.player_id for row in here.rows + here_rest.rows} == set(ids[:12]) and here.pages == 2
    assert [row.rank for row in here.rows + here_rest.rows] == list(range(1, 13))
    other_platform = await store.ladder("kenza", "casual", "elsewhere")
    assert other_platform.rows == [] and other_platform.pages == 1
    top = first.rows[0]
    assert await store.ladder_rank(top.player_id, "kenza", "casual", "fake") == (1, 23)
    last = pages[2].rows[-1]
    assert await store.ladder_rank(last.player_id, "kenza", "casual", "fake") == (23, 23)


async def test_rebuild_reaches_the_same_numbers_and_repairs_a_tampered_rating(store):
    a, b, c, d = await players(store, 4)
    for n in range(7):
        await play(store, [a, b, c, d], team_win(n % 3 == 0), away=(3,) if n == 4 else ())
        await play(store, [a, b, c], {"scores": [n, 2 * n, 90], "winners": [2]}, game="tunj")
    before = {p: (await store.player_ratings(p)) for p in (a, b, c, d)}
    report = await store.rebuild_ratings()
    assert (report.matches, report.ratings, report.differences) == (14, 7, [])
    assert {p: (await store.player_ratings(p)) for p in (a, b, c, d)} == before
    async with store.transaction() as db:
        await db.execute(text("UPDATE ratings SET mu = mu + 1, streak = 9 WHERE player_id = :b AND game = 'tunj'"),
                         {"b": b})
    report = await store.rebuild_ratings()
    assert len(report.differences) == 1 and f"player {b} tunj/casual" in report.differences[0]
    assert {p: (await store.player_ratings(p)) for p in (a, b, c, d)} == before


async def test_migration_6_upgrades_a_version_5_database(tmp_path):
    """A database from before the ladder: its finished matches stay unrated and nobody has a rating yet."""
    import aiosqlite

    from storage.migrate import revision_numbers
    from tests.legacy_migrations import MIGRATIONS, apply_migrations

    path = str(tmp_path / "old.db")
    async with aiosqlite.connect(path, isolation_level=None) as conn:
        assert await apply_migrations(conn, MIGRATIONS[:5]) == [1, 2, 3, 4, 5]
        await conn.execute("INSERT INTO players (platform, user_id, display_name, created) VALUES ('t', '1', 'A', 0)")
        await conn.execute("""INSERT INTO matches (game, mode, platform, chat_id, created, updated, status)
                              VALUES ('kenza', 'casual', 't', '-1', 0, 0, 'finished')""")
    opened = await Store.open(path)
    try:
        assert opened.migrations_applied == list(range(6, revision_numbers()[-1] + 1))  # 6, and any later ones
        assert not (await opened.get_match(1)).rated
        assert await opened.player_ratings(1) == [] and await opened.achievements_of(1) == []
        assert (await opened.rebuild_ratings()).matches == 0
    finally:
        await opened.close()
