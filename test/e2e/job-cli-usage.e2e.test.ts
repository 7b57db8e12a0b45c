import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '@crs/testing';

/**
 * The job CLIs an operator runs by hand (docs/operations.md): asking for help or mistyping an option
 * must print the usage and exit, never start the job. The replay CLI read no arguments at all: `replay
 * --help` rebuilt and switched every read model. The settings point at ports nothing listens on, so a
 * CLI that went on to its job would fail or hang instead of answering with its usage.
 */
const CLIS: [string, string][] = [
  ['replay', 'services/projector/dist/cli/replay.js'],
  ['redeliver', 'services/callback/dist/cli/redeliver.js'],
  ['retro-monitor', 'services/archive/dist/cli/retro-monitor.js'],
  ['retention-run', 'services/evaluation/dist/cli/retention-run.js'],
  ['activate-matrix', 'services/evaluation/dist/cli/activate-matrix.js'],
];

const NOWHERE = {
  KAFKA_BROKERS: '127.0.0.1:9',
  SCHEMA_REGISTRY_URL: 'http://127.0.0.1:9',
  MONGODB_URI: 'mongodb://127.0.0.1:9/?serverSelectionTimeoutMS=500',
};

function runCli(
  file: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, file), ...args],
      { env: { ...process.env, ...NOWHERE, ...env }, timeout: 30000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? -1) : 0, stdout, stderr }),
    );
  });
}

describe('job CLIs answer --help and wrong usage without starting their job', () => {
  it.each(CLIS)('%s --help prints its usage and exits 0', async (name, file) => {
    for (const flag of ['--help', '-h']) {
      const { code, stdout, stderr } = await runCli(file, [flag]);
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      expect(stdout).toMatch(new RegExp(`^usage: ${name}`));
      expect(stdout).toContain('Exit 0');
    }
  });

  it.each(CLIS)('%s with an unknown option names it and exits 2', async (name, file) => {
    const { code, stdout, stderr } = await runCli(file, ['--no-such-option']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain("Unknown option '--no-such-option'");
    expect(stderr).toContain(`usage: ${name}`);
  });
});

/** Arguments that pass each CLI's own checks, so that it gets as far as reading its settings. */
const VALID_ARGS: Record<string, string[]> = {
  'activate-matrix': [join(ROOT, 'packages/risk-engine/matrices/demo-persons.v1.json')],
};

describe('job CLIs name a failure and exit 1', () => {
  it.each(CLIS)('%s with an invalid setting says which, with its code and no stack', async (name, file) => {
    const { code, stdout, stderr } = await runCli(file, VALID_ARGS[name] ?? [], {
      LOG_LEVEL: 'loud',
      MONGODB_OWNER_DATABASES: 'maybe',
    });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(new RegExp(`^${name} failed: CONFIG_INVALID: invalid configuration: `));
    expect(stderr).toMatch(/LOG_LEVEL|MONGODB_OWNER_DATABASES/);
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});
