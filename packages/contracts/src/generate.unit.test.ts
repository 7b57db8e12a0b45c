import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const repo = join(__dirname, '../../..');
const script = join(repo, 'packages/contracts/scripts/generate.mjs');

describe('generate.mjs --check', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'crs-gen-'));
    cpSync(join(repo, 'schemas'), join(root, 'schemas'), { recursive: true });
    cpSync(join(repo, 'packages/contracts/src/generated'), join(root, 'packages/contracts/src/generated'), {
      recursive: true,
    });
    writeFileSync(join(root, 'package.json'), '{}');
    cpSync(join(repo, '.prettierrc.json'), join(root, '.prettierrc.json'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const check = () => spawnSync(process.execPath, [script, '--check', '--root', root], { encoding: 'utf8' });

  it('passes on the committed output and fails once a schema changes', () => {
    expect(check().status).toBe(0);

    const file = join(root, 'schemas/http/classifier-entry.v1.schema.json');
    const schema = JSON.parse(readFileSync(file, 'utf8')) as { properties: Record<string, unknown> };
    schema.properties.sortOrder = { type: 'integer' };
    writeFileSync(file, JSON.stringify(schema));
    const stale = check();
    expect(stale.status).toBe(1);
    expect(stale.stderr).toContain('http/classifier-entry.v1.ts');
    expect(stale.stderr).toContain('npm run gen');

    execFileSync(process.execPath, [script, '--root', root]);
    expect(check().status).toBe(0);
    expect(
      readFileSync(join(root, 'packages/contracts/src/generated/http/classifier-entry.v1.ts'), 'utf8'),
    ).toContain('sortOrder?: number');
  });

  it('fails when a generated file was edited by hand', () => {
    const file = join(root, 'packages/contracts/src/generated/index.ts');
    writeFileSync(file, `${readFileSync(file, 'utf8')}// edited\n`);
    expect(check().status).toBe(1);
  });
});
