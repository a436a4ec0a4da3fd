"""What an operator's Prometheus reads about a running bot (MAJLIS_METRICS_PORT; bot/ops_server.py serves it).

One `Metrics` object per service, holding its own prometheus-client registry (not the library's global one: a test
builds many services in one process, and each must count only its own). The parts it observes are handed this
object and call it where the thing happens: a stored move (`moved`), an answered press (`answered`), a platform
API call (bot/platform_calls.py), a delivery retry, a fired timer, a database statement (`watch_statements`). What
is a level rather than an event (deliveries pending, the render pool's queue, live tables) is read when Prometheus
scrapes, from the objects that hold it (`ServiceCollector`) or, for what lives in the database, by `refresh`.

Label values come from short fixed sets (games, platforms, Bot API method names, outcomes); never a user, a chat or
a match id, so the number of series stays bounded however many people play.

Other concerns add their own gauges without this module knowing them (`add_gauge`): the matchmaking queues report
their lengths that way, and `/status` shows every gauge registered as a queue (`queue_lengths`).
"""

from __future__ import annotations

import inspect
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

if TYPE_CHECKING:
    from storage import Store

log = logging.getLogger(__name__)
# No `_created` series beside each counter and histogram: Prometheus has no use for them in the text format, and
# they double the page.
disable_created_metrics()

# Seconds. A press is answered in tens of milliseconds when all is well; the tail up to a minute is a platform's
# rate limit (a table edit waiting its turn in a busy group), which the screens histogram must still resolve.
ANSWER_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
SCREENS_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
LATE_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
STATEMENT_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)
OUTCOMES = ("ok", "429", "4xx", "5xx", "timeout", "error")  # a platform call's outcome label (bot/platform_calls.py)
OPERATIONS = ("select", "insert", "update", "delete", "begin", "commit", "rollback")  # else "other"

# A gauge's reading: label values -> value (() for a gauge without labels), from a plain or an async function.
Reading = Mapping[tuple[str, ...], float]
Reader = Callable[[], Reading | Awaitable[Reading]]


def statement_operation(sql: str) -> str:
    """The first word of a statement, when it is one of OPERATIONS (a bounded label: never the statement)."""
    word = sql.lstrip().split(None, 1)[0].lower() if sql.strip() else ""
    return word if word in OPERATIONS else "other"


class Metrics:
    """The instruments, and the page Prometheus scrapes (`page`)."""

    def __init__(self, *, process: bool = True) -> None:
        """`process`: also the process' CPU, memory and open files (prometheus-client's own collectors)."""
        self.registry = CollectorRegistry(auto_describe=True)
        registry = self.registry
        if process:
            ProcessCollector(registry=registry)
            PlatformCollector(registry=registry)
        self.moves = Counter("majlis_moves", "Moves stored, by game and by who made them: a human, a bot in its own "
                             "seat, or the turn timer playing for an absent human.", ["game", "actor"],
                             registry=registry)
        self.answer_seconds = Histogram(
            "majlis_press_answer_seconds", "From a button press or command reaching the adapter to the presser's "
            "answer being sent.", ["platform", "kind"], buckets=ANSWER_BUCKETS, registry=registry)
        self.screens_seconds = Histogram(
            "majlis_press_screens_seconds", "From a button press or command reaching the adapter to the screens it "
            "changed (racks, table, notices) being delivered.", ["platform", "kind"], buckets=SCREENS_BUCKETS,
            registry=registry)
        self.api_calls = Counter("majlis_platform_api_calls", "Calls to a platform's API, by method and outcome "
                                 "(ok, 429, 4xx, 5xx, timeout, error: no HTTP answer).",
                                 ["platform", "method", "outcome"], registry=registry)
        self.delivery_retries = Counter("majlis_delivery_retries", "Delivery passes that a platform refused at "
                                        "least in part, to be tried again later.", registry=registry)
        self.timers_fired = Counter("majlis_timers_fired", "Turn timers (and owed bot turns) this worker claimed "
                                    "when they came due.", registry=registry)
        self.timer_late_seconds = Histogram("majlis_timer_late_seconds", "How long after its deadline each of those "
                                            "timers was claimed.", buckets=LATE_BUCKETS, registry=registry)
        self.statement_seconds = Histogram("majlis_db_statement_seconds", "Database statements, by their first "
                                           "word.", ["operation"], buckets=STATEMENT_BUCKETS, registry=registry)
        self._refreshers: list[Callable[[], Awaitable[None]]] = []
        self._queues: dict[str, Reader] = {}
        self._gauges: list[_ReadGauge] = []

    # ------------------------------------------------------------------------------------------------ events
    def moved(self, game: str, actor: str) -> None:
        self.moves.labels(game, actor).inc()

    def answered(self, platform: str, kind: str, started: float, *, screens: bool = False) -> None:
        """A press (`kind` "press") or command ("command") that reached the adapter at `started`
        (time.perf_counter) was answered now (`screens`: its screens were delivered now)."""
        histogram = self.screens_seconds if screens else self.answer_seconds
        histogram.labels(platform, kind).observe(max(0.0, time.perf_counter() - started))

    def api_call(self, platform: str, method: str, outcome: str) -> None:
        self.api_calls.labels(platform, method, outcome if outcome in OUTCOMES else "error").inc()

    def delivery_retry(self) -> None:
        self.delivery_retries.inc()

    def timer_fired(self, late: float) -> None:
        self.timers_fired.inc()
        self.timer_late_seconds.observe(max(0.0, late))

    def statement(self, sql: str, seconds: float) -> None:
        self.statement_seconds.labels(statement_operation(sql)).observe(seconds)

    # ------------------------------------------------------------------------------------------------ levels
    def watch(self, collector: Collector) -> None:
        """Read `collector` at every scrape (the service's levels: bot/metrics.ServiceCollector)."""
        self.registry.register(collector)

    def watch_store(self, store: Store, clock: Callable[[], float] = time.time) -> None:
        """What only the database knows (live tables, timers due by `clock`, coin and rating counts:
        `DatabaseCollector`), read before each scrape; and every statement's latency (storage/db.py's hooks)."""
        observe = getattr(store, "observe_statements", None)
        if observe is not None:  # (a test's stand-in store may have neither)
            observe(self.statement)
        if hasattr(store, "operator_counts"):
            collector = DatabaseCollector(store, clock)
            self.registry.register(collector)
            self._refreshers.append(collector.refresh)

    def add_gauge(self, name: str, documentation: str, labelnames: Iterable[str], read: Reader, *,
                  queue: bool = False) -> None:
        """A gauge whose values `read` gives at each scrape (label values -> value): the hook for concerns this
        module does not know, such as the matchmaking queues. `queue`: its values are queue lengths, which
        `/status` lists too (by their label values, or by `name` for a gauge without labels)."""
        gauge = _ReadGauge(name, documentation, tuple(labelnames), read)
        self._gauges.append(gauge)
        self.registry.register(gauge)
        self._refreshers.append(gauge.refresh)
        if queue:
            self._queues[name] = read

    async def queue_lengths(self) -> dict[str, float]:
        """Every registered queue's length now, named by its gauge and label values (for `/status`)."""
        out: dict[str, float] = {}
        for name, read in self._queues.items():
            for labels, value in (await _read(read)).items():
                out[" ".join((name, *labels)) if labels else name] = value
        return out

    async def refresh(self) -> None:
        """Read what is read before a scrape (the database's counts, registered gauges); a failing reader leaves
        its last values and is logged, so one broken source never blanks the page."""
        for refresh in self._refreshers:
            try:
                await refresh()
            except Exception as error:
                log.warning("a metrics reading failed: %s", error or type(error).__name__)

    async def page(self) -> bytes:
        """The text exposition of everything, read now."""
        await self.refresh()
        return generate_latest(self.registry)


