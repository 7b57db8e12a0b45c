#!/usr/bin/env bash
# Short schemathesis fuzz of the HTTP API (test/fuzz/run.sh short; target under 3 minutes): an
# isolated system in namespace `fuzz` on the local stack, every operation of /openapi.json with
# positive and negative data. Fails on any 5xx, any response that does not match its documented
# schema, and any undocumented status code. Needs python3 and PyPI on the first run only
# (schemathesis is cached in ${XDG_CACHE_HOME:-~/.cache}/crs-tools/schemathesis-venv).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
exec bash "$ROOT/test/fuzz/run.sh" short
