import { describeFailure, parseCommandLine, usageError } from './cli';
import { CodedError } from './errors';

const USAGE = `usage: job [--dry-run] [--max N] [--id ID ...]

Does the job.

  --max N   at most N
`;
const CONFIG = {
  options: {
    'dry-run': { type: 'boolean', default: false },
    max: { type: 'string' },
    id: { type: 'string', multiple: true },
  },
} as const;

function parse(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const line = parseCommandLine(argv, USAGE, CONFIG, {
    stdout: { write: (t: string) => out.push(t) },
    stderr: { write: (t: string) => err.push(t) },
  });
  return { line, stdout: out.join(''), stderr: err.join('') };
}

describe('parseCommandLine', () => {
  it('gives the parsed options and prints nothing', () => {
    const { line, stdout, stderr } = parse(['--dry-run', '--max', '5', '--id', 'a', '--id', 'b']);
    expect(line).toEqual({ values: { 'dry-run': true, max: '5', id: ['a', 'b'] }, positionals: [] });
    expect(stdout + stderr).toBe('');
  });

  it('applies defaults', () => {
    expect(parse([]).line).toEqual({ values: { 'dry-run': false }, positionals: [] });
  });

  it('prints the whole usage to stdout and asks for exit 0 on --help or -h, wherever it is', () => {
    for (const argv of [['--help'], ['-h'], ['--dry-run', '--help'], ['--bogus', '-h']]) {
      const { line, stdout, stderr } = parse(argv);
      expect(line).toEqual({ exitCode: 0 });
      expect(stdout).toBe(USAGE);
      expect(stderr).toBe('');
    }
  });

  it('names what is wrong, prints the synopsis to stderr and asks for exit 2, never running the job', () => {
    const cases: [string[], RegExp][] = [
      [['--bogus'], /Unknown option '--bogus'/],
      [['--max'], /--max/],
      [['stray'], /Unexpected argument 'stray'/],
      [['--dry-run=yes'], /--dry-run/],
    ];
    for (const [argv, message] of cases) {
      const { line, stdout, stderr } = parse(argv);
      expect(line).toEqual({ exitCode: 2 });
      expect(stdout).toBe('');
      expect(stderr).toMatch(message);
      expect(stderr).toContain('usage: job [--dry-run] [--max N] [--id ID ...]\n(--help for details)\n');
      expect(stderr).not.toContain('Does the job.');
    }
  });

  it('usageError prints a value problem with the synopsis to stderr and gives exit code 2', () => {
    const err: string[] = [];
    expect(
      usageError(USAGE, '--max must be a number', { stderr: { write: (t: string) => err.push(t) } }),
    ).toBe(2);
    expect(err.join('')).toBe(
      '--max must be a number\nusage: job [--dry-run] [--max N] [--id ID ...]\n(--help for details)\n',
    );
  });
});

describe('describeFailure', () => {
  it('names the CLI and gives a coded refusal as its code and message, without a stack', () => {
    const text = describeFailure('replay', new CodedError('REPLAY_TARGET_ACTIVE', 'customers_r1 is active'));
    expect(text).toBe('replay failed: REPLAY_TARGET_ACTIVE: customers_r1 is active\n');
  });

  it('gives an unexpected error with its stack, and anything thrown that is not an error as text', () => {
    const err = new TypeError('cannot read x');
    expect(describeFailure('redeliver', err)).toBe(`redeliver failed: ${err.stack}\n`);
    expect(describeFailure('retro-monitor', 'broker gone')).toBe('retro-monitor failed: broker gone\n');
  });
});