class _ReadGauge(Collector):
    """A gauge family whose values come from a function (sync or async), read in `refresh` before a scrape:
    prometheus-client collects synchronously, and the reader may need the event loop."""

    def __init__(self, name: str, documentation: str, labelnames: tuple[str, ...], read: Reader) -> None:
        self.name, self.documentation, self.labelnames, self.read = name, documentation, labelnames, read
        self._values: Reading = {}

    async def refresh(self) -> None:
        self._values = dict(await _read(self.read))

    def collect(self) -> Iterator[GaugeMetricFamily]:
        family = GaugeMetricFamily(self.name, self.documentation, labels=self.labelnames)
        for labels, value in self._values.items():
            family.add_metric(list(labels), value)
        yield family


async def _read(read: Reader) -> Reading:
    value = read()
    if inspect.isawaitable(value):
        value = await value
    return value  # type: ignore[return-value]


class DatabaseCollector(Collector):
    """Database-wide figures (storage/ops.py), read in one query before each scrape. Every worker reports the same
    values: aggregate them with max, not sum. The coin and rating counts only grow (rows are never deleted), so
    they are counters: `rate()` gives operations a second."""

    def __init__(self, store: Any, clock: Callable[[], float]) -> None:
        self.store, self.clock = store, clock
        self.counts: Any = None

    async def refresh(self) -> None:
        self.counts = await self.store.operator_counts(self.clock())

    def collect(self) -> Iterator[GaugeMetricFamily | CounterMetricFamily]:
        counts = self.counts
        live = GaugeMetricFamily("majlis_live_tables", "Matches in play, by game and mode (database-wide).",
                                 labels=("game", "mode"))
        due = GaugeMetricFamily("majlis_timers_due", "Turn timers past their deadline and not played yet (database-"
                                "wide): above zero for long, the timer loops are behind.")
        coins = CounterMetricFamily("majlis_coin_operations", "Coin ledger entries, by reason: stakes held, pots "
                                    "paid, refunds, grants (database-wide).", labels=("reason",))
        rated = CounterMetricFamily("majlis_rating_updates", "Rated results folded into the ladder, one per player "
                                    "of a rated match, by game and mode (database-wide).", labels=("game", "mode"))
        if counts is not None:
            for family, rows in ((live, counts.live_tables), (coins, counts.coin_entries),
                                 (rated, counts.rated_results)):
                for labels, value in rows.items():
                    family.add_metric(list(labels), value)
            due.add_metric([], counts.timers_due)
        yield from (live, due, coins, rated)


class ServiceCollector(Collector):
    """The levels a service holds in memory, read at each scrape: deliveries pending in this worker, the render
    pool's queue and its worker restarts."""

    def __init__(self, service: Any) -> None:
        self.service = service

    def collect(self) -> Iterator[GaugeMetricFamily | CounterMetricFamily]:
        service = self.service
        yield GaugeMetricFamily("majlis_deliveries_pending", "Matches whose screens this worker still owes (a "
                                "move's racks and table, a lobby change, a retry waiting for its time).",
                                value=service.pending_deliveries())
        pictures = service.pictures
        yield GaugeMetricFamily("majlis_render_queue_jobs", "Pictures being drawn or waiting for a render worker.",
                                value=pictures.queued)
        yield CounterMetricFamily("majlis_render_worker_restarts", "Render worker processes that died and were "
                                  "replaced.", value=pictures.restarts)
