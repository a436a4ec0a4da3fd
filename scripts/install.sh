#!/usr/bin/env bash
# Make ./.venv hold Majlis (and with "dev", its test tools) as pyproject.toml asks, installing only when that file
# changed since the last install: a stamp of its hash lives in .venv, so an unchanged start costs no pip run.
# Sourced by run.sh and test.sh from the project root.
set -euo pipefail
extras="${1:-}"
PYTHON="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
hash="$(.venv/bin/python -c 'import hashlib,sys; print(hashlib.sha256(open("pyproject.toml","rb").read()).hexdigest())')"
want="$hash ${extras:-base}"
stamp=.venv/.majlis-installed
have="$(cat "$stamp" 2>/dev/null || true)"
# a dev install serves a plain run too
if [ "$have" = "$want" ] || { [ -z "$extras" ] && [ "$have" = "$hash dev" ]; }; then
    exit 0
fi
target="."
[ -n "$extras" ] && target=".[$extras]"
# setuptools explains its editable-install strategy with a UserWarning on every install; it is not a problem with
# this project, so it is not shown (pip's own errors still are).
PYTHONWARNINGS="ignore::UserWarning" .venv/bin/python -m pip install --quiet --upgrade pip
PYTHONWARNINGS="ignore::UserWarning" .venv/bin/python -m pip install --quiet -e "$target"
echo "$want" > "$stamp"
