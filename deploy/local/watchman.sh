#!/usr/bin/env bash
# Moov Watchman (github.com/moov-io/watchman), side by side with our screening (issue #16), on loopback,
# reading the same OFAC SDN (+ alt names) and UN files as our lists. Nothing of it enters the repository:
# the binary is built by `go install` from the public module (Go module proxy) into a cache outside the
# checkout, and its data directory there holds symlinks to the shared data files.
#
#   watchman.sh install   go install github.com/moov-io/watchman/cmd/server@$WATCHMAN_VERSION
#   watchman.sh up        start it (127.0.0.1:$WATCHMAN_PORT), wait until it has loaded the lists
#   watchman.sh down      stop the process `up` started (its pid file)
#   watchman.sh status
#
# How Watchman reads local files (v0.66.0): every list downloader first looks in
# INITIAL_DATA_DIRECTORY (Download.InitialDataDirectory) for its file names, compared case-insensitively
# (pkg/download/client.go, GetFiles), and downloads only the files it does not find there. OFAC wants
# sdn.csv, alt.csv, add.csv and sdn_comments.csv (pkg/sources/ofac/download.go); the UN list
# un_consolidated.xml (pkg/sources/csl_un/download_un.go). The shared data has no add.csv (addresses) or
# sdn_comments.csv (remark spill-over), so they are empty files here: no publisher is reachable from
# this machine, and neither file holds names. INCLUDED_LISTS=us_ofac,un_csl loads those two lists only.
#
# Settings: WATCHMAN_VERSION (v0.66.0), WATCHMAN_DIR (~/.cache/crs-watchman), WATCHMAN_PORT (18084),
# WATCHMAN_ADMIN_PORT (19094), CRS_SHARED_DATA (<repo>/../shared/data), WATCHMAN_SRC (a git clone of
# moov-io/watchman, used only when `go install` cannot get the module: see install below).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VERSION="${WATCHMAN_VERSION:-v0.66.0}"
DIR="${WATCHMAN_DIR:-$HOME/.cache/crs-watchman}"
PORT="${WATCHMAN_PORT:-18084}"
ADMIN_PORT="${WATCHMAN_ADMIN_PORT:-19094}"
SHARED="${CRS_SHARED_DATA:-$ROOT/../shared/data}"
BIN="$DIR/bin/watchman-$VERSION"
PID_FILE="$DIR/watchman.pid"
LOG_FILE="$DIR/watchman.log"

