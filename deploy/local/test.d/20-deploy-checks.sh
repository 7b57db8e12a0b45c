#!/usr/bin/env bash
# Offline checks of everything under deploy/: Helm chart (lint, render, Kubernetes schemas,
# security invariants, replica limits, documented values), Grafana dashboard, alert rules,
# compose file, image entrypoint. Needs go, python3 and network access to the Go module
# proxy and PyPI on the first run only; tools are cached in
# ${XDG_CACHE_HOME:-~/.cache}/crs-tools/, so later runs take a few seconds.
# Run from anywhere: bash deploy/local/test.d/20-deploy-checks.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$ROOT"

CHART=deploy/helm/customer-risk
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/crs-tools"
# Oldest Kubernetes the chart supports (Chart.yaml kubeVersion) and the newest the validator knows.
KUBE_VERSIONS=(1.27.0 1.35.0)
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$CACHE"

step() { printf '\n==> %s\n' "$*"; }
fail() { printf 'FAIL %s\n' "$*" >&2; exit 1; }
need() { command -v "$1" >/dev/null 2>&1 || fail "'$1' is required: $2"; }

start=$(date +%s)

# ---- tools ------------------------------------------------------------------------------
need go "the Helm CLI and compose-check are built from deploy/tools/*/go.mod"
need python3 "kubernetes-validate runs in a cached venv"

# Build a Go tool from its pinned module into the cache; the go.sum digest is part of the
# name, so a version bump rebuilds and an unchanged pin never does.
go_tool() {
  local dir="$1" pkg="$2" name="$3" ldflags="${4:-}"
  local version sum bin
  version="$(awk -v m="$5" '$1 == m || ($1 == "require" && $2 == m) { print ($1 == "require" ? $3 : $2) }' "$dir/go.mod" | head -n1)"
  sum="$(cat "$dir/go.mod" "$dir/go.sum" "$dir"/*.go 2>/dev/null | sha256sum | cut -c1-12)"
  bin="$CACHE/$name-$version-$sum"
  if [ ! -x "$bin" ]; then
    echo "building $name $version (first run only; cached as $bin)" >&2
    (cd "$dir" && GOTOOLCHAIN=local GOFLAGS=-mod=readonly CGO_ENABLED=0 \
      go build -trimpath -ldflags "-s -w $ldflags" -o "$bin.tmp" "$pkg") >&2
    mv "$bin.tmp" "$bin"
  fi
  printf '%s\n' "$bin"
}

step "tools"
helm_version="$(awk '$1 == "require" && $2 == "helm.sh/helm/v3" { print $3 }' deploy/tools/helm/go.mod)"
k8s_minor="$(awk '$1 == "k8s.io/client-go" { split($2, v, "."); print v[2] }' deploy/tools/helm/go.mod)"
# The ldflags the helm Makefile sets: version string and default Kubernetes version.
HELM="$(go_tool deploy/tools/helm helm.sh/helm/v3/cmd/helm helm \
  "-X helm.sh/helm/v3/internal/version.version=$helm_version \
   -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=$k8s_minor \
   -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=$k8s_minor" \
  helm.sh/helm/v3)"
"$HELM" version --short

VENV="$CACHE/venv-$(sha256sum deploy/tools/kubernetes-validate/requirements.txt | cut -c1-12)"
if [ ! -x "$VENV/bin/kubernetes-validate" ]; then
  echo "installing kubernetes-validate into $VENV (first run only)"
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check -r deploy/tools/kubernetes-validate/requirements.txt
fi
PY="$VENV/bin/python"
echo "kubernetes-validate $("$VENV/bin/kubernetes-validate" --version 2>&1 | tail -n1)"

# ---- chart ------------------------------------------------------------------------------
step "chart values: @param docs, values.schema.json, README tables"
"$PY" deploy/tools/deploy_checks.py params "$CHART"
"$PY" deploy/tools/deploy_checks.py readme "$CHART"

