#!/usr/bin/env bash
# Makes sure Debian's `chromium` is installed: the browser the /docs e2e test
# (test/e2e/api-docs-browser.e2e.test.ts) drives through playwright-core. playwright-core never
# downloads a browser; the test launches this one by path (CHROMIUM_PATH, else `command -v chromium`).
# Idempotent: does nothing when chromium is already there. Installs with apt-get when it is missing
# and we are root (CI), through sudo -n when that works without a password, and otherwise stops
# with the command to run.
# Run from anywhere: bash deploy/local/ensure-chromium.sh
set -euo pipefail

found() {
  if [ -n "${CHROMIUM_PATH:-}" ]; then [ -x "$CHROMIUM_PATH" ]; else command -v chromium >/dev/null 2>&1; fi
}

if found; then
  echo "chromium: $("${CHROMIUM_PATH:-chromium}" --version 2>/dev/null || echo "${CHROMIUM_PATH:-chromium}")"
  exit 0
fi
if [ -n "${CHROMIUM_PATH:-}" ]; then
  echo "error: CHROMIUM_PATH=$CHROMIUM_PATH is not an executable file" >&2
  exit 1
fi

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  echo "error: the /docs browser test needs Debian's chromium package, which is not installed," >&2
  echo "       and installing it needs root. Run:  sudo apt-get update && sudo apt-get install -y chromium" >&2
  exit 1
fi
command -v apt-get >/dev/null 2>&1 || {
  echo "error: chromium is missing and there is no apt-get here; install a Chromium and set CHROMIUM_PATH to it" >&2
  exit 1
}

echo "==> installing chromium (apt-get; first run only)"
export DEBIAN_FRONTEND=noninteractive
# A mirror hiccup is retried once; the lock of a concurrent apt run is waited for.
for attempt in 1 2; do
  if "${as_root[@]}" apt-get -o DPkg::Lock::Timeout=300 update -qq &&
    "${as_root[@]}" apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends chromium; then
    break
  fi
  [ "$attempt" -eq 2 ] && { echo "error: apt-get could not install chromium" >&2; exit 1; }
  echo "apt-get failed; retrying in 10 s" >&2
  sleep 10
done
found || { echo "error: chromium is still not on the PATH after apt-get install" >&2; exit 1; }
echo "chromium: $(chromium --version 2>/dev/null || echo installed)"
