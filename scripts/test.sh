#!/usr/bin/env bash
# Install Majlis with its dev extras into ./.venv when pyproject.toml changed, and run the whole test suite
# (README command 2).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install.sh dev
.venv/bin/ruff check .
exec .venv/bin/python -m pytest "$@"
