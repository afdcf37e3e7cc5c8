#!/usr/bin/env bash
# The streaming half of `make demo`: floe's main job end to end on a real
# Kafka broker.
#
#   scripts/demo-stream.sh [--floe PATH] [--dir DIR] [--seconds N] [--rate R]
#
# 1. starts Apache Kafka (scripts/kafka-test-broker.sh: one KRaft node on a
#    free loopback port, its data under DIR/kafka);
# 2. creates the topic `bids` and the Iceberg table nexmark.bid_stats
#    (examples/bid-stats-table.sql) in the warehouse DIR/warehouse;
# 3. produces Nexmark bids in real time for N seconds at R events/s
#    (`floe kafka produce-nexmark --realtime`) while `floe run` runs
#    examples/bid-stats.sql: 5-second tumbling event-time windows per
#    channel, a checkpoint and Iceberg commit every 2 seconds;
# 4. queries the table with `floe sql` four times while it runs;
# 5. stops the job with SIGTERM (its final checkpoint and commit), copies
#    the topic to DIR/bids.jsonl and checks the committed windows against
#    it, and stops the broker.
#
# DIR (default build/demo/stream) is emptied first. The broker and the job
# are stopped on any exit, Ctrl-C included. Their process ids are left in
# DIR/broker.pid and DIR/job.pid.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
FLOE=$ROOT/build/floe
DIR=$ROOT/build/demo/stream
SECONDS_RUN=20
RATE=200

usage() {
  echo "usage: $0 [--floe PATH] [--dir DIR] [--seconds N] [--rate EVENTS_PER_S]" >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case "$1" in
    --floe) FLOE=${2:?}; shift 2 ;;
    --dir) DIR=${2:?}; shift 2 ;;
    --seconds) SECONDS_RUN=${2:?}; shift 2 ;;
    --rate) RATE=${2:?}; shift 2 ;;
    *) usage ;;
  esac
done
[[ $SECONDS_RUN =~ ^[0-9]+$ ]] && [ "$SECONDS_RUN" -ge 8 ] || { echo "demo: --seconds needs a whole number >= 8" >&2; exit 2; }
[[ $RATE =~ ^[0-9]+$ ]] && [ "$RATE" -ge 1 ] || { echo "demo: --rate needs events per second >= 1" >&2; exit 2; }
[ -x "$FLOE" ] || { echo "demo: $FLOE is missing: run 'make' first" >&2; exit 1; }
FLOE=$(cd "$(dirname "$FLOE")" && pwd)/$(basename "$FLOE")

