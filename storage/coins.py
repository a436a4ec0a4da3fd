"""Coin balances and coin tables: grants, stakes held in a pot at the start, prizes paid with the final move.

Coins are earned by playing and never sold (konkan-cards.md, "Coin tables"). Every change goes through the
ledger, so a pot is paid out (or refunded) from what was really taken from each seat, never recomputed.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from storage.db import Database
from storage.errors import NotEnoughCoins
from storage.schema import coin_ledger, coins, matches, seats

FIRST_SHARE_PERCENT = 70  # with 3 or 4 players: first place 70 %, second 30 %; with 2 the winner takes all


@dataclass(frozen=True)
class CoinGrants:
    """The operator's economy: coins a player gets when first seen, and once per UTC day afterwards."""

    starting: int = 500
    daily: int = 50


def utc_day(now: float) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(now))


def split_pot(pot: int, places: Sequence[Sequence[int]], seats: int) -> dict[int, int]:
    """Each seat's prize. `places` groups the seats by finishing position, best first; tied seats share the
    prizes of the positions they cover equally, and a coin that cannot be split goes to the lowest seat number
    of the group (decision: the rules do not say; the seed's app pays whole coins)."""
    first = pot if seats <= 2 else pot * FIRST_SHARE_PERCENT // 100
    shares = [first] if seats <= 2 else [first, pot - first]
    prizes: dict[int, int] = {}
    position = 0
    for group in places:
        ordered = sorted(group)
        if not ordered:
            continue
        total = sum(shares[position:position + len(ordered)])
        position += len(ordered)
        each, extra = divmod(total, len(ordered))
        for number, seat in enumerate(ordered):
            prizes[seat] = each + (1 if number < extra else 0)
    return prizes


class CoinOps(Database):
    async def coins(self, player_id: int, grants: CoinGrants) -> int:
        """The player's balance after any grant due today (the starting grant the first time)."""
        async with self.transaction() as db:
            return await self._balance_with_grants(db, player_id, grants)

    async def coin_ledger(self, player_id: int) -> list[tuple[int | None, int, str]]:
        """(match, delta, reason) of every coin the player gained or spent, oldest first."""
        async with self.transaction(write=False) as db:
            rows = await self._all(db, select(coin_ledger.c.match_id, coin_ledger.c.delta, coin_ledger.c.reason)
                                   .where(coin_ledger.c.player_id == player_id).order_by(coin_ledger.c.id))
        return [(row["match_id"], row["delta"], row["reason"]) for row in rows]

    async def set_match_stake(self, match_id: int, stake: int) -> None:
        """Change a lobby's stake (the lobby's option button); nothing is held until the table starts."""
        if stake < 0:
            raise ValueError("a stake cannot be negative")
        async with self.transaction() as db:
            await self._lobby_change(db, match_id)  # type: ignore[attr-defined]
            await db.execute(update(matches).where(matches.c.id == match_id).values(stake=stake))

    # ---- inside another operation's transaction ----------------------------------------------------------------
    async def _balance_with_grants(self, db: AsyncConnection, player_id: int, grants: CoinGrants) -> int:
        now = self._now()
        day = utc_day(now)
        # FOR UPDATE: two workers granting the same player's daily coins at once must not both pay it.
        row = await self._one(db, select(coins.c.balance, coins.c.grant_day).where(coins.c.player_id == player_id)
                              .with_for_update())
        if row is None:
            # A new player's first day is covered by the starting grant; the daily grant begins the next day.
            await db.execute(insert(coins).values(player_id=player_id, balance=grants.starting, grant_day=day))
            await self._log(db, player_id, None, grants.starting, "start", now)
            return grants.starting
        balance = int(row["balance"])
        if row["grant_day"] < day:
            balance += grants.daily
            await db.execute(update(coins).where(coins.c.player_id == player_id)
                             .values(balance=balance, grant_day=day))
            if grants.daily:
                await self._log(db, player_id, None, grants.daily, "daily", now)
        return balance

    async def _hold_stakes(self, db: AsyncConnection, match_id: int, stake: int) -> None:
        """Take the stake from every human seat into the match's pot; NotEnoughCoins (and nothing taken, the
        caller's transaction rolls back) when any balance is short. Balances are locked in player order."""
        rows = await self._all(db, select(seats.c.player_id).where(seats.c.match_id == match_id,
                                                                   seats.c.player_id.is_not(None)))
        players = sorted(row["player_id"] for row in rows)
        short = []
        for player_id in players:
            row = await self._one(db, select(coins.c.balance).where(coins.c.player_id == player_id)
                                  .with_for_update())
            if row is None or row["balance"] < stake:
                short.append(player_id)
        if short:
            raise NotEnoughCoins(short)
        now = self._now()
        for player_id in players:
            await self._add(db, player_id, match_id, -stake, "stake", now)

    async def _pay_pot(self, db: AsyncConnection, match_id: int, places: Sequence[Sequence[int]]) -> None:
        """Pay the held pot to the seats by finishing position (`places`, best first)."""
        held = await self._held(db, match_id)
        pot = -sum(held.values())
        if pot <= 0:
            return
        seated = {row["seat"]: row["player_id"] for row in await self._all(
            db, select(seats.c.seat, seats.c.player_id).where(seats.c.match_id == match_id))}
        now = self._now()
        prizes = split_pot(pot, places, len(seated))
        for seat, prize in sorted(prizes.items(), key=lambda item: seated.get(item[0]) or 0):
            if prize and seated.get(seat) is not None:
                await self._add(db, seated[seat], match_id, prize, "prize", now)

    async def _refund_pot(self, db: AsyncConnection, match_id: int) -> None:
        """Give back every stake still held for a match that ends without a result (cancelled in play)."""
        now = self._now()
        for player_id, net in sorted((await self._held(db, match_id)).items()):
            if net < 0:
                await self._add(db, player_id, match_id, -net, "refund", now)

    async def _held(self, db: AsyncConnection, match_id: int) -> dict[int, int]:
        rows = await self._all(
            db, select(coin_ledger.c.player_id, func.sum(coin_ledger.c.delta).label("net"))
            .where(coin_ledger.c.match_id == match_id, coin_ledger.c.reason.in_(("stake", "refund")))
            .group_by(coin_ledger.c.player_id))
        return {row["player_id"]: int(row["net"]) for row in rows}

    async def _add(self, db: AsyncConnection, player_id: int, match_id: int | None, delta: int, reason: str,
                   now: float) -> None:
        await db.execute(update(coins).where(coins.c.player_id == player_id).values(balance=coins.c.balance + delta))
        await self._log(db, player_id, match_id, delta, reason, now)

    async def _log(self, db: AsyncConnection, player_id: int, match_id: int | None, delta: int, reason: str,
                   now: float) -> None:
        await db.execute(insert(coin_ledger).values(player_id=player_id, match_id=match_id, delta=delta,
                                                    reason=reason, at=now))
