#!/usr/bin/env bash
# The local stack without Docker: Kafka (KRaft, single node), Apicurio Registry (Confluent-compatible
# API) and FerretDB (MongoDB wire protocol over SQLite, or over PostgreSQL with STACK_STORE=postgresql),
# as plain processes on 127.0.0.1. Why not containers: docs/decisions/0001-local-stack-without-docker.md.
#
#   stack.sh up                 start whatever is not running, wait until every server answers
#   stack.sh down               stop everything `up` started (SIGTERM, then SIGKILL after a timeout)
#   stack.sh status             one line per component; exit 0 only when all are up and answering
#   stack.sh env                connection settings as shell exports (eval "$(stack.sh env)")
#   stack.sh start <component>  start one component (kafka|registry|ferretdb|postgresql), data intact
#   stack.sh stop <component>   stop one component gracefully
#   stack.sh kill <component>   SIGKILL one component, as a crash would (fault tests)
#   stack.sh logs <component>   follow its log
#   stack.sh fetch [component…] download or build what `up` runs (all by default), start nothing
#
# Data, logs and pid files live under $ROOT/.local/; downloads and builds are cached outside the
# repository (~/.m2, Go's caches, and $STACK_CACHE_DIR). Ports are overridable:
#   STACK_KAFKA_PORT (19092)  STACK_KAFKA_CONTROLLER_PORT (19093)  STACK_REGISTRY_PORT (18081)
#   STACK_FERRETDB_PORT (27018)  STACK_FERRETDB_DEBUG_PORT (18088)  STACK_POSTGRESQL_PORT (15432)
# Timeouts in seconds: STACK_START_TIMEOUT (120), STACK_STOP_TIMEOUT (30).
# FerretDB's storage (docs/decisions/0015-embedded-store-backend.md):
#   STACK_STORE=sqlite (default) | postgresql   the choice is remembered in .local/ferretdb/store; each
#                               store keeps its own data, so switching starts from an empty store
#   STACK_SQLITE_SYNCHRONOUS (normal) | full    SQLite's synchronous pragma (WAL: normal survives a
#                               crash of FerretDB, only a power loss may drop the last commits)
#   STACK_FERRETDB_GOGC (400)   Go's GOGC for FerretDB (its collector's pace: decision 0033)
#   STACK_FERRETDB_UNIX (1) | 0 FerretDB also listens on a Unix socket, .local/ferretdb/ferretdb.sock, and
#                               stack.env's MONGODB_URI names it: the services reach the store without
#                               loopback TCP (decision 0082). 0, or a path too long for a socket: TCP only.
#                               The TCP port stays open either way (mongosh, tools).
#   STACK_FERRETDB_BIN          a FerretDB binary to run instead of the one built from our patches
#   STACK_POSTGRESQL_BIN        directory with initdb and postgres (default: /usr/lib/postgresql/15/bin
#                               if installed, else Debian's postgresql-15 unpacked into the cache,
#                               `apt-get download` + `dpkg -x`, no root needed)
#   STACK_POSTGRESQL_USER       the user PostgreSQL runs as when stack.sh runs as root (postgres)
# The broker's JVM: STACK_KAFKA_GC=parallel (default) | g1   its collector (decision 0080; g1 is Kafka's own
#                               settings: shorter pauses, about a fifth more of the broker's CPU here)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
STACK_SRC="$ROOT/deploy/local/stack"
# STACK_LOCAL_DIR runs a second, independent stack (own data, logs, pid files; give it other ports too).
LOCAL="${STACK_LOCAL_DIR:-$ROOT/.local}"
RUN_DIR="$LOCAL/run"
LOG_DIR="$LOCAL/logs"
CACHE_DIR="${STACK_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/crs-stack}"

KAFKA_VERSION=3.9.1
APICURIO_VERSION=3.0.9
FERRETDB_VERSION=1.24.0

HOST=127.0.0.1
KAFKA_PORT="${STACK_KAFKA_PORT:-19092}"
KAFKA_CONTROLLER_PORT="${STACK_KAFKA_CONTROLLER_PORT:-19093}"
REGISTRY_PORT="${STACK_REGISTRY_PORT:-18081}"
FERRETDB_PORT="${STACK_FERRETDB_PORT:-27018}"
FERRETDB_DEBUG_PORT="${STACK_FERRETDB_DEBUG_PORT:-18088}"
START_TIMEOUT="${STACK_START_TIMEOUT:-120}"
STOP_TIMEOUT="${STACK_STOP_TIMEOUT:-30}"

# FerretDB's storage: the variable, else what the last `up` used, else SQLite.
STORE_FILE="$LOCAL/ferretdb/store"
STORE="${STACK_STORE:-$(cat "$STORE_FILE" 2>/dev/null || echo sqlite)}"
case "$STORE" in
  sqlite | postgresql) ;;
  *) printf 'error: STACK_STORE must be sqlite or postgresql, not %s\n' "$STORE" >&2 && exit 2 ;;
