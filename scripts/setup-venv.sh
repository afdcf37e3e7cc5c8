#!/usr/bin/env bash
# Creates the Python virtualenv of the test peers (pyarrow, DuckDB, fastavro,
# pytest) at $1 with the versions pinned in tests/requirements.txt; does
# nothing when the installed set already matches.
set -euo pipefail
venv=${1:-build/venv}
req=tests/requirements.txt
stamp="$venv/.requirements"
if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && cmp -s "$req" "$stamp"; then
  exit 0
fi
py=python3
# Prefer a Python the peers publish wheels for.
for cand in python3.11 python3.12 python3; do
  if command -v "$cand" >/dev/null; then py=$cand; break; fi
done
rm -rf "$venv"
"$py" -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q -r "$req"
cp "$req" "$stamp"
