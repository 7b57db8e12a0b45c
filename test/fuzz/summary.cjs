#!/usr/bin/env node
// Prints the figures of a schemathesis run from its NDJSON event stream: requests sent, test cases,
// status codes seen and failures by check. Usage: node summary.cjs <report-dir> <mode>
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const [dir, mode = ''] = process.argv.slice(2);
const file = fs.readdirSync(dir).find((f) => f.endsWith('.ndjson'));
if (!file) {
  console.log('fuzz summary: no NDJSON report (the run did not start)');
  process.exit(0);
}
const statuses = new Map();
const failures = new Map();
let requests = 0;
let cases = 0;
const walk = (node, visit) => {
  if (Array.isArray(node)) node.forEach((n) => walk(n, visit));
  else if (node && typeof node === 'object') {
    visit(node);
    Object.values(node).forEach((n) => walk(n, visit));
  }
};
for (const line of fs.readFileSync(path.join(dir, file), 'utf8').split('\n')) {
  if (!line.trim()) continue;
  let event;
  try {
    event = JSON.parse(line);
  } catch {
    continue;
  }
  walk(event, (n) => {
    // Each recorded interaction carries the response it got; each check result names its check.
    if (n.response && typeof n.response === 'object' && typeof n.response.status_code === 'number') {
      requests++;
      statuses.set(n.response.status_code, (statuses.get(n.response.status_code) ?? 0) + 1);
    }
    if (typeof n.name === 'string' && typeof n.status === 'string' && n.status.toUpperCase() === 'FAILURE') {
      failures.set(n.name, (failures.get(n.name) ?? 0) + 1);
    }
    if (n.cases && n.interactions && typeof n.cases === 'object') cases += Object.keys(n.cases).length;
  });
}
const byStatus = [...statuses.entries()]
  .sort(([a], [b]) => a - b)
  .map(([s, n]) => `${s}: ${n}`)
  .join(', ');
console.log(
  `fuzz summary (${mode}): ${requests} requests sent, ${cases} test cases recorded; statuses ${byStatus || 'none'}`,
);
const server = [...statuses.entries()].filter(([s]) => s >= 500).reduce((n, [, c]) => n + c, 0);
console.log(`  5xx responses: ${server}`);
console.log(
  `  failed checks: ${failures.size === 0 ? 'none' : [...failures.entries()].map(([k, v]) => `${k} x${v}`).join(', ')}`,
);
