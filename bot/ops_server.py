"""The operator's port (MAJLIS_METRICS_PORT): `/metrics` for Prometheus, `/healthz` and `/readyz` for load balancers
and orchestrators, on one small aiohttp server in the bot's own event loop.

One server for the three, not prometheus-client's own HTTP server: that one runs in a thread of its own and knows
only `/metrics`, while readiness must ask the database and the platform adapters, which live on the event loop.

- `/healthz`: 200 while the process serves at all (its event loop answers): restart it when this fails.
- `/readyz`: 200 when every check passes — the database answers a query within READY_TIMEOUT, and each configured
  platform is connected — else 503; the body names each check and its state either way. Send it no traffic
  while this fails.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST

from bot.metrics import Metrics

log = logging.getLogger(__name__)

READY_TIMEOUT = 3.0  # seconds a readiness check may take before it counts as failed (a hung database)
# A check passes when it returns a true value (or None, for a check that raises when it fails: Store.ping).
Check = Callable[[], bool | None | Awaitable[bool | None]]


class OpsServer:
    def __init__(self, metrics: Metrics, checks: Mapping[str, Check], *, host: str = "0.0.0.0",  # noqa: S104
                 port: int = 0, timeout: float = READY_TIMEOUT) -> None:
        self.metrics = metrics
        self.checks = dict(checks)
        self.host, self.port, self.timeout = host, port, timeout
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/metrics", self._metrics)
        app.router.add_get("/healthz", self._healthz)
        app.router.add_get("/readyz", self._readyz)
        self._runner = web.AppRunner(app, access_log=None)  # Prometheus scrapes every few seconds: no log line each
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        if self.port == 0:  # an ephemeral port (tests): the one the system gave
            self.port = self._runner.addresses[0][1]
        log.info("metrics and health on port %d (/metrics, /healthz, /readyz)", self.port)

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def ready(self) -> dict[str, str]:
        """Each check's state: "ok", or why not."""
        states = {}
        for name, check in self.checks.items():
            states[name] = await self._state(check)
        return states

    async def _state(self, check: Check) -> str:
        try:
            value = check()
            if inspect.isawaitable(value):
                value = await asyncio.wait_for(value, self.timeout)
        except TimeoutError:
            return f"no answer within {self.timeout:g} s"
        except Exception as error:
            return f"failing: {type(error).__name__}"
        return "ok" if value is None or value else "not connected"

    async def _metrics(self, _request: web.Request) -> web.Response:
        body = await self.metrics.page()
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def _healthz(self, _request: web.Request) -> web.Response:
        return web.Response(text="ok\n")

    async def _readyz(self, _request: web.Request) -> web.Response:
        states = await self.ready()
        ready = all(state == "ok" for state in states.values())
        body = "".join(f"{name}: {state}\n" for name, state in states.items())
        return web.Response(text=body, status=200 if ready else 503)
