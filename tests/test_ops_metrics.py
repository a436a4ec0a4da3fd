"""The operator's port (issue 30 points 1-2): /metrics scraped over HTTP during matches played through the real
python-telegram-bot and discord.py objects, each counter checked against what the fake platform and the store saw;
/readyz turning unready when the database stops answering.

The page is parsed with prometheus-client's own parser, so a malformed exposition fails here too.
"""

from __future__ import annotations

import collections
from typing import Any

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy.engine import make_url
from telegram.ext import AIORateLimiter

from bot.metrics import Metrics
from bot.ops_server import OpsServer
from storage import Store
from storage.coins import CoinGrants
from tests import dc_harness
from tests.clock import Clock
from tests.engines import create_schema, drop_schema, fresh_schema_url
from tests.tcp_cut import TcpCut
from tests.tg_harness import GROUP_ID, Bot, Failure, FakeTelegram, open_table, play_one, seat_to_move, user

ALICE = user(111, "Alice")
BADR = user(222, "Badr")
HUMANS = {0: ALICE, 1: BADR}
OUTCOME = {200: "ok", 429: "429", 400: "4xx", 403: "4xx", 404: "4xx", 502: "5xx", 503: "5xx"}

Page = dict[tuple[str, frozenset[tuple[str, str]]], float]


async def scrape(port: int, path: str = "/metrics") -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(f"http://127.0.0.1:{port}{path}") as response:
        return response.status, await response.text()


