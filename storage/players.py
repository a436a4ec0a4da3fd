"""Players (one row per platform account) and chats (per-chat language and table defaults)."""

from __future__ import annotations

from typing import Any

from storage.db import Database
from storage.errors import NotFound
from storage.models import Chat, Player, dumps, loads


class PlayerOps(Database):
    async def upsert_player(
        self,
        platform: str,
        user_id: str | int,
        display_name: str,
        client_language: str | None = None,
        username: str | None = None,
    ) -> Player:
        """The player for this platform account, created on first sight; name, handle and app language follow
        the latest update (a missing handle or language leaves the stored one)."""
        async with self.transaction() as db:
            await db.execute(
                """INSERT INTO players (platform, user_id, display_name, client_language, username, created)
                   VALUES (?, ?, ?, ?, ?, ?)
                   ON CONFLICT (platform, user_id) DO UPDATE SET
                       display_name = excluded.display_name,
                       client_language = coalesce(excluded.client_language, client_language),
                       username = coalesce(excluded.username, username)
                   WHERE display_name IS NOT excluded.display_name
                      OR (excluded.client_language IS NOT NULL AND client_language IS NOT excluded.client_language)
                      OR (excluded.username IS NOT NULL AND username IS NOT excluded.username)""",
                (platform, str(user_id), display_name, client_language, username, self._now()),
            )
            row = await self._one(db, "SELECT * FROM players WHERE platform = ? AND user_id = ?",
                                  (platform, str(user_id)))
        assert row is not None
        return Player.from_row(row)

    async def get_player(self, player_id: int) -> Player | None:
        async with self.transaction(write=False) as db:
            row = await self._one(db, "SELECT * FROM players WHERE id = ?", (player_id,))
        return None if row is None else Player.from_row(row)

    async def find_player(self, platform: str, user_id: str | int) -> Player | None:
        """By platform user id, or else by @username (case-insensitive, with or without the @)."""
        key = str(user_id)
        async with self.transaction(write=False) as db:
            row = await self._one(db, "SELECT * FROM players WHERE platform = ? AND user_id = ?", (platform, key))
            if row is None and key.lstrip("@"):
                row = await self._one(
                    db, "SELECT * FROM players WHERE platform = ? AND lower(username) = lower(?) ORDER BY id DESC",
                    (platform, key.lstrip("@")),
                )
        return None if row is None else Player.from_row(row)

    async def set_player_language(self, player_id: int, language: str | None) -> Player:
        """Set the player's own language; None returns them to following the chat's."""
        async with self.transaction() as db:
            await db.execute("UPDATE players SET language = ? WHERE id = ?", (language, player_id))
            row = await self._one(db, "SELECT * FROM players WHERE id = ?", (player_id,))
            if row is None:
                raise NotFound(f"no player {player_id}")
        return Player.from_row(row)


class ChatOps(Database):
    async def get_chat(self, platform: str, chat_id: str | int) -> Chat:
        """The chat's settings, creating its row on first use so later updates are plain UPDATEs."""
        async with self.transaction() as db:
            await db.execute(
                "INSERT OR IGNORE INTO chats (platform, chat_id, created) VALUES (?, ?, ?)",
                (platform, str(chat_id), self._now()),
            )
            return await self._chat(db, platform, str(chat_id))

    async def set_chat_language(self, platform: str, chat_id: str | int, language: str | None) -> Chat:
        async with self.transaction() as db:
            await self.get_chat(platform, chat_id)
            await db.execute("UPDATE chats SET language = ? WHERE platform = ? AND chat_id = ?",
                             (language, platform, str(chat_id)))
            return await self._chat(db, platform, str(chat_id))

    async def set_chat_defaults(self, platform: str, chat_id: str | int, defaults: dict[str, Any]) -> Chat:
        """Merge `defaults` into the chat's settings; a key set to None goes back to the built-in default.

        Merging (rather than replacing) lets a command change the turn timer without knowing the other keys.
        """
        async with self.transaction() as db:
            await self.get_chat(platform, chat_id)
            row = await self._one(db, "SELECT defaults FROM chats WHERE platform = ? AND chat_id = ?",
                                  (platform, str(chat_id)))
            assert row is not None
            merged = dict(loads(row["defaults"]))
            for key, value in defaults.items():
                if value is None:
                    merged.pop(key, None)
                else:
                    merged[key] = value
            await db.execute("UPDATE chats SET defaults = ? WHERE platform = ? AND chat_id = ?",
                             (dumps(merged), platform, str(chat_id)))
            return await self._chat(db, platform, str(chat_id))

    async def _chat(self, db: Any, platform: str, chat_id: str) -> Chat:
        row = await self._one(db, "SELECT * FROM chats WHERE platform = ? AND chat_id = ?", (platform, chat_id))
        assert row is not None
        return Chat.from_row(row)
