"""The ladder through the service: which tables are rated, a rated match moving its players' ratings and telling the
chat, an abandoning player's loss, /top pages with buttons (and forged ones), /stats, /rated, the rebuild command."""

from __future__ import annotations

import random

import pytest
from sqlalchemy import text

import engine
from bot import callbacks
from bot.cli import main
from bot.i18n import t, tn
from bot.messages import Actor, ChatRef
from bot.service import Service
from storage import Store, ladder
from storage.ladder import sides_and_places
from tests.chat import fake_service
from tests.test_service import play_first_button

GROUP = ChatRef("fake", "-100", private=False)
ALI = Actor("fake", "1", "Ali", language="en")
MONA = Actor("fake", "2", "Mona", language="en")
ADMIN = Actor("fake", "1", "Ali", language="en", is_admin=True)
PEOPLE = {"1": ALI, "2": MONA}


@pytest.fixture
async def setup(tmp_path):
    async with fake_service(tmp_path / "majlis.db", seed=5) as made:
        await made[0].command(ADMIN, GROUP, "lang", ["en"])  # the group's own messages in English too
        yield made


async def two_player_kenza(service, *, bots: int = 0):
    await service.command(ALI, GROUP, "new", ["kenza", "target=101"])
    match = await service.store.lobby_or_active_match("fake", "-100")
    if bots:
        await service.press(ALI, GROUP, callbacks.encode("b", match.id, "normal"))
    else:
        await service.press(MONA, GROUP, callbacks.encode("j", match.id))
    await service.press(ALI, GROUP, callbacks.encode("s", match.id))
    return await service.store.get_match(match.id)


async def play_out(service, transport, match, absent: str | None = None, clock=None):
    """Each human presses their first button on their turn until the match ends; `absent` never plays: their turns
    time out (the clock moves past the turn timer) until they are away and the away-bot plays for them."""
    game = engine.get("kenza")
    for _ in range(2000):
        match = await service.store.get_match(match.id)
        if match.status != "active":
            return match
        seat = game.to_move(game.from_json(match.snapshot))
        player = (await service.store.seats(match.id))[seat]
        user = (await service.store.get_player(player.player_id)).user_id
        if user == absent:
            clock.now += 3600
            await service.tick()
            continue
        await play_first_button(service, transport, PEOPLE[user], match.id)
    raise AssertionError("the match did not end")


async def test_a_rated_chat_rates_its_all_human_tables_and_tells_the_chat(setup):
    service, transport, store, _ = setup
    assert (await service.command(ALI, GROUP, "rated", ["on"])).text == t("en", "err.admin_only")
    assert (await service.command(ADMIN, GROUP, "rated", ["on"])).text == t("en", "ladder.rated_set_on")
    assert t("en", "ladder.rated_on") in (await service.command(MONA, GROUP, "rated", [])).text
    match = await two_player_kenza(service)
    assert match.rated
    lobby = [sent.message.text for sent in transport.sent if sent.chat_id == "-100"]
    assert any(t("en", "ladder.lobby_rated") in text for text in lobby)
    match = await play_out(service, transport, match)
    winner = match.result["winners"][0]
    seats = await store.seats(match.id)
    ratings = {seat.seat: await store.rating_of(seat.player_id, "kenza", "casual") for seat in seats}
    assert ratings[winner].wins == 1 and ratings[1 - winner].losses == 1
    assert ratings[winner].mu > ladder.MODEL.mu > ratings[1 - winner].mu
    group = [sent.message.text for sent in transport.sent if sent.chat_id == "-100"]
    news = [text for text in group if text.startswith("🏅")]
    assert len(news) == 1 and news[0].count(t("en", "ladder.placement", n=1, total=5)) == 2
    name = seats[winner].display_name
    assert t("en", "ach.news", name=name, achievement=t("en", "ach.first_win.kenza")) in news[0]
    stats = await service.command(ALI, GROUP, "stats", [])
    assert "🏅 Kenza · all tables: placement 1/5" in stats.message.text
    assert (t("en", "ach.first_win.kenza") in stats.message.text) == (seats[winner].player_id == 1)


async def test_bots_and_unrated_chats_leave_the_ladder_alone(setup):
    service, transport, store, _ = setup
    match = await two_player_kenza(service)
    assert not match.rated  # the chat never turned rating on
    await play_out(service, transport, match)
    await service.command(ADMIN, GROUP, "rated", ["on"])
    match = await two_player_kenza(service, bots=1)
    assert match.rated
    lobby = [message.text for (chat, _), message in transport.current.items() if chat == "-100"]
    assert any(t("en", "ladder.lobby_unrated_bots") in text for text in lobby)
    await play_out(service, transport, match)
    assert await store.player_ratings(1) == [] and await store.player_ratings(2) == []
    assert not [sent for sent in transport.sent if sent.message.text.startswith("🏅")]


