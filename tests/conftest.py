"""Shared pytest set-up: the project root on sys.path for running tests straight from a checkout, and a guard that
every `Service` a test builds is seeded, so each run plays the same deals."""

import json
import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

# Under mutation testing (scripts/mutate.py) property tests replay fixed examples: a mutant's verdict must not depend
# on the draw, and forked test processes must not write hypothesis' example database into the mutants' folder.
settings.register_profile("mutation", derandomize=True, database=None)
if "MUTANT_UNDER_TEST" in os.environ:
    settings.load_profile("mutation")

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


@pytest.fixture(autouse=True)
def seeded_services(monkeypatch: pytest.MonkeyPatch) -> None:
    """A test whose Service draws its match seeds from the OS would play a different deal each run, and any
    branch on the dealt cards would flip between runs: refuse to build one."""
    from bot.service import Service

    build = Service.__init__

    def seeded_only(self: Service, store: object, *args: object, **kwargs: object) -> None:
        assert kwargs.get("seed_source") is not None, "build the Service with seed_source=random.Random(<seed>)"
        build(self, store, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Service, "__init__", seeded_only)


@pytest.fixture
async def store(tmp_path: Path):
    """A fresh store on disk for the test (a test module may define its own `store` where it reopens the file)."""
    from storage import Store

    store = await Store.open(str(tmp_path / "majlis.sqlite"))
    yield store
    await store.close()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under mutmut (scripts/mutate.py) a mutant's tests run with -x, so the first failing test ends the run: run
    the quickest first (by the durations mutmut measured in its stats run), and a mutant that a 0.1 s test kills
    never waits for a whole match played by a slow one. Order only, never the selection; normal runs are untouched."""
    stats = Path("mutmut-stats.json")  # mutmut runs the tests from its mutants/ folder, where it keeps this file
    if "MUTANT_UNDER_TEST" not in os.environ or not stats.exists():
        return
    try:
        durations = json.loads(stats.read_text(encoding="utf-8")).get("duration_by_test", {})
    except (OSError, ValueError):
        return
    items.sort(key=lambda item: durations.get(item.nodeid, 0.0))


from tests.engines import postgres_url  # noqa: E402,F401  (a session fixture shared by the storage suites)


@pytest.fixture(params=["sqlite", "postgresql"])
async def any_store(request: pytest.FixtureRequest, tmp_path: Path):
    """A fresh, empty store on each engine: a new SQLite file, and PostgreSQL when MAJLIS_TEST_DATABASE_URL names a
    server (skipped otherwise). Storage test modules use it as their `store`."""
    from storage import Store
    from tests.engines import empty_tables

    if request.param == "sqlite":
        store = await Store.open(str(tmp_path / "majlis.sqlite"))
    else:
        url = request.getfixturevalue("postgres_url")
        store = await Store.open(url)
        await empty_tables(url)
    yield store
    await store.close()


@pytest.fixture(params=["sqlite", "postgresql"])
async def any_database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a test opens its own store, on each engine: a new SQLite file's path, or the run's PostgreSQL schema
    (MAJLIS_TEST_DATABASE_URL; skipped otherwise) migrated and emptied, so it looks like a fresh database."""
    from storage import Store
    from tests.engines import empty_tables

    if request.param == "sqlite":
        return str(tmp_path / "majlis.sqlite")
    url = request.getfixturevalue("postgres_url")
    await (await Store.open(url)).close()
    await empty_tables(url)
    return url


@pytest.fixture(params=["sqlite", "postgresql"])
async def workers(request: pytest.FixtureRequest, tmp_path: Path):
    """Two stores on one database, as two workers see it (a SQLite file, or the run's PostgreSQL schema emptied):
    for what must hold when both write at once."""
    from storage import Store
    from tests.engines import empty_tables

    if request.param == "sqlite":
        url = str(tmp_path / "shared.db")
    else:
        url = request.getfixturevalue("postgres_url")
    first = await Store.open(url)
    if request.param == "postgresql":
        await empty_tables(url)
    second = await Store.open(url)
    yield first, second
    await first.close()
    await second.close()
