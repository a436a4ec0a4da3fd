"""Where the bot's own chat messages are, so it edits the table in place instead of posting a new one each move."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, delete, insert, select, update
from sqlalchemy.engine import Connection

from storage.db import Database
from storage.dialects import upsert
from storage.models import Message
from storage.schema import messages, slot_claims

# The statements of every delivery, built once with bind parameters: a new statement object per call cost its
# construction and its cache key (SQLAlchemy walks the whole statement to find its compiled form) on the
# database's thread, more than SQLite took to run it. Names of parameters differ from the columns they set
# (SQLAlchemy reserves a column's own name in VALUES / SET).
_CLAIM_WHERE = (slot_claims.c.match_id == bindparam("match_id"), slot_claims.c.platform == bindparam("platform"),
                slot_claims.c.kind == bindparam("kind"), slot_claims.c.seat == bindparam("claim_seat"))
_RELEASE = delete(slot_claims).where(*_CLAIM_WHERE, slot_claims.c.token == bindparam("token"))
_HOLDER = select(slot_claims.c.token).where(*_CLAIM_WHERE)
_BY_MATCH = (messages.c.match_id == bindparam("match_id"), messages.c.kind == bindparam("kind"),
             messages.c.platform == bindparam("platform"))
_BY_CHAT = (messages.c.match_id.is_(None), messages.c.platform == bindparam("platform"),
            messages.c.chat_id == bindparam("chat_id"), messages.c.kind == bindparam("kind"))
_SLOTS = {  # (a match's slot?, a seat's?) -> the slot's message row (see `save_message`)
    (True, True): select(messages).where(*_BY_MATCH, messages.c.seat == bindparam("seat")),
    (True, False): select(messages).where(*_BY_MATCH, messages.c.seat.is_(None)),
    (False, True): select(messages).where(*_BY_CHAT, messages.c.seat == bindparam("seat")),
    (False, False): select(messages).where(*_BY_CHAT, messages.c.seat.is_(None)),
}
_ADD = insert(messages).returning(messages.c.id)
_MOVE = (update(messages).where(messages.c.id == bindparam("row_id"))
         .values(chat_id=bindparam("new_chat"), message_id=bindparam("new_message"), updated=bindparam("at")))
_BY_ID = select(messages).where(messages.c.id == bindparam("row_id"))
_FORGET = delete(messages).where(messages.c.id == bindparam("row_id"))
_CLAIMS: dict[str, Any] = {}  # dialect -> its claim upsert (`_claim_statement`)


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
        slot, slot_params = _slot_query(platform, kind, match_id, seat, str(chat_id))

        def save(db: Connection) -> Message:
            if claim is not None and match_id is not None:
                db.execute(_RELEASE, {**_claim_key(platform, kind, match_id, seat), "token": claim})
            row = db.execute(slot, slot_params).mappings().first()
            now = self._now()
            if row is None:
                message_row_id = db.execute(_ADD, {
                    "match_id": match_id, "platform": platform, "chat_id": str(chat_id),
                    "message_id": str(message_id), "kind": kind, "seat": seat, "updated": now}).scalar_one()
            else:
                message_row_id = row["id"]
                db.execute(_MOVE, {"row_id": message_row_id, "new_chat": str(chat_id),
                                   "new_message": str(message_id), "at": now})
            saved = db.execute(_BY_ID, {"row_id": message_row_id}).mappings().first()
            assert saved is not None
            return Message.from_row(saved)

        return await self.run(save)

    async def claim_slot(self, platform: str, kind: str, match_id: int, seat: int | None, token: str, now: float,
                         lease: float) -> SlotClaim:
        """Hold a match's message slot before sending a new message into it, until `now + lease` or `release_slot`
        / `save_message(claim=token)`. Held by another worker (and not run out): not held. Either way the slot's
        message as stored now comes with the answer, read in the same transaction."""
        key = _claim_key(platform, kind, match_id, seat)
        statement = _claim_statement(self.dialect)
        values = {"new_match": match_id, "new_platform": platform, "new_kind": kind, "new_seat": key["claim_seat"],
                  "holder": token, "until_at": now + lease, "now": now}
        slot, slot_params = _slot_query(platform, kind, match_id, seat, None)

        def claim(db: Connection) -> SlotClaim:
            db.execute(statement, values)
            holder = db.execute(_HOLDER, key).scalar_one_or_none()
            row = db.execute(slot, slot_params).mappings().first()
            return SlotClaim(holder == token, None if row is None else Message.from_row(row))

        return await self.run(claim)

    async def release_slot(self, platform: str, kind: str, match_id: int, seat: int | None, token: str) -> None:
        """Give up a claim (the send failed); another worker's claim is left alone."""
        params = {**_claim_key(platform, kind, match_id, seat), "token": token}
        await self.run(lambda db: db.execute(_RELEASE, params))

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
        row = await self._read_one(*_slot_query(platform, kind, match_id, seat,
                                                None if chat_id is None else str(chat_id)))
        return None if row is None else Message.from_row(row)

    async def messages_for_match(self, match_id: int) -> list[Message]:
        """All messages of a match (e.g. to tidy them up when it ends), by kind then seat (seatless first)."""
        rows = await self._read_all(select(messages).where(messages.c.match_id == match_id)
                                    .order_by(messages.c.kind, messages.c.seat.asc().nulls_first(), messages.c.id))
        return [Message.from_row(row) for row in rows]

    async def delete_message(self, message_row_id: int) -> None:
        """Forget a message (after the bot deleted it in the chat); unknown ids are ignored."""
        await self.run(lambda db: db.execute(_FORGET, {"row_id": message_row_id}))


def _claim_key(platform: str, kind: str, match_id: int, seat: int | None) -> dict[str, Any]:
    """The parameters of `_CLAIM_WHERE`: a seatless slot's claim is stored under seat -1 (the key's columns are
    NOT NULL, so that a second claim on the same slot conflicts)."""
    return {"match_id": match_id, "platform": platform, "kind": kind, "claim_seat": -1 if seat is None else seat}


def _claim_statement(dialect: str) -> Any:
    """The claim of a slot as one upsert, built once per dialect: taken when free, run out (`until` passed) or
    already this worker's (its token)."""
    statement = _CLAIMS.get(dialect)
    if statement is None:
        statement = upsert(dialect, slot_claims).values(
            match_id=bindparam("new_match"), platform=bindparam("new_platform"), kind=bindparam("new_kind"),
            seat=bindparam("new_seat"), token=bindparam("holder"), until=bindparam("until_at"))
        statement = statement.on_conflict_do_update(
            index_elements=[slot_claims.c.match_id, slot_claims.c.platform, slot_claims.c.kind, slot_claims.c.seat],
            set_={"token": statement.excluded.token, "until": statement.excluded.until},
            where=(slot_claims.c.until <= bindparam("now")) | (slot_claims.c.token == bindparam("holder")))
        _CLAIMS[dialect] = statement
    return statement


def _slot_query(platform: str, kind: str, match_id: int | None, seat: int | None,
                chat_id: str | None) -> tuple[Any, dict[str, Any]]:
    """The message row of one slot (see `save_message`): a statement built once, and its parameters."""
    params: dict[str, Any] = {"platform": platform, "kind": kind}
    if match_id is not None:
        params["match_id"] = match_id
    else:
        params["chat_id"] = chat_id
    if seat is not None:
        params["seat"] = seat
    return _SLOTS[(match_id is not None, seat is not None)], params
