#!/usr/bin/env bash
# Install Majlis with its dev extras into ./.venv when pyproject.toml changed, and run the whole test suite
# (README command 2).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install.sh dev
.venv/bin/ruff check .
# On every core (pytest-xdist; the CI machine has 2): the suite is mostly one core's CPU work, so it takes about half
# the time. Each worker process has its own PostgreSQL schema, Redis keys and temporary folders (tests/engines.py),
# and worksteal hands a slow test's neighbours to the idle worker. `-n 0` after it runs everything in one process.
# The multi-worker harness (marked `alone`) starts worker processes of its own and times their recovery in seconds:
# beside two busy test workers it missed its waits now and then, so a whole run gives it the machine afterwards.
if [ $# -eq 0 ]; then
    .venv/bin/python -m pytest -n auto --dist worksteal -m "not alone"
    exec .venv/bin/python -m pytest -m alone
fi
exec .venv/bin/python -m pytest -n auto --dist worksteal "$@"
