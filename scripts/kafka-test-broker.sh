#!/usr/bin/env bash
# A throw-away Apache Kafka broker for tests and the demo: one KRaft node
# that is its own controller, listening on loopback only.
#
#   scripts/kafka-test-broker.sh start PORT DIR   start a broker on
#                                    127.0.0.1:PORT (its controller on PORT+1,
#                                    or $KAFKA_CONTROLLER_PORT) keeping its log
#                                    in DIR; formats DIR on first use, reuses it
#                                    after (a restart keeps the topics); waits
#                                    until the broker answers; prints
#                                    127.0.0.1:PORT
#   scripts/kafka-test-broker.sh stop PORT DIR    stop it (SIGTERM, a clean
#                                    shutdown; SIGKILL after 60 s); keeps DIR
#   scripts/kafka-test-broker.sh status PORT DIR  exit 0 when it is running
#                                    and accepting connections
#
# The broker's jars (org.apache.kafka:kafka_2.13, version in
# tests/kafka/pom.xml) come from Maven Central through mvn on first use and
# are cached under build/kafka/libs ($FLOE_KAFKA_LIBS overrides the folder).
# Topics are never created implicitly (auto.create.topics.enable=false), and
# nothing is deleted by retention (messages may carry old timestamps).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
LIBS=${FLOE_KAFKA_LIBS:-$ROOT/build/kafka/libs}
POM=$ROOT/tests/kafka/pom.xml
JAVA=${JAVA:-java}
MARK=kafka-test-broker.dir

die() {
  echo "kafka-test-broker: $*" >&2
  exit 1
}

# Fetches the broker's jars once; the stamp names the pom it came from so
# that a version change fetches again.
ensure_libs() {
  local stamp=$LIBS/.pom-sha
  local want
  want=$(sha1sum "$POM" | cut -d' ' -f1)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    return
  fi
  command -v mvn >/dev/null || die "mvn not found (scripts/install-deps.sh installs maven)"
  echo "kafka-test-broker: fetching the Kafka broker jars into $LIBS" >&2
  rm -rf "$LIBS"
  mkdir -p "$LIBS"
  mvn -q -B -Dstyle.color=never -f "$POM" dependency:copy-dependencies -DincludeScope=runtime \
    -DoutputDirectory="$LIBS" >&2 || die "mvn could not fetch the Kafka jars (see above)"
  ls "$LIBS"/kafka_2.13-*.jar >/dev/null 2>&1 || die "mvn left no kafka_2.13 jar in $LIBS"
  echo "$want" >"$stamp"
}

# Whether 127.0.0.1:$1 accepts a TCP connection.
port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

pid_alive() {
  [ -f "$DIR/broker.pid" ] && kill -0 "$(cat "$DIR/broker.pid")" 2>/dev/null
}

write_config() {
  cat >"$DIR/server.properties" <<PROPS
# Written by scripts/kafka-test-broker.sh: one node, broker and controller.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$CPORT
listeners=PLAINTEXT://127.0.0.1:$PORT,CONTROLLER://127.0.0.1:$CPORT
advertised.listeners=PLAINTEXT://127.0.0.1:$PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$DIR/log
auto.create.topics.enable=false
num.partitions=1
default.replication.factor=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
# Keep everything: test and benchmark data carry event times far in the
# past (Nexmark's fixed base time), which time-based retention would delete.
log.retention.ms=-1
log.retention.bytes=-1
PROPS
  cat >"$DIR/log4j2.properties" <<PROPS
rootLogger.level=INFO
rootLogger.appenderRef.file.ref=file
appender.file.type=File
appender.file.name=file
appender.file.fileName=$DIR/broker.log
appender.file.append=true
appender.file.layout.type=PatternLayout
appender.file.layout.pattern=[%d] %p %m (%c)%n
logger.kafka.name=kafka
logger.kafka.level=INFO
logger.apache.name=org.apache.kafka
logger.apache.level=WARN
PROPS
}

