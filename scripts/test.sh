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
exec .venv/bin/python -m pytest -n auto --dist worksteal "$@"