async def test_a_player_who_leaves_loses_once_the_away_bot_has_finished(setup):
    service, transport, store, clock = setup
    await service.command(ADMIN, GROUP, "rated", ["on"])
    match = await two_player_kenza(service)
    match = await play_out(service, transport, match, absent="2", clock=clock)
    mona_seat = next(seat for seat in await store.seats(match.id) if seat.player_id == 2)
    assert mona_seat.away
    mona = await store.rating_of(2, "kenza", "casual")
    ali = await store.rating_of(1, "kenza", "casual")
    assert (mona.wins, mona.losses) == (0, 1) and mona.mu < ladder.MODEL.mu
    assert ali.matches == 1
    news = [sent.message.text for sent in transport.sent if sent.message.text.startswith("🏅")]
    assert t("en", "ladder.news_abandoned") in news[0]


async def test_konkan_tiles_rates_only_ranked_tables(setup):
    service, _, store, _ = setup
    await service.command(ADMIN, GROUP, "rated", ["on"])
    for mode, rated in (("quick", False), ("turbo", False), ("private", False), ("ranked", True)):
        await service.press(ALI, GROUP, callbacks.encode("n", 0, f"konkan_tiles.{mode}"))
        match = await store.lobby_or_active_match("fake", "-100")
        assert (match.mode, match.rated) == (mode, rated)
        await service.press(ALI, GROUP, callbacks.encode("x", match.id))


async def seed_board(store: Store, players: int) -> list[int]:
    """`players` placed players on the Kenza ladder: each plays five rated matches in chat -100 (or -200)."""
    ids = [(await store.upsert_player("fake", str(100 + n), f"P{n:02d}")).id for n in range(players)]
    for _ in range(ladder.PLACEMENT_MATCHES):
        for n in range(0, players - 1, 2):
            chat = "-100" if n < 6 else "-200"
            match = await store.create_match("kenza", "casual", {}, "fake", chat, ids[n], 1, rated=True)
            for player in (ids[n], ids[n + 1]):
                await store.add_seat(match.id, player_id=player)
            await store.start_match(match.id, {}, None)
            result = {"over": True, "scores": [150, 50], "winners": [0], "draw": False}
            await store.apply_move(match.id, 0, 0, "human", "x", {}, None, result,
                                   sides=sides_and_places(result, 2, False))
    return ids


async def test_top_pages_with_buttons_and_switches_scope(setup):
    service, _, store, _ = setup
    await seed_board(store, 24)
    first = await service.command(ALI, GROUP, "top", ["kenza"])
    rows = first.message.text.splitlines()
    assert rows[0] == t("en", "top.ladder_title", game="Kenza", mode="all tables", scope="global")
    assert rows[1].startswith("1. P") and rows[10].startswith("10. P") and rows[-1] == "page 1/3"
    labels = [[button.label for button in row] for row in first.message.keyboard]
    assert labels == [[t("en", "btn.next")], [t("en", "btn.scope_here")]]
    nxt = first.message.keyboard[0][0].data
    second = await service.press(MONA, GROUP, nxt)
    assert second.in_place and second.message.text.splitlines()[1].startswith("11. P")
    assert [b.label for b in second.message.keyboard[0]] == [t("en", "btn.prev"), t("en", "btn.next")]
    third = await service.press(MONA, GROUP, second.message.keyboard[0][1].data)
    assert third.message.text.splitlines()[1].startswith("21. P") and "page 3/3" in third.message.text
    assert [b.label for b in third.message.keyboard[0]] == [t("en", "btn.prev")]
    here = await service.press(MONA, GROUP, third.message.keyboard[1][0].data)
    lines = here.message.text.splitlines()
    assert "this chat" in lines[0] and len(lines) == 7 and "page" not in here.message.text  # the 6 who played here
    typed = await service.command(ALI, GROUP, "top", ["kenza", "casual", "global", "3"])
    assert typed.message.text == third.message.text
    for forged in ("g:0:kenza:-:g:x", "g:0:chess:-:g:0", "g:0:kenza:ranked:g:0", "g:0:kenza:-:z:0", "g:5:kenza:-:g:0",
                   "g:0:kenza:-:g"):
        reply = await service.press(MONA, GROUP, forged)
        assert reply.alert and reply.text == t("en", "err.bad_button"), forged
    assert (await service.command(ALI, GROUP, "top", ["kenza", "sideways"])).text == t("en", "top.usage")
    alone = await service.command(ALI, ChatRef("fake", "1", private=True), "top", ["kenza", "here"])
    assert "global" in alone.message.text.splitlines()[0]  # a private chat has no players of its own
    assert [[b.label for b in row] for row in alone.message.keyboard] == [[t("en", "btn.next")]]


