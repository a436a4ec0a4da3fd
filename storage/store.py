"""`Store`: the storage API the bot service uses, assembled from one mixin per concern."""

from __future__ import annotations

from storage.matches import MatchOps
from storage.messages import MessageOps
from storage.ops import OpsReads
from storage.players import ChatOps, PlayerOps
from storage.queue import QueueOps
from storage.sends import SendOps
from storage.tournaments import TournamentOps


class Store(MatchOps, PlayerOps, ChatOps, MessageOps, TournamentOps, SendOps, OpsReads, QueueOps):
    """Async persistence for Majlis on one SQLite connection.

        store = await Store.open()            # ./data/majlis.db, or $DATABASE_URL
        async with store.transaction():       # optional: several calls as one atomic unit
            ...
        await store.close()

    Every method runs in its own transaction (joined as a savepoint when called inside `transaction()` by the
    same task). Records come back as frozen dataclasses from storage.models.
    """
