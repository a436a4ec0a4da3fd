#!/usr/bin/env bash
# Install Majlis with its dev extras into ./.venv and run the whole test suite (README command 2).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e ".[dev]"
.venv/bin/ruff check .
exec .venv/bin/python -m pytest "$@"
