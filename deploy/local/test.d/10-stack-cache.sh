#!/usr/bin/env bash
# The stack's downloads and builds are cached once per machine ($STACK_CACHE_DIR, ~/.cache/crs-stack) and
# shared by every checkout, whose own stack.lock does not cover the cache. Two checkouts fetching at once
# must both succeed with one download of each component between them and a complete home left behind,
# not two downloads replacing each other's directories (stack.sh's cache locks). Runs after the stack's
# first start, so Maven's local repository already holds the artifacts: about ten seconds.
# Run from anywhere: bash deploy/local/test.d/10-stack-cache.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
STACK="$ROOT/deploy/local/stack.sh"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

fail() {
  printf 'FAIL %s\n' "$*" >&2
  for side in a b; do [ -f "$WORK/$side.out" ] && sed "s/^/  [$side] /" "$WORK/$side.out" >&2; done
  exit 1
}

# Two checkouts, as far as stack.sh can tell: their own .local directories, one cache.
pids=()
for side in a b; do
  STACK_CACHE_DIR="$WORK/cache" STACK_LOCAL_DIR="$WORK/$side" bash "$STACK" fetch kafka registry >"$WORK/$side.out" 2>&1 &
  pids+=("$!")
done
for i in 0 1; do wait "${pids[$i]}" || fail "stack.sh fetch of checkout $([ "$i" -eq 0 ] && echo a || echo b) failed"; done

count() { cat "$WORK/a.out" "$WORK/b.out" | grep -c "$1" || true; }
[ "$(count 'downloading Kafka')" -eq 1 ] || fail "Kafka was downloaded $(count 'downloading Kafka') times, not once"
[ "$(count 'downloading Apicurio')" -eq 1 ] || fail "Apicurio Registry was downloaded $(count 'downloading Apicurio') times, not once"

kafka=("$WORK"/cache/kafka-*)
registry=("$WORK"/cache/apicurio-registry-*)
[ "${#kafka[@]}" -eq 1 ] && [ -f "${kafka[0]}/.complete" ] || fail "no complete Kafka home in the cache: $(ls -A "$WORK/cache")"
compgen -G "${kafka[0]}/libs/kafka_2.13-*.jar" >/dev/null || fail "the Kafka home has no broker jar"
[ "${#registry[@]}" -eq 1 ] && [ -f "${registry[0]}/.complete" ] || fail "no complete Apicurio home in the cache: $(ls -A "$WORK/cache")"
compgen -G "${registry[0]}/apicurio-registry-app-*-runner.jar" >/dev/null || fail "the Apicurio home has no runner jar"
# Nothing half-done left behind (each download goes through a temporary directory of its own).
leftovers="$(find "$WORK/cache" -maxdepth 1 -name '.tmp-*')"
[ -z "$leftovers" ] || fail "temporary directories left in the cache: $leftovers"
echo "two checkouts fetched at once: one download of each component, both complete"
