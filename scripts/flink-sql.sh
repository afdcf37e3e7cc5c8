#!/usr/bin/env bash
# Runs a Flink SQL file in a local Apache Flink MiniCluster (bench/flink):
#
#   scripts/flink-sql.sh [--warehouse DIR] [--parallelism P]
#       [--checkpoint-interval 10s] [--batch] [--report FILE] job.sql
#
# With --warehouse the job sees floe's tables (Iceberg's JdbcCatalog on
# DIR/catalog.db, current catalog 'floe'). See bench/flink/src/main/java/
# dev/floe/bench/FlinkSql.java for what runs and what --report holds.
#
# The first run builds bench/flink with mvn (Flink, its Kafka connector,
# Iceberg's Flink runtime and SQLite's JDBC driver from Maven Central into
# ~/.m2) into build/flink ($FLOE_FLINK_BUILD overrides the folder); later
# runs reuse it until the pom or the sources change. `scripts/flink-sql.sh
# --build` only builds. Java options: $FLINK_JAVA_OPTS (default -Xmx2g);
# Flink's log level: $FLINK_LOG_LEVEL (default WARN, to stderr).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SRC=$ROOT/bench/flink
OUT=${FLOE_FLINK_BUILD:-$ROOT/build/flink}
JAVA=${JAVA:-java}

die() {
  echo "flink-sql: $*" >&2
  exit 1
}

ensure_built() {
  local stamp=$OUT/.src-sha want
  want=$(cd "$SRC" && find pom.xml src -type f | sort | xargs sha1sum | sha1sum | cut -d' ' -f1)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -f "$OUT/flink-sql-runner-1.jar" ]; then
    return
  fi
  command -v mvn >/dev/null || die "mvn not found (scripts/install-deps.sh installs maven)"
  echo "flink-sql: building bench/flink into $OUT (Flink and Iceberg jars through mvn)" >&2
  rm -rf "$OUT"
  mkdir -p "$OUT"
  mvn -q -B -Dstyle.color=never -f "$SRC/pom.xml" -Dflink.build.dir="$OUT" package >&2 ||
    die "mvn could not build bench/flink (see above)"
  ls "$OUT"/libs/flink-table-runtime-*.jar >/dev/null 2>&1 || die "mvn left no Flink jars in $OUT/libs"
  echo "$want" >"$stamp"
}

ensure_built
if [ "${1:-}" = "--build" ]; then
  exit 0
fi

# The module openings Flink's own launcher passes on Java 17.
opens=()
for p in java.base/java.util java.base/java.lang java.base/java.lang.reflect java.base/java.io \
  java.base/java.net java.base/java.nio java.base/sun.nio.ch java.base/java.text java.base/java.time \
  java.base/java.util.concurrent java.base/java.util.concurrent.atomic java.base/java.util.concurrent.locks \
  java.base/java.lang.invoke java.base/java.math java.base/java.security java.base/sun.nio.cs \
  java.base/sun.security.action java.sql/java.sql; do
  opens+=("--add-opens=$p=ALL-UNNAMED")
done
# shellcheck disable=SC2086
exec "$JAVA" ${FLINK_JAVA_OPTS:--Xmx2g} "${opens[@]}" -Djava.awt.headless=true \
  -Duser.timezone=UTC -Dflink.log.level="${FLINK_LOG_LEVEL:-WARN}" \
  -cp "$OUT/flink-sql-runner-1.jar:$OUT/libs/*" dev.floe.bench.FlinkSql "$@"