esac
SQLITE_SYNCHRONOUS="${STACK_SQLITE_SYNCHRONOUS:-normal}"
# The broker's collector: parallel by default (decision 0080), or Kafka's own G1 settings.
KAFKA_GC="${STACK_KAFKA_GC:-parallel}"
case "$KAFKA_GC" in
  parallel) KAFKA_GC_OPTS=(-XX:+UseParallelGC) ;;
  g1) KAFKA_GC_OPTS=(-XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent) ;;
  *) printf 'error: STACK_KAFKA_GC must be parallel or g1, not %s\n' "$KAFKA_GC" >&2 && exit 2 ;;
esac
POSTGRESQL_PORT="${STACK_POSTGRESQL_PORT:-15432}"
POSTGRESQL_VERSION=15
PG_DATA="$LOCAL/postgresql/data"

# PostgreSQL starts before FerretDB and stops after it (`down` stops in reverse order).
if [ "$STORE" = postgresql ]; then COMPONENTS=(kafka registry postgresql ferretdb); else COMPONENTS=(kafka registry ferretdb); fi
# Every process we start carries this in its command line, so a stray one can be found even
# without its pid file, and a recycled pid is never mistaken for ours.
JAVA_MARKER="-Dcrs.stack.home=$LOCAL"
FERRETDB_STATE_DIR="$LOCAL/ferretdb/state"
# Decision 0082. A socket path is at most 107 bytes on Linux; a checkout that deep keeps TCP.
FERRETDB_SOCKET="$LOCAL/ferretdb/ferretdb.sock"
case "${STACK_FERRETDB_UNIX:-1}" in
  1) [ "${#FERRETDB_SOCKET}" -le 100 ] || FERRETDB_SOCKET="" ;;
  0) FERRETDB_SOCKET="" ;;
  *) printf 'error: STACK_FERRETDB_UNIX must be 1 or 0, not %s\n' "$STACK_FERRETDB_UNIX" >&2 && exit 2 ;;
esac

KAFKA_HOME="$CACHE_DIR/kafka-$KAFKA_VERSION"
REGISTRY_HOME="$CACHE_DIR/apicurio-registry-$APICURIO_VERSION"
# FerretDB's build: cgo for SQLite's C library (patch 0010, decision 0077), with the compile options
# FerretDB's SQLite backend needs.
FERRETDB_CGO=1
FERRETDB_TAGS=sqlite_dbstat,sqlite_stat4
# The build's inputs are part of the binary's name, so a change to any of them builds a new binary: our
# patches (deploy/local/stack/ferretdb/patches, docs/decisions/0009), the build module (go.mod, go.sum,
# tools.go), the tags and cgo. The steps of ensure_ferretdb below (the go build flags, the version files,
# the tests it runs) are not: a change to those that alters the binary goes with a change to one of these
# inputs (a patch, the build module), or every machine keeps the binary it has.
FERRETDB_BUILD_KEY="$(
  {
    cat "$STACK_SRC"/ferretdb/patches/*.patch "$STACK_SRC"/ferretdb/go.mod "$STACK_SRC"/ferretdb/go.sum \
      "$STACK_SRC"/ferretdb/tools.go 2>/dev/null
    echo "tags=$FERRETDB_TAGS cgo=$FERRETDB_CGO"
  } | sha256sum | cut -c1-8
)"
# STACK_FERRETDB_BIN runs another build instead (test/bench/store-build.mjs: two builds alternating on
# one data directory); the patches keep the data format, so either build serves the other's data.
FERRETDB_BIN="${STACK_FERRETDB_BIN:-$CACHE_DIR/ferretdb-$FERRETDB_VERSION-p$FERRETDB_BUILD_KEY}"

say() { printf '==> %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }
usage() { sed -n '6,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

# ---------------------------------------------------------------------------------------------
# Tools

need_node() {
  command -v node >/dev/null 2>&1 || die "'node' is required (readiness probes). Install Node.js 20.12 or newer."
}

need_java() {
  command -v java >/dev/null 2>&1 ||
    die "'java' is required to run Kafka and Apicurio Registry. Install a Java 17+ runtime (e.g. apt-get install openjdk-17-jre-headless)."
  local line major
  line="$(java -version 2>&1 | head -n 1)"
  major="$(sed -E 's/.*version "([0-9]+)(\.([0-9]+))?.*/\1 \3/' <<<"$line")"
  if [ "${major% *}" = "1" ]; then major="${major#* }"; else major="${major% *}"; fi
  [[ "$major" =~ ^[0-9]+$ ]] || die "cannot tell the Java version from: $line"
  [ "$major" -ge 17 ] ||
    die "Java 17 or newer is required, found $line. Install e.g. openjdk-17-jre-headless and put it first on PATH."
}

need_mvn() {
  command -v mvn >/dev/null 2>&1 ||
    die "'mvn' (Apache Maven 3.6+) is required once, to download Kafka and Apicurio Registry from Maven Central. Install it (e.g. apt-get install maven)."
}

