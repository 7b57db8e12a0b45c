#!/usr/bin/env bash
# Short fault run (test/fault/run.sh short; docs/reliability.md, "Faults"): on its own second stack
# (.local/fault-stack, other ports), a paced stream of imports while each consumer is SIGKILLed, the
# broker and the database are stopped, and the callback receiver is down, slow or failing; then every
# accepted request is checked: nothing lost, nothing doubled, one callback per ce-id, projections
# equal to a replay. The long version is part of `npm run test:long`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
exec bash "$ROOT/test/fault/run.sh" short
