"""Shared pytest set-up: the project root on sys.path for running tests straight from a checkout, and a guard that
every `Service` a test builds is seeded, so each run plays the same deals."""

import sys
from pathlib import Path

import pytest

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