scenarios=("$CHART"/ci/*-values.yaml)
[ "${#scenarios[@]}" -gt 0 ] || fail "no scenario files in $CHART/ci/"
for scenario in "${scenarios[@]}"; do
  name="$(basename "$scenario" .yaml)"
  step "scenario $name: helm lint --strict, helm template, Kubernetes schemas"
  "$HELM" lint --strict --quiet "$CHART" --namespace crs -f "$scenario" | { grep -v '^$' || true; }
  "$HELM" template crs "$CHART" --namespace crs -f "$scenario" > "$WORK/$name.yaml"
  echo "rendered $(grep -c '^kind:' "$WORK/$name.yaml") objects: $(grep '^kind:' "$WORK/$name.yaml" | sort | uniq -c | awk '{printf "%s %s, ", $1, $3}')"
  for kube in "${KUBE_VERSIONS[@]}"; do
    # --strict rejects unknown fields. The validator has no schema for the Prometheus
    # Operator CRDs (ServiceMonitor, PrometheusRule): it warns and skips them; the rules
    # get their own check below.
    out="$("$VENV/bin/kubernetes-validate" --strict --kubernetes-version "$kube" "$WORK/$name.yaml" 2>&1)" \
      || { printf '%s\n' "$out" | grep -v '^INFO' >&2; fail "$name does not validate against Kubernetes $kube"; }
    skipped="$(printf '%s\n' "$out" | grep -c "Couldn't find schema" || true)"
    echo "ok   Kubernetes $kube schemas ($(printf '%s\n' "$out" | grep -c ' passed ') passed, $skipped CRDs skipped)"
  done
  "$PY" deploy/tools/deploy_checks.py manifests "$WORK/$name.yaml"
done

step "chart guards: values the chart must refuse"
expect_refusal() {
  local why="$1" values="$2" pattern="$3"
  printf '%s\n' "$values" > "$WORK/bad.yaml"
  if out="$("$HELM" template crs "$CHART" -f "$CHART/ci/default-values.yaml" -f "$WORK/bad.yaml" 2>&1)"; then
    fail "chart accepted $why"
  fi
  printf '%s\n' "$out" | grep -q -- "$pattern" || { printf '%s\n' "$out" >&2; fail "chart refused $why for another reason"; }
  echo "ok   refuses $why"
}
expect_refusal "consumer replicas above the partition count" \
  'services: {projector: {replicaCount: 7}}' "exceeds topics.partitions"
expect_refusal "an HPA maxReplicas above the partition count" \
  $'topics: {partitions: 3}\nservices: {screening: {autoscaling: {enabled: true, minReplicas: 1, maxReplicas: 4}}}' "exceeds topics.partitions"
expect_refusal "an unknown value (schema)" 'replicas: 3' "additional properties"
expect_refusal "an unknown SASL mechanism (schema)" 'kafka: {sasl: {mechanism: gssapi}}' "value must be one of"
expect_refusal "an ingress without token keys" 'auth: {jwks: {url: ""}}' "auth.jwks"
expect_refusal "personal data without a key-encryption key set" \
  'privacy: {kek: {existingSecret: ""}}' "privacy.kek.existingSecret"
expect_refusal "a grace period shorter than the shutdown timeout" \
  'services: {customer: {terminationGracePeriodSeconds: 10}}' "terminationGracePeriodSeconds"
expect_refusal "per-service Kafka principals without a SCRAM mechanism" \
  'kafka: {principals: {enabled: true, existingSecret: crs-kafka-principals}}' "kafka.principals: per-service"
expect_refusal "per-service Kafka principals without a password source" \
  'kafka: {sasl: {mechanism: scram-sha-512}, principals: {enabled: true}}' "kafka.principals.existingSecret"

step "monitoring: PrometheusRule and Grafana dashboard"
"$PY" deploy/tools/deploy_checks.py rules "$WORK/full-values.yaml" docs/operations.md
"$PY" deploy/tools/deploy_checks.py dashboard "$CHART/dashboards/crs-overview.json"
grep -q 'grafana_dashboard' "$WORK/full-values.yaml" || fail "dashboard ConfigMap lacks the grafana_dashboard label"
echo "ok   dashboard ConfigMap carries the grafana_dashboard label"

# ---- compose ----------------------------------------------------------------------------
step "compose file"
if docker compose version >/dev/null 2>&1; then
  docker compose -f deploy/compose/compose.yaml config -q
  echo "ok   docker compose config -q"
  docker compose -f deploy/compose/compose.yaml config > "$WORK/compose.yaml"
else
  # Same loader as `docker compose config` (compose-go): schema, interpolation, references.
  echo "docker compose is not available; validating with compose-go (deploy/tools/compose-check)"
  COMPOSE_CHECK="$(go_tool deploy/tools/compose-check . compose-check "" github.com/compose-spec/compose-go/v2)"
  "$COMPOSE_CHECK" deploy/compose/compose.yaml
  "$COMPOSE_CHECK" -print deploy/compose/compose.yaml > "$WORK/compose.yaml"
fi
"$PY" deploy/tools/deploy_checks.py compose "$WORK/compose.yaml"

# ---- image ------------------------------------------------------------------------------
step "image: Dockerfile and entrypoint (static; building needs a Docker engine)"
sh -n deploy/docker/entrypoint.sh
for svc in ingress customer projector callback evaluation screening archive; do
  grep -qE "(^|[ |])$svc([ |)]|$)" deploy/docker/entrypoint.sh || fail "entrypoint does not know $svc"
done
grep -q '^USER [0-9]' deploy/docker/Dockerfile || fail "Dockerfile must switch to a numeric non-root USER"
grep -q 'NODE_ENV=production' deploy/docker/Dockerfile || fail "Dockerfile must set NODE_ENV=production"
grep -q 'node:20-bookworm-slim' deploy/docker/Dockerfile || fail "Dockerfile must build on node:20-bookworm-slim"
echo "ok   entrypoint parses and routes every service; Dockerfile has a numeric USER, NODE_ENV=production"
# The heap sizing: --max-old-space-size from the container's memory limit, unless NODE_OPTIONS has one.
heap_options() { env -u NODE_OPTIONS "$@" APP_DIR="$PWD" sh deploy/docker/entrypoint.sh node -e 'process.stdout.write(process.env.NODE_OPTIONS || "")'; }
[ "$(heap_options CONTAINER_MEMORY_LIMIT_BYTES=536870912)" = "--max-old-space-size=358" ] \
  || fail "entrypoint does not size the heap at 70 % of a 512Mi limit"
[ "$(heap_options CONTAINER_MEMORY_LIMIT_BYTES=536870912 NODE_OPTIONS=--enable-source-maps)" = "--enable-source-maps --max-old-space-size=358" ] \
  || fail "entrypoint drops the image's NODE_OPTIONS"
[ "$(heap_options CONTAINER_MEMORY_LIMIT_BYTES=536870912 NODE_OPTIONS=--max-old-space-size=1000)" = "--max-old-space-size=1000" ] \
  || fail "entrypoint overrides an explicit --max-old-space-size"
[ -z "$(heap_options)" ] || fail "entrypoint sets a heap size without a memory limit"
[ "$(grep -c 'name: CONTAINER_MEMORY_LIMIT_BYTES' "$WORK/default-values.yaml")" -ge 6 ] \
  || fail "the chart does not pass limits.memory to every service"
echo "ok   entrypoint sizes V8's heap from the chart's memory limit (70 %), an explicit size wins"
if docker info >/dev/null 2>&1 && docker buildx version >/dev/null 2>&1; then
  docker buildx build --check -f deploy/docker/Dockerfile . && echo "ok   docker buildx build --check"
else
  echo "skip docker buildx build --check (no Docker engine here)"
fi

printf '\nall deploy checks passed in %ss\n' "$(( $(date +%s) - start ))"
