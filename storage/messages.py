"""Where the bot's own chat messages are, so it edits the table in place instead of posting a new one each move."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.engine import Connection

from storage.db import Database
from storage.dialects import upsert
from storage.models import Message
from storage.schema import messages, slot_claims


@dataclass(frozen=True)
class SlotClaim:
    """The outcome of `claim_slot`: whether this worker holds the slot now, and the slot's message as stored at
    that moment (another worker may have sent one since this worker last looked)."""

    held: bool
    current: Message | None


class MessageOps(Database):
    async def save_message(
        self,
        platform: str,
        chat_id: str | int,
        message_id: str | int,
        kind: str,
        match_id: int | None = None,
        seat: int | None = None,
        *,
        claim: str | None = None,
    ) -> Message:
        """Remember (or replace) the message filling one slot.

        A match's slot is (match, kind, seat, platform): a rack re-sent to another chat replaces the old entry.
        Without a match the slot is (platform, chat, kind, seat). `claim`: the token of this worker's
        `claim_slot`, released in the same transaction.
        """
        slot = _slot_query(platform, kind, match_id, seat, str(chat_id))

        def save(db: Connection) -> Message:
            if claim is not None and match_id is not None:
                db.execute(delete(slot_claims).where(*_claim_key(platform, kind, match_id, seat),
                                                     slot_claims.c.token == claim))
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

    async def claim_slot(self, platform: str, kind: str, match_id: int, seat: int | None, token: str, now: float,
                         lease: float) -> SlotClaim:
        """Hold a match's message slot before sending a new message into it, until `now + lease` or `release_slot`
        / `save_message(claim=token)`. Held by another worker (and not run out): not held. Either way the slot's
        message as stored now comes with the answer, read in the same transaction."""
        key = {"match_id": match_id, "platform": platform, "kind": kind, "seat": -1 if seat is None else seat}
        statement = upsert(self.dialect, slot_claims).values(**key, token=token, until=now + lease)
        statement = statement.on_conflict_do_update(
            index_elements=[slot_claims.c.match_id, slot_claims.c.platform, slot_claims.c.kind, slot_claims.c.seat],
            set_={"token": statement.excluded.token, "until": statement.excluded.until},
            where=(slot_claims.c.until <= now) | (slot_claims.c.token == token))
        slot = _slot_query(platform, kind, match_id, seat, None)

        def claim(db: Connection) -> SlotClaim:
            db.execute(statement)
            holder = db.execute(select(slot_claims.c.token).where(*_claim_key(platform, kind, match_id, seat))
                                ).scalar_one_or_none()
            row = db.execute(slot).mappings().first()
            return SlotClaim(holder == token, None if row is None else Message.from_row(row))

        return await self.run(claim)

    async def release_slot(self, platform: str, kind: str, match_id: int, seat: int | None, token: str) -> None:
        """Give up a claim (the send failed); another worker's claim is left alone."""
        statement = delete(slot_claims).where(*_claim_key(platform, kind, match_id, seat),
                                              slot_claims.c.token == token)
        await self.run(lambda db: db.execute(statement))

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


def _claim_key(platform: str, kind: str, match_id: int, seat: int | None) -> tuple[Any, ...]:
    return (slot_claims.c.match_id == match_id, slot_claims.c.platform == platform, slot_claims.c.kind == kind,
            slot_claims.c.seat == (-1 if seat is None else seat))


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
