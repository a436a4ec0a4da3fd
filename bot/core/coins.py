"""`/coins` and the balance checks of coin tables.

Only games whose rules describe coin tables offer a stake (bot/coin_tables.py); bots never sit at one, so every
seat of a coin table is a human with coins at risk.
"""

from __future__ import annotations

from bot.core.state import ServiceState
from bot.i18n import tn
from bot.messages import INFO, Actor, ChatRef, Reply
from storage.models import Match


class Coins(ServiceState):
    async def _cmd_coins(self, actor: Actor, chat: ChatRef, player_id: int, lang: str, args: list[str]) -> Reply:
        """`/coins`: the player's own balance, said to them only (a balance is nobody else's business)."""
        balance = await self.store.coins(player_id, self.coin_grants)
        key = "coins.balance_first_day" if await self._first_coin_day(player_id) else "coins.balance"
        return Reply(tn(lang, key, balance, daily=self.coin_grants.daily), private=not chat.private, kind=INFO)

    async def _first_coin_day(self, player_id: int) -> bool:
        """Whether today is the day the player got their starting coins: that day is covered by the starting grant
        and the daily grant begins the next UTC day (storage/coins.py), so /coins must not promise one today. Any
        coin action on a later day pays the daily grant first, so a ledger without one means the first day."""
        if not self.coin_grants.daily:
            return False
        return all(reason != "daily" for _, _, reason in await self.store.coin_ledger(player_id))

    async def _coin_shortfall(self, match: Match, player_id: int, stake: int | None = None) -> int | None:
        """How many coins the player lacks to sit at this table (None: enough, or a free table)."""
        stake = match.stake if stake is None else stake
        if not stake:
            return None
        balance = await self.store.coins(player_id, self.coin_grants)
        return None if balance >= stake else stake - balance
