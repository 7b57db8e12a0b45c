// The architecture guards of STYLE.md bite: each one rejects a deliberate violation in
// test/guards/fixtures (kept out of `npm run lint`) and passes the control next to it.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(__dirname, '../..');
const FIXTURES = 'test/guards/fixtures';

interface LintResult {
  file: string;
  messages: { ruleId: string | null; line: number; message: string }[];
}
interface Violation {
  rule: string;
  from: string;
  to: string;
  cycle?: string[];
}

async function runGuard<T>(guard: 'eslint' | 'depcruise' | 'config', targets: string[]): Promise<T> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [path.join(ROOT, 'test/guards/run-guard.mjs'), guard, ...targets],
    { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
  );
  return JSON.parse(stdout) as T;
}

const rulesOf = (result: LintResult | undefined): (string | null)[] =>
  (result?.messages ?? []).map((m) => m.ruleId);

describe('ESLint (eslint.config.mjs)', () => {
  it('keeps the domain guard in force where the services block also restricts imports', async () => {
    // Issue 19: the later services/** block used to replace the domain block's no-restricted-imports.
    const [domain] = await runGuard<{ rules: Record<string, unknown> }[]>('config', [
      'services/screening/src/domain/suppression.ts',
    ]);
    const [severity, options] = domain!.rules['no-restricted-imports'] as [
      number,
      { patterns: { group: string[] }[] },
    ];
    expect(severity).toBe(2);
    expect(options.patterns.flatMap((p) => p.group)).toEqual(
      expect.arrayContaining(['node:*', 'mongodb', '@crs/store', '../../*/src/*']),
    );
    expect(domain!.rules['@typescript-eslint/no-floating-promises']).toEqual([2]);
  }, 120000);

  let results: Map<string, LintResult>;
  beforeAll(async () => {
    const files = [
      'src/domain/hashes-with-crypto.ts',
      'src/domain/stores-in-mongo.ts',
      'src/domain/pure-rule.ts',
      'floating-promise.ts',
    ].map((f) => `${FIXTURES}/${f}`);
    results = new Map((await runGuard<LintResult[]>('eslint', files)).map((r) => [r.file, r]));
  }, 120000);

  it('rejects Node built-ins in a domain module, with or without the node: prefix', () => {
    const result = results.get(`${FIXTURES}/src/domain/hashes-with-crypto.ts`);
    expect(result?.messages).toEqual([
      expect.objectContaining({
        ruleId: 'no-restricted-imports',
        line: 2,
        message: expect.stringContaining('node:crypto'),
      }),
      expect.objectContaining({
        ruleId: 'no-restricted-imports',
        line: 3,
        message: expect.stringContaining("'fs'"),
      }),
    ]);
  });

  it('rejects a database driver in a domain module, even for a type', () => {
    expect(rulesOf(results.get(`${FIXTURES}/src/domain/stores-in-mongo.ts`))).toEqual([
      'no-restricted-imports',
    ]);
  });

  it('rejects a floating promise', () => {
    const result = results.get(`${FIXTURES}/floating-promise.ts`);
    expect(result?.messages).toEqual([
      expect.objectContaining({ ruleId: '@typescript-eslint/no-floating-promises', line: 7 }),
    ]);
  });

  it('passes a domain module that gets its hashing passed in', () => {
    expect(rulesOf(results.get(`${FIXTURES}/src/domain/pure-rule.ts`))).toEqual([]);
  });
});

describe('dependency-cruiser (.dependency-cruiser.cjs)', () => {
  let violations: Violation[];
  beforeAll(async () => {
    violations = await runGuard<Violation[]>('depcruise', [FIXTURES]);
  }, 120000);

  it('finds the import cycle', () => {
    expect(violations.filter((v) => v.rule === 'no-circular')).toEqual([
      expect.objectContaining({
        from: `${FIXTURES}/cycle/a.ts`,
        cycle: [`${FIXTURES}/cycle/b.ts`, `${FIXTURES}/cycle/a.ts`],
      }),
    ]);
  });

  it('finds the infrastructure the domain modules import', () => {
    const domain = violations
      .filter((v) => v.rule.startsWith('domain-no-'))
      .map(
        (v) => `${v.rule} ${path.basename(v.from)} -> ${v.to.replace(/.*node_modules\/([^/]+)\/.*/, '$1')}`,
      );
    expect(domain.sort()).toEqual([
      'domain-no-infrastructure hashes-with-crypto.ts -> crypto',
      'domain-no-infrastructure hashes-with-crypto.ts -> fs',
      'domain-no-infrastructure-packages stores-in-mongo.ts -> mongodb',
    ]);
  });

  it('finds the store a domain module reaches through a package index, not through its pure entry point', () => {
    // A direct import (stores-in-mongo.ts) is reached too; the package index is what only this rule sees.
    const reached = violations.filter((v) => v.rule === 'domain-reaches-no-infrastructure');
    expect(new Set(reached.map((v) => path.basename(v.from)))).toEqual(
      new Set(['reads-keys-through-a-package.ts', 'stores-in-mongo.ts']),
    );
    expect(reached.map((v) => v.to)).toEqual(
      expect.arrayContaining([
        'packages/store/src/index.ts',
        expect.stringContaining('node_modules/mongodb/'),
      ]),
    );
  });

  it('finds the Node built-ins a domain module reaches through a package index, not through its pure entry point', () => {
    const reached = (file: string) =>
      violations
        .filter((v) => v.rule === 'domain-reaches-no-node-io' && path.basename(v.from) === file)
        .map((v) => v.to)
        .sort();
    // Core modules are named without their node: prefix, whichever way they were imported.
    expect(reached('hashes-with-crypto.ts')).toEqual(['crypto', 'fs']);
    // @crs/contracts' index loads the schema files; @crs/contracts/types does not.
    expect(reached('reads-contracts-through-the-index.ts')).toEqual(['fs', 'path']);
    expect(reached('reads-keys-through-a-package.ts')).toEqual(expect.arrayContaining(['crypto', 'fs']));
  });

  it('finds nothing wrong with the pure domain modules', () => {
    const pure = [
      'pure-rule.ts',
      'reads-keys-through-the-pure-entry.ts',
      'reads-contracts-through-the-pure-entry.ts',
    ];
    expect(violations.filter((v) => pure.includes(path.basename(v.from)))).toEqual([]);
  });
});
