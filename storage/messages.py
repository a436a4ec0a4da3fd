"""Where the bot's own chat messages are, so it edits the table in place instead of posting a new one each move."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.engine import Connection

from storage.db import Database
from storage.models import Message
from storage.schema import messages


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
        slot = _slot_query(platform, kind, match_id, seat, str(chat_id))

        def save(db: Connection) -> Message:
            row = db.execute(slot).mappings().first()
            now = self._now()
            if row is None:
                message_row_id = db.execute(
                    insert(messages).values(match_id=match_id, platform=platform, chat_id=str(chat_id),
                                            message_id=str(message_id), kind=kind, seat=seat, updated=now)
                    .returning(messages.c.id)).scalar_one()
            else:
                message_row_id = row["id"]
                db.execute(update(messages).where(messages.c.id == message_row_id)
                           .values(chat_id=str(chat_id), message_id=str(message_id), updated=now))
            saved = db.execute(select(messages).where(messages.c.id == message_row_id)).mappings().first()
            assert saved is not None
            return Message.from_row(saved)

        return await self.run(save)

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
        row = await self._read_one(_slot_query(platform, kind, match_id, seat,
                                               None if chat_id is None else str(chat_id)))
        return None if row is None else Message.from_row(row)

    async def messages_for_match(self, match_id: int) -> list[Message]:
        """All messages of a match (e.g. to tidy them up when it ends), by kind then seat (seatless first)."""
        rows = await self._read_all(select(messages).where(messages.c.match_id == match_id)
                                    .order_by(messages.c.kind, messages.c.seat.asc().nulls_first(), messages.c.id))
        return [Message.from_row(row) for row in rows]

    async def delete_message(self, message_row_id: int) -> None:
        """Forget a message (after the bot deleted it in the chat); unknown ids are ignored."""
        statement = delete(messages).where(messages.c.id == message_row_id)
        await self.run(lambda db: db.execute(statement))


def _slot_query(platform: str, kind: str, match_id: int | None, seat: int | None, chat_id: str | None) -> Any:
    """The message row of one slot (see `save_message`)."""
    same_seat: Any = messages.c.seat.is_(None) if seat is None else messages.c.seat == seat
    if match_id is not None:
        where = (messages.c.match_id == match_id, messages.c.kind == kind, same_seat,
                 messages.c.platform == platform)
    else:
        where = (messages.c.match_id.is_(None), messages.c.platform == platform, messages.c.chat_id == chat_id,
                 messages.c.kind == kind, same_seat)
    return select(messages).where(*where)
