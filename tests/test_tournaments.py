"""Tournaments (issue 15, point 4): the bracket's arithmetic, and a whole team tournament under the hand-moved
clock — scheduled by an operator, registered by buttons in two groups, drawn with a bye (seeded by wins), a forfeit
after the check-in grace, a final played to the end, the champion announced with the bracket."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image
from sqlalchemy import text

import engine
from bot import callbacks, tournament
from bot.i18n import t
from bot.messages import Actor, ChatRef
from bot.service import Service
from engine.bots import decide
from storage import Store
from tests.chat import fake_service
from tests.fakes import FakeTransport

G1, G2 = ChatRef("fake", "-601"), ChatRef("fake", "-602")
OP = Actor("fake", "1", "Operator", language="en", is_admin=True)
PLAYERS = {name: Actor("fake", str(10 + number), name, language="en")
           for number, name in enumerate(("Ali", "Badr", "Chadi", "Dina", "Emad", "Farah", "Ghada", "Hadi"))}


def test_seed_order_puts_byes_against_the_best_seeds():
    assert tournament.bracket_size(3) == 4 and tournament.bracket_size(5) == 8 and tournament.bracket_size(1) == 2
    assert tournament.seed_order(4) == [1, 4, 2, 3]
    assert tournament.seed_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    games = tournament.draw([11, 12, 13, 14, 15])  # five entries: seeds 1-3 get byes
    first = [(a, b) for r, _, a, b in games if r == 1]
    assert first == [(11, None), (14, 15), (12, None), (13, None)]
    assert [(r, s) for r, s, _, _ in games if r > 1] == [(2, 1), (2, 2), (3, 1)]
    assert tournament.feeds(1, 1) == (2, 1, "entry_a") and tournament.feeds(1, 2) == (2, 1, "entry_b")
    assert tournament.feeds(2, 2) == (3, 1, "entry_b")
    assert tournament.seat_players([1, 3], [2, 4]) == [1, 2, 3, 4]
    assert tournament.winning_side({"scores": [5, 9], "winners": [1]}, 4) == 1
    assert tournament.winning_side({"scores": [5, 5], "winners": [0, 1], "draw": True}, 2) is None


def _buttons(transport: FakeTransport, chat: ChatRef, prefix: str) -> list:
    found = [b for (c, _), m in sorted(transport.current.items(), key=lambda item: int(item[0][1]))
             if c == chat.chat_id for row in m.keyboard for b in row if b.data and b.data.startswith(prefix)]
    return found


async def _play_out(service: Service, store: Store, match_id: int) -> None:
    """Each human seat's moves chosen by the normal bot and typed with /m in their private chat."""
    rules = engine.get("kenza")
    rng = random.Random(9)
    seats = await store.seats(match_id)
    by_player = {actor.name: actor for actor in PLAYERS.values()}
    for _ in range(4000):
        match = await store.get_match(match_id)
        if match.status != "active":
            return
        state = rules.from_json(match.snapshot)
        seat = rules.to_move(state)
        actor = by_player[seats[seat].display_name]
        move = decide("kenza", state, seat, "normal", rng, slips=False)
        reply = await service.command(actor, ChatRef("fake", actor.user_id, private=True), "m", move.split())
        assert not reply.alert, reply.text
    raise AssertionError("the match did not end")


