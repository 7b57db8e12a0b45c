#!/usr/bin/env bash
# The whole test pipeline behind `npm test` (run by bootstrap.sh after install and build):
#   1. lint (tests type-checked, dependency-cruiser and eslint: architecture guards; prettier --check)
#      and unit tests (need nothing running);
#      chromium for the /docs browser test (ensure-chromium.sh: apt-get install when missing)
#   2. the local stack                 (stack.sh up; only what was not running already)
#   3. integration and e2e tests       (against the stack, one file at a time)
#   4. extra suites deploy/local/test.d/*.sh, in name order (deploy checks, short fuzz, short fault run)
# and, whatever happens, stops what step 2 started and checks that none of it is left running.
# The last line is "N passed, M failed" over these steps; the exit status is 0 only if none failed.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

STACK="$ROOT/deploy/local/stack.sh"
COMPONENTS=(kafka registry ferretdb)

if ! command -v pnpm >/dev/null 2>&1; then
  for dir in "$ROOT"/.tools/pnpm-*/node_modules/.bin; do
    [ -x "$dir/pnpm" ] && PATH="$dir:$PATH"
  done
  command -v pnpm >/dev/null 2>&1 || { echo "error: pnpm not found; run 'npm run setup' (bash deploy/local/bootstrap.sh install) first" >&2; exit 1; }
fi

passed=0
failed=0
results=()
started_components=()
teardown_done=0
current_step=""

step() {
  local name="$1"; shift
  local t0="$SECONDS" rc=0
  printf '\n==> [%s] %s\n' "$name" "$*"
  current_step="$name"
  "$@" || rc=$?
  current_step=""
  if [ "$rc" -eq 0 ]; then
    passed=$((passed + 1))
    results+=("PASS  $name ($((SECONDS - t0))s)")
  else
    failed=$((failed + 1))
    results+=("FAIL  $name ($((SECONDS - t0))s, exit $rc)")
  fi
  return "$rc"
}

not_run() {
  failed=$((failed + 1))
  results+=("FAIL  $1 (not run: $2)")
}

# Reads the status once: grep -q on a live pipe would end it early, and pipefail would report
# the writer's SIGPIPE as "not running".
component_running() {
  local status
  status="$(bash "$STACK" status 2>/dev/null || true)"
  grep -Eq "^$1 +(up|not answering) " <<<"$status"
}

stack_up() {
  local c before=()
  for c in "${COMPONENTS[@]}"; do component_running "$c" && before+=("$c"); done
  local rc=0
  bash "$STACK" up || rc=$?
  # Whatever was not running before is ours to stop, even if `up` failed half-way.
  for c in "${COMPONENTS[@]}"; do
    [[ " ${before[*]-} " == *" $c "* ]] || started_components+=("$c")
  done
  if [ "${#started_components[@]}" -eq 0 ]; then echo "(stack was already running: it stays up)"; fi
  return "$rc"
}

our_processes() {
  pgrep -af -- "crs\.stack\.home=$ROOT/\.local |--state-dir=$ROOT/\.local/ferretdb" || true
}

stack_teardown() {
  local c
  if [ "${#started_components[@]}" -eq "${#COMPONENTS[@]}" ]; then
    bash "$STACK" down || return 1
    local left; left="$(our_processes)"
    if [ -n "$left" ]; then
      echo "error: processes of the stack are still running after stack.sh down:" >&2
      echo "$left" >&2
      return 1
    fi
  else
    for c in "${started_components[@]}"; do bash "$STACK" stop "$c" || return 1; done
    for c in "${started_components[@]}"; do
      if component_running "$c"; then echo "error: $c still running after stack.sh stop $c" >&2; return 1; fi
    done
  fi
}

finish() {
  local rc=$?
  [ "$teardown_done" -eq 1 ] && return
  teardown_done=1
  trap - INT TERM
  if [ -n "$current_step" ]; then
    failed=$((failed + 1))
    results+=("FAIL  $current_step (interrupted)")
    current_step=""
  fi
  # Services that a crashed suite left running (any namespace) go before the stack does.
  node "$ROOT/deploy/local/services.cjs" down-all || true
  if [ "${#started_components[@]}" -gt 0 ]; then
    step "stack down" stack_teardown || true
  fi
  printf '\n==> summary\n'
  printf '  %s\n' "${results[@]}"
  echo "$passed passed, $failed failed"
  if [ "$failed" -gt 0 ]; then exit 1; fi
  exit "$rc"
}
trap finish EXIT
trap 'echo "interrupted" >&2; exit 130' INT TERM

step "contracts up to date" pnpm run -s gen:check
step "lint" pnpm run -s lint
step "unit" pnpm exec jest --selectProjects unit --passWithNoTests
# The /docs e2e test drives Debian's chromium; installed here (apt-get, first run only) when missing.
step "chromium" bash "$ROOT/deploy/local/ensure-chromium.sh"

if step "stack up" stack_up; then
  # --forceExit: a connection a test forgot to close must fail nothing and must not hang CI until its
  # time limit (it did once); suites close what they open, and `npm run test:int`/`test:e2e` run without it.
  step "integration + e2e" pnpm exec jest --selectProjects integration e2e --runInBand --passWithNoTests --forceExit
  for suite in "$ROOT"/deploy/local/test.d/*.sh; do
    [ -e "$suite" ] || continue
    step "$(basename "$suite")" bash "$suite"
  done
else
  not_run "integration + e2e" "the stack did not come up"
  for suite in "$ROOT"/deploy/local/test.d/*.sh; do
    [ -e "$suite" ] && not_run "$(basename "$suite")" "the stack did not come up"
  done
fi
exit 0
