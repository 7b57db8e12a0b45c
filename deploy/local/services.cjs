#!/usr/bin/env node
// Starts every service of the system as its own process (its own composition root), against the local
// stack: `node deploy/local/services.cjs up|down|status`. Also used by the end-to-end and fault tests,
// which start, SIGKILL and restart single services through the exported functions.
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const http = require('node:http');
const os = require('node:os');

const ROOT = path.resolve(__dirname, '..', '..');
const LOCAL = path.join(ROOT, '.local');
const RUN = path.join(LOCAL, 'run');
const LOGS = path.join(LOCAL, 'logs');

/** Service name -> entry point and the port its /health/ready answers on. */
const SERVICES = {
  customer: { main: 'services/customer/dist/main.js', healthPortVar: 'HEALTH_PORT', port: 9101 },
  projector: { main: 'services/projector/dist/main.js', healthPortVar: 'HEALTH_PORT', port: 9102 },
  callback: { main: 'services/callback/dist/main.js', healthPortVar: 'HEALTH_PORT', port: 9103 },
  evaluation: {
    main: 'services/evaluation/dist/main.js',
    healthPortVar: 'HEALTH_PORT',
    port: 9104,
    optional: true,
  },
  screening: {
    main: 'services/screening/dist/main.js',
    healthPortVar: 'HEALTH_PORT',
    port: 9105,
    optional: true,
  },
  archive: {
    main: 'services/archive/dist/main.js',
    healthPortVar: 'HEALTH_PORT',
    port: 9106,
    optional: true,
  },
  ingress: { main: 'services/ingress/dist/main.js', healthPortVar: 'HTTP_PORT', port: 8080 },
  'demo-receiver': {
    main: 'deploy/local/demo-receiver.cjs',
    healthPortVar: 'RECEIVER_PORT',
    port: 8089,
    demo: true,
  },
};

function readStackEnv() {
  const file = path.join(LOCAL, 'stack.env');
  // A caller that names its stack explicitly (the fault suite's second stack) needs no local one.
  const explicit = ['KAFKA_BROKERS', 'SCHEMA_REGISTRY_URL', 'MONGODB_URI'].every((k) => process.env[k]);
  if (!fs.existsSync(file) && explicit) return {};
  if (!fs.existsSync(file)) throw new Error('the local stack is not up: run `npm run stack:up` first');
  const env = {};
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (m) env[m[1]] = m[2];
  }
  return env;
}

/** Keys for tokens and callback signatures, made once per checkout (never committed). */
async function ensureKeys() {
  const auth = require(path.join(ROOT, 'packages/auth/dist/index.js'));
  const dir = path.join(LOCAL, 'auth');
  const tokens = await auth.ensureLocalKeys(dir);
  const callbacks = await auth.ensureCallbackKeys(dir);
  return {
    jwksFile: tokens.jwksPath,
    callbackKeyFile: callbacks.privateKeyPath,
    callbackJwksFile: callbacks.jwksPath,
  };
}

/**
 * The key-encryption key set of personal data (docs/privacy.md), made once per checkout, mode 0600,
 * never committed. Losing it erases every customer of the local stack, like losing the real one would.
 */
function ensureKeks() {
  const file = process.env.PRIVACY_KEK_FILE || path.join(LOCAL, 'privacy', 'keks.json');
  if (!fs.existsSync(file)) {
    const { KeyEncryptionKeys } = require(path.join(ROOT, 'packages/privacy/dist/index.js'));
    const id = `kek-local-${new Date().toISOString().slice(0, 10).replace(/-/g, '')}`;
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(file, JSON.stringify(KeyEncryptionKeys.generateDocument(id)), { mode: 0o600 });
  }
  return file;
}

function defaultCallbackConfig() {
  const file = path.join(LOCAL, 'callbacks.json');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(LOCAL, { recursive: true });
    fs.writeFileSync(
      file,
      JSON.stringify(
        {
          endpoints: [
            {
              id: 'demo-receiver',
              businessUnit: 'DEMO',
              url: 'http://127.0.0.1:8089/callbacks',
              eventTypes: ['*'],
            },
          ],
        },
        null,
        2,
      ),
    );
  }
  return file;
}

/**
 * Partitions per topic of the local stack: one per core of this machine (at least 2), unless
 * TOPIC_PARTITIONS says otherwise (decision 0035). Each partition is its own Kafka transaction per
 * batch in every exactly-once stage; more partitions than cores only split the same load into more,
 * smaller transactions. Topics that exist keep their count (Kafka never shrinks one).
 */