async def metrics_page(port: int) -> Page:
    status, text = await scrape(port)
    assert status == 200
    return {(sample.name, frozenset(sample.labels.items())): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


def value(page: Page, name: str, **labels: str) -> float:
    return page.get((name, frozenset(labels.items())), 0.0)


def total(page: Page, name: str, **labels: str) -> float:
    """The sum over every series of `name` whose labels include `labels`."""
    wanted = set(labels.items())
    return sum(v for (n, have), v in page.items() if n == name and wanted <= have)


def api_calls_seen(server: FakeTelegram) -> collections.Counter[tuple[str, str]]:
    """(method, outcome) of every Bot API call the fake server answered (getUpdates goes through its own request)."""
    return collections.Counter((call.method, OUTCOME[call.status]) for call in server.api_calls())


def api_calls_counted(page: Page, platform: str) -> collections.Counter[tuple[str, str]]:
    counted: collections.Counter[tuple[str, str]] = collections.Counter()
    for (name, labels), count in page.items():
        found = dict(labels)
        if name == "majlis_platform_api_calls_total" and found["platform"] == platform and count:
            counted[(found["method"], found["outcome"])] = int(count)
    return counted


async def test_metrics_count_a_match_played_through_telegram(store: Store) -> None:
    clock = Clock(1_700_000_000.0)
    server = FakeTelegram()
    # No retry in the limiter: a 429 reaches the service's delivery, which retries on the test's clock.
    limiter = AIORateLimiter(overall_max_rate=0, group_max_rate=0, max_retries=0)
    async with Bot(server, store, clock=clock, limiter=limiter, seed=3) as bot:
        ops = OpsServer(bot.service.metrics, {"database": store.ping, "telegram": bot.adapter.connected})
        await ops.start()
        try:
            start = await metrics_page(ops.port)
            assert value(start, "majlis_moves_total", game="kenza", actor="human") == 0
            match_id = await open_table(bot, ALICE, [BADR])
            presses = [c for c in server.api_calls("answerCallbackQuery")]
            commands = 1  # /new
            await play_one(bot, match_id, HUMANS)
            # A 429 then a 502 on the group's table: two delivery passes refused, each call counted with its
            # outcome; the service retries on its own clock (its screens wait for the retry time meanwhile).
            server.failures += [Failure("editMessageMedia", 429, "Too Many Requests: retry after 1", str(GROUP_ID),
                                        retry_after=1),
                                Failure("editMessageMedia", 502, "Bad Gateway", str(GROUP_ID))]
            await play_one(bot, match_id, HUMANS)
            for _ in range(2):
                clock.advance(5.0)  # past each backoff (1 s, then 2 s), well within the turn timer
                await bot.service.tick()
            await play_one(bot, match_id, HUMANS)

            mid = await metrics_page(ops.port)
            moves = await store.moves(match_id)
            actors = collections.Counter(record.actor for record in moves)
            assert actors["human"] == 3
            assert value(mid, "majlis_moves_total", game="kenza", actor="human") == 3
            assert value(mid, "majlis_moves_total", game="kenza", actor="bot") == actors["bot"] == 0
            presses = len(server.api_calls("answerCallbackQuery"))
            assert presses >= 3 + 4  # the moves, the picker, the target option twice, a join, the start
            for histogram in ("majlis_press_answer_seconds_count", "majlis_press_screens_seconds_count"):
                assert value(mid, histogram, platform="telegram", kind="press") == presses
                assert value(mid, histogram, platform="telegram", kind="command") == commands
            counted = api_calls_counted(mid, "telegram")
            assert counted == api_calls_seen(server)
            assert counted[("editMessageMedia", "429")] == 1 and counted[("editMessageMedia", "5xx")] == 1
            assert value(mid, "majlis_delivery_retries_total") == 2
            assert value(mid, "majlis_deliveries_pending") == 0  # the retries went out
            match = await store.get_match(match_id)
            assert value(mid, "majlis_live_tables", game="kenza", mode=match.mode) == 1
            assert total(mid, "majlis_db_statement_seconds_count") > total(start, "majlis_db_statement_seconds_count")
            assert value(mid, "majlis_db_statement_seconds_count", operation="insert") >= 3  # each move's log row
            assert value(mid, "majlis_render_queue_jobs") == 0
            assert value(mid, "majlis_timers_fired_total") == 0

            # A turn timer: the player to move sleeps; it fires 7 s after its deadline.
            match, _seat = await seat_to_move(store, match_id)
            assert match.deadline is not None
            clock.now = match.deadline + 7.0
            assert value(mid, "majlis_timers_due") == 0
            assert value(await metrics_page(ops.port), "majlis_timers_due") == 1  # due, not played yet
            assert await bot.service.tick() == 1
            timed = await metrics_page(ops.port)
            assert value(timed, "majlis_timers_fired_total") == 1 and value(timed, "majlis_timers_due") == 0
            assert value(timed, "majlis_timer_late_seconds_count") == 1
            assert value(timed, "majlis_timer_late_seconds_sum") == pytest.approx(7.0)
            assert value(timed, "majlis_timer_late_seconds_bucket", le="5.0") == 0
            assert value(timed, "majlis_timer_late_seconds_bucket", le="10.0") == 1
            assert value(timed, "majlis_moves_total", game="kenza", actor="timer") == 1

            # One more move: every stored move counted once, by who made it.
            await play_one(bot, match_id, HUMANS)
            end = await metrics_page(ops.port)
            actors = collections.Counter(record.actor for record in await store.moves(match_id))
            for actor in ("human", "bot", "timer"):
                assert value(end, "majlis_moves_total", game="kenza", actor=actor) == actors[actor]
            assert api_calls_counted(end, "telegram") == api_calls_seen(server)
            assert value(end, "majlis_press_answer_seconds_count", platform="telegram", kind="press") == len(
                server.api_calls("answerCallbackQuery"))
            # Names by Prometheus' conventions: counters end in _total, units in the name; no id in any label.
            for (name, labels), _ in end.items():
                assert not {key for key, _ in labels} & {"user", "user_id", "chat", "chat_id", "match", "match_id"}
                if name.startswith("majlis_") and ("calls" in name or "retries" in name or "moves" in name):
                    assert name.endswith("_total"), name
        finally:
            await ops.stop()


async def test_metrics_count_discord_rest_calls_by_route_and_outcome(store: Store) -> None:
    fake = dc_harness.FakeDiscord()
    adapter = await dc_harness.start_adapter(store, fake)
    metrics: Metrics = adapter.service.metrics
    try:
        await _play_a_discord_turn(fake, adapter, store, metrics)
    finally:
        await adapter.client.close()


async def _play_a_discord_turn(fake: dc_harness.FakeDiscord, adapter: Any, store: Store, metrics: Metrics) -> None:
    match_id = await dc_harness.open_table(fake, adapter, store)
    fake.failures.append(["PATCH", r"/channels/\d+/messages/\d+", 503, 1])  # the next table edit: Discord is down
    _match, who = await dc_harness.whose_turn(store, match_id)
    await dc_harness.play_turn(fake, adapter, store, match_id, who)
    page = {(sample.name, frozenset(sample.labels.items())): sample.value
            for family in text_string_to_metric_families((await metrics.page()).decode())
            for sample in family.samples}
    seen: collections.Counter[tuple[str, str]] = collections.Counter()
    for call in fake.calls:
        if call.via == "http":
            seen[OUTCOME[call.status]] += 1
    counted = collections.Counter()
    for (method, outcome), count in api_calls_counted(page, "discord").items():
        assert method.split(" ", 1)[0] in ("GET", "POST", "PATCH", "PUT", "DELETE"), method
        assert not any(part.isdigit() for part in method.split("/")), f"an id in the label: {method}"
        counted[outcome] += count
    assert counted == seen and seen["5xx"] == 1
    assert value(page, "majlis_platform_api_calls_total", platform="discord",
                 method="PATCH /channels/{channel_id}/messages/{message_id}", outcome="5xx") == 1
    assert value(page, "majlis_press_answer_seconds_count", platform="discord", kind="press") > 0


async def test_readyz_turns_unready_when_the_database_stops_answering(tmp_path: Any) -> None:
    """SQLite: the store closed under the server (the database gone for this process)."""
    store = await Store.open(str(tmp_path / "ready.sqlite"))
    connected = {"telegram": True}
    ops = OpsServer(Metrics(process=False), {"database": store.ping, "telegram": lambda: connected["telegram"]})
    await ops.start()
    try:
        assert await scrape(ops.port, "/readyz") == (200, "database: ok\ntelegram: ok\n")
        connected["telegram"] = False
        assert await scrape(ops.port, "/readyz") == (503, "database: ok\ntelegram: not connected\n")
        connected["telegram"] = True
        await store.close()
        status, body = await scrape(ops.port, "/readyz")
        assert status == 503 and body.startswith("database: failing"), body
        assert await scrape(ops.port, "/healthz") == (200, "ok\n")  # alive all the same
    finally:
        await ops.stop()
        await store.close()


async def test_readyz_follows_a_postgresql_server_cut_off_and_back() -> None:
    """PostgreSQL reached through a forwarder the test cuts: unready while no connection gets through, ready again
    once it does (skipped without MAJLIS_TEST_DATABASE_URL)."""
    base, schema = fresh_schema_url()
    url = await create_schema(base, schema)
    target = make_url(url)
    cut = TcpCut(target.host or "127.0.0.1", target.port or 5432)
    await cut.start()
    store = await Store.open(target.set(host="127.0.0.1", port=cut.listen_port).render_as_string(
        hide_password=False))
    ops = OpsServer(Metrics(process=False), {"database": store.ping}, timeout=2.0)
    await ops.start()
    try:
        assert await scrape(ops.port, "/readyz") == (200, "database: ok\n")
        cut.cut()
        status, body = await scrape(ops.port, "/readyz")
        assert status == 503 and body.startswith("database: "), body
        cut.restore()
        answers = [await scrape(ops.port, "/readyz") for _ in range(3)]  # a dead pooled connection fails once
        assert answers[-1] == (200, "database: ok\n"), answers
    finally:
        await ops.stop()
        await store.close()
        await cut.stop()
        await drop_schema(base, schema)


async def test_coin_operations_are_counted_from_the_ledger(store: Store) -> None:
    metrics = Metrics(process=False)
    metrics.watch_store(store)
    players = [(await store.upsert_player("telegram", str(number), f"P{number}")).id for number in (1, 2, 3)]
    for player in players:  # each one's first coin action: the starting grant
        await store.coins(player, CoinGrants())
    page = {(sample.name, frozenset(sample.labels.items())): sample.value
            for family in text_string_to_metric_families((await metrics.page()).decode()) for sample in family.samples}
    ledger: collections.Counter[str] = collections.Counter()
    for player in players:
        ledger.update(reason for _, _, reason in await store.coin_ledger(player))
    assert sum(ledger.values()) >= 3
    assert {reason: value(page, "majlis_coin_operations_total", reason=reason) for reason in ledger} == ledger
