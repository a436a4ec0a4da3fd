"""The Discord driver for bench/pipeline.py: the real discord.py client and DiscordAdapter on tests/dc_harness.py's
fake Discord (interactions fed as gateway payloads, REST and webhook calls answered and recorded, not sent).

    .venv/bin/python bench/pipeline_discord.py [--game kenza|canasta|tunj] [--matches 50] [--moves 20] ...

(the same as `bench/pipeline.py --platform discord`). Each match has its own channel and its own human.

A pressed move (Kenza) is what a Discord user does: press a move button in their ephemeral hand; when that
ephemeral shows no move button for the current turn (the first turn, or after the match moved on), "My hand" on
the table first, and its calls count toward that move. A typed move (Canasta, Tunj) is the `m` slash command in
the table's channel, answered in its own ephemeral (deferred, then edited with the hand). An input is timed from
the gateway payload until the adapter has finished with it (the service committed, the bot replied, the
pictures were rendered and every call was answered); the interaction responses count as API calls.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.pipeline import check_answer, check_applied  # noqa: E402
from bench.pipeline_games import Table, TypedHuman, moved  # noqa: E402
from bot.service import Service  # noqa: E402
from tests.dc_harness import CHANNEL_ID, FakeDiscord, answers, custom_ids, settings, user  # noqa: E402


class DiscordDriver:
    name = "discord"

    def __init__(self, table: Table) -> None:
        self.table = table
        self.typed = TypedHuman(table.game) if table.typed else None
        self.fake = FakeDiscord()
        self.adapter: Any = None
        self.racks: dict[int, str] = {}  # match index -> id of the human's latest ephemeral hand

    async def start(self, service: Service) -> None:
        from bot.discord_adapter import DiscordAdapter

        self.adapter = DiscordAdapter(service, settings())
        await self.fake.login(self.adapter)

    def _channel(self, index: int) -> int:
        return CHANNEL_ID + 1 + index

    def _user(self, index: int) -> dict[str, Any]:
        return user(100 + index, f"Player {index}")

    def _latest(self, index: int, prefix: str) -> dict[str, Any]:
        channel = str(self._channel(index))
        for message in reversed(list(self.fake.messages.values())):
            if message["channel_id"] == channel and custom_ids(message, prefix):
                return message
        raise LookupError(f"no {prefix!r} button in channel {channel}")

    async def _feed(self, index: int, payload: dict[str, Any]) -> tuple[float, int, str | None]:
        """Feed one interaction; (milliseconds until done, API calls it made, what it told its user: the last
        ephemeral content). The answer is returned, not kept on the driver: other matches' interactions run
        meanwhile and would overwrite it."""
        started = time.perf_counter()
        calls = await self.fake.feed(self.adapter.client, payload)
        told = answers([call for call in calls if call.token == payload["token"]])
        answer = told[-1] if told else None
        elapsed = (time.perf_counter() - started) * 1000
        # Other matches run meanwhile: count this interaction's own calls and this channel's messages.
        channel = f"/channels/{self._channel(index)}/"
        made = sum(1 for call in calls if call.token == payload["token"] or channel in call.path)
        return elapsed, made, answer

    async def open_match(self, index: int) -> int:
        who = self._user(index)
        options = {"game": self.table.game, **self.table.options}
        await self._feed(index, self.fake.command(who, "new", options, channel_id=self._channel(index)))
        for prefix in ("b:", "s:"):  # the first "add a bot" button adds a normal one
            lobby = self._latest(index, prefix)
            await self._feed(index, self.fake.press(who, lobby["id"], custom_ids(lobby, prefix)[0]))
        store = self.adapter.service.store
        match = await store.lobby_or_active_match("discord", str(self._channel(index)))
        assert match is not None and match.status == "active", f"the bench table did not start: {options}"
        return match.id

    async def human_move(self, index: int, match_id: int, sample: Any) -> bool:
        if self.typed is not None:
            return await self._typed_move(index, match_id, sample)
        return await self._pressed_move(index, match_id, sample)

    async def _typed_move(self, index: int, match_id: int, sample: Any) -> bool:
        store = self.adapter.service.store
        decision = await self.typed.decide(store, match_id)
        if decision is None:
            return False
        payload = self.fake.command(self._user(index), "m", {"move": decision.move}, channel_id=self._channel(index))
        elapsed, made, answer = await self._feed(index, payload)
        if not moved(decision, await store.get_match(match_id)):
            sample.rejected += 1
            return True
        check_answer(match_id, "m " + decision.move, answer)
        sample.record(elapsed, made)
        return True

    async def _pressed_move(self, index: int, match_id: int, sample: Any) -> bool:
        match = await self.adapter.service.store.get_match(match_id)
        if match is None or match.status != "active":
            return False
        who = self._user(index)
        calls = 0
        rack = self.fake.messages.get(self.racks.get(index, ""))
        if rack is None or not _moves(rack, match.version):
            table = self._latest(index, "h:")
            payload = self.fake.press(who, table["id"], custom_ids(table, "h:")[0])
            _, calls, _ = await self._feed(index, payload)
            rack = self.fake.original(payload["token"])
            self.racks[index] = rack["id"]
        code = _moves(rack, match.version)[0]
        if code.startswith("p:"):
            elapsed, made, _ = await self._feed(index, self.fake.press(who, rack["id"], code))
            sample.pick_ms.append(elapsed)
            calls += made
            rack = self.fake.messages[rack["id"]]
            code = custom_ids(rack, "m:")[0]
        elapsed, made, answer = await self._feed(index, self.fake.press(who, rack["id"], code))
        check_applied(match_id, code, match.version, await self.adapter.service.store.get_match(match_id), answer)
        sample.record(elapsed, made, calls)
        return True

    async def stop(self) -> None:
        await self.adapter.client.close()


def _moves(rack: dict[str, Any], version: int) -> list[str]:
    """The move buttons of an ephemeral hand that are for the current version of the match."""
    return [code for code in custom_ids(rack, "m:") + custom_ids(rack, "p:") if code.split(":")[2] == str(version)]


if __name__ == "__main__":
    from bench import pipeline

    if "--platform" not in sys.argv:
        sys.argv += ["--platform", "discord"]
    pipeline.main()
