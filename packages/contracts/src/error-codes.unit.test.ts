import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCodes, FieldProblems } from './error-codes';

/** docs/error-codes.md is the integrators' complete list: every code the contracts define is in it. */
describe('docs/error-codes.md', () => {
  const doc = readFileSync(join(__dirname, '../../../docs/error-codes.md'), 'utf8');

  it.each(Object.values(ErrorCodes))('lists the flat code %s', (code) => {
    expect(doc).toMatch(new RegExp(`^\\| \`${code}\` +\\|`, 'm'));
  });

  it.each(Object.values(FieldProblems))('lists the problem %s', (problem) => {
    expect(doc).toContain(`\`${problem}\``);
  });
});
