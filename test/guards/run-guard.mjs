// Runs one architecture guard on the deliberate violations in test/guards/fixtures and prints what it
// found as JSON, for test/guards/guards.unit.test.ts. A separate process because ESLint loads
// eslint.config.mjs and dependency-cruiser is an ES module, and jest's CommonJS runtime can import
// neither without --experimental-vm-modules.
//   node test/guards/run-guard.mjs eslint <file>...      the repository's ESLint config
//   node test/guards/run-guard.mjs depcruise <path>...   the rules of .dependency-cruiser.cjs
//   node test/guards/run-guard.mjs config <file>...      the ESLint rules in force for real files
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { cruise } from 'dependency-cruiser';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURES = 'test/guards/fixtures';
const [guard, ...targets] = process.argv.slice(2);

async function eslint(files) {
  const linter = new ESLint({
    cwd: ROOT,
    // The fixtures are ignored by `npm run lint`; here they are the point.
    ignore: false,
    // The rules are the repository's; only the program type-aware rules read is the fixtures' own small
    // one instead of every source and test file (tsconfig.tests.json), to keep this test quick.
    overrideConfig: {
      files: [`${FIXTURES}/**/*.ts`],
      languageOptions: { parserOptions: { project: `${FIXTURES}/tsconfig.json`, tsconfigRootDir: ROOT } },
    },
  });
  const results = await linter.lintFiles(files);
  return results.map((r) => ({
    file: path.relative(ROOT, r.filePath),
    messages: r.messages.map((m) => ({ ruleId: m.ruleId, line: m.line, message: m.message })),
  }));
}

// Blocks of a flat config replace each other's options for the same rule: this is what a file gets.
async function config(files) {
  const linter = new ESLint({ cwd: ROOT });
  return Promise.all(
    files.map(async (file) => {
      const { rules } = await linter.calculateConfigForFile(file);
      const pick = [
        'no-restricted-imports',
        'no-restricted-properties',
        '@typescript-eslint/no-floating-promises',
      ];
      return { file, rules: Object.fromEntries(pick.map((rule) => [rule, rules[rule] ?? null])) };
    }),
  );
}

async function depcruise(paths) {
  const config = createRequire(import.meta.url)(path.join(ROOT, '.dependency-cruiser.cjs'));
  const { tsConfig: _paths, ...options } = config.options;
  // As `npm run lint`: @crs/* (and @crs/<package>/<entry>) resolve through tsconfig.tests.json's paths.
  const tsConfigFile = path.join(ROOT, config.options.tsConfig.fileName);
  const result = await cruise(
    paths,
    {
      ...options,
      // The repository's run excludes the fixtures; this one cruises only them.
      exclude: { path: '(^|/)dist/' },
      validate: true,
      ruleSet: { forbidden: config.forbidden },
    },
    { tsConfig: tsConfigFile },
    { tsConfig: extractTSConfig(tsConfigFile) },
  );
  return result.output.summary.violations.map((v) => ({
    rule: v.rule.name,
    from: v.from,
    to: v.to,
    ...(v.cycle ? { cycle: v.cycle.map((c) => c.name) } : {}),
  }));
}

process.chdir(ROOT);
const guards = { eslint, depcruise, config };
if (!guards[guard] || targets.length === 0) {
  console.error('usage: node test/guards/run-guard.mjs eslint|depcruise|config <path>...');
  process.exit(2);
}
process.stdout.write(JSON.stringify(await guards[guard](targets)));