java_opts=(-Xms64m -Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto
  -Djava.awt.headless=true)

cmd_start() {
  ensure_libs
  mkdir -p "$DIR"
  DIR=$(cd "$DIR" && pwd)
  if [ -e "$DIR/broker.pid" ] && pid_alive; then
    die "a broker already runs from $DIR (pid $(cat "$DIR/broker.pid"))"
  fi
  if [ ! -e "$DIR/$MARK" ]; then
    [ -z "$(ls -A "$DIR")" ] || die "$DIR is not empty and was not made by this script"
    touch "$DIR/$MARK"
  fi
  port_open "$PORT" && die "port $PORT is already in use"
  write_config
  local cp="$LIBS/*"
  if [ ! -f "$DIR/log/meta.properties" ]; then
    local cluster_id
    cluster_id=$("$JAVA" "${java_opts[@]}" -cp "$cp" kafka.tools.StorageTool random-uuid 2>>"$DIR/format.log") ||
      die "StorageTool random-uuid failed: $(tail -n 5 "$DIR/format.log")"
    "$JAVA" "${java_opts[@]}" -Dlog4j2.configurationFile="$DIR/log4j2.properties" -cp "$cp" \
      kafka.tools.StorageTool format -t "$cluster_id" -c "$DIR/server.properties" \
      >>"$DIR/format.log" 2>&1 || die "formatting $DIR/log failed: $(tail -n 5 "$DIR/format.log")"
  fi
  # setsid: the broker outlives this script, in a process group of its own.
  setsid "$JAVA" "${java_opts[@]}" -Dlog4j2.configurationFile="$DIR/log4j2.properties" \
    -cp "$cp" kafka.Kafka "$DIR/server.properties" >>"$DIR/broker.out" 2>&1 </dev/null &
  echo $! >"$DIR/broker.pid"
  echo "$PORT" >"$DIR/port"
  # Ready when the broker listens and has logged that it started (it accepts
  # connections a little before it serves metadata).
  local i
  for i in $(seq 1 600); do
    if ! pid_alive; then
      die "the broker exited during start-up: $(tail -n 5 "$DIR/broker.out" "$DIR/broker.log" 2>/dev/null)"
    fi
    if port_open "$PORT" && grep -q "Kafka Server started" "$DIR/broker.log" 2>/dev/null; then
      echo "127.0.0.1:$PORT"
      return 0
    fi
    sleep 0.2
  done
  cmd_stop
  die "the broker did not start within 120 s: $(tail -n 5 "$DIR/broker.log" 2>/dev/null)"
}

cmd_stop() {
  [ -d "$DIR" ] || return 0
  [ -e "$DIR/$MARK" ] || die "$DIR was not made by kafka-test-broker.sh start; not touching it"
  pid_alive || {
    rm -f "$DIR/broker.pid"
    return 0
  }
  local pid i
  pid=$(cat "$DIR/broker.pid")
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 1 300); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "kafka-test-broker: broker $pid did not stop in 60 s, killing it" >&2
    kill -KILL "$pid" 2>/dev/null || true
  fi
  # The listener must be gone before a restart on the same port.
  for i in $(seq 1 100); do
    port_open "$PORT" || break
    sleep 0.1
  done
  rm -f "$DIR/broker.pid"
}

cmd_status() {
  [ -d "$DIR" ] && pid_alive && port_open "$PORT"
}

[ $# -eq 3 ] || die "usage: $0 start|stop|status PORT DIR"
PORT=$2
DIR=$3
[[ $PORT =~ ^[0-9]+$ ]] && [ "$PORT" -gt 0 ] && [ "$PORT" -lt 65535 ] || die "bad port '$PORT'"
CPORT=${KAFKA_CONTROLLER_PORT:-$((PORT + 1))}
case "$1" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  *) die "usage: $0 start|stop|status PORT DIR" ;;
esac