case "$DIR" in
  "$ROOT" | "$ROOT"/*) echo "error: WATCHMAN_DIR must be outside the repository ($DIR)" >&2 && exit 2 ;;
esac

install() {
  if [ -x "$BIN" ]; then
    echo "watchman $VERSION already built: $BIN"
    return
  fi
  command -v go >/dev/null || { echo "error: go is not installed" >&2 && exit 1; }
  mkdir -p "$DIR/bin"
  local tmp
  tmp="$(mktemp -d "$DIR/bin/install.XXXXXX")"
  # No libpostal build tag: Watchman's address parsing then uses its pure-Go fallback (no cgo needed).
  if GOBIN="$tmp" go install "github.com/moov-io/watchman/cmd/server@$VERSION"; then
    mv "$tmp/server" "$BIN"
  elif [ -n "${WATCHMAN_SRC:-}" ]; then
    # The module proxy of this workplace refuses github.com/moov-io/watchman itself ("Go module path not
    # permitted", 403 on .../@v/$VERSION.info) while it serves every module Watchman depends on. Then
    # WATCHMAN_SRC, a git clone of the public repository, gives the source of the tag: exported outside
    # the repository and built with `go build`, its dependencies from the module proxy.
    local src="$DIR/src/$VERSION"
    if [ ! -f "$src/go.mod" ]; then
      mkdir -p "$src"
      # File by file, without test data and docs: a partial clone may lack their (large) blobs.
      git --git-dir="$WATCHMAN_SRC" ls-tree -r "$VERSION" | while read -r mode type obj path; do
        case "$type:$path" in blob:docs/* | blob:*/testdata/*) continue ;; blob:*) ;; *) continue ;; esac
        mkdir -p "$src/$(dirname "$path")"
        git --git-dir="$WATCHMAN_SRC" cat-file blob "$obj" >"$src/$path"
      done
    fi
    # The proxy also refuses github.com/OpenRouterTeam/go-sdk, which only Watchman's optional OpenRouter
    # embeddings provider imports (embeddings are off by default and unused here): that one file is
    # replaced at build time (go build -overlay) by a stand-in that returns "not built"; name search,
    # list loading and scoring are Watchman's own code, unchanged.
    mkdir -p "$DIR/overlay"
    cat >"$DIR/overlay/provider_open_router.go" <<'GO'
// Build-time stand-in (crs issue #16 comparison): github.com/OpenRouterTeam/go-sdk cannot be fetched here;
// only this optional embeddings provider uses it, and name search never does.
package embeddings

import (
	"context"
	"errors"
)

type OpenRouterProvider struct{}

func NewOpenRouterProvider(config ProviderConfig) (*OpenRouterProvider, error) {
	return nil, errors.New("openrouter embeddings provider not built in this binary")
}

func (p *OpenRouterProvider) Embed(ctx context.Context, texts []string) ([][]float64, error) {
	return nil, errors.New("openrouter embeddings provider not built in this binary")
}

func (p *OpenRouterProvider) Dimension() int { return 0 }
func (p *OpenRouterProvider) Name() string   { return "openrouter (not built)" }
func (p *OpenRouterProvider) Close() error   { return nil }
GO
    local overlay="{}"
    if [ -f "$src/internal/embeddings/provider_open_router.go" ]; then
      overlay="{\"Replace\":{\"$src/internal/embeddings/provider_open_router.go\":\"$DIR/overlay/provider_open_router.go\"}}"
    fi
    printf '%s' "$overlay" >"$DIR/overlay/overlay.json"
    (cd "$src" && GOTOOLCHAIN=local go build -overlay "$DIR/overlay/overlay.json" -o "$BIN" ./cmd/server)
    rm -rf "$tmp"
  else
    rmdir "$tmp"
    echo "error: go install failed; set WATCHMAN_SRC to a git clone of moov-io/watchman to build the tag from it" >&2
    exit 1
  fi
  rmdir "$tmp" 2>/dev/null || true
  echo "built $BIN"
}

prepare_data() {
  local data="$DIR/data"
  mkdir -p "$data"
  for f in sdn.csv alt.csv UN_consolidated.xml; do
    [ -r "$SHARED/lists/$f" ] || { echo "error: $SHARED/lists/$f is missing" >&2 && exit 1; }
    ln -sfn "$SHARED/lists/$f" "$data/$f"
  done
  : >"$data/add.csv"
  : >"$data/sdn_comments.csv"
  cat >"$DIR/config.yml" <<EOF
Watchman:
  Servers:
    BindAddress: "127.0.0.1:$PORT"
    AdminAddress: "127.0.0.1:$ADMIN_PORT"
  Download:
    RefreshInterval: "8760h"
    InitialDataDirectory: "$data"
    IncludedLists:
      - "us_ofac"
      - "un_csl"
EOF
}

running_pid() {
  local pid
  pid="$(cat "$PID_FILE" 2>/dev/null || true)"
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then echo "$pid"; fi
}

up() {
  [ -x "$BIN" ] || install
  if [ -n "$(running_pid)" ]; then
    echo "watchman already running (pid $(running_pid)) on 127.0.0.1:$PORT"
    return
  fi
  prepare_data
  APP_CONFIG="$DIR/config.yml" INITIAL_DATA_DIRECTORY="$DIR/data" INCLUDED_LISTS="us_ofac,un_csl" \
    DATA_REFRESH_INTERVAL="8760h" nohup "$BIN" >"$LOG_FILE" 2>&1 &
  echo $! >"$PID_FILE"
  local deadline=$((SECONDS + ${WATCHMAN_START_TIMEOUT:-180}))
  until curl -fsS "http://127.0.0.1:$PORT/v2/search?type=person&name=test&limit=1" >/dev/null 2>&1; do
    if [ -z "$(running_pid)" ]; then
      echo "error: watchman exited; see $LOG_FILE" >&2 && tail -20 "$LOG_FILE" >&2 && exit 1
    fi
    [ "$SECONDS" -lt "$deadline" ] || { echo "error: watchman not ready; see $LOG_FILE" >&2 && exit 1; }
    sleep 1
  done
  echo "watchman $VERSION up on 127.0.0.1:$PORT (pid $(running_pid), log $LOG_FILE)"
}

down() {
  local pid
  pid="$(running_pid)"
  if [ -z "$pid" ]; then
    echo "watchman not running"
    return
  fi
  kill "$pid"
  for _ in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  rm -f "$PID_FILE"
  echo "watchman stopped"
}

status() {
  local pid
  pid="$(running_pid)"
  if [ -n "$pid" ]; then echo "watchman running (pid $pid) on 127.0.0.1:$PORT"; else echo "watchman not running" && return 1; fi
}

case "${1:-}" in
  install) install ;;
  up) up ;;
  down) down ;;
  status) status ;;
  *) echo "usage: $0 install|up|down|status" >&2 && exit 2 ;;
esac
