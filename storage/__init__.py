"""Persistence for Majlis: players, chats, matches with their seats and move log, messages and stats (SQLite by
default, or PostgreSQL for several workers; SQLAlchemy Core statements, Alembic migrations)."""

from storage.errors import (
    AlreadySeated,
    NotFound,
    SchemaTooNew,
    StaleVersion,
    StoreError,
    TableBusy,
    TableFull,
    WrongStatus,
)
from storage.models import CHAT_DEFAULTS, Chat, GameStats, LeaderRow, Match, Message, MoveRecord, Player, Seat
from storage.store import Store
from storage.url import database_path

__all__ = [
    "CHAT_DEFAULTS", "AlreadySeated", "Chat", "GameStats", "LeaderRow", "Match", "Message", "MoveRecord",
    "NotFound", "Player", "SchemaTooNew", "Seat", "StaleVersion", "Store", "StoreError", "TableBusy",
    "TableFull",
    "WrongStatus", "database_path",
]
