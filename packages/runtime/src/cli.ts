import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CodedError } from './errors';

export interface CommandLineIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** What a command line asked for: the parsed options, or an exit (0 after `--help`, 2 on wrong usage). */
export type CommandLine<C extends ParseArgsConfig> = ReturnType<typeof parseArgs<C>> | { exitCode: 0 | 2 };

/**
 * The command line of one of our job CLIs (a replay, a redelivery, a retrospective run), parsed strictly
 * by node's `util.parseArgs`: `-h` or `--help` anywhere prints the usage to stdout and asks for exit 0;
 * an unknown option, a missing value or an unexpected argument prints what is wrong and the synopsis
 * (the usage's first paragraph) to stderr and asks for exit 2. Such a CLI must never start its job on an
 * argument it does not understand (the replay CLI, which read no arguments, rebuilt and switched every
 * read model on `replay --help`).
 */
export function parseCommandLine<const C extends ParseArgsConfig>(
  argv: readonly string[],
  usage: string,
  config: C,
  io: CommandLineIo = process,
): CommandLine<C> {
  const text = usage.endsWith('\n') ? usage : `${usage}\n`;
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout.write(text);
    return { exitCode: 0 };
  }
  try {
    // Strict unless the config says otherwise (parseArgs's default); `args` is always the given argv.
    return parseArgs<C>({ ...config, args: [...argv] });
  } catch (err) {
    return { exitCode: usageError(usage, (err as Error).message, io) };
  }
}

/**
 * Wrong usage: prints what is wrong and the synopsis (the usage's first paragraph; the whole text is one
 * `--help` away) to stderr, and gives the exit code, 2. For values a CLI checks itself after parsing.
 */
export function usageError(usage: string, message: string, io: Pick<CommandLineIo, 'stderr'> = process): 2 {
  const synopsis = usage.split(/\n\s*\n/)[0]!.trimEnd();
  io.stderr.write(`${message}\n${synopsis}\n(--help for details)\n`);
  return 2;
}

/**
 * What a job CLI prints when its `main` throws: `<name> failed:`, then for one of our coded errors (an
 * expected refusal such as REPLAY_TARGET_ACTIVE or an invalid setting) its code and message, for anything
 * else the stack, which an operator reporting the failure needs.
 */
export function describeFailure(name: string, err: unknown): string {
  if (!(err instanceof Error)) return `${name} failed: ${String(err)}\n`;
  if (err instanceof CodedError) return `${name} failed: ${err.code}: ${err.message}\n`;
  return `${name} failed: ${err.stack ?? err.message}\n`;
}

/**
 * Runs a job CLI's `main` and ends the process with its exit code: the code is set, not forced, so the
 * last log lines are written once the CLI has closed its clients. When `main` throws, the failure is
 * printed (`describeFailure`) and the process exits 1 at once: a client opened before the failure (a
 * broker connection made before the store refused) must not keep it running.
 */
export function runCommand(name: string, main: (argv: string[]) => Promise<number>): void {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(describeFailure(name, err));
      process.exit(1);
    },
  );
}