say() { printf '\n== %s\n' "$*"; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# A port p with p + 1 free too (the broker's controller listens there).
free_port_pair() {
  local p i
  for i in $(seq 1 100); do
    p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    if ! port_open "$p" && ! port_open $((p + 1)); then
      echo "$p"
      return 0
    fi
  done
  echo "demo: found no two free ports on 127.0.0.1" >&2
  return 1
}

# Clean-up on every exit: the producer, then the job (SIGTERM: it takes a
# final checkpoint and commits it), then the broker.
PROD_PID="" JOB_PID="" PORT="" BROKER_UP=""
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [ -n "$PROD_PID" ] && kill -0 "$PROD_PID" 2>/dev/null; then
    kill -TERM "$PROD_PID" 2>/dev/null || true
    wait "$PROD_PID" 2>/dev/null || true
  fi
  if [ -n "$JOB_PID" ] && kill -0 "$JOB_PID" 2>/dev/null; then
    echo "demo: stopping the job (pid $JOB_PID)" >&2
    kill -TERM "$JOB_PID" 2>/dev/null || true
    local i
    for i in $(seq 1 300); do
      kill -0 "$JOB_PID" 2>/dev/null || break
      sleep 0.1
    done
    kill -0 "$JOB_PID" 2>/dev/null && kill -KILL "$JOB_PID" 2>/dev/null
    wait "$JOB_PID" 2>/dev/null || true
  fi
  if [ -n "$BROKER_UP" ]; then
    echo "demo: stopping the Kafka broker on 127.0.0.1:$PORT" >&2
    "$ROOT/scripts/kafka-test-broker.sh" stop "$PORT" "$DIR/kafka" || true
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'echo "demo: interrupted" >&2; exit 130' INT TERM

rm -rf "$DIR"
mkdir -p "$DIR"
WH=$DIR/warehouse
sql() { "$FLOE" --warehouse "$WH" sql --no-progress "$@"; }

say "Streaming: Nexmark bids on Kafka -> floe run -> Iceberg, windowed in event time"
PORT=$(free_port_pair)
BROKERS=127.0.0.1:$PORT
echo "starting Apache Kafka (KRaft, one node) on $BROKERS, data in $DIR/kafka"
BROKER_UP=1
"$ROOT/scripts/kafka-test-broker.sh" start "$PORT" "$DIR/kafka" >/dev/null
cp "$DIR/kafka/broker.pid" "$DIR/broker.pid"
"$FLOE" kafka create-topic --brokers "$BROKERS" --topic bids --partitions 1 >/dev/null
echo "topic bids created"
sql -f "$ROOT/examples/bid-stats-table.sql" >/dev/null
echo "table nexmark.bid_stats created in $WH"

# The job file as in examples/, pointed at this broker.
sed "s/127\.0\.0\.1:9092/$BROKERS/" "$ROOT/examples/bid-stats.sql" >"$DIR/bid-stats.sql"
EVENTS=$((SECONDS_RUN * RATE))
echo "producing $EVENTS Nexmark events over ${SECONDS_RUN} s ($RATE/s; 46 in 50 are bids, the rest are skipped here)"
"$FLOE" kafka produce-nexmark --brokers "$BROKERS" --bids bids --events "$EVENTS" --rate "$RATE" \
  --realtime >"$DIR/produce.log" 2>&1 &
PROD_PID=$!
echo "running: floe run examples/bid-stats.sql (5 s tumbling windows per channel, checkpoint every 2 s)"
"$FLOE" --warehouse "$WH" run "$DIR/bid-stats.sql" --no-progress --log-file "$DIR/job.log" \
  >"$DIR/job.out" 2>&1 &
JOB_PID=$!
echo "$JOB_PID" >"$DIR/job.pid"

commits() { grep -c '"msg":"commit"' "$DIR/job.log" 2>/dev/null || true; }

# The newest two windows, as a small table.
LATEST="SELECT window_start, window_end, channel, bids, volume_cents / 100 AS volume_usd
FROM nexmark.bid_stats
WHERE window_start >= (SELECT max(window_start) FROM nexmark.bid_stats) - INTERVAL '5' SECOND
ORDER BY window_start, channel"
TOTAL="SELECT count(DISTINCT window_start) AS windows, count(*) AS rows, coalesce(sum(bids), 0) AS bids,
max(window_end) AS up_to FROM nexmark.bid_stats"

# The first 5-second window is committed within 8 s of the first bid (its end,
# the watermark's second, the next checkpoint); then three more looks until the
# producer is done.
START=$(date +%s)
STEP=$(((SECONDS_RUN - 8) / 3))
[ "$STEP" -ge 1 ] || STEP=1
for q in 1 2 3 4; do
  if [ "$q" = 1 ]; then sleep 8; else sleep "$STEP"; fi
  kill -0 "$JOB_PID" 2>/dev/null || { echo "demo: the job stopped:" >&2; tail -n 5 "$DIR/job.out" >&2; exit 1; }
  say "after $(($(date +%s) - START)) s: $(commits) commits; floe sql over nexmark.bid_stats"
  sql -c "$TOTAL"
  echo
  sql -c "$LATEST"
done

wait "$PROD_PID" || { echo "demo: the producer failed:" >&2; tail -n 5 "$DIR/produce.log" >&2; exit 1; }
PROD_PID=""
say "stopping the job with SIGTERM: final checkpoint and commit"
kill -TERM "$JOB_PID"
if ! wait "$JOB_PID"; then
  JOB_PID=""
  echo "demo: the job failed:" >&2
  tail -n 5 "$DIR/job.out" >&2
  exit 1
fi
JOB_PID=""
echo "the job exited cleanly after $(commits) commits (one snapshot each that had new rows);"
echo "its checkpoint and commit log is $DIR/job.log"

# Every bid of the topic, to check the table against.
"$FLOE" kafka consume --brokers "$BROKERS" --topic bids --until-end \
  --schema 'auction long, price long, channel string, `dateTime` timestamp' --format jsonl \
  --no-progress >"$DIR/bids.jsonl"
BIDS=$(wc -l <"$DIR/bids.jsonl")
say "the table after the job: $BIDS bids were produced"
sql -c "$TOTAL"
echo
sql -c "SELECT window_start, window_end, sum(bids) AS bids, sum(volume_cents) / 100 AS volume_usd
FROM nexmark.bid_stats GROUP BY 1, 2 ORDER BY 1"
# The same count straight from the topic: bids before the last committed window's end.
UPTO=$(sql --format csv -c "SELECT max(window_end) FROM nexmark.bid_stats" | tail -n 1)
if [ -n "$UPTO" ] && [ "$UPTO" != "null" ]; then
  CHECK=$(sql --format csv -c "SELECT (SELECT count(*) FROM read_json('$DIR/bids.jsonl')
      WHERE dateTime < TIMESTAMP '$UPTO') = (SELECT sum(bids) FROM nexmark.bid_stats) AS equal" |
    tail -n 1)
  echo "bids in the topic before $UPTO equal the table's count: $CHECK"
  echo "(bids after it are in windows still open at the stop: kept in the job's checkpoint, a restart goes on with them)"
fi

say "stopping the broker"
"$ROOT/scripts/kafka-test-broker.sh" stop "$PORT" "$DIR/kafka"
BROKER_UP=""
echo "done: the warehouse stays in $WH (floe --warehouse $WH sql)"
