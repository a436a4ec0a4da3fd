"""Pictures drawn once per distinct content (bot/core/pictures.py): a changed view is drawn again, an unchanged one is
not, and a cached rack is never served for another seat's view — at the unit level, through the service, and in
a render process."""

from __future__ import annotations

import asyncio
import random

import pytest

import engine
import renderers
from bot import callbacks
from bot.core.pictures import Pictures
from bot.messages import Actor, ChatRef
from bot.service import Service
from renderers.picture import Picture
from storage import Store
from tests.fakes import FakeTransport

GAME = engine.get("kenza")
NAMES = ["Ali", "Mona"]


def _rack(state: dict, seat: int, lang: str = "en", selected: list[int] | None = None) -> Picture:
    return Picture("rack", "kenza", {"view": GAME.view(state, seat), "lang": lang, "names": NAMES,
                                     "selected": selected or []})


@pytest.fixture
def state() -> dict:
    return GAME.new(2, {}, seed=5)


async def test_an_unchanged_picture_is_drawn_once_and_a_changed_one_again(state):
    pictures = Pictures(0)
    seat = GAME.to_move(state)
    try:
        first = await pictures.draw(_rack(state, seat))
        again = await pictures.draw(_rack(state, seat))
        assert again == first and (pictures.drawn, pictures.reused) == (1, 1)
        moved = GAME.apply(state, seat, GAME.legal_moves(state, seat)[0])
        changed = await pictures.draw(_rack(moved, seat))
        assert changed != first and pictures.drawn == 2, "a changed hand must be drawn again"
        selected = await pictures.draw(_rack(state, seat, selected=[0]))
        arabic = await pictures.draw(_rack(state, seat, lang="ar"))
        assert len({first, selected, arabic}) == 3 and pictures.drawn == 4, "selection and language are drawn"
        assert first == renderers.render_rack("kenza", GAME.view(state, seat), "en", NAMES), "the renderer's bytes"
    finally:
        pictures.close()


async def test_a_cached_rack_is_never_served_for_another_seat(state):
    pictures = Pictures(0)
    try:
        mine = await pictures.draw(_rack(state, 0))
        theirs = await pictures.draw(_rack(state, 1))
        assert _rack(state, 0).key() != _rack(state, 1).key()
        assert mine != theirs and pictures.drawn == 2 and pictures.reused == 0
        assert theirs == renderers.render_rack("kenza", GAME.view(state, 1), "en", NAMES)
    finally:
        pictures.close()


async def test_the_same_picture_asked_twice_at_once_is_drawn_once(state):
    pictures = Pictures(0)
    try:
        a, b = await asyncio.gather(pictures.draw(_rack(state, 0)), pictures.draw(_rack(state, 0)))
        assert a == b and pictures.drawn == 1 and pictures.reused == 1
    finally:
        pictures.close()


async def test_the_cache_is_bounded_in_bytes(state):
    wanted = [_rack(state, seat, lang) for seat in (0, 1) for lang in ("en", "ar")]
    limit = sum(len(picture.draw()) for picture in wanted) - 1  # all four do not fit
    pictures = Pictures(0, cache_bytes=limit)
    try:
        for picture in wanted:
            await pictures.draw(picture)
        assert 0 < pictures.cached_bytes <= limit
        await pictures.draw(_rack(state, 0, "en"))  # the oldest was dropped: drawn again, not served stale
        assert pictures.drawn == 5
    finally:
        pictures.close()


async def test_a_render_process_draws_the_renderers_bytes(state):
    pictures = Pictures(1, games=("kenza",))
    try:
        await pictures.warm(("kenza",))
        drawn = await pictures.draw(_rack(state, 1, "ar"))
        assert drawn == renderers.render_rack("kenza", GAME.view(state, 1), "ar", NAMES)
    finally:
        pictures.close()


# ------------------------------------------------------------------------------------------------- through the service
GROUP = ChatRef("fake", "-100", private=False)
ALI, MONA = Actor("fake", "1", "Ali", language="en"), Actor("fake", "2", "Mona", language="en")


async def test_service_redraws_only_pictures_whose_view_changed(tmp_path):
    """Asking for one's hand again (nothing changed) is served from the cache, not drawn; each move's new racks and
    table are drawn; after the burst of moves every seat's latest rack is its own view of the final state."""
    store = await Store.open(str(tmp_path / "p.db"))
    service = Service(store, seed_source=random.Random(3))
    transport = FakeTransport()
    service.attach(transport)
    try:
        await service.command(ALI, GROUP, "new", ["kenza", "target=101"])
        match = await store.lobby_or_active_match("fake", GROUP.chat_id)
        await service.press(MONA, GROUP, callbacks.encode("j", match.id))
        await service.press(ALI, GROUP, callbacks.encode("s", match.id))
        actors = {0: ALI, 1: MONA}
        for _ in range(6):
            match = await store.get_match(match.id)
            state = GAME.from_json(match.snapshot)
            seat = GAME.to_move(state)
            waiting = actors[1 - seat]
            before = service.pictures.drawn, service.pictures.reused
            await service.command(waiting, ChatRef("fake", waiting.user_id, private=True), "hand")
            assert (service.pictures.drawn, service.pictures.reused) == (before[0], before[1] + 1), \
                "an unchanged rack was drawn again"
            move = GAME.legal_moves(state, seat)[0]
            reply = await service.command(actors[seat], ChatRef("fake", actors[seat].user_id, private=True), "m",
                                          [move])
            assert not reply.alert, reply.text
            assert service.pictures.drawn > before[0], "a move changed the views: their pictures are drawn"
        match = await store.get_match(match.id)
        state = GAME.from_json(match.snapshot)
        for seat, actor in actors.items():
            latest = transport.current[next(key for key in reversed(list(transport.current))
                                            if key[0] == actor.user_id and transport.current[key].image)]
            assert latest.image == renderers.render_rack("kenza", GAME.view(state, seat), "en", ["Ali", "Mona"]), \
                f"seat {seat} sees a stale or foreign rack"
    finally:
        await service.close()
        await store.close()


