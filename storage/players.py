"""Players (one row per platform account) and chats (per-chat language and table defaults)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, func, or_, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncConnection

from storage.db import Database, Row
from storage.dialects import upsert
from storage.errors import NotFound
from storage.models import Chat, Player, dumps, loads
from storage.schema import chats, players

# Every press reads these: built once (storage/db.py `_read_one`).
_PLAYER = select(players).where(players.c.id == bindparam("player_id"))
_ACCOUNT = select(players).where(players.c.platform == bindparam("platform"), players.c.user_id == bindparam("user_id"))
_CHAT = select(chats).where(chats.c.platform == bindparam("platform"), chats.c.chat_id == bindparam("chat_id"))


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
        insert = upsert(self.dialect, players).values(
            platform=platform, user_id=str(user_id), display_name=display_name, client_language=client_language,
            username=username, created=self._now())
        new = insert.excluded
        statement = insert.on_conflict_do_update(
            index_elements=[players.c.platform, players.c.user_id],
            set_={
                "display_name": new.display_name,
                "client_language": func.coalesce(new.client_language, players.c.client_language),
                "username": func.coalesce(new.username, players.c.username),
            },
            # Nothing written when nothing changed: a press by a known player costs no write.
            where=or_(
                players.c.display_name.is_distinct_from(new.display_name),
                new.client_language.is_not(None) & players.c.client_language.is_distinct_from(new.client_language),
                new.username.is_not(None) & players.c.username.is_distinct_from(new.username),
            ),
        )
        account = select(players).where(players.c.platform == platform, players.c.user_id == str(user_id))

        def write(db: Connection) -> Row | None:
            db.execute(statement)
            return db.execute(account).mappings().first()

        row = await self.run(write)
        assert row is not None
        return Player.from_row(row)

    async def get_player(self, player_id: int) -> Player | None:
        row = await self._read_one(_PLAYER, {"player_id": player_id})
        return None if row is None else Player.from_row(row)

    async def find_player(self, platform: str, user_id: str | int) -> Player | None:
        """By platform user id, or else by @username (case-insensitive, with or without the @)."""
        key = str(user_id)

        def find(db: Connection) -> Row | None:
            row = db.execute(_ACCOUNT, {"platform": platform, "user_id": key}).mappings().first()
            if row is None and key.lstrip("@"):
                row = db.execute(
                    select(players).where(players.c.platform == platform,
                                          func.lower(players.c.username) == func.lower(key.lstrip("@")))
                    .order_by(players.c.id.desc()).limit(1)).mappings().first()
            return row

        row = await self.run(find, write=False)
        return None if row is None else Player.from_row(row)

    async def set_player_language(self, player_id: int, language: str | None) -> Player:
        """Set the player's own language; None returns them to following the chat's."""
        async with self.transaction() as db:
            await db.execute(update(players).where(players.c.id == player_id).values(language=language))
            row = await self._one(db, select(players).where(players.c.id == player_id))
            if row is None:
                raise NotFound(f"no player {player_id}")
        return Player.from_row(row)


class ChatOps(Database):
    async def get_chat(self, platform: str, chat_id: str | int) -> Chat:
        """The chat's settings, creating its row on first use so later updates are plain UPDATEs. (Read first: every
        update reads its chat, and only the first ever needs the write.)"""
        row = await self._read_one(_CHAT, {"platform": platform, "chat_id": str(chat_id)})
        if row is not None:
            return Chat.from_row(row)
        async with self.transaction() as db:
            await db.execute(upsert(self.dialect, chats)
                             .values(platform=platform, chat_id=str(chat_id), defaults="{}", created=self._now())
                             .on_conflict_do_nothing())
            return await self._chat(db, platform, str(chat_id))

    async def set_chat_language(self, platform: str, chat_id: str | int, language: str | None) -> Chat:
        async with self.transaction() as db:
            await self.get_chat(platform, chat_id)
            await db.execute(update(chats).where(*self._chat_key(platform, str(chat_id))).values(language=language))
            return await self._chat(db, platform, str(chat_id))

    async def set_chat_defaults(self, platform: str, chat_id: str | int, defaults: dict[str, Any]) -> Chat:
        """Merge `defaults` into the chat's settings; a key set to None goes back to the built-in default.

        Merging (rather than replacing) lets a command change the turn timer without knowing the other keys. The
        row is read FOR UPDATE, so two workers merging at once both keep their key.
        """
        async with self.transaction() as db:
            await self.get_chat(platform, chat_id)
            row = await self._one(db, select(chats.c.defaults).where(*self._chat_key(platform, str(chat_id)))
                                  .with_for_update())
            assert row is not None
            merged = dict(loads(row["defaults"]))
            for key, value in defaults.items():
                if value is None:
                    merged.pop(key, None)
                else:
                    merged[key] = value
            await db.execute(update(chats).where(*self._chat_key(platform, str(chat_id)))
                             .values(defaults=dumps(merged)))
            return await self._chat(db, platform, str(chat_id))

    @staticmethod
    def _chat_key(platform: str, chat_id: str) -> tuple[Any, Any]:
        return chats.c.platform == platform, chats.c.chat_id == chat_id

    async def _chat(self, db: AsyncConnection, platform: str, chat_id: str) -> Chat:
        row = await self._one(db, select(chats).where(*self._chat_key(platform, chat_id)))
        assert row is not None
        return Chat.from_row(row)
