#!/usr/bin/env bash
# The two fresh-machine entry points of the README, and the install step they share.
#   bootstrap.sh install   node dependencies (pnpm pinned in package.json, fetched by npm) + build
#   bootstrap.sh start     install, start the local stack (Kafka, registry, FerretDB) and every service
#   bootstrap.sh test      install, start the stack, run every test suite, stop what it started
#   bootstrap.sh stop      stop every service and the stack
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

need() { command -v "$1" >/dev/null 2>&1 || { echo "error: '$1' is required but not installed. $2" >&2; exit 1; }; }

ensure_pnpm() {
  need node "Install Node.js 20.12 or newer."
  need npm "npm ships with Node.js."
  local want; want="$(node -p "require('./package.json').packageManager.split('@')[1]")"
  local dir="$ROOT/.tools/pnpm-$want"
  if [ ! -x "$dir/node_modules/.bin/pnpm" ]; then
    echo "==> installing pnpm $want into .tools/"
    mkdir -p "$dir"
    npm install --silent --no-audit --no-fund --prefix "$dir" "pnpm@$want" >/dev/null
  fi
  export PATH="$dir/node_modules/.bin:$PATH"
}

install() {
  ensure_pnpm
  echo "==> pnpm install"
  if [ "${CI:-}" = "true" ]; then pnpm install --frozen-lockfile; else pnpm install; fi
  echo "==> build (tsc -b)"
  npm run -s build
}

case "${1:-}" in
  install) install ;;
  start)
    install
    bash deploy/local/stack.sh up
    node deploy/local/services.cjs up
    echo "==> ingress: http://127.0.0.1:${INGRESS_PORT:-8080}  (token: npm run -s token)"
    ;;
  test)
    install
    bash deploy/local/test.sh
    ;;
  stop)
    node deploy/local/services.cjs down || true
    bash deploy/local/stack.sh down
    ;;
  *) echo "usage: $0 install|start|test|stop" >&2; exit 2 ;;
esac