need_go() {
  command -v go >/dev/null 2>&1 ||
    die "'go' (Go 1.22 or newer) is required once, to build FerretDB $FERRETDB_VERSION. Install it from https://go.dev/dl/ (or apt-get install golang)."
  # Our FerretDB build runs SQLite's C library through cgo (patch 0010, decision 0077): the C compiler
  # is the one Go will call (`go env CC`: $CC, else gcc).
  local cc
  cc="$(go env CC 2>/dev/null)" && cc="${cc%% *}" && [ -n "$cc" ] || cc=gcc
  command -v "$cc" >/dev/null 2>&1 ||
    die "a C compiler ('$cc') is required once, to build FerretDB $FERRETDB_VERSION with SQLite's C library (apt-get install gcc)."
}

# ---------------------------------------------------------------------------------------------
# Downloads and builds, cached outside the repository; each lands in a temporary directory
# first and is renamed into place, so an interrupted download is never mistaken for a finished one.

mvn_stack() {
  local log="$LOG_DIR/maven.log"
  if ! mvn -B -f "$STACK_SRC/pom.xml" -Dkafka.version="$KAFKA_VERSION" -Dapicurio.version="$APICURIO_VERSION" "$@" >>"$log" 2>&1; then
    tail -n 30 "$log" >&2
    die "maven failed (full log: $log)"
  fi
}

# The cache is shared by every checkout on the machine (their stack.lock is not): two fetching or building
# the same thing at once would write over each other, or replace a directory the other already runs from.
# One does the work under the cache's lock for it; the other waits, then finds it done.
cache_lock() {
  exec 8>"$CACHE_DIR/.$1.lock"
  if ! flock -n 8; then
    say "waiting for another checkout's $1 (lock $CACHE_DIR/.$1.lock)"
    flock -w 900 8 || die "another checkout's $1 is still running after 15 minutes (lock $CACHE_DIR/.$1.lock)"
  fi
}
cache_unlock() { exec 8>&-; }

ensure_kafka() {
  [ -f "$KAFKA_HOME/.complete" ] && return 0
  cache_lock kafka-download
  if [ -f "$KAFKA_HOME/.complete" ]; then cache_unlock && return 0; fi
  need_mvn
  say "downloading Kafka $KAFKA_VERSION jars (Maven Central, cached in $KAFKA_HOME)"
  local tmp="$CACHE_DIR/.tmp-kafka-$$"
  rm -rf "$tmp"
  mvn_stack dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$tmp/libs"
  touch "$tmp/.complete"
  rm -rf "$KAFKA_HOME" && mv "$tmp" "$KAFKA_HOME"
  cache_unlock
}

ensure_registry() {
  [ -f "$REGISTRY_HOME/.complete" ] && return 0
  cache_lock registry-download
  if [ -f "$REGISTRY_HOME/.complete" ]; then cache_unlock && return 0; fi
  need_mvn
  say "downloading Apicurio Registry $APICURIO_VERSION (Maven Central, cached in $REGISTRY_HOME)"
  local tmp="$CACHE_DIR/.tmp-registry-$$"
  rm -rf "$tmp" && mkdir -p "$tmp/dist"
  mvn_stack dependency:copy -Dartifact="io.apicurio:apicurio-registry-app:$APICURIO_VERSION:tar.gz:all" -DoutputDirectory="$tmp"
  tar -xzf "$tmp/apicurio-registry-app-$APICURIO_VERSION-all.tar.gz" -C "$tmp/dist"
  rm -f "$tmp/apicurio-registry-app-$APICURIO_VERSION-all.tar.gz"
  [ -f "$tmp/dist/apicurio-registry-app-$APICURIO_VERSION-runner.jar" ] || die "unexpected layout of the Apicurio distribution in $tmp/dist"
  touch "$tmp/dist/.complete"
  rm -rf "$REGISTRY_HOME" && mv "$tmp/dist" "$REGISTRY_HOME" && rm -rf "$tmp"
  cache_unlock
}

