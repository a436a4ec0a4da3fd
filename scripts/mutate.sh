#!/usr/bin/env bash
# Mutation testing of one scope (engine, engine/kenza|canasta|tunj|core, storage, bot, bot/callbacks|service|games);
# see scripts/mutate.py and docs/testing.md.   ./scripts/mutate.sh engine/kenza [--workers 2] [--survivors] [--report]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install.sh dev
exec .venv/bin/python scripts/mutate.py "$@"
