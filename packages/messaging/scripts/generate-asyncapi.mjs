#!/usr/bin/env node
// Writes docs/asyncapi.json and docs/events.md from the AsyncAPI document of the topics
// (packages/messaging/src/asyncapi.ts: topics.ts + schemas/), from the built package (dist/).
// `npm run gen` builds packages/messaging first (tsc -b), so dist/ matches the sources.
// Usage: node generate-asyncapi.mjs [--check]
//   --check  writes nothing; exits 1 and names the stale files when the files on disk differ.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../../..');
const check = process.argv.includes('--check');

const dist = join(here, '../dist');
if (!existsSync(join(dist, 'asyncapi.js'))) {
  console.error(
    'generate-asyncapi: packages/messaging is not built; run `npm run build` (or `npm run gen`) first',
  );
  process.exit(1);
}
const { buildAsyncApi } = require(join(dist, 'asyncapi.js'));
const { asyncApiFiles } = require(join(dist, 'asyncapi-markdown.js'));
const prettier = require('prettier');

const files = {};
for (const [path, raw] of Object.entries(asyncApiFiles(buildAsyncApi()))) {
  const filepath = join(root, path);
  files[path] = await prettier.format(raw, { ...(await prettier.resolveConfig(filepath)), filepath });
}
const stale = Object.entries(files).filter(
  ([path, content]) => !existsSync(join(root, path)) || readFileSync(join(root, path), 'utf8') !== content,
);
if (check) {
  if (stale.length > 0) {
    console.error(
      `generate-asyncapi: out of date with topics.ts and schemas/: ${stale.map(([p]) => p).join(', ')}\n` +
        'Run `npm run gen` and commit the result.',
    );
    process.exit(1);
  }
  console.log(`generate-asyncapi: ${Object.keys(files).length} generated files are up to date`);
} else {
  for (const [path, content] of stale) writeFileSync(join(root, path), content);
  console.log(
    `generate-asyncapi: wrote ${stale.length} of ${Object.keys(files).length} files (docs/asyncapi.json, docs/events.md)`,
  );
}
