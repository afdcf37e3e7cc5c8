#!/usr/bin/env bash
# Runs every libFuzzer target in $1/fuzz for $2 seconds each, seeded from
# tests/fuzz/corpus/<target> (and the shared test data where it fits).
set -euo pipefail
build=$1
seconds=${2:-20}
shopt -s nullglob
targets=("$build"/fuzz/fuzz_*)
if [ ${#targets[@]} -eq 0 ]; then
  echo "no fuzz targets built in $build/fuzz" >&2
  exit 1
fi
for t in "${targets[@]}"; do
  name=$(basename "$t")
  work="$build/fuzz-corpus/$name"
  mkdir -p "$work"
  seeds=()
  [ -d "tests/fuzz/corpus/$name" ] && seeds+=("tests/fuzz/corpus/$name")
  echo "fuzzing $name for ${seconds}s"
  "$t" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
       -print_final_stats=0 "$work" "${seeds[@]}" 2> "$build/fuzz-$name.log" || {
    echo "fuzzer $name found a failure:" >&2
    tail -50 "$build/fuzz-$name.log" >&2
    exit 1
  }
  grep -E "^#[0-9]+.*DONE|Done [0-9]+ runs" "$build/fuzz-$name.log" | tail -1 || true
done
echo "fuzz: ${#targets[@]} passed, 0 failed"
