"""The terminal game through the real service: a whole match typed at the prompt, bad input, leaving."""

from __future__ import annotations

import io
import random

from bot.console import ConsoleTransport, play
from bot.service import Service
from storage import Store


async def run_console(inputs, lang="en", players=2, options=None):
    store = await Store.open(":memory:")
    out = io.StringIO()
    service = Service(store, seed_source=random.Random(4))
    transport = ConsoleTransport(out)
    service.attach(transport, images=False)
    feed = iter(inputs)

    def read(prompt: str) -> str:
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    await play(service, transport, "kenza", players, options or {"target": "101"}, lang, read=read)
    match = await store.lobby_or_active_match("console", "table")
    finished = await store.get_match(1)
    await store.close()
    return out.getvalue(), match, finished


async def test_whole_match_by_numbers():
    text, open_match, finished = await run_console(["1"] * 400)
    assert finished.status == "finished"
    assert open_match is None
    assert "Winner" in text or "draw" in text


async def test_bad_input_is_answered_and_changes_nothing():
    text, _, match = await run_console(["99", "play 9O", "/frob", "hello", "q"])
    assert "Choose a number from 1 to" in text
    assert "is not a card" in text
    assert "don't know that command" in text
    assert "write a move as" in text
    assert match.version == 0 and match.status == "active"


async def test_end_of_input_leaves_cleanly_in_arabic():
    text, _, _ = await run_console([], lang="ar", players=3)
    assert "مع السلامة" in text
