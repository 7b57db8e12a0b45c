#!/usr/bin/env bash
# Schemathesis fuzz of the HTTP API, driven by the ingress's own /openapi.json, against an isolated
# system (namespace `fuzz`) on the local stack.
#   bash test/fuzz/run.sh [short|long]
# short: a few examples per operation, for CI (target under 3 minutes); long: many more, plus the
# stateful phase. Fails on any 5xx, on a response that does not match its documented schema, and on
# an undocumented status code. Schemathesis comes from PyPI only (pinned in requirements.txt) and is
# cached in ${XDG_CACHE_HOME:-~/.cache}/crs-tools/schemathesis-venv.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
MODE="${1:-short}"

case "$MODE" in
  short) EXAMPLES=20; PHASES=examples,coverage,fuzzing; LIMIT=360 ;;
  long) EXAMPLES=300; PHASES=examples,coverage,fuzzing,stateful; LIMIT=1800 ;;
  *) echo "usage: run.sh [short|long]" >&2; exit 2 ;;
esac

# One worker: schemathesis' coverage phase trips a CPython 3.11 AST error when run in several threads.
WORKERS="${FUZZ_WORKERS:-1}"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/crs-tools"
VENV="$CACHE/schemathesis-venv"
REQ="$ROOT/test/fuzz/requirements.txt"
STAMP="$VENV/.requirements-$(sha256sum "$REQ" | cut -c1-12)"
if [ ! -e "$STAMP" ]; then
  command -v python3 >/dev/null || { echo "python3 is required" >&2; exit 1; }
  echo "installing schemathesis into $VENV (first run only)"
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$REQ"
  touch "$STAMP"
fi

if [ -f .local/stack.env ]; then set -a; . .local/stack.env; set +a; fi
REPORT="$ROOT/.local/fuzz/$MODE"
rm -rf "$REPORT"
mkdir -p "$REPORT"

cleanup() { node "$ROOT/test/fuzz/cluster.cjs" down || true; }
trap cleanup EXIT
BASE="$(node test/fuzz/cluster.cjs up | tail -n1)"
TOKEN="$(node test/fuzz/cluster.cjs token)"
echo "fuzzing $BASE ($MODE: $EXAMPLES examples per operation, phases $PHASES, hard limit ${LIMIT}s)"
# Operations the document lists but this build does not route yet: not fuzzed, and said so.
EXCLUDE=()
while IFS= read -r path; do
  [ -n "$path" ] || continue
  echo "NOT FUZZED (no route in this ingress build): $path"
  EXCLUDE+=(--exclude-path "$path")
done < <(node test/fuzz/cluster.cjs unserved "$BASE")

rc=0
# Schemathesis keeps its example database in the working directory: keep it out of the repository.
cd "$REPORT"
timeout --signal=INT --kill-after=20 "$LIMIT" "$VENV/bin/schemathesis" run "$BASE/openapi.json" \
  --url "$BASE" \
  --header "Authorization: Bearer $TOKEN" \
  --checks not_a_server_error,response_schema_conformance,status_code_conformance,content_type_conformance \
  --mode all \
  --phases "$PHASES" \
  --max-examples "$EXAMPLES" \
  --workers "$WORKERS" \
  --seed "${FUZZ_SEED:-20240601}" \
  --request-timeout 30 \
  --suppress-health-check all \
  --no-color \
  --warnings off \
  --report ndjson,junit --report-dir "$REPORT" \
  "${EXCLUDE[@]}" \
  >"$REPORT/output.txt" 2>&1 || rc=$?

# The end of schemathesis' own report (failures first, then the summary).
cd "$ROOT"
tail -n 60 "$REPORT/output.txt"
node "$ROOT/test/fuzz/summary.cjs" "$REPORT" "$MODE"
if [ "$rc" -eq 124 ] || [ "$rc" -eq 130 ]; then echo "FAIL: the fuzz run hit its hard limit of ${LIMIT}s" >&2; exit 1; fi
if [ "$rc" -ne 0 ]; then echo "FAIL: schemathesis found problems (exit $rc); full output in $REPORT/output.txt" >&2; exit 1; fi
echo "PASS: no 5xx, no schema or status nonconformance"
