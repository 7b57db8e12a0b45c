#!/usr/bin/env node
// Starts or stops an isolated system for the fuzz run (namespace `fuzz`: its own topics, database
// and ports on the shared local stack) and issues the token the fuzzer sends.
//   node test/fuzz/cluster.cjs up      -> prints the ingress base URL
//   node test/fuzz/cluster.cjs down
//   node test/fuzz/cluster.cjs token   -> prints a token for business unit DEMO with every scope
//   node test/fuzz/cluster.cjs unserved <base-url> -> OpenAPI paths the ingress does not serve, one per line
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const launcher = require('../../deploy/local/services.cjs');

const NAMESPACE = 'fuzz';
// The decider and projector first, the ingress last (as services.cjs up). Screening joins when it is
// built: the ingress forwards /api/screening/* to it. Evaluation and archive answer no HTTP request.
const SERVICES = ['customer', 'projector', 'screening', 'callback', 'ingress'].filter(
  (name) =>
    !launcher.SERVICES[name].optional ||
    fs.existsSync(path.join(launcher.ROOT, launcher.SERVICES[name].main)),
);

async function up() {
  for (const name of SERVICES) await launcher.startService(name, { namespace: NAMESPACE });
  return `http://127.0.0.1:${launcher.portOf('ingress', NAMESPACE)}`;
}

async function down() {
  for (const name of [...SERVICES].reverse()) await launcher.stopService(name, { namespace: NAMESPACE });
}

async function token() {
  const keys = await launcher.ensureKeys();
  const auth = require(path.join(launcher.ROOT, 'packages/auth/dist/index.js'));
  const privateJwk = JSON.parse(
    fs.readFileSync(path.join(path.dirname(keys.jwksFile), 'signing-key.private.jwk.json'), 'utf8'),
  );
  return auth.issueToken({
    privateJwk,
    issuer: 'http://127.0.0.1:8080/local-issuer',
    audience: 'crs-api',
    subject: 'fuzz',
    scopes: [...auth.Scopes],
    businessUnits: ['DEMO'],
    expiresInSec: 3 * 3600,
  });
}

/**
 * Operations the OpenAPI document lists but this ingress build does not route yet (an unauthenticated
 * call gets 404 instead of 401). They are left out of the fuzz run and named in its summary.
 */
async function unserved(base) {
  const spec = await (await fetch(`${base}/openapi.json`)).json();
  const missing = [];
  for (const [template, ops] of Object.entries(spec.paths)) {
    for (const method of Object.keys(ops)) {
      if ((ops[method].security ?? spec.security ?? []).length === 0) continue;
      const withBody = method !== 'get' && method !== 'head';
      const res = await fetch(base + template.replace(/\{[^}]+\}/g, 'probe'), {
        method: method.toUpperCase(),
        ...(withBody ? { headers: { 'content-type': 'application/json' }, body: '{}' } : {}),
      });
      if (res.status === 404) missing.push(template);
    }
  }
  return [...new Set(missing)].join('\n');
}

const commands = { up, down, token, unserved: () => unserved(process.argv[3]) };
const run = commands[process.argv[2]];
if (!run) {
  console.error('usage: cluster.cjs up|down|token');
  process.exit(2);
}
run().then(
  (out) => {
    if (out) console.log(out);
  },
  (err) => {
    console.error(`error: ${err.message}`);
    process.exit(1);
  },
);
