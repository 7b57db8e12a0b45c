// Tests are split by suffix (STYLE.md): *.unit.test.ts need nothing running, *.int.test.ts talk to
// the real Kafka, registry and MongoDB-compatible store, and test/e2e/** is black-box through HTTP.
const transform = {
  '^.+\\.(t|j|mj)s$': [
    '@swc/jest',
    { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } },
  ],
};
// `@crs/<package>` is its index; `@crs/<package>/<entry>` a subpath entry point (package.json "exports").
const moduleNameMapper = {
  '^@crs/([a-z0-9-]+)$': '<rootDir>/packages/$1/src/index.ts',
  '^@crs/([a-z0-9-]+)/([a-z0-9-]+)$': '<rootDir>/packages/$1/src/$2.ts',
};
// ESM-only dependencies are transformed to CommonJS for jest.
const transformIgnorePatterns = [
  '/node_modules/(?!(\\.pnpm/)?(double-metaphone|any-ascii|@sindresorhus)[@/])',
];
const common = {
  rootDir: __dirname,
  transform,
  moduleNameMapper,
  transformIgnorePatterns,
  testEnvironment: 'node',
};
const ignore = ['/node_modules/', '/dist/', '/.local/'];

module.exports = {
  // testTimeout is a global option in jest (ignored per project): the real-stack suites need minutes.
  testTimeout: 180000,
  projects: [
    {
      ...common,
      displayName: 'unit',
      // test/guards: the architecture guards (ESLint, dependency-cruiser) shown failing on purpose.
      testMatch: [
        '<rootDir>/{packages,services}/**/*.unit.test.ts',
        '<rootDir>/test/guards/**/*.unit.test.ts',
      ],
      testPathIgnorePatterns: ignore,
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/{packages,services}/**/*.int.test.ts'],
      testPathIgnorePatterns: ignore,
      globalSetup: '<rootDir>/packages/testing/src/jest/global-setup.cjs',
      testTimeout: 120000,
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e.test.ts'],
      testPathIgnorePatterns: ignore,
      globalSetup: '<rootDir>/packages/testing/src/jest/global-setup.cjs',
      testTimeout: 180000,
    },
  ],
};
