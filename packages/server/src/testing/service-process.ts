import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The server package's directory (the service's working directory). */
const SERVER = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The service's process entry, `src/main.ts`, as an absolute path: what another workspace
 * spawns with `node --import tsx` (bench/lib.ts) without a path into this package.
 */
export const SERVICE_MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));

/** A log line of a service process (pino's JSON), or `{ msg }` for a line that is not JSON. */
export type LogLine = Record<string, any>;

/** A service running in a child process, as `npm run serve` runs it (see {@link spawnService}). */
export interface ServiceProcess {
  child: ChildProcess;
  /** Every log line so far. */
  lines: LogLine[];
  /** The first log line (past or future) whose message starts with `prefix`; rejects if the process exits first. */
  log(prefix: string): Promise<LogLine>;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  stderr(): string;
  /** Sends SIGTERM (a clean stop) or `signal`, and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts `src/main.ts` in a child process (`node --import tsx`, so no build is needed) with
 * `env` over this process's environment, and follows its JSON log. Await
 * `log('resale listening')` before sending requests.
 *
 * @example const svc = spawnService({ DATABASE_URL: url, PORT: '0', ... }); await svc.log('resale listening');
 */
export function spawnService(env: Record<string, string>): ServiceProcess {
  // The child compiles with the server's own tsconfig (its cwd's): a tsconfig the parent was
  // started with (`tsx --tsconfig …`, passed on as TSX_TSCONFIG_PATH, relative) is not inherited.
  const { TSX_TSCONFIG_PATH: _parentTsconfig, ...inherited } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', SERVICE_MAIN], { cwd: SERVER, env: { ...inherited, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: LogLine[] = [];
  const waiters: { match: (line: LogLine) => boolean; resolve: (line: LogLine) => void }[] = [];
  let stderr = '';
  let buffered = '';
  child.stderr!.on('data', (chunk) => (stderr += String(chunk)));
  child.stdout!.on('data', (chunk) => {
    buffered += String(chunk);
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const text = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      let line: LogLine;
      try {
        line = JSON.parse(text) as LogLine;
      } catch {
        line = { msg: text };
      }
      lines.push(line);
      for (const w of [...waiters]) {
        if (w.match(line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const log = (prefix: string): Promise<LogLine> => {
    const match = (line: LogLine) => typeof line.msg === 'string' && line.msg.startsWith(prefix);
    const seen = lines.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      waiters.push({ match, resolve });
      void exited.then(() => reject(new Error(`exited before logging "${prefix}"; stderr: ${stderr}; log: ${lines.map((l) => String(l.msg)).join(' | ')}`)));
    });
  };
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  return { child, lines, log, exited, stderr: () => stderr, stop };
}