# `go install github.com/FerretDB/FerretDB/cmd/ferretdb@v1.24.0` fails behind proxies that refuse the
# module's @v/list call, and a binary built from the module cache panics for lack of the generated
# build/version/version.txt. So: download the module pinned by stack/ferretdb/go.sum (verified), copy
# its source next to the build, add version.txt, and build against that copy through a replace.
ensure_ferretdb() {
  [ -x "$FERRETDB_BIN" ] && return 0
  [ -z "${STACK_FERRETDB_BIN:-}" ] || die "STACK_FERRETDB_BIN=$STACK_FERRETDB_BIN is not an executable file"
  need_go
  # Two builds at once would share the build directory below and remove each other's files.
  cache_lock ferretdb-build
  if [ -x "$FERRETDB_BIN" ]; then cache_unlock && return 0; fi
  say "building FerretDB $FERRETDB_VERSION with our patches (once, cached in $FERRETDB_BIN; takes about 3 minutes: SQLite's C compile and FerretDB's SQLite tests)"
  local work="$CACHE_DIR/.build-ferretdb-$FERRETDB_VERSION" log="$LOG_DIR/ferretdb-build.log" src
  rm -rf "$work" && mkdir -p "$work"
  cp "$STACK_SRC/ferretdb/go.mod" "$STACK_SRC/ferretdb/go.sum" "$STACK_SRC/ferretdb/tools.go" "$work/"
  (
    cd "$work"
    export GOTOOLCHAIN=local GOFLAGS=-mod=readonly CGO_ENABLED="$FERRETDB_CGO"
    src="$(go list -m -f '{{.Dir}}' github.com/FerretDB/FerretDB)" || exit 1
    [ -n "$src" ] || { go mod download github.com/FerretDB/FerretDB && src="$(go list -m -f '{{.Dir}}' github.com/FerretDB/FerretDB)"; } || exit 1
    cp -R "$src" "$work/ferretdb" && chmod -R u+w "$work/ferretdb"
    for patch in "$STACK_SRC"/ferretdb/patches/*.patch; do
      [ -f "$patch" ] || continue
      echo "applying $(basename "$patch")"
      (cd "$work/ferretdb" && git apply "$patch") || exit 1
    done
    echo "v$FERRETDB_VERSION" >"$work/ferretdb/build/version/version.txt"
    echo "crs-local-stack" >"$work/ferretdb/build/version/package.txt"
    # Our sjson patch (0009) writes the bytes encoding/json wrote: its tests check that with this Go; the
    # SQLite backend's own tests check it on SQLite's C library (patch 0010). FerretDB's test helpers
    # look for the repository's .git directory: a marker while they run.
    mkdir "$work/ferretdb/.git" &&
      (cd "$work/ferretdb" && go test -tags "$FERRETDB_TAGS" ./internal/handler/sjson/ ./internal/backends/sqlite/...) || exit 1
    rmdir "$work/ferretdb/.git"
    go mod edit -replace "github.com/FerretDB/FerretDB=./ferretdb"
    go build -trimpath -tags "$FERRETDB_TAGS" -o "$FERRETDB_BIN.tmp" github.com/FerretDB/FerretDB/cmd/ferretdb
  ) >>"$log" 2>&1 || { tail -n 30 "$log" >&2; die "building FerretDB failed (full log: $log)"; }
  mv "$FERRETDB_BIN.tmp" "$FERRETDB_BIN"
  rm -rf "$work"
  cache_unlock
}

# ---------------------------------------------------------------------------------------------
# Processes

pid_file() { echo "$RUN_DIR/$1.pid"; }
log_file() { echo "$LOG_DIR/$1.log"; }

is_ours() {
  local pid="$1" cmdline
  # The process may exit while we look: a missing /proc entry just means "not ours any more".
  cmdline="$( { tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null)" || return 1
  case "$cmdline" in
    *"$JAVA_MARKER "* | *"--state-dir=$FERRETDB_STATE_DIR"* | *"postgres -D $PG_DATA "*) return 0 ;;
    *) return 1 ;;
  esac
}

# Prints the pid of a running component; fails (and forgets a stale pid file) when it is not running.
running_pid() {
  local file pid
  file="$(pid_file "$1")"
  [ -f "$file" ] || return 1
  pid="$(cat "$file")"
  if [[ "$pid" =~ ^[0-9]+$ ]] && is_ours "$pid"; then
    echo "$pid"
    return 0
  fi
  rm -f "$file"
  return 1
}

# Processes carrying our marker, whether or not a pid file knows them.
our_pids() {
  local f pid
  for f in /proc/[0-9]*/cmdline; do
    pid="${f#/proc/}" && pid="${pid%/cmdline}"
    [ "$pid" != "$$" ] && is_ours "$pid" && echo "$pid"
  done
  return 0
}

port_busy() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

component_ports() {
  case "$1" in
    kafka) echo "$KAFKA_PORT $KAFKA_CONTROLLER_PORT" ;;
    registry) echo "$REGISTRY_PORT" ;;
    ferretdb) echo "$FERRETDB_PORT $FERRETDB_DEBUG_PORT" ;;
    postgresql) echo "$POSTGRESQL_PORT" ;;
  esac
}

# Detached from the caller's session, so Ctrl-C in a terminal or the end of a CI step's process
# group does not take the servers down with it; `stop` ends the whole group it leads.
declare -A LAUNCHED_AT=()
spawn() {
  local name="$1"; shift
  LAUNCHED_AT[$name]="$SECONDS"
  local log; log="$(log_file "$name")"
  printf '\n===== %s start (stack.sh) =====\n' "$(date -u +%FT%TZ)" >>"$log"
  # fd 9 is the stack lock: a server must not inherit it, or it would hold the lock for its lifetime.
  setsid "$@" </dev/null >>"$log" 2>&1 9>&- &
  local pid=$! waited=0
  # Until the forked shell has exec'd the server, /proc/$pid/cmdline is still this script's, so
  # running_pid would take a starting server for a dead one. On a loaded machine that window lasts.
  while ! is_ours "$pid" && kill -0 "$pid" 2>/dev/null && [ "$waited" -lt 200 ]; do
    sleep 0.05
    waited=$((waited + 1))
  done
  echo "$pid" >"$(pid_file "$name")"
}