async def test_a_whole_team_tournament_with_a_bye_and_a_forfeit(any_database, tmp_path):
    async with fake_service(any_database, 5, operators=frozenset({("fake", "1")})) as (
            service, transport, store, clock):
        for chat in (G1, G2):
            await service.command(OP, chat, "lang", ["en"])
        for actor in PLAYERS.values():  # every player has opened the bot's private chat
            await service.command(actor, ChatRef("fake", actor.user_id, private=True), "start")
        # Not an operator: refused. The operator schedules a Kenza team tournament from G1.
        refused = await service.command(PLAYERS["Ali"], G1, "tournament", ["new", "game=kenza"])
        assert refused.is_error and "operator" in refused.text
        assert "/tournament new" in (await service.command(OP, G1, "tournament", ["new", "kenza"])).text
        words = "new game=kenza teams=2 target=101 close=30 start=40 grace=5 prize=A golden coffee pot".split()
        said = await service.command(OP, G1, "tournament", words)
        assert "#1" in said.text and not said.alert
        found = await store.get_tournament(1)
        assert (found.team_size, found.options, found.prize, found.status) == (2, {"target": 101},
                                                                               "A golden coffee pot", "registering")
        card = transport.latest(G1.chat_id)
        assert "Tournament #1" in card.text and "A golden coffee pot" in card.text
        # /new in G2 lists the tournament first; its button posts the card there.
        await service.command(PLAYERS["Chadi"], G2, "new")
        picker = transport.latest(G2.chat_id)
        assert picker.keyboard[0][0].data == "a:1" and "Tournament #1" in picker.keyboard[0][0].label
        assert (await service.press(PLAYERS["Chadi"], G2, "a:1")).text == ""
        # Teams register by button: a new team, and a partner joining it by its team's button.
        teams = [("Ali", "Badr", G1), ("Chadi", "Dina", G2), ("Emad", "Farah", G1), ("Ghada", "Hadi", G2)]
        for first, second, chat in teams:
            reply = await service.press(PLAYERS[first], chat, "u:1")
            assert not reply.alert, reply.text
            join = [b for b in _buttons(transport, chat, "e:1:") if first in b.label][-1]
            assert not (await service.press(PLAYERS[second], chat, join.data)).alert
        assert (await service.press(PLAYERS["Ali"], G2, "u:1")).alert  # already in a team
        assert (await service.press(PLAYERS["Ali"], ChatRef("fake", "10", private=True), "u:1")).alert
        entries = await store.entries(1)
        assert [len(entry.members) for entry in entries] == [2, 2, 2, 2]
        assert "Ghada & Hadi" in transport.latest(G2.chat_id).text  # the cards show the entries as they are
        # Hadi withdraws: Ghada's team is incomplete at the start and is left out: three teams, so one bye.
        assert not (await service.press(PLAYERS["Hadi"], G2, "w:1")).alert
        # Seeding by wins: Emad and Farah have won Kenza before, so their team is seed 1 and gets the bye.
        async with store.transaction() as db:
            for name in ("Emad", "Farah"):
                player = await store.find_player("fake", PLAYERS[name].user_id)
                await db.execute(text("INSERT INTO stats (player_id, game, mode, played, won, drawn, points) "
                                      "VALUES (:id, 'kenza', 'kenza', 3, 3, 0, 300)"), {"id": player.id})
        # Registration closes at 30 minutes: a press after that is refused; the draw waits for the start.
        clock.now += 31 * 60
        assert (await service.press(PLAYERS["Hadi"], G2, "u:1")).alert
        await service.tick()
        assert (await store.get_tournament(1)).status == "registering"
        assert not _buttons(transport, G1, "u:1") and "closed" in transport.latest(G1.chat_id).text
        clock.now += 10 * 60
        await service.tick()
        found = await store.get_tournament(1)
        assert found.status == "running"
        assert not _buttons(transport, G1, "u:1") and not _buttons(transport, G2, "u:1")  # the cards lost them
        entries = {entry.name(): entry for entry in await store.entries(1)}
        assert set(entries) == {"Ali & Badr", "Chadi & Dina", "Emad & Farah"}
        assert [entries[name].seed for name in ("Emad & Farah", "Ali & Badr", "Chadi & Dina")] == [1, 2, 3]
        games = {(g.round, g.slot): g for g in await store.bracket(1)}
        assert games[(1, 1)].outcome == "bye" and games[(1, 1)].winner == entries["Emad & Farah"].id
        assert games[(2, 1)].entry_a == entries["Emad & Farah"].id
        semi = games[(1, 2)]
        assert semi.deadline == clock.now + 5 * 60 and semi.match_id is None
        # The semi-final's check-in: posted in both teams' groups. Ali, Badr and Chadi check in; Dina never does.
        for chat in (G1, G2):
            assert _buttons(transport, chat, "v:1:1:2")
        assert (await service.press(PLAYERS["Emad"], G1, "v:1:1:2")).alert  # not his game
        for name, chat in (("Ali", G1), ("Badr", G1), ("Chadi", G2)):
            assert not (await service.press(PLAYERS[name], chat, "v:1:1:2")).alert
        clock.now += 4 * 60
        await service.tick()
        assert (await store.bracket(1))[1].winner is None  # still within the grace period
        clock.now += 61
        await service.tick()
        games = {(g.round, g.slot): g for g in await store.bracket(1)}
        assert games[(1, 2)].outcome == "forfeit" and games[(1, 2)].winner == entries["Ali & Badr"].id
        assert any("did not check in" in shown.message.text for shown in transport.sent)
        final = games[(2, 1)]
        assert (final.entry_a, final.entry_b) == (entries["Emad & Farah"].id, entries["Ali & Badr"].id)
        # The final: all four check in; the match opens in the better seed's group (G1), partners facing.
        for name in ("Emad", "Farah", "Ali", "Badr"):
            assert not (await service.press(PLAYERS[name], G1, "v:1:2:1")).alert
        final = next(g for g in await store.bracket(1) if g.round == 2)
        match = await store.get_match(final.match_id)
        assert match.chat_id == G1.chat_id and match.status == "active" and match.options == {"target": 101}
        assert [seat.display_name for seat in await store.seats(match.id)] == ["Emad", "Ali", "Farah", "Badr"]
        await _play_out(service, store, match.id)
        service.attach(transport, images=True)  # the bracket as a picture from here on
        await service.tick()
        done = await store.get_tournament(1)
        result = (await store.get_match(match.id)).result
        champion = entries["Emad & Farah"] if result["winners"] == [0] else entries["Ali & Badr"]
        assert done.status == "finished" and done.champion == champion.id
        told = [shown for shown in transport.sent if "is won by" in shown.message.text]
        assert {shown.chat_id for shown in told} == {G1.chat_id, G2.chat_id}
        assert all(champion.name() in shown.message.text and "golden coffee" in shown.message.text for shown in told)
        picture = Image.open(io.BytesIO(told[0].message.image))
        assert picture.format == "PNG" and picture.width > 900
        # /tournament shows the bracket picture; a tournament number that does not exist is refused.
        assert (await service.command(PLAYERS["Dina"], G2, "tournament")).text == ""
        shown = transport.sent[-1].message
        assert shown.image is not None and t("en", "tour.champion_line", name=champion.name()) in shown.text
        assert (await service.command(PLAYERS["Dina"], G2, "tournament", ["7"])).alert
        with open(tmp_path / "bracket.png", "wb") as out:
            out.write(shown.image)
        await service.close()


