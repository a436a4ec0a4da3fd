"""Storage: a player's handle follows the platform's latest update on its own (storage/players.py's docstring: "name,
handle and app language follow the latest update")."""

from __future__ import annotations

import pytest

from storage import Store


@pytest.fixture
def store(any_store: Store) -> Store:
    """Each test here runs on SQLite and on PostgreSQL (when MAJLIS_TEST_DATABASE_URL is set)."""
    return any_store


async def test_a_new_handle_alone_is_written_and_found(store: Store) -> None:
    """Same name, same language, a new @handle: the stored handle follows, and /invite-style lookups by the new
    handle find the player while the old one no longer does."""
    player = await store.upsert_player("tg", 7, "Ali", client_language="en", username="ali_b")
    moved = await store.upsert_player("tg", 7, "Ali", client_language="en", username="ali_new")
    assert moved.id == player.id and moved.username == "ali_new"
    assert (await store.find_player("tg", "@ali_new")).id == player.id
    assert await store.find_player("tg", "@ali_b") is None