async def test_a_finished_match_leaves_nothing_in_the_services_memory(tmp_path):
    """Memory per live match is bounded by the live matches: once a match has ended and its last table and racks
    are shown, its recap, picks, message slots, hand sizes and lock are dropped."""
    store = await Store.open(str(tmp_path / "m.db"))
    service = Service(store, seed_source=random.Random(4))
    transport = FakeTransport()
    service.attach(transport, images=False)
    try:
        await service.command(ALI, GROUP, "new", ["kenza", "target=101"])
        match = await store.lobby_or_active_match("fake", GROUP.chat_id)
        await service.press(ALI, GROUP, callbacks.encode("b", match.id, "normal"))
        await service.press(ALI, GROUP, callbacks.encode("s", match.id))
        assert match.id in service._recent or match.id in service._hand_sizes, "a live match is kept"
        for _ in range(400):
            match = await store.get_match(match.id)
            if match.status != "active":
                break
            state = GAME.from_json(match.snapshot)
            move = GAME.legal_moves(state, GAME.to_move(state))[0]
            await service.command(ALI, ChatRef("fake", ALI.user_id, private=True), "m", [move])
        assert match.status == "finished"
        kept = {name: getattr(service, name) for name in ("_recent", "_hand_sizes", "_last_turn", "_due", "_locks",
                                                          "_announce")}
        assert not [name for name, held in kept.items() if match.id in held], kept
        assert not [key for key in service._slots if key[2] == match.id]
        assert not [key for key in service._picks if key[0] == match.id]
        assert "🏆" in transport.current[next(k for k in reversed(list(transport.current)) if k[0] == GROUP.chat_id)
                                          ].text, "the final table was shown before the match was forgotten"
    finally:
        await service.close()
        await store.close()


async def test_after_a_burst_of_moves_every_screen_shows_the_latest_state_drawn_once(tmp_path):
    """Two players move every half second while the group's table may be edited only every three seconds: the
    table edits are coalesced, and once the burst is over the table and both racks show the final state — the
    pictures drawn from it, none served from an older view."""
    from tests.chat import Clock

    clock = Clock()
    store = await Store.open(str(tmp_path / "b.db"))
    service = Service(store, clock=clock, seed_source=random.Random(9))
    transport = FakeTransport()
    transport.group_edits_per_minute = 20.0  # as Telegram's
    service.attach(transport)
    try:
        await service.command(ALI, GROUP, "new", ["kenza", "target=101"])
        match = await store.lobby_or_active_match("fake", GROUP.chat_id)
        await service.press(MONA, GROUP, callbacks.encode("j", match.id))
        await service.press(ALI, GROUP, callbacks.encode("s", match.id))
        actors = {0: ALI, 1: MONA}
        drawn_tables = []
        draw = service.pictures.draw

        async def counted(picture: Picture) -> bytes:
            if picture.kind == "table":
                drawn_tables.append(picture.key())
            return await draw(picture)

        service.pictures.draw = counted  # type: ignore[method-assign]
        table_edits = 0
        for _ in range(10):
            clock.now += 0.5
            match = await store.get_match(match.id)
            state = GAME.from_json(match.snapshot)
            seat = GAME.to_move(state)
            before = sum(1 for call in transport.calls if call[1] == GROUP.chat_id)
            await service.command(actors[seat], ChatRef("fake", actors[seat].user_id, private=True), "m",
                                  [GAME.legal_moves(state, seat)[0]])
            await service.tick()
            table_edits += sum(1 for call in transport.calls if call[1] == GROUP.chat_id) - before
        assert table_edits < 10, "the group's table edits were coalesced"
        clock.now += 3.1
        before = sum(1 for call in transport.calls if call[1] == GROUP.chat_id)
        await service.tick()  # the last coalesced edit
        table_edits += sum(1 for call in transport.calls if call[1] == GROUP.chat_id) - before
        assert len(drawn_tables) == table_edits, "one table picture per delivered edit, none for a skipped move"
        match = await store.get_match(match.id)
        state = GAME.from_json(match.snapshot)
        assert match.delivered_version == match.version, "nothing of the burst is left undelivered"
        names = ["Ali", "Mona"]
        table = [m for (chat, _), m in transport.current.items() if chat == GROUP.chat_id and m.image]
        lang = await service._chat_lang(GROUP)
        assert table[-1].image == renderers.render_table("kenza", GAME.view(state, None), lang, names)
        for seat, actor in actors.items():
            latest = [m for (chat, _), m in transport.current.items() if chat == actor.user_id and m.image][-1]
            assert latest.image == renderers.render_rack("kenza", GAME.view(state, seat), "en", names), seat
    finally:
        await service.close()
        await store.close()