async def test_too_few_entries_cancel_the_tournament_and_bad_schedules_are_refused(any_database):
    async with fake_service(any_database, 5, operators=frozenset({("fake", "1")})) as (
            service, transport, store, clock):
        await service.command(OP, G1, "lang", ["en"])
        for words in (["game=chess"], ["game=kenza", "close=50", "start=40"], ["game=tunj", "teams=2"],
                      ["game=kenza", "close=x"], ["game=kenza", "grace=0"]):
            refused = await service.command(OP, G1, "tournament", ["new", *words])
            assert refused.alert or refused.text.startswith("Usage"), words
        ok = await service.command(OP, G1, "tournament", ["new", "game=konkan", "mode=tournament", "teams=2"])
        assert not ok.alert, ok.text
        assert (await store.get_tournament(1)).mode == "tournament"
        await service.press(PLAYERS["Ali"], G1, "u:1")
        clock.now += 41 * 60
        await service.tick()
        assert (await store.get_tournament(1)).status == "cancelled"
        assert "fewer than two" in transport.latest(G1.chat_id).text
        assert callbacks.drawn(callbacks.decode("v:1:1:2")) and not callbacks.drawn(callbacks.decode("v:1:1"))
        await service.close()


async def test_forged_and_stale_tournament_presses_are_refused(any_database):
    async with fake_service(any_database, 5, operators=frozenset({("fake", "1")})) as (
            service, transport, store, clock):
        await service.command(OP, G1, "lang", ["en"])
        await service.command(OP, G1, "tournament", ["new", "game=kenza", "prize=x"])
        ali = PLAYERS["Ali"]
        await service.command(ali, ChatRef("fake", ali.user_id, private=True), "start")
        for forged in ("u:9", "e:1:77", "e:1:x", "v:1:1:1", "v:1:9:9", "w:1:2", "a:2", "u:1:1"):
            reply = await service.press(ali, G1, forged)
            assert reply.alert, forged
        assert await store.entries(1) == []
        assert (await service.press(ali, G1, "w:1")).alert  # not registered: nothing to withdraw
        # Another platform's user cannot touch this platform's tournament, nor schedule one.
        other = Actor("other", "1", "Zed", language="en")
        assert (await service.press(other, ChatRef("other", "-1"), "u:1")).alert
        assert (await service.command(other, ChatRef("other", "-1"), "tournament", ["new", "game=kenza"])).alert
        # Operators cancel; a cancelled tournament takes no one and says so.
        assert not (await service.command(OP, G1, "tournament", ["cancel", "1"])).alert
        assert (await store.get_tournament(1)).status == "cancelled"
        assert (await service.press(ali, G1, "u:1")).alert and await store.entries(1) == []
        assert (await service.command(OP, G1, "tournament", ["cancel", "1"])).alert
        await service.close()


async def test_migration_7_upgrades_a_version_6_database(tmp_path):
    """A database from before tournaments gets the four tables; an entry's member is unique per tournament."""
    import aiosqlite

    from tests.legacy_migrations import MIGRATIONS, apply_migrations

    path = str(tmp_path / "old.db")
    async with aiosqlite.connect(path, isolation_level=None) as conn:
        assert await apply_migrations(conn, MIGRATIONS[:6]) == [1, 2, 3, 4, 5, 6]
        await conn.execute("INSERT INTO players (platform, user_id, display_name, created) VALUES ('t', '1', 'A', 0)")
    store = await Store.open(path)
    assert store.migrations_applied[0] == 7  # then the revisions after it
    made = await store.create_tournament("t", "-1", "kenza", "kenza", {}, 1, 0.0, 10.0, 20.0, 60.0, "", 1)
    entry = await store.add_entry(made.id, "-1", 1)
    assert entry.player_ids == (1,) and made.status == "registering"
    async with store.transaction() as db:
        with pytest.raises(Exception, match="UNIQUE|CHECK"):
            await db.execute(text("INSERT INTO tournament_members (tournament_id, entry_id, player_id, position) "
                                  "VALUES (:t, :e, 1, 1)"), {"t": made.id, "e": entry.id})
        with pytest.raises(Exception, match="CHECK"):
            await db.execute(text("INSERT INTO tournaments (platform, chat_id, game, mode, team_size, opens, closes, "
                                  "starts, grace, created) VALUES ('t', '-1', 'kenza', 'kenza', 1, 5, 1, 9, 60, 0)"))
    await store.close()
