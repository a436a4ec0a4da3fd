#!/usr/bin/env bash
# Install Majlis into ./.venv and run it (README command 1). With no token in .env: the terminal game.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e .
exec .venv/bin/majlis run "$@"
