#!/usr/bin/env bash
# Runs pytest on a folder; exit status 5 (nothing collected) is a failure
# here, because a suite that runs no test proves nothing.
set -uo pipefail
py=$1; shift
"$py" -m pytest -q "$@"
rc=$?
if [ $rc -eq 5 ]; then
  echo "pytest collected no tests in $*" >&2
  exit 1
fi
exit $rc
