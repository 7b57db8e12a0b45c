#!/usr/bin/env python3
"""Offline checks of the Helm chart, its rendered manifests, the dashboard and the compose file.

Run by deploy/local/test.d/20-deploy-checks.sh with the cached venv's python (needs PyYAML).
Every subcommand prints what it checked and exits non-zero with the list of problems.

  params   CHART                 every values.yaml leaf has a `## @param`, every @param exists,
                                 values.schema.json declares exactly the keys of values.yaml
  readme   CHART [--write]       the README parameter tables match the @param comments
  manifests RENDERED.yaml...     security context, /tmp, probes, resources on every workload;
                                 the ingress reaches the screening and callback APIs
                                 (SCREENING_API_URL, CALLBACK_API_URL at their Services,
                                 NetworkPolicies admit it, both services have auth)
  rules    RENDERED.yaml DOC     PrometheusRule expressions use known metrics; every alert has
                                 a section in the runbook DOC
  dashboard DASHBOARD.json       JSON parses; every query uses known metrics
  compose  RESOLVED.yaml         published ports bind to 127.0.0.1; services have healthchecks;
                                 the ingress's SCREENING_API_URL and CALLBACK_API_URL point at
                                 the screening and callback services
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import yaml

# The metric contract of the services (prom-client names), plus what Prometheus and
# prom-client add on their own. Histograms are matched on their base name.
SERVICE_METRICS = {
    "http_request_duration_seconds",
    "kafka_consumer_lag",
    "stream_reader_stalled_seconds",
    "kafka_batch_stalled_seconds",
    "message_processing_duration_seconds",
    "callback_deliveries_total",
    "callback_delivery_duration_seconds",
    "callback_dead_letters_total",
    "reservations_unreleased",
    "screening_duration_seconds",
    "evaluation_duration_seconds",
    "screening_list_snapshot_age_seconds",
    "commands_rejected_total",
}
DEFAULT_METRIC_PREFIXES = ("process_", "nodejs_")  # prom-client collectDefaultMetrics()
PROMETHEUS_METRICS = {"up"}
# Only the pods-not-ready alert reads kube-state-metrics (metrics.prometheusRule.kubeStateMetrics).
KUBE_STATE_METRICS = {"kube_deployment_status_replicas_available", "kube_deployment_spec_replicas"}

PROMQL_WORDS = {
    "by", "without", "and", "or", "unless", "on", "ignoring", "group_left", "group_right",
    "bool", "offset", "inf", "nan", "le",
}

problems: list[str] = []


def problem(msg: str) -> None:
    problems.append(msg)


def done(what: str) -> int:
    if problems:
        print(f"FAIL {what}:")
        for p in problems:
            print(f"  - {p}")
        return 1
    print(f"ok   {what}")
    return 0


# ---------------------------------------------------------------- values, @param, schema

PARAM_RE = re.compile(r"^\s*## @param (\S+)(?: \[[^\]]*\])? ?(.*)$")
SECTION_RE = re.compile(r"^\s*## @section (.+)$")


def leaves(node, prefix=""):
    """Paths of values.yaml; maps and lists given as a whole value are leaves too."""
    if isinstance(node, dict) and node:
        for k, v in node.items():
            yield from leaves(v, f"{prefix}.{k}" if prefix else str(k))
    else:
        yield prefix


def parse_params(values_file: Path):
    sections: list[tuple[str, list[tuple[str, str]]]] = [("Parameters", [])]
    for line in values_file.read_text().splitlines():
        if m := SECTION_RE.match(line):
            sections.append((m.group(1).strip(), []))
        elif m := PARAM_RE.match(line):
            sections[-1][1].append((m.group(1), m.group(2).strip()))
    return [s for s in sections if s[1]]


def lookup(values, path):
    node = values
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            raise KeyError(path)
        node = node[part]
    return node


def schema_paths(schema, prefix="", defs=None):
    defs = defs if defs is not None else schema.get("definitions", {})
    if "$ref" in schema:
        schema = defs[schema["$ref"].split("/")[-1]]
    props = schema.get("properties")
    if schema.get("type") == "object" and props is not None:
        for k, sub in props.items():
            path = f"{prefix}.{k}" if prefix else k
            yield path
            yield from schema_paths(sub, path, defs)


def cmd_params(chart: Path) -> int:
    values_file = chart / "values.yaml"
    values = yaml.safe_load(values_file.read_text())
    params = [p for _, ps in parse_params(values_file) for p in ps]
    documented = {p for p, _ in params}
    for p, desc in params:
        try:
            lookup(values, p)
        except KeyError:
            problem(f"@param {p} documents a key that values.yaml does not have")
        if not desc:
            problem(f"@param {p} has no description")
    for leaf in leaves(values):
        parts = leaf.split(".")
        if not any(".".join(parts[:i]) in documented for i in range(1, len(parts) + 1)):
            problem(f"values.yaml key {leaf} has no ## @param (on itself or a parent)")
    dupes = {p for p in documented if [q for q, _ in params].count(p) > 1}
    for d in sorted(dupes):
        problem(f"@param {d} is documented twice")

    schema = json.loads((chart / "values.schema.json").read_text())
    if schema.get("$schema") != "http://json-schema.org/draft-07/schema#":
        problem("values.schema.json must declare draft-07 ($schema)")
    declared = set(schema_paths(schema))
    # Every key of values.yaml down to the documented level must be declared in the schema.
    for p in documented:
        if p not in declared:
            problem(f"values.schema.json does not declare {p}")
    for p in declared:
        try:
            lookup(values, p)
        except KeyError:
            problem(f"values.schema.json declares {p}, which values.yaml does not have")
    print(f"     {len(documented)} @param entries, {len(declared)} schema properties")
    return done(f"{values_file}: @param and values.schema.json cover every value")


# ---------------------------------------------------------------- README tables

README_BEGIN = "<!-- parameters:begin (generated from values.yaml by deploy/tools/deploy_checks.py readme --write) -->"
README_END = "<!-- parameters:end -->"


def render_tables(chart: Path) -> str:
    values = yaml.safe_load((chart / "values.yaml").read_text())
    out = [README_BEGIN, ""]
    for title, params in parse_params(chart / "values.yaml"):
        out += [f"### {title}", "", "| Name | Description | Default |", "| --- | --- | --- |"]
        for name, desc in params:
            default = lookup(values, name)
            shown = json.dumps(default, separators=(",", ":")) if not isinstance(default, str) else f'"{default}"'
            shown = shown.replace("|", "\\|")
            if len(shown) > 60:
                shown = shown[:57] + "..."
            cell = desc.replace("|", "\\|")
            out.append(f"| `{name}` | {cell} | `{shown}` |")
        out.append("")
    out.append(README_END)
    return "\n".join(out)


def cmd_readme(chart: Path, write: bool) -> int:
    readme = chart / "README.md"
    text = readme.read_text()
    if README_BEGIN not in text or README_END not in text:
        problem(f"{readme} lacks the parameters markers")
        return done(f"{readme}: parameter tables")
    start, end = text.index(README_BEGIN), text.index(README_END) + len(README_END)
    want = render_tables(chart)

    def norm(block: str) -> list[str]:
        # Prettier pads table columns; compare the cells, not the padding.
        return [re.sub(r"-{3,}", "---", re.sub(r"\s+", " ", line)).strip() for line in block.splitlines()]

    if norm(text[start:end]) != norm(want):
        if write:
            readme.write_text(text[:start] + want + text[end:])
            print(f"wrote {readme} (run prettier --write on it to align the tables)")
        else:
            problem(f"{readme} parameter tables are stale: run python3 deploy/tools/deploy_checks.py readme {chart} --write")
    return done(f"{readme}: parameter tables match values.yaml")


# ---------------------------------------------------------------- rendered manifests

def load_docs(paths):
    docs = []
    for p in paths:
        docs += [d for d in yaml.safe_load_all(Path(p).read_text()) if d]
    return docs


def cmd_manifests(paths) -> int:
    docs = load_docs(paths)
    workloads = 0
    for d in docs:
        kind, name = d["kind"], d["metadata"]["name"]
        if kind not in ("Deployment", "Job"):
            continue
        workloads += 1
        pod = d["spec"]["template"]["spec"]
        psc = pod.get("securityContext", {})
        if psc.get("runAsNonRoot") is not True:
            problem(f"{kind}/{name}: pod runAsNonRoot is not true")
        if psc.get("seccompProfile", {}).get("type") != "RuntimeDefault":
            problem(f"{kind}/{name}: pod seccompProfile is not RuntimeDefault")
        tmp_volumes = {v["name"] for v in pod.get("volumes", []) if "emptyDir" in v}
        for c in pod["containers"]:
            where = f"{kind}/{name} container {c['name']}"
            sc = c.get("securityContext", {})
            if sc.get("readOnlyRootFilesystem") is not True:
                problem(f"{where}: readOnlyRootFilesystem is not true")
            if sc.get("allowPrivilegeEscalation") is not False:
                problem(f"{where}: allowPrivilegeEscalation is not false")
            if "ALL" not in sc.get("capabilities", {}).get("drop", []):
                problem(f"{where}: capabilities do not drop ALL")
            if not any(m["mountPath"] == "/tmp" and m["name"] in tmp_volumes for m in c.get("volumeMounts", [])):
                problem(f"{where}: no emptyDir mounted at /tmp")
            if not c.get("resources", {}).get("requests"):
                problem(f"{where}: no resource requests")
            if kind == "Deployment":
                for probe, path in (("livenessProbe", "/health/live"), ("readinessProbe", "/health/ready")):
                    if c.get(probe, {}).get("httpGet", {}).get("path") != path:
                        problem(f"{where}: {probe} is not an httpGet on {path}")
                if c.get("args", [None])[0] != name.rsplit("-", 1)[-1]:
                    problem(f"{where}: args {c.get('args')} do not start with the service name")
        if kind == "Job" and pod["containers"][0].get("args") != ["admin", "init"]:
            problem(f"Job/{name}: does not run `admin init`")
    for target, var in API_ROUTES.items():
        check_api_route(docs, target, var)
    return done(
        f"security context, /tmp, probes and resources of {workloads} workloads; ingress reaches screening and callback"
    )


def component(doc) -> str | None:
    return doc["metadata"].get("labels", {}).get("app.kubernetes.io/component")


def env_of(deployment) -> dict[str, str | None]:
    c = deployment["spec"]["template"]["spec"]["containers"][0]
    return {e["name"]: e.get("value") for e in c.get("env", [])}


def matches(selector: dict, labels: dict) -> bool:
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


# The services whose HTTP API (on their health port) the ingress forwards to, and the ingress setting
# that names it (services/ingress/src/config.ts).
API_ROUTES = {"screening": "SCREENING_API_URL", "callback": "CALLBACK_API_URL"}


def check_api_route(docs, target: str, var: str) -> None:
    """The ingress forwards /api/screening/* to SCREENING_API_URL and /api/callbacks/* to CALLBACK_API_URL;
    without them it falls back to 127.0.0.1 and every such API call fails in a cluster."""
    deployments = {component(d): d for d in docs if d["kind"] == "Deployment"}
    ingress, api = deployments.get("ingress"), deployments.get(target)
    if not ingress or not api:
        return
    services = [d for d in docs if d["kind"] == "Service" and component(d) == target]
    if len(services) != 1:
        problem(f"expected one {target} Service, found {len(services)}")
        return
    svc = services[0]
    pod_labels = api["spec"]["template"]["metadata"]["labels"]
    if not matches(svc["spec"].get("selector", {}), pod_labels):
        problem(f"Service/{svc['metadata']['name']} does not select the {target} pods")
    ns = svc["metadata"].get("namespace")
    hosts = {svc["metadata"]["name"]} | ({f"{svc['metadata']['name']}.{ns}", f"{svc['metadata']['name']}.{ns}.svc",
                                          f"{svc['metadata']['name']}.{ns}.svc.cluster.local"} if ns else set())
    url = env_of(ingress).get(var)
    m = re.fullmatch(r"http://([^:/]+):(\d+)/?", url or "")
    if not m:
        problem(f"Deployment/{ingress['metadata']['name']}: {var} is {url!r}, not http://<{target} Service>:<port>")
        return
    host, port = m.group(1), int(m.group(2))
    if host not in hosts:
        problem(f"{var} host {host} is not the {target} Service {svc['metadata']['name']}")
    svc_port = next((p for p in svc["spec"]["ports"] if p["port"] == port), None)
    if not svc_port:
        problem(f"{var} port {port} is not a port of Service/{svc['metadata']['name']}")
        return
    # The Service port must lead to the container port the API listens on (HEALTH_PORT).
    container = api["spec"]["template"]["spec"]["containers"][0]
    target_port = svc_port.get("targetPort", port)
    cport = next((p for p in container.get("ports", []) if target_port in (p.get("name"), p["containerPort"])), None)
    api_env = env_of(api)
    if not cport:
        problem(f"Service/{svc['metadata']['name']} targetPort {target_port} is not a port of the {target} container")
    elif str(cport["containerPort"]) != str(api_env.get("HEALTH_PORT")):
        problem(f"{target} listens on HEALTH_PORT {api_env.get('HEALTH_PORT')}, the Service targets {cport['containerPort']}")
    if not (api_env.get("AUTH_JWKS_URL") or api_env.get("AUTH_JWKS_FILE")):
        problem(f"{target} has neither AUTH_JWKS_URL nor AUTH_JWKS_FILE: it refuses to start")

    ingress_labels = ingress["spec"]["template"]["metadata"]["labels"]
    names = {cport["name"], cport["containerPort"]} if cport else set()
    for pol in (d for d in docs if d["kind"] == "NetworkPolicy"):
        spec = pol["spec"]
        selected = spec.get("podSelector", {}).get("matchLabels", {})
        if matches(selected, pod_labels) and "Ingress" in spec.get("policyTypes", ["Ingress"]):
            admitted = any(
                (not r.get("ports") or any(p.get("port") in names for p in r["ports"]))
                and (not r.get("from") or any(matches(f.get("podSelector", {}).get("matchLabels", {}), ingress_labels)
                                              and "namespaceSelector" not in f for f in r["from"]))
                for r in spec.get("ingress", [])
            )
            if not admitted:
                problem(f"NetworkPolicy/{pol['metadata']['name']} does not admit the ingress pods to the {target} port")
        if matches(selected, ingress_labels) and "Egress" in spec.get("policyTypes", []):
            allowed = any(
                (not r.get("ports") or any(p.get("port") in names for p in r["ports"]))
                and (not r.get("to") or any(matches(t.get("podSelector", {}).get("matchLabels", {}), pod_labels)
                                            and "namespaceSelector" not in t for t in r["to"]))
                for r in spec.get("egress", [])
            )
            if not allowed:
                problem(f"NetworkPolicy/{pol['metadata']['name']} does not let the ingress reach the {target} port")


# ---------------------------------------------------------------- PromQL metric names

def metric_names(expr: str) -> set[str]:
    e = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)          # string literals
    e = re.sub(r"\{[^}]*\}", "", e)                          # label matchers
    e = re.sub(r"\[[^\]]*\]", "", e)                         # range selectors
    e = re.sub(r"(?<![A-Za-z0-9_:])\d+(\.\d+)?([eE][-+]?\d+)?", " ", e)  # numbers, 1e-9
    e = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", e)
    names = set()
    for m in re.finditer(r"[A-Za-z_:][A-Za-z0-9_:]*", e):
        tok = m.group(0)
        rest = e[m.end():].lstrip()
        if rest.startswith("(") or tok.lower() in PROMQL_WORDS or tok.startswith("$"):
            continue
        if e[max(0, m.start() - 1)] == "$":  # Grafana variables such as $__rate_interval
            continue
        names.add(tok)
    return names


def known(name: str, allow_kube_state: bool) -> bool:
    base = re.sub(r"_(bucket|count|sum)$", "", name)
    return (
        name in SERVICE_METRICS
        or base in SERVICE_METRICS
        or name.startswith(DEFAULT_METRIC_PREFIXES)
        or name in PROMETHEUS_METRICS
        or (allow_kube_state and name in KUBE_STATE_METRICS)
    )


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9 -]", "", text.lower()).strip().replace(" ", "-")


def cmd_rules(rendered: Path, runbook: Path) -> int:
    rules = [d for d in load_docs([rendered]) if d["kind"] == "PrometheusRule"]
    if not rules:
        problem(f"{rendered} has no PrometheusRule")
    anchors = {slug(m.group(1)) for m in re.finditer(r"^#+\s+(.+)$", runbook.read_text(), re.M)}
    alerts = 0
    for pr in rules:
        for group in pr["spec"]["groups"]:
            for rule in group["rules"]:
                alerts += 1
                name = rule.get("alert") or rule.get("record")
                for field in ("expr",):
                    if not rule.get(field):
                        problem(f"{name}: no {field}")
                if rule.get("alert"):
                    if rule.get("labels", {}).get("severity") not in ("info", "warning", "critical"):
                        problem(f"{name}: severity label missing or unknown")
                    for a in ("summary", "description", "runbook"):
                        if not rule.get("annotations", {}).get(a):
                            problem(f"{name}: annotation {a} missing")
                    anchor = rule.get("annotations", {}).get("runbook", "").split("#")[-1]
                    if anchor not in anchors:
                        problem(f"{name}: runbook anchor #{anchor} has no heading in {runbook}")
                if str(rule["expr"]).count("(") != str(rule["expr"]).count(")"):
                    problem(f"{name}: unbalanced parentheses")
                for metric in metric_names(str(rule["expr"])):
                    if not known(metric, allow_kube_state=True):
                        problem(f"{name}: unknown metric {metric}")
    return done(f"{alerts} alert expressions use only the metric contract; each has a runbook section")


def cmd_dashboard(path: Path) -> int:
    try:
        dash = json.loads(path.read_text())
    except json.JSONDecodeError as err:
        problem(f"{path}: invalid JSON: {err}")
        return done(f"{path}")
    panels = []

    def walk(ps):
        for p in ps:
            panels.append(p)
            walk(p.get("panels", []))

    walk(dash.get("panels", []))
    if not dash.get("title") or not dash.get("uid"):
        problem("dashboard needs a title and a uid")
    ids = [p.get("id") for p in panels]
    if len(ids) != len(set(ids)):
        problem("panel ids are not unique")
    queries = 0
    used = set()
    for p in panels:
        if p.get("type") == "row":
            continue
        if not p.get("targets"):
            problem(f"panel {p.get('title')!r} has no queries")
        for t in p.get("targets", []):
            queries += 1
            for metric in metric_names(t.get("expr", "")):
                used.add(re.sub(r"_(bucket|count|sum)$", "", metric))
                if not known(metric, allow_kube_state=False):
                    problem(f"panel {p.get('title')!r}: unknown metric {metric}")
    missing = SERVICE_METRICS - used
    if missing:
        problem(f"dashboard shows none of: {', '.join(sorted(missing))}")
    return done(f"{path}: {len(panels)} panels, {queries} queries, every service metric shown")


# ---------------------------------------------------------------- compose

def cmd_compose(resolved: Path) -> int:
    model = yaml.safe_load(resolved.read_text())
    for name, svc in model.get("services", {}).items():
        for port in svc.get("ports", []) or []:
            if port.get("host_ip") != "127.0.0.1":
                problem(f"service {name}: port {port.get('published')} is not bound to 127.0.0.1")
        restart_once = svc.get("restart") == "no"
        if not restart_once and not svc.get("healthcheck"):
            problem(f"service {name}: no healthcheck")
    services = model.get("services", {})
    for target, var in API_ROUTES.items():
        if "ingress" not in services or target not in services:
            continue
        api_env = services[target].get("environment") or {}
        url = (services["ingress"].get("environment") or {}).get(var)
        want = f"http://{target}:{api_env.get('HEALTH_PORT')}"
        if (url or "").rstrip("/") != want:
            problem(f"service ingress: {var} is {url!r}, want {want!r} (the {target} service's API port)")
        if not (api_env.get("AUTH_JWKS_URL") or api_env.get("AUTH_JWKS_FILE")):
            problem(f"service {target}: neither AUTH_JWKS_URL nor AUTH_JWKS_FILE: it refuses to start")
    return done(
        f"{resolved}: {len(services)} services, loopback-only ports, healthchecks, ingress reaches screening and callback"
    )


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__)
        return 2
    cmd, args = argv[1], argv[2:]
    if cmd == "params":
        return cmd_params(Path(args[0]))
    if cmd == "readme":
        return cmd_readme(Path(args[0]), "--write" in args)
    if cmd == "manifests":
        return cmd_manifests(args)
    if cmd == "rules":
        return cmd_rules(Path(args[0]), Path(args[1]))
    if cmd == "dashboard":
        return cmd_dashboard(Path(args[0]))
    if cmd == "compose":
        return cmd_compose(Path(args[0]))
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
