// Flat config: typescript-eslint recommended rules plus the architecture guards of STYLE.md.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', '.local/**', '.tools/**', 'coverage/**', '**/generated/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      'no-console': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Domain code is pure: no infrastructure, no clock, no environment.
    files: ['services/*/src/domain/**/*.ts', 'packages/risk-engine/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: ['kafkajs', 'mongodb', 'express', '@crs/messaging', '@crs/store', 'node:*', 'fs', 'http'],
        },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'Time arrives in command metadata.' },
        { object: 'process', property: 'env', message: 'Read configuration in config.ts only.' },
      ],
    },
  },
  {
    // Services never import each other, only packages.
    files: ['services/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['../../*/src/*', '@crs/service-*'] }],
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
