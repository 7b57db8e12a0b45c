#!/bin/sh
# One image, many processes: the first argument chooses what runs.
#   <service> [args]     ingress | customer | projector | callback | evaluation | screening | archive
#   admin <cmd> [args]   the messaging admin CLI, e.g. `admin init` (topics + event schemas)
#   replay [args]        rebuild projections from the customer event log
#   redeliver [args]     requeue dead-lettered callbacks (e.g. --business-unit BU)
#   healthcheck [path]   GET http://127.0.0.1:$PORT<path> (default /health/ready); exit 0 when 2xx
#   node|sh ...          escape hatch for debugging
# `exec` keeps the service as PID 1's direct replacement so SIGTERM reaches its shutdown hook.
set -eu
cd "${APP_DIR:-/app}"

# V8 does not size its heap from the container's memory limit: with CONTAINER_MEMORY_LIMIT_BYTES (the
# chart sets it from limits.memory) the heap may take NODE_HEAP_PERCENT (70) of it, the rest being
# buffers, code and the native side. An explicit --max-old-space-size in NODE_OPTIONS wins.
case " ${NODE_OPTIONS:-} " in
  *--max-old-space-size*) ;;
  *)
    limit="${CONTAINER_MEMORY_LIMIT_BYTES:-0}"
    case "$limit" in '' | *[!0-9]*) limit=0 ;; esac
    if [ "$limit" -gt 0 ]; then
      heap_mib=$((limit / 1048576 * ${NODE_HEAP_PERCENT:-70} / 100))
      [ "$heap_mib" -ge 64 ] || heap_mib=64
      export NODE_OPTIONS="${NODE_OPTIONS:+$NODE_OPTIONS }--max-old-space-size=$heap_mib"
    fi
    ;;
esac

usage() {
  echo "usage: $0 {ingress|customer|projector|callback|evaluation|screening|archive|admin <cmd>|replay|redeliver|healthcheck [path]|node ...|sh}" >&2
  exit 64
}

[ "$#" -gt 0 ] || usage
cmd="$1"
shift

case "$cmd" in
  ingress | customer | projector | callback | evaluation | screening | archive)
    export SERVICE_NAME="${SERVICE_NAME:-$cmd}"
    exec node "services/$cmd/dist/main.js" "$@"
    ;;
  admin)
    exec node packages/messaging/dist/cli/admin.js "$@"
    ;;
  replay)
    exec node services/projector/dist/cli/replay.js "$@"
    ;;
  redeliver)
    exec node services/callback/dist/cli/redeliver.js "$@"
    ;;
  healthcheck)
    # The ingress answers health on its API port; every other service on HEALTH_PORT.
    if [ "${SERVICE_NAME:-}" = "ingress" ]; then port="${HTTP_PORT:-8080}"; else port="${HEALTH_PORT:-9100}"; fi
    exec node -e '
      const url = process.argv[1];
      fetch(url, { signal: AbortSignal.timeout(3000) })
        .then((r) => process.exit(r.ok ? 0 : 1))
        .catch(() => process.exit(1));
    ' "http://127.0.0.1:${port}${1:-/health/ready}"
    ;;
  node | sh)
    exec "$cmd" "$@"
    ;;
  -h | --help | help)
    usage
    ;;
  *)
    echo "unknown command: $cmd" >&2
    usage
    ;;
esac