prepare_kafka() {
  need_java
  ensure_kafka
  local dir="$LOCAL/kafka" props="$LOCAL/kafka/server.properties" cid
  mkdir -p "$dir/data"
  sed -e "s#@@KAFKA_PORT@@#$KAFKA_PORT#g" \
    -e "s#@@KAFKA_CONTROLLER_PORT@@#$KAFKA_CONTROLLER_PORT#g" \
    -e "s#@@KAFKA_DATA_DIR@@#$dir/data#g" \
    "$STACK_SRC/kafka/server.properties" >"$props"
  if [ ! -s "$dir/cluster-id" ]; then
    java -cp "$KAFKA_HOME/libs/*" kafka.tools.StorageTool random-uuid 2>>"$(log_file kafka)" | tail -n 1 >"$dir/cluster-id.tmp"
    mv "$dir/cluster-id.tmp" "$dir/cluster-id"
  fi
  cid="$(cat "$dir/cluster-id")"
  if [ ! -f "$dir/data/meta.properties" ]; then
    java -cp "$KAFKA_HOME/libs/*" -Dlog4j.configuration="file:$STACK_SRC/kafka/log4j.properties" \
      kafka.tools.StorageTool format -t "$cid" -c "$props" >>"$(log_file kafka)" 2>&1 ||
      { tail -n 20 "$(log_file kafka)" >&2; die "formatting Kafka storage in $dir/data failed"; }
  fi
}

launch_kafka() {
  # C2 stays on: the broker carries the benchmark load, unlike the registry. Measured (docs/performance.md,
  # the fortieth stop's run): C1 only saves the compiler's first minute and then costs the broker 60-90 %
  # more CPU for as long as it runs.
  # Every collection and its pause in logs/kafka-gc.log (two files of 10 MB at most): a stall of the whole
  # pipeline can be told from the broker's collector or not.
  spawn kafka java "$JAVA_MARKER" -Xms256m -Xmx768m "${KAFKA_GC_OPTS[@]}" -Djava.awt.headless=true \
    "-Xlog:gc:file=$LOG_DIR/kafka-gc.log:time,uptime:filecount=2,filesize=10m" \
    -Dlog4j.configuration="file:$STACK_SRC/kafka/log4j.properties" \
    -cp "$KAFKA_HOME/libs/*" kafka.Kafka "$LOCAL/kafka/server.properties"
}

prepare_registry() {
  need_java
  ensure_registry
  mkdir -p "$LOCAL/registry"
}

launch_registry() {
  # C1 only and the serial collector bring Quarkus up about a second sooner on two cores; the
  # registry serves a handful of schema look-ups that clients cache, so peak speed does not matter.
  # H2 in a file keeps registered schemas (and so their ids inside stored messages) across restarts.
  spawn registry java "$JAVA_MARKER" -Xms64m -Xmx512m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC \
    -Dquarkus.http.host="$HOST" -Dquarkus.http.port="$REGISTRY_PORT" \
    -Dapicurio.storage.kind=sql -Dapicurio.storage.sql.kind=h2 \
    -Dapicurio.datasource.url="jdbc:h2:file:$LOCAL/registry/registry" \
    -Dapicurio.datasource.jdbc.initial-size=2 -Dapicurio.datasource.jdbc.min-size=2 \
    -Dapicurio.rest.deletion.group.enabled=true -Dapicurio.rest.deletion.artifact.enabled=true \
    -Dapicurio.rest.deletion.artifact-version.enabled=true \
    -jar "$REGISTRY_HOME/apicurio-registry-app-$APICURIO_VERSION-runner.jar"
}

prepare_ferretdb() {
  ensure_ferretdb
  mkdir -p "$LOCAL/ferretdb/data" "$FERRETDB_STATE_DIR"
  echo "$STORE" >"$STORE_FILE"
}

launch_ferretdb() {
  local backend
  if [ "$STORE" = postgresql ]; then
    # FerretDB keeps each MongoDB database as a schema of this one PostgreSQL database.
    backend=(--handler=pg --postgresql-url="postgres://ferretdb@$HOST:$POSTGRESQL_PORT/postgres")
  else
    # WAL (FerretDB's default) with synchronous=normal: a commit is not fsynced on its own, which
    # a crash of FerretDB survives; full fsyncs every write (decision 0015).
    backend=(--handler=sqlite --sqlite-url="file:$LOCAL/ferretdb/data/?_pragma=synchronous($SQLITE_SYNCHRONOUS)")
  fi
  # GOGC: FerretDB allocates a document tree per document it reads or writes, and with Go's default
  # (100) its collector took about a fifth of its CPU under the pipeline bench (decision 0033). Its live
  # heap is tens of MB, so letting it grow to five times that before a collection costs little memory.
  # The services' connections go through the Unix socket (decision 0082); a socket file left by a killed
  # FerretDB would make its bind fail, and nothing else listens there while it is down.
  local unix=()
  if [ -n "$FERRETDB_SOCKET" ]; then
    rm -f "$FERRETDB_SOCKET"
    unix=(--listen-unix="$FERRETDB_SOCKET")
  fi
  GOGC="${STACK_FERRETDB_GOGC:-400}" spawn ferretdb "$FERRETDB_BIN" "${backend[@]}" \
    --state-dir="$FERRETDB_STATE_DIR" --listen-addr="$HOST:$FERRETDB_PORT" "${unix[@]}" \
    --debug-addr="$HOST:$FERRETDB_DEBUG_PORT" --telemetry=disable --log-format=text
}

