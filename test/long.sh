#!/usr/bin/env bash
# `npm run test:long`: the long reliability run (docs/reliability.md) in one command, with one summary.
#   1. attack matrix and hostile input (test/e2e/api-auth-attacks, api-hostile-input) on the local stack
#   2. long schemathesis fuzz of the whole API (test/fuzz/run.sh long, with the stateful phase)
#   3. long fault suite on its own second stack (test/fault/run.sh long: 2,000 requests per scenario)
# Starts the local stack if it is not running and stops what it started. Takes about 50 minutes on 2 cores.
# The last line is "N passed, M failed" over the three parts; exit status 0 only if none failed.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
if ! command -v pnpm >/dev/null 2>&1; then
  for dir in "$ROOT"/.tools/pnpm-*/node_modules/.bin; do [ -x "$dir/pnpm" ] && PATH="$dir:$PATH"; done
fi
command -v pnpm >/dev/null 2>&1 || { echo "error: pnpm not found; run 'npm run setup' first" >&2; exit 1; }

OUT="$ROOT/.local/long"
rm -rf "$OUT"; mkdir -p "$OUT"
STACK="$ROOT/deploy/local/stack.sh"
started=0
if ! bash "$STACK" status >/dev/null 2>&1; then
  started=1
  bash "$STACK" up || exit 1
fi
cleanup() {
  node "$ROOT/deploy/local/services.cjs" down-all >/dev/null 2>&1 || true
  [ "$started" -eq 1 ] && bash "$STACK" down
}
trap cleanup EXIT

passed=0; failed=0; lines=()
part() {
  local name="$1" log="$2"; shift 2
  printf '\n==> %s\n' "$name"
  if "$@" 2>&1 | tee "$log"; then passed=$((passed + 1)); lines+=("PASS  $name"); else failed=$((failed + 1)); lines+=("FAIL  $name"); fi
}

part "attack matrix + hostile input" "$OUT/attacks.log" pnpm exec jest --selectProjects e2e --runInBand --forceExit \
  --json --outputFile "$OUT/attacks.json" test/e2e/api-auth-attacks.e2e.test.ts test/e2e/api-hostile-input.e2e.test.ts
part "fuzz (long)" "$OUT/fuzz.log" bash test/fuzz/run.sh long
part "fault suite (long)" "$OUT/fault.log" bash test/fault/run.sh long

printf '\n==> summary of the long run\n'
node -e '
  const fs = require("node:fs");
  const out = process.argv[1];
  const read = (f) => (fs.existsSync(f) ? fs.readFileSync(f, "utf8") : "");
  let attacks = "attack matrix + hostile input: no result";
  try {
    const j = JSON.parse(read(out + "/attacks.json"));
    attacks = `attack matrix + hostile input: ${j.numTotalTests} cases, ${j.numPassedTests} passed, ${j.numFailedTests} failed`;
  } catch {}
  const fuzz = (read(out + "/fuzz.log").match(/^fuzz summary.*$/m) || ["fuzz: no summary"])[0];
  const fault = (read(out + "/fault.log").match(/^cases \d+, requests.*$/m) || ["fault suite: no summary"])[0];
  console.log("  " + attacks + "\n  " + fuzz + "\n  fault suite: " + fault);
' "$OUT"
printf '  %s\n' "${lines[@]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