function defaultPartitions() {
  const explicit = Number(process.env.TOPIC_PARTITIONS);
  if (Number.isInteger(explicit) && explicit > 0) return explicit;
  return Math.max(2, os.availableParallelism());
}

async function baseEnv(overrides = {}) {
  const keys = await ensureKeys();
  return {
    ...process.env,
    ...readStackEnv(),
    TOPIC_REPLICATION_FACTOR: '1',
    TOPIC_PARTITIONS: String(defaultPartitions()),
    AUTH_JWKS_FILE: keys.jwksFile,
    CALLBACK_SIGNING_KEY_FILE: keys.callbackKeyFile,
    RECEIVER_JWKS_FILE: keys.callbackJwksFile,
    CALLBACK_CONFIG_FILE: process.env.CALLBACK_CONFIG_FILE || defaultCallbackConfig(),
    PRIVACY_KEK_FILE: ensureKeks(),
    CRS_SHARED_DATA: process.env.CRS_SHARED_DATA || path.resolve(ROOT, '..', 'shared', 'data'),
    ...overrides,
  };
}

/** Ports the fetch standard blocks (undici answers "bad port"), in the range namespaces use and above. */
const FETCH_BLOCKED_PORTS = new Set([6000, 6566, 6665, 6666, 6667, 6668, 6669, 6697, 10080]);

/**
 * A namespace isolates one running system from another on the same stack: its own topic prefix,
 * consumer groups, database and ports. The default namespace is the one `npm start` runs.
 */
function namespaceSettings(namespace) {
  // CRS_PORT_SHIFT moves every port of this checkout (a second checkout running beside this one).
  const shift = Number(process.env.CRS_PORT_SHIFT || 0);
  if (!namespace) return { key: '', env: {}, portOffset: shift };
  if (!/^[a-z0-9-]{1,40}$/.test(namespace))
    throw new Error(`namespace must match [a-z0-9-]{1,40}: ${namespace}`);
  let h = 0;
  for (const ch of namespace) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  // A slot whose ports include one that fetch refuses ("bad port": the ingress of slot 95 on 10080) is
  // skipped: a client of that namespace would fail with "fetch failed" before any request left it.
  let slot = h % 400;
  const offsetOf = (k) => shift + 100 + k * 20;
  while (Object.values(SERVICES).some((s) => FETCH_BLOCKED_PORTS.has(s.port + offsetOf(slot))))
    slot = (slot + 1) % 400;
  return {
    key: `${namespace}-`,
    env: { TOPIC_PREFIX: `${namespace}.`, MONGODB_DB: `crs_${namespace.replace(/-/g, '_')}` },
    portOffset: offsetOf(slot),
  };
}

function pidFile(name, ns = '') {
  return path.join(RUN, `svc-${ns}${name}.pid`);
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function runningPid(name, ns = '') {
  try {
    const pid = Number(fs.readFileSync(pidFile(name, ns), 'utf8'));
    return pid && alive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

function get(url) {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', () => resolve(0));
    req.on('timeout', () => {
      req.destroy();
      resolve(0);
    });
  });
}

async function waitReady(name, port, pid, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (pid && !alive(pid)) throw new Error(`${name} exited during start; see .local/logs/${name}.log`);
    if ((await get(`http://127.0.0.1:${port}/health/ready`)) === 200) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${name} not ready after ${timeoutMs} ms; see .local/logs/${name}.log`);
}

/** Starts one service (if not running) and waits for its readiness. `env` adds or overrides settings. */
async function startService(name, { env = {}, timeoutMs = 90000, namespace = '' } = {}) {
  const spec = SERVICES[name];
  if (!spec) throw new Error(`unknown service ${name}`);
  const ns = namespaceSettings(namespace);
  const port = Number(env[spec.healthPortVar] || spec.port + ns.portOffset);
  let pid = runningPid(name, ns.key);
  if (!pid) {
    if (!fs.existsSync(path.join(ROOT, spec.main)))
      throw new Error(`${spec.main} is missing: run the build first`);
    fs.mkdirSync(RUN, { recursive: true });
    fs.mkdirSync(LOGS, { recursive: true });
    const out = fs.openSync(path.join(LOGS, `${ns.key}${name}.log`), 'a');
    const child = spawn(process.execPath, [path.join(ROOT, spec.main)], {
      cwd: ROOT,
      env: await baseEnv({
        SERVICE_NAME: name,
        ...ns.env,
        // The ingress forwards /api/screening/* and /api/callbacks/* to the screening and callback
        // services of the same namespace.
        SCREENING_API_URL: `http://127.0.0.1:${SERVICES.screening.port + ns.portOffset}`,
        CALLBACK_API_URL: `http://127.0.0.1:${SERVICES.callback.port + ns.portOffset}`,
        [spec.healthPortVar]: String(port),
        ...env,
      }),
      detached: true,
      stdio: ['ignore', out, out],
    });
    child.unref();
    fs.closeSync(out);
    pid = child.pid;
    fs.writeFileSync(pidFile(name, ns.key), String(pid));
  }
  await waitReady(`${ns.key}${name}`, port, pid, timeoutMs);
  return { pid, port };
}

