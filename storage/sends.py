"""The last minute's sends to each group, for the in-process Telegram rate limiter (bot/telegram_adapter/
local_limiter.py): kept here so a restarted bot still counts what it sent just before, instead of starting empty
and letting a group get 20 more messages within the same minute."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import delete, insert, select
from sqlalchemy.engine import Connection

from storage.db import Database
from storage.schema import recent_sends


class SendOps(Database):
    async def record_sends(self, platform: str, sends: Iterable[tuple[str, float]], forget_before: float) -> None:
        """Remember `(chat_id, send time)` pairs, and forget this platform's sends before `forget_before` (no
        longer in any limit's window), in one transaction."""
        rows = [{"platform": platform, "chat_id": str(chat), "at": float(at)} for chat, at in sends]

        def write(db: Connection) -> None:
            db.execute(delete(recent_sends).where(recent_sends.c.at < forget_before))
            if rows:
                db.execute(insert(recent_sends), rows)

        await self.run(write)

    async def recent_sends(self, platform: str, since: float) -> dict[str, list[float]]:
        """This platform's remembered sends from `since` on: chat id -> send times, oldest first."""
        rows = await self._read_all(select(recent_sends.c.chat_id, recent_sends.c.at)
                                    .where(recent_sends.c.platform == platform, recent_sends.c.at >= since)
                                    .order_by(recent_sends.c.at))
        out: dict[str, list[float]] = {}
        for row in rows:
            out.setdefault(row["chat_id"], []).append(float(row["at"]))
        return out
