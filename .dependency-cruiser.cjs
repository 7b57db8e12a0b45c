// The architecture guards of STYLE.md that need the whole import graph (ESLint sees one file at a
// time): no import cycles, `domain/` imports no infrastructure, services never import each other.
// Run by `npm run lint` (`depcruise packages services test`); test/guards/guards.unit.test.ts shows
// each rule failing on a deliberate violation. @crs/* resolve to packages/*/src through tsconfig.tests.json's paths (as in
// jest), so no build is needed and edges between packages are seen too.

// Infrastructure the domain must not import: Node built-ins ("core" modules: crypto, fs, net, http,
// ...), drivers and servers, and our own messaging and store packages.
const INFRASTRUCTURE = [
  '(^|/)node_modules/(kafkajs|mongodb|express)/',
  '^packages/(messaging|store)/',
  '(^|/)node_modules/@crs/(messaging|store)/',
];

// Node built-ins that do I/O or read the machine (files and paths, hashing and randomness, network,
// processes, the OS), as dependency-cruiser names a core module (without its node: prefix).
const NODE_IO =
  '^(node:)?(fs|fs/promises|path|crypto|net|tls|dgram|dns|http|https|http2|child_process|cluster|' +
  'worker_threads|os|process|v8|vm|module|readline|inspector)$';

// Domain sources (as in eslint.config.mjs, tests aside): every src/domain/ and the risk engine.
const DOMAIN = { path: ['(^|/)src/domain/', '^packages/risk-engine/src/'], pathNot: '\\.test\\.ts$' };

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'A module reaches itself through its imports. Break the cycle: move what both need into a third ' +
        'module, or pass a function in instead of importing back.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-no-infrastructure',
      severity: 'error',
      comment:
        'Domain code is pure (STYLE.md): what it needs from outside (hashing, time, storage) is passed in by ' +
        'the composition root.',
      from: DOMAIN,
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'domain-no-infrastructure-packages',
      severity: 'error',
      comment: 'Domain code imports no Kafka, MongoDB, HTTP server, @crs/messaging or @crs/store (STYLE.md).',
      from: DOMAIN,
      to: { path: INFRASTRUCTURE },
    },
    {
      name: 'domain-reaches-no-infrastructure',
      severity: 'error',
      comment:
        'Domain code reaches Kafka, MongoDB, an HTTP server, @crs/messaging or @crs/store through the modules it ' +
        "imports (a package's index that also holds a store class): import the package's pure entry point " +
        'instead (e.g. @crs/privacy/rules).',
      from: DOMAIN,
      to: { path: INFRASTRUCTURE, reachable: true },
    },
    {
      name: 'domain-reaches-no-node-io',
      severity: 'error',
      comment:
        'Domain code reaches a Node built-in that does I/O (fs, path, crypto, net, http, child_process, os, ...) ' +
        "through the modules it imports (a package's index that also loads files): import the package's pure " +
        'entry point instead (e.g. @crs/contracts/types, @crs/privacy/rules).',
      from: DOMAIN,
      to: { path: NODE_IO, reachable: true },
    },
    {
      name: 'no-service-to-service',
      severity: 'error',
      comment: 'Services never import each other, only packages (STYLE.md).',
      from: { path: '^services/([^/]+)/' },
      to: { path: '^services/', pathNot: '^services/$1/' },
    },
    {
      name: 'no-package-to-service',
      severity: 'error',
      comment: 'Packages serve the services; they never import one.',
      from: { path: '^packages/' },
      to: { path: '^services/' },
    },
  ],
  options: {
    // Build output, and the deliberate violations of the guards' own test. Dependencies in
    // node_modules stay in the graph (the rules name some) but are not cruised themselves.
    exclude: { path: '(^|/)(dist|coverage)/|^test/guards/fixtures/' },
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a domain module that names a MongoDB type depends on MongoDB.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.tests.json' },
    moduleSystems: ['cjs', 'es6'],
    // Packages that publish subpaths through "exports" only (csv-parse/sync).
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['require', 'node', 'default'] },
  },
};