/** Stops one service: SIGTERM (graceful) or SIGKILL (a crash), waiting until it is gone. */
async function stopService(name, { signal = 'SIGTERM', timeoutMs = 20000, namespace = '' } = {}) {
  const ns = namespaceSettings(namespace);
  const pid = runningPid(name, ns.key);
  if (pid) {
    try {
      process.kill(pid, signal);
    } catch {
      /* already gone */
    }
    const deadline = Date.now() + timeoutMs;
    while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (alive(pid)) process.kill(pid, 'SIGKILL');
    while (alive(pid)) await new Promise((r) => setTimeout(r, 50));
  }
  fs.rmSync(pidFile(name, ns.key), { force: true });
}

/** Where a service of a namespace listens (ingress: its API; others: health and metrics). */
function portOf(name, namespace = '') {
  return SERVICES[name].port + namespaceSettings(namespace).portOffset;
}

/** A service exists once it has a composition root (app.js) beside its main. */
function available(name) {
  return fs.existsSync(path.join(ROOT, path.dirname(SERVICES[name].main), 'app.js')) || !!SERVICES[name].demo;
}

async function up({ demo = true } = {}) {
  // The decider and projector first: the ingress is ready to accept before anything consumes.
  const order = [
    'customer',
    'projector',
    'evaluation',
    'screening',
    'archive',
    'callback',
    'ingress',
    'demo-receiver',
  ];
  for (const name of order) {
    const spec = SERVICES[name];
    if (spec.demo && !demo) continue;
    if (spec.optional && !available(name)) continue;
    const { pid, port } = await startService(name);
    console.log(`${name.padEnd(14)} up  pid ${pid}  http://127.0.0.1:${port}/health/ready`);
  }
}

async function down() {
  for (const name of Object.keys(SERVICES).reverse()) await stopService(name);
}

/** Stops every service process this checkout started, in any namespace (test clean-up). */
async function downAll() {
  if (!fs.existsSync(RUN)) return 0;
  let stopped = 0;
  for (const file of fs.readdirSync(RUN).filter((f) => /^svc-.*\.pid$/.test(f))) {
    const pid = Number(fs.readFileSync(path.join(RUN, file), 'utf8'));
    if (pid && alive(pid)) {
      process.kill(pid, 'SIGTERM');
      const deadline = Date.now() + 20000;
      while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      if (alive(pid)) process.kill(pid, 'SIGKILL');
      stopped++;
    }
    fs.rmSync(path.join(RUN, file), { force: true });
  }
  return stopped;
}

function status() {
  let all = true;
  for (const name of Object.keys(SERVICES)) {
    const pid = runningPid(name);
    if (!pid && !(SERVICES[name].optional && !available(name))) all = false;
    console.log(`${name.padEnd(14)} ${pid ? `up    pid ${pid}` : 'down'}`);
  }
  return all;
}

module.exports = {
  SERVICES,
  startService,
  stopService,
  portOf,
  namespaceSettings,
  up,
  down,
  downAll,
  status,
  baseEnv,
  defaultPartitions,
  ensureKeys,
  ROOT,
};

if (require.main === module) {
  const cmd = process.argv[2];
  const run = {
    up: () => up(),
    down: () => down(),
    'down-all': async () => {
      const n = await downAll();
      if (n > 0) console.log(`stopped ${n} service process(es) left running`);
      return 0;
    },
    status: () => (status() ? 0 : 1),
  }[cmd];
  if (!run) {
    console.error('usage: services.cjs up|down|down-all|status');
    process.exit(2);
  }
  Promise.resolve(run()).then(
    (code) => process.exit(typeof code === 'number' ? code : 0),
    (err) => {
      console.error(`error: ${err.message}`);
      process.exit(1);
    },
  );
}