async def test_top_of_a_mode_says_the_mode_in_its_title(setup):
    """`/top konkan_tiles quick` counts Quick tables only: before anyone is rated there its wins table's title said
    just "Top players — Konkan (tiles)" (issue 25)."""
    service, _, _, _ = setup
    for words in (["konkan_tiles", "quick"], ["konkan", "quick"]):
        reply = await service.command(ALI, GROUP, "top", words)
        assert reply.message.text.splitlines()[0] == "Top players — Konkan (tiles) · Quick (global)"
    plain = await service.command(ALI, GROUP, "top", ["tunj"])
    assert plain.message.text.splitlines()[0] == "Top players — Tunj (global)"


async def test_top_lists_players_in_placement_apart(setup):
    service, _, store, _ = setup
    ids = await seed_board(store, 2)
    newcomer = (await store.upsert_player("fake", "999", "New")).id
    match = await store.create_match("kenza", "casual", {}, "fake", "-100", ids[0], 1, rated=True)
    for player in (ids[0], newcomer):
        await store.add_seat(match.id, player_id=player)
    await store.start_match(match.id, {}, None)
    result = {"over": True, "scores": [150, 50], "winners": [0], "draw": False}
    await store.apply_move(match.id, 0, 0, "human", "x", {}, None, result, sides=sides_and_places(result, 2, False))
    text = (await service.command(ALI, GROUP, "top", ["kenza"])).message.text
    assert "New" not in text and tn("en", "top.in_placement", 1, total=5) in text


async def test_stats_draws_a_profile_picture_in_both_languages(tmp_path):
    store = await Store.open(str(tmp_path / "p.db"))
    try:
        await seed_board(store, 2)
        service = Service(store, seed_source=random.Random(1))
        from tests.fakes import FakeTransport

        service.attach(FakeTransport(), images=True)
        sizes = set()
        for lang in ("ar", "en"):
            reply = await service.command(Actor("fake", "100", "P00", language=lang), GROUP, "stats", [])
            assert reply.in_place and reply.message.image.startswith(b"\x89PNG")
            import io

            from PIL import Image

            sizes.add(Image.open(io.BytesIO(reply.message.image)).size)
            assert t(lang, "ladder.rating", rating=(await store.rating_of(1, "kenza", "casual")).rating,
                     tier=t(lang, "tier." + (await store.rating_of(1, "kenza", "casual")).tier)) in reply.message.text
        assert len(sizes) == 1  # the same card, mirrored
    finally:
        await store.close()


def test_the_rebuild_command_checks_and_rewrites(tmp_path, monkeypatch, capsys):
    import asyncio

    url = str(tmp_path / "cli.db")
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setenv("LANG", "en_US.UTF-8")

    async def prepare(tamper: bool) -> None:
        store = await Store.open(url)
        try:
            if not tamper:
                await seed_board(store, 4)
            else:
                async with store.transaction() as db:
                    await db.execute(text("UPDATE ratings SET wins = wins + 1 WHERE player_id = 1"))
        finally:
            await store.close()

    asyncio.run(prepare(False))
    assert main(["ratings", "check"]) == 0
    out = capsys.readouterr().out
    assert tn("en", "ladder.cli_summary", 10, ratings=4) in out and t("en", "ladder.cli_identical") in out
    asyncio.run(prepare(True))
    assert main(["ratings", "check"]) == 1
    assert tn("en", "ladder.cli_differ", 1) in capsys.readouterr().out
    assert main(["ratings", "rebuild"]) == 1
    assert tn("en", "ladder.cli_rewritten", 1) in capsys.readouterr().out
    assert main(["ratings", "check"]) == 0


async def test_a_ranked_konkan_table_the_away_bots_finished_is_a_loss_for_all_four(setup):
    """Konkan tiles Ranked through the service: four people, every one away, so the away-bots play the whole
    match; once it is over it is rated (a 2v2 of four humans) and each of them takes the loss they abandoned."""
    service, transport, store, _ = setup
    people = [ALI, MONA, Actor("fake", "3", "Sami", language="en"), Actor("fake", "4", "Layla", language="en")]
    await service.press(ALI, GROUP, callbacks.encode("n", 0, "konkan_tiles.ranked"))
    match = await store.lobby_or_active_match("fake", "-100")
    for actor in people[1:]:
        await service.press(actor, GROUP, callbacks.encode("j", match.id))
    await service.press(ALI, GROUP, callbacks.encode("s", match.id))
    match = await store.get_match(match.id)
    assert match.status == "active" and match.rated
    for seat in range(4):
        await store.set_seat_flags(match.id, seat, away=True)
    await service.resume()
    match = await store.get_match(match.id)
    assert match.status == "finished"
    changes = await store.rating_changes(match.id)
    assert len(changes) == 4 and all(change.abandoned and change.outcome == ladder.LOSS for change in changes)
    for change in changes:
        standing = await store.rating_of(change.player_id, "konkan_tiles", "ranked")
        assert (standing.matches, standing.losses, standing.placement) == (1, 1, 1) and standing.mu < ladder.MODEL.mu
    assert (await store.rebuild_ratings()).differences == []