# PostgreSQL for STACK_STORE=postgresql: the distribution's binaries if installed, else Debian's
# package unpacked into the cache (apt-get download needs no root; dpkg -x neither).
PG_BIN=""
ensure_postgresql() {
  local cached="$CACHE_DIR/postgresql-$POSTGRESQL_VERSION"
  if [ -n "${STACK_POSTGRESQL_BIN:-}" ]; then
    PG_BIN="$STACK_POSTGRESQL_BIN"
  elif [ -x "/usr/lib/postgresql/$POSTGRESQL_VERSION/bin/postgres" ] && [ -x "/usr/lib/postgresql/$POSTGRESQL_VERSION/bin/initdb" ]; then
    PG_BIN="/usr/lib/postgresql/$POSTGRESQL_VERSION/bin"
  else
    [ -f "$cached/.complete" ] || cache_lock postgresql-download
    if [ ! -f "$cached/.complete" ]; then
      command -v apt-get >/dev/null 2>&1 && command -v dpkg >/dev/null 2>&1 ||
        die "STACK_STORE=postgresql needs PostgreSQL $POSTGRESQL_VERSION: install postgresql-$POSTGRESQL_VERSION, or set STACK_POSTGRESQL_BIN to a directory with initdb and postgres"
      say "downloading Debian's postgresql-$POSTGRESQL_VERSION (apt-get download, unpacked into $cached)"
      local tmp="$CACHE_DIR/.tmp-postgresql-$$" deb
      rm -rf "$tmp" && mkdir -p "$tmp/debs" "$tmp/root"
      (cd "$tmp/debs" && apt-get download "postgresql-$POSTGRESQL_VERSION" libpq5) >>"$LOG_DIR/postgresql-download.log" 2>&1 ||
        { tail -n 20 "$LOG_DIR/postgresql-download.log" >&2; die "apt-get download postgresql-$POSTGRESQL_VERSION failed (full log: $LOG_DIR/postgresql-download.log)"; }
      for deb in "$tmp"/debs/*.deb; do dpkg -x "$deb" "$tmp/root"; done
      rm -rf "$tmp/debs" && touch "$tmp/root/.complete"
      rm -rf "$cached" && mv "$tmp/root" "$cached" && rm -rf "$tmp"
    fi
    cache_unlock
    PG_BIN="$cached/usr/lib/postgresql/$POSTGRESQL_VERSION/bin"
    # The unpacked libpq; the binaries find their share/ and lib/ directories relative to themselves.
    export LD_LIBRARY_PATH="$cached/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  fi
  [ -x "$PG_BIN/postgres" ] && [ -x "$PG_BIN/initdb" ] || die "no initdb/postgres in $PG_BIN"
}

# PostgreSQL refuses to run as root: then it runs as STACK_POSTGRESQL_USER (setpriv execs, so the
# recorded pid stays the server's), which owns its directory.
PG_AS=()
prepare_postgresql() {
  ensure_postgresql
  mkdir -p "$LOCAL/postgresql"
  if [ "$(id -u)" -eq 0 ]; then
    local user="${STACK_POSTGRESQL_USER:-postgres}"
    id "$user" >/dev/null 2>&1 || die "stack.sh runs as root and PostgreSQL may not: create a user '$user' or set STACK_POSTGRESQL_USER"
    PG_AS=(setpriv --reuid="$user" --regid="$(id -g "$user")" --init-groups)
    chown "$user" "$LOCAL/postgresql"
  fi
  clear_stale_postmaster
  if [ ! -f "$PG_DATA/PG_VERSION" ]; then
    rm -rf "$PG_DATA"
    # Local connections only (listen_addresses below), trusted: the stack's other servers have no
    # credentials either.
    "${PG_AS[@]}" "$PG_BIN/initdb" -D "$PG_DATA" -U ferretdb --auth=trust -E UTF8 --no-locale \
      >>"$(log_file postgresql)" 2>&1 || { tail -n 20 "$(log_file postgresql)" >&2; die "initdb in $PG_DATA failed"; }
  fi
}

# After a SIGKILL (`stack.sh kill postgresql`) the postmaster's children exit a moment later and still
# hold its shared memory, and the dead postmaster may linger as a zombie, which PostgreSQL takes for a
# running server: wait for the children, then drop the lock file of a postmaster that is gone.
clear_stale_postmaster() {
  local old waited=0
  old="$(head -n 1 "$PG_DATA/postmaster.pid" 2>/dev/null)" || return 0
  [[ "$old" =~ ^[0-9]+$ ]] || return 0
  running_pid postgresql >/dev/null && return 0
  while awk -v g="$old" '$5 == g && $3 != "Z" { found = 1 } END { exit !found }' /proc/[0-9]*/stat 2>/dev/null &&
    [ "$waited" -lt 100 ]; do
    sleep 0.1
    waited=$((waited + 1))
  done
  if ! kill -0 "$old" 2>/dev/null || [ "$(awk '{print $3}' "/proc/$old/stat" 2>/dev/null)" = Z ]; then
    rm -f "$PG_DATA/postmaster.pid" "$LOCAL/postgresql/.s.PGSQL.$POSTGRESQL_PORT.lock"
  fi
}

