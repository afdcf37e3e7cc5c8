#!/usr/bin/env bash
# A throw-away PostgreSQL server for tests: a fresh cluster in a directory
# of its own, listening on 127.0.0.1 at a free port (its unix socket in the
# same directory), with trust authentication and one database.
#
#   scripts/pg-test-server.sh start DIR   start a server in DIR (created when
#                                         missing, must be empty); prints its
#                                         URI and keeps it in DIR/uri
#   scripts/pg-test-server.sh stop DIR    stop it and remove DIR
#   scripts/pg-test-server.sh run CMD...  start one in a temporary directory,
#                                         run CMD with FLOE_TEST_PG_URI set to
#                                         its URI, stop it; exits with CMD's
#                                         status
#
# The URI is postgresql://floe@127.0.0.1:PORT/floe_test. The server binaries
# come from Debian's postgresql package (/usr/lib/postgresql/N/bin, the
# newest N, or $PG_BINDIR). initdb and the server refuse to run as root, so
# under uid 0 they run as $PG_TEST_USER, else "postgres" (the package's
# user), else a system user "floe-pg" created on first use. Durability is
# off (fsync, synchronous_commit): the data is thrown away anyway.
set -euo pipefail

MARK=pg-test-server.dir

die() {
  echo "pg-test-server: $*" >&2
  exit 1
}

find_bindir() {
  if [ -n "${PG_BINDIR:-}" ]; then
    [ -x "$PG_BINDIR/initdb" ] || die "PG_BINDIR=$PG_BINDIR has no initdb"
    echo "$PG_BINDIR"
    return
  fi
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$d" ] && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    echo "pg-test-server: installing Debian's postgresql package" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends postgresql >&2
    d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  fi
  [ -n "$d" ] && [ -x "$d/initdb" ] ||
    die "no PostgreSQL server found under /usr/lib/postgresql/*/bin (install Debian's postgresql package, see scripts/install-deps.sh)"
  echo "$d"
}

# The user the server runs as ("" when not root: the current user).
server_user() {
  [ "$(id -u)" -eq 0 ] || return 0
  local u=${PG_TEST_USER:-}
  if [ -z "$u" ]; then
    if id -u postgres >/dev/null 2>&1; then
      u=postgres
    else
      u=floe-pg
      id -u "$u" >/dev/null 2>&1 ||
        useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$u" ||
        die "cannot create the user $u to run PostgreSQL as"
    fi
  fi
  id -u "$u" >/dev/null 2>&1 || die "user $u does not exist"
  echo "$u"
}

# Runs a command as the server user, from DIR (a directory it can enter).
as_user() {
  local user=$1 dir=$2
  shift 2
  if [ -z "$user" ]; then
    (cd "$dir" && "$@")
  else
    (cd "$dir" && runuser -u "$user" -- "$@")
  fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

cmd_start() {
  local dir=$1
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  [ -z "$(ls -A "$dir")" ] || die "$dir is not empty"
  local bin user
  bin=$(find_bindir)
  user=$(server_user)
  touch "$dir/$MARK"
  # The server user must be able to enter every parent of dir.
  if [ -n "$user" ]; then
    chown "$user" "$dir"
    runuser -u "$user" -- test -x "$dir" ||
      die "user $user cannot enter $dir: choose a directory under /tmp"
  fi
  as_user "$user" "$dir" "$bin/initdb" -D "$dir/data" -U floe --auth=trust -E UTF8 \
    --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
    as_user "$user" "$dir" "$bin/initdb" -D "$dir/data" -U floe --auth=trust -E UTF8 \
      --no-locale >"$dir/initdb.log" 2>&1 ||
    die "initdb failed: $(tail -n 5 "$dir/initdb.log")"
  local port attempt started=0
  for attempt in 1 2 3 4 5; do
    port=$(free_port)
    if as_user "$user" "$dir" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
      start >"$dir/pg_ctl.log" 2>&1; then
      started=1
      break
    fi
    grep -q "could not bind" "$dir/server.log" 2>/dev/null || break
  done
  [ $started -eq 1 ] || die "the server did not start: $(tail -n 5 "$dir/server.log" 2>/dev/null)"
  echo "$port" >"$dir/port"
  "$bin/createdb" -h 127.0.0.1 -p "$port" -U floe floe_test ||
    die "createdb failed on port $port"
  local uri="postgresql://floe@127.0.0.1:$port/floe_test"
  echo "$uri" >"$dir/uri"
  echo "$uri"
}

cmd_stop() {
  local dir=$1
  [ -d "$dir" ] || return 0
  [ -e "$dir/$MARK" ] || die "$dir was not made by pg-test-server.sh start; not touching it"
  if [ -f "$dir/data/postmaster.pid" ]; then
    local bin user
    bin=$(find_bindir)
    user=$(server_user)
    as_user "$user" "$dir" "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop >/dev/null 2>&1 ||
      echo "pg-test-server: pg_ctl stop failed: $(tail -n 3 "$dir/server.log" 2>/dev/null)" >&2
  fi
  rm -rf "$dir"
}

cmd_run() {
  [ $# -gt 0 ] || die "run needs a command"
  local dir
  dir=$(mktemp -d /tmp/floe-pg.XXXXXX)
  # shellcheck disable=SC2064
  trap "cmd_stop '$dir'" EXIT
  # Killed or interrupted: still stop the server (it runs in a session of
  # its own and would outlive this script).
  trap 'exit 143' TERM
  trap 'exit 130' INT HUP
  local uri
  uri=$(cmd_start "$dir")
  set +e
  FLOE_TEST_PG_URI=$uri "$@"
  local rc=$?
  set -e
  return $rc
}

case "${1:-}" in
  start)
    [ $# -eq 2 ] || die "usage: $0 start DIR"
    cmd_start "$2"
    ;;
  stop)
    [ $# -eq 2 ] || die "usage: $0 stop DIR"
    cmd_stop "$2"
    ;;
  run)
    shift
    cmd_run "$@"
    ;;
  *)
    die "usage: $0 start DIR | stop DIR | run CMD..."
    ;;
esac
