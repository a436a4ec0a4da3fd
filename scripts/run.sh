#!/usr/bin/env bash
# Install Majlis into ./.venv when pyproject.toml changed, and run it (README command 1). With no token in .env:
# the terminal game.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install.sh
exec .venv/bin/majlis run "$@"
