// Flat config: typescript-eslint recommended rules plus the architecture guards of STYLE.md.
// Blocks that set the same rule replace each other's options (the later one wins), so the
// import guards are built from shared lists and the domain block, which adds to the service
// boundary, comes after it. `npx eslint --print-config <file>` shows what applies to a file;
// test/guards/guards.unit.test.ts shows that each guard rejects a deliberate violation.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Services never import each other, only packages.
const serviceBoundary = [
  { group: ['../../*/src/*', '@crs/service-*'], message: 'Services never import each other, only packages.' },
];
// Domain code is pure: no infrastructure (Node built-ins such as crypto, fs, net or http, drivers,
// our messaging and store packages). What it needs from outside arrives as a function argument.
const domainMessage = 'Domain code is pure: what it needs from outside is passed in by the composition root.';
const infrastructure = {
  // Bare built-in names are matched exactly: as patterns, `domain` or `path` would match any path segment.
  paths: builtinModules.filter((m) => !m.startsWith('_')).map((name) => ({ name, message: domainMessage })),
  patterns: [
    {
      group: ['node:*', 'kafkajs', 'mongodb', 'express', '@crs/messaging', '@crs/store'],
      message: domainMessage,
    },
  ],
};

export default tseslint.config(
  {
    // test/guards/fixtures: deliberate violations, linted only by test/guards/guards.unit.test.ts.
    ignores: [
      '**/dist/**',
      '**/dist-before/**',
      '**/node_modules/**',
      '.local/**',
      '.tools/**',
      'coverage/**',
      '**/generated/**',
      'test/guards/fixtures/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      // Type-aware rules read one program of every source and test file (tsconfig.tests.json).
      parserOptions: { project: './tsconfig.tests.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      'no-console': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // A promise nobody awaits loses its rejection; mark a deliberate one with `void` and say why.
      '@typescript-eslint/no-floating-promises': 'error',
    },
  },
  {
    files: ['services/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: serviceBoundary }],
    },
  },
  {
    // Domain code is pure: no infrastructure, no clock, no environment. Placed after the services
    // block so that its no-restricted-imports (which repeats the service boundary) is the one in force.
    files: ['**/src/domain/**/*.ts', 'packages/risk-engine/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: infrastructure.paths, patterns: [...serviceBoundary, ...infrastructure.patterns] },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'Time arrives in command metadata.' },
        { object: 'process', property: 'env', message: 'Read configuration in config.ts only.' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'Time arrives in command metadata.',
        },
      ],
    },
  },
  {
    files: ['**/*.test.ts', 'test/**/*.ts', '**/scripts/**', '**/cli/**', 'deploy/**'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['**/*.mjs', '**/*.cjs', '**/*.js'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        Buffer: 'readonly',
        fetch: 'readonly',
        __dirname: 'readonly',
        require: 'readonly',
        module: 'writable',
      },
    },
    rules: {
      'no-console': 'off',
      '@typescript-eslint/no-require-imports': 'off',
      // Destructuring a field away (`const { a: _a, ...rest } = o`) names it with a leading underscore.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
);