launch_postgresql() {
  # The postmaster itself, not pg_ctl, so that the recorded pid is the server's.
  spawn postgresql "${PG_AS[@]}" "$PG_BIN/postgres" -D "$PG_DATA" -p "$POSTGRESQL_PORT" \
    -c listen_addresses="$HOST" -c unix_socket_directories="$LOCAL/postgresql" \
    -c shared_buffers=128MB -c max_connections=200
}

probe() {
  case "$1" in
    kafka) PROBE_TIMEOUT_MS=2000 node "$STACK_SRC/probe.cjs" kafka "$HOST:$KAFKA_PORT" ;;
    registry) curl -fsS -o /dev/null --max-time 2 "http://$HOST:$REGISTRY_PORT/apis/ccompat/v7/subjects" ;;
    ferretdb) PROBE_TIMEOUT_MS=2000 node "$STACK_SRC/probe.cjs" mongo "$HOST:$FERRETDB_PORT" ;;
    # The postmaster writes its state as the 8th line of postmaster.pid: "ready" once it accepts.
    postgresql) [ "$(sed -n 8p "$PG_DATA/postmaster.pid" 2>/dev/null | tr -d ' ')" = ready ] && port_busy "$POSTGRESQL_PORT" ;;
  esac
}

wait_ready() {
  local name="$1" started="${LAUNCHED_AT[$1]:-$SECONDS}" pid
  while :; do
    if ! pid="$(running_pid "$name")"; then
      tail -n 40 "$(log_file "$name")" >&2
      printf 'error: %s exited during start-up (log above; full log: %s)\n' "$name" "$(log_file "$name")" >&2
      return 1
    fi
    probe "$name" >/dev/null 2>&1 && break
    if [ $((SECONDS - started)) -ge "$START_TIMEOUT" ]; then
      tail -n 40 "$(log_file "$name")" >&2
      printf 'error: %s did not answer within %ss (log above; full log: %s)\n' "$name" "$START_TIMEOUT" "$(log_file "$name")" >&2
      return 1
    fi
    sleep 0.5
  done
  say "$name ready (pid $pid, $((SECONDS - started))s)"
}

# Starts the given components (if not running) side by side, then waits for each.
start_components() {
  local name port launched=()
  for name in "$@"; do
    if running_pid "$name" >/dev/null; then continue; fi
    for port in $(component_ports "$name"); do
      port_busy "$port" && die "port $HOST:$port (for $name) is already in use by a process stack.sh did not start. Stop it or set the STACK_*_PORT variables."
    done
    "prepare_$name"
  done
  for name in "$@"; do
    if running_pid "$name" >/dev/null; then continue; fi
    "launch_$name"
    launched+=("$name")
  done
  for name in "$@"; do
    if [[ " ${launched[*]-} " == *" $name "* ]] || ! probe "$name" >/dev/null 2>&1; then
      if ! wait_ready "$name"; then
        # A failed start leaves nothing behind that this call started.
        for name in "${launched[@]}"; do stop_component "$name" >/dev/null; done
        exit 1
      fi
    fi
  done
}

signal_group() {
  local signal="$1" pid="$2"
  # Each server leads its own process group (setsid); fall back to the pid alone if it does not.
  kill "-$signal" -- "-$pid" 2>/dev/null || kill "-$signal" "$pid" 2>/dev/null || true
}

stop_pid() {
  local name="$1" pid="$2" waited=0
  if [ "$name" = postgresql ]; then
    # Fast shutdown (clients disconnected, clean checkpoint), sent to the postmaster alone: SIGTERM
    # would wait for every client, and its children take signals to mean something else.
    kill -INT "$pid" 2>/dev/null || true
  else
    signal_group TERM "$pid"
  fi
  while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt $((STOP_TIMEOUT * 10)) ]; do
    # A zombie has exited already; only its parent's wait is missing.
    [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = "Z" ] && break
    sleep 0.1
    waited=$((waited + 1))
  done
  if kill -0 "$pid" 2>/dev/null && [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != "Z" ]; then
    say "$name (pid $pid) ignored SIGTERM for ${STOP_TIMEOUT}s: SIGKILL"
    signal_group KILL "$pid"
    sleep 0.2
  fi
}

# A killed JVM shows up as a zombie while its other threads still tear down and hold its sockets.
wait_ports_free() {
  local port waited=0
  for port in $(component_ports "$1"); do
    while port_busy "$port" && [ "$waited" -lt 100 ]; do
      sleep 0.1
      waited=$((waited + 1))
    done
  done
}

stop_component() {
  local name="$1" pid
  if pid="$(running_pid "$name")"; then
    stop_pid "$name" "$pid"
    wait_ports_free "$name"
    say "$name stopped"
  else
    say "$name not running"
  fi
  rm -f "$(pid_file "$name")"
}

