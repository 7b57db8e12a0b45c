#!/usr/bin/env bash
# The fault suite (docs/reliability.md, "Faults") on its own second stack, never the shared one:
#   bash test/fault/run.sh [short|long]
# short: ~80 requests per scenario, each consumer killed once, one outage each (CI; a few minutes);
# long: 2,000 requests per scenario, every consumer killed three times, three outages each (~30 min).
# Brings the fault stack up (own data, logs and ports under .local/fault-stack) unless it is already
# running, runs the scenarios (test/fault/faults.fault.test.ts), prints the summary, and stops what it
# started whatever happens. Exit status 0 only if every scenario ran and nothing was lost or doubled.
# FAULT_SCENARIOS=consumer-crash,broker-outage,database-outage,callback-receiver runs a subset.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
MODE="${1:-short}"
case "$MODE" in
  short) LIMIT=1500 ;;
  long) LIMIT=3000 ;;
  *) echo "usage: run.sh [short|long]" >&2; exit 2 ;;
esac
SCENARIOS=(consumer-crash broker-outage database-outage callback-receiver)

if ! command -v pnpm >/dev/null 2>&1; then
  for dir in "$ROOT"/.tools/pnpm-*/node_modules/.bin; do [ -x "$dir/pnpm" ] && PATH="$dir:$PATH"; done
fi
command -v pnpm >/dev/null 2>&1 || { echo "error: pnpm not found; run 'npm run setup' first" >&2; exit 1; }
for svc in customer projector callback screening archive ingress; do
  [ -f "services/$svc/dist/main.js" ] || { echo "error: services/$svc/dist is missing: run 'npm run build' first" >&2; exit 1; }
done

# The second stack: its own directory and ports, so stopping its broker or database never touches
# the shared stack that other suites use at the same time.
export STACK_LOCAL_DIR="$ROOT/.local/fault-stack"
export STACK_KAFKA_PORT="${FAULT_KAFKA_PORT:-29092}" STACK_KAFKA_CONTROLLER_PORT="${FAULT_KAFKA_CONTROLLER_PORT:-29093}"
export STACK_REGISTRY_PORT="${FAULT_REGISTRY_PORT:-28081}"
export STACK_FERRETDB_PORT="${FAULT_FERRETDB_PORT:-27028}" STACK_FERRETDB_DEBUG_PORT="${FAULT_FERRETDB_DEBUG_PORT:-28088}"
STACK="$ROOT/deploy/local/stack.sh"
RESULTS="$ROOT/.local/fault-results/$MODE"

started_stack=0
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  # Services of the fault namespace a crashed run left behind go before their stack does.
  node -e '
    const l = require(process.argv[1]);
    (async () => { for (const s of ["ingress", "callback", "archive", "screening", "evaluation", "projector", "customer"]) await l.stopService(s, { namespace: "fault" }); })()
      .catch((e) => { console.error(e.message); process.exit(1); });
  ' "$ROOT/deploy/local/services.cjs" || true
  if [ "$started_stack" -eq 1 ]; then
    echo "==> stopping the fault stack"
    bash "$STACK" down || rc=1
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'echo "interrupted" >&2; exit 130' INT TERM

if bash "$STACK" status >/dev/null 2>&1; then
  echo "==> fault stack already running: using it (and leaving it up)"
else
  started_stack=1
  # Nothing of ours runs: a fresh stack, so the run sees only its own topics, groups and data.
  bash "$STACK" down >/dev/null 2>&1 || true
  rm -rf "$STACK_LOCAL_DIR/kafka" "$STACK_LOCAL_DIR/ferretdb" "$STACK_LOCAL_DIR/registry"
  echo "==> starting the fault stack ($STACK_LOCAL_DIR)"
  bash "$STACK" up || exit 1
fi
set -a
. "$STACK_LOCAL_DIR/stack.env"
set +a

rm -rf "$RESULTS"
mkdir -p "$RESULTS"
echo "==> fault scenarios ($MODE; hard limit ${LIMIT}s)"
t0=$SECONDS
rc=0
FAULT_MODE="$MODE" FAULT_RESULTS_DIR="$RESULTS" timeout --signal=TERM --kill-after=30 "$LIMIT" \
  pnpm exec jest -c test/fault/jest.config.cjs --runInBand --forceExit || rc=$?
[ "$rc" -eq 124 ] && echo "FAIL: the fault suite hit its hard limit of ${LIMIT}s" >&2

expected=("${SCENARIOS[@]}")
if [ -n "${FAULT_SCENARIOS:-}" ]; then IFS=, read -r -a expected <<<"$FAULT_SCENARIOS"; fi
echo
node test/fault/summary.cjs "$RESULTS" "$MODE" "${expected[@]}" || rc=1
echo "total $((SECONDS - t0))s (scenarios), results in $RESULTS"
exit "$rc"
