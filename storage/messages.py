"""Where the bot's own chat messages are, so it edits the table in place instead of posting a new one each move."""

from __future__ import annotations

import aiosqlite

from storage.db import Database
from storage.models import Message


class MessageOps(Database):
    async def save_message(
        self,
        platform: str,
        chat_id: str | int,
        message_id: str | int,
        kind: str,
        match_id: int | None = None,
        seat: int | None = None,
    ) -> Message:
        """Remember (or replace) the message filling one slot.

        A match's slot is (match, kind, seat, platform): a rack re-sent to another chat replaces the old entry.
        Without a match the slot is (platform, chat, kind, seat).
        """
        async with self.transaction() as db:
            row = await self._slot(db, platform, kind, match_id, seat, str(chat_id))
            now = self._now()
            if row is None:
                cursor = await db.execute(
                    """INSERT INTO messages (match_id, platform, chat_id, message_id, kind, seat, updated)
                       VALUES (?, ?, ?, ?, ?, ?, ?)""",
                    (match_id, platform, str(chat_id), str(message_id), kind, seat, now),
                )
                message_row_id = cursor.lastrowid
                await cursor.close()
            else:
                message_row_id = row["id"]
                await db.execute("UPDATE messages SET chat_id = ?, message_id = ?, updated = ? WHERE id = ?",
                                 (str(chat_id), str(message_id), now, message_row_id))
            saved = await self._one(db, "SELECT * FROM messages WHERE id = ?", (message_row_id,))
        assert saved is not None
        return Message.from_row(saved)

    async def get_message(
        self,
        platform: str,
        kind: str,
        match_id: int | None = None,
        seat: int | None = None,
        chat_id: str | int | None = None,
    ) -> Message | None:
        """The message in a slot: by (match, kind, seat) when match_id is given, else by (chat, kind, seat)."""
        if match_id is None and chat_id is None:
            raise ValueError("get_message needs a match_id or a chat_id")
        async with self.transaction(write=False) as db:
            row = await self._slot(db, platform, kind, match_id, seat, None if chat_id is None else str(chat_id))
        return None if row is None else Message.from_row(row)

    async def messages_for_match(self, match_id: int) -> list[Message]:
        """All messages of a match (e.g. to tidy them up when it ends), by kind then seat."""
        async with self.transaction(write=False) as db:
            rows = await self._all(db, "SELECT * FROM messages WHERE match_id = ? ORDER BY kind, seat, id",
                                   (match_id,))
        return [Message.from_row(row) for row in rows]

    async def delete_message(self, message_row_id: int) -> None:
        """Forget a message (after the bot deleted it in the chat); unknown ids are ignored."""
        async with self.transaction() as db:
            await db.execute("DELETE FROM messages WHERE id = ?", (message_row_id,))

    async def _slot(
        self, db: aiosqlite.Connection, platform: str, kind: str, match_id: int | None, seat: int | None,
        chat_id: str | None,
    ) -> aiosqlite.Row | None:
        if match_id is not None:
            return await self._one(
                db,
                """SELECT * FROM messages WHERE match_id = ? AND kind = ? AND ifnull(seat, -1) = ifnull(?, -1)
                   AND platform = ?""",
                (match_id, kind, seat, platform),
            )
        return await self._one(
            db,
            """SELECT * FROM messages WHERE match_id IS NULL AND platform = ? AND chat_id = ? AND kind = ?
               AND ifnull(seat, -1) = ifnull(?, -1)""",
            (platform, chat_id, kind, seat),
        )