kill_component() {
  local name="$1" pid
  if pid="$(running_pid "$name")"; then
    signal_group KILL "$pid"
    # SIGKILL is delivered asynchronously; a `start` right after must not find the ports still bound.
    local waited=0
    while kill -0 "$pid" 2>/dev/null && [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != "Z" ] && [ "$waited" -lt 100 ]; do
      sleep 0.1
      waited=$((waited + 1))
    done
    wait_ports_free "$name"
    say "$name killed (pid $pid)"
  else
    say "$name not running"
  fi
  rm -f "$(pid_file "$name")"
}

# ---------------------------------------------------------------------------------------------
# Commands

env_lines() {
  echo "KAFKA_BROKERS=$HOST:$KAFKA_PORT"
  echo "SCHEMA_REGISTRY_URL=http://$HOST:$REGISTRY_PORT/apis/ccompat/v7"
  # The socket only when the running FerretDB has it (one started before decision 0082 listens on TCP only).
  if [ -n "$FERRETDB_SOCKET" ] && [ -S "$FERRETDB_SOCKET" ]; then
    echo "MONGODB_URI=mongodb://$(node -e 'process.stdout.write(encodeURIComponent(process.argv[1]))' "$FERRETDB_SOCKET")/"
  else
    echo "MONGODB_URI=mongodb://$HOST:$FERRETDB_PORT/"
  fi
}

write_env_file() {
  env_lines >"$LOCAL/stack.env.tmp" && mv "$LOCAL/stack.env.tmp" "$LOCAL/stack.env"
}

lock() {
  mkdir -p "$RUN_DIR" "$LOG_DIR" "$CACHE_DIR"
  exec 9>"$RUN_DIR/stack.lock"
  if ! flock -n 9; then
    say "waiting for another stack.sh to finish (lock $RUN_DIR/stack.lock)"
    flock -w 900 9 || die "another stack.sh is still running after 15 minutes (lock $RUN_DIR/stack.lock)"
  fi
}

cmd_up() {
  need_node
  local started="$SECONDS" name missing=() running_store
  running_store="$(cat "$STORE_FILE" 2>/dev/null || echo sqlite)"
  if [ "$running_store" != "$STORE" ] && running_pid ferretdb >/dev/null; then
    die "FerretDB runs on $running_store; stop it first to switch to $STORE (stack.sh stop ferretdb)"
  fi
  for name in "${COMPONENTS[@]}"; do
    running_pid "$name" >/dev/null && probe "$name" >/dev/null 2>&1 || missing+=("$name")
  done
  if [ "${#missing[@]}" -eq 0 ]; then
    write_env_file
    say "stack already running"
    return 0
  fi
  start_components "${missing[@]}"
  write_env_file
  say "stack up in $((SECONDS - started))s; settings in $LOCAL/stack.env"
}

cmd_down() {
  local name pid i
  # In reverse order of start: FerretDB before the PostgreSQL it uses.
  for ((i = ${#COMPONENTS[@]} - 1; i >= 0; i--)); do stop_component "${COMPONENTS[$i]}"; done
  for pid in $(our_pids); do
    say "stopping stray process $pid ($(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-80))"
    stop_pid stray "$pid"
  done
  rm -f "$LOCAL/stack.env"
}

cmd_status() {
  local name pid all=0 state
  for name in "${COMPONENTS[@]}"; do
    if pid="$(running_pid "$name")"; then
      if probe "$name" >/dev/null 2>&1; then state="up"; else state="not answering"; all=1; fi
      printf '%-10s %-14s pid %-8s %s\n' "$name" "$state" "$pid" "$HOST:$(component_ports "$name" | cut -d' ' -f1)"
    else
      printf '%-10s %-14s\n' "$name" "stopped"
      all=1
    fi
  done
  return "$all"
}

# What `up` would download or build, without starting anything (a cache warmed ahead, e.g. in a CI image).
# Takes no stack.lock: it touches only the shared cache, under the cache's own locks.
cmd_fetch() {
  local name
  mkdir -p "$LOG_DIR" "$CACHE_DIR"
  for name in "$@"; do
    case "$name" in
      kafka) ensure_kafka ;;
      registry) ensure_registry ;;
      ferretdb) ensure_ferretdb ;;
      postgresql) ensure_postgresql ;;
    esac
  done
  say "cached in $CACHE_DIR: $*"
}

valid_component() {
  [[ " ${COMPONENTS[*]} " == *" ${1:-} "* ]] || die "unknown component '${1:-}' (${COMPONENTS[*]// /|})"
}

case "${1:-}" in
  up) lock && cmd_up ;;
  down) lock && cmd_down ;;
  status) cmd_status ;;
  env) env_lines | sed 's/^/export /' ;;
  start)
    valid_component "${2:-}"
    lock && need_node && start_components "$2"
    [ -f "$LOCAL/stack.env" ] || write_env_file
    ;;
  stop) valid_component "${2:-}" && lock && stop_component "$2" ;;
  kill) valid_component "${2:-}" && lock && kill_component "$2" ;;
  logs) valid_component "${2:-}" && exec tail -n 100 -F "$(log_file "$2")" ;;
  fetch)
    shift
    [ "$#" -gt 0 ] || set -- "${COMPONENTS[@]}"
    for c in "$@"; do valid_component "$c"; done
    cmd_fetch "$@"
    ;;
  *) usage ;;
esac
