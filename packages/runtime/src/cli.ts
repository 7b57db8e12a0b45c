import { parseArgs, type ParseArgsConfig } from 'node:util';

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
 * Runs a CLI's `main` and ends the process with its exit code: the code is set, not forced, so the last
 * log lines are written once the CLI has closed its clients; an error is printed and exits 1.
 */
export function runCommand(main: (argv: string[]) => Promise<number>): void {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
