#!/usr/bin/env bash
# Mutation testing of one scope (engine, engine/kenza|canasta|tunj|core, storage, bot); see scripts/mutate.py.
#   ./scripts/mutate.sh engine/kenza [--workers 2] [--fresh] [--report]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/mutmut ] || .venv/bin/python -m pip install --quiet -e ".[dev]"
exec .venv/bin/python scripts/mutate.py "$@"
