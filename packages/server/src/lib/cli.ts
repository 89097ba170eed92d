import { pathToFileURL } from 'node:url';

/** What a command of ours reads and writes: injected, so tests run it without a process. */
export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Whether stdout is a terminal (a progress bar only makes sense there). */
  isTTY: boolean;
  /** The directory relative paths of the command line are read from. */
  cwd: string;
  env: Record<string, string | undefined>;
}

/**
 * Runs `command` with this process's arguments and streams when the module is the script node
 * was started with (`tsx src/x.ts`, `node dist/x.js`), and sets the exit code from its answer;
 * an unexpected throw prints it and exits 1. Importing the module (tests) runs nothing.
 *
 * @example runIfMain(import.meta.url, (args, io) => runBackupCli(args, io));
 */
export function runIfMain(moduleUrl: string, command: (args: string[], io: CliIo) => Promise<number>): void {
  const script = process.argv[1];
  if (script === undefined || moduleUrl !== pathToFileURL(script).href) return;
  const io: CliIo = {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    isTTY: process.stdout.isTTY === true,
    cwd: process.cwd(),
    env: process.env,
  };
  command(process.argv.slice(2), io).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
}

/** A mistake in how the command was called: answered with the message, the usage and exit code 2. */
export class UsageError extends Error {}

/** The exit code of a usage error, after saying what is wrong. */
export function usageFailure(io: Pick<CliIo, 'err'>, message: string): 2 {
  io.err(message);
  return 2;
}

/**
 * `parse()`, or, when it throws a {@link UsageError}, the message and the usage on stderr and
 * `null` (the command then exits 2). Other errors are not the caller's mistake: they go on.
 *
 * @example const args = parseOrExplain(io, USAGE, () => parseArgs(argv)); if (!args) return 2;
 */
export function parseOrExplain<T>(io: Pick<CliIo, 'err'>, usage: string, parse: () => T): T | null {
  try {
    return parse();
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.err(err.message);
    io.err('');
    io.err(usage);
    return null;
  }
}
