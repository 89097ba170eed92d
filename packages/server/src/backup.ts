/**
 * `npm run backup -- [--force] <file>`
 *
 * The operator command of backups (docs/operating.md, "Backups"): a consistent
 * copy of the service's SQLite database, taken while the service runs, through SQLite's online
 * backup API (db/backup.ts). The database is the one the service uses: `DATABASE_PATH` from the
 * environment, with the service's default, a relative path read from packages/server as
 * `npm run serve` reads it. `<file>` is read from where the command was typed.
 *
 * On PostgreSQL (`DATABASE_URL` set) there is nothing for it to copy: it refuses (exit 2) and
 * says so; PostgreSQL is backed up with its own tools (pg_dump, base backups).
 *
 * Exit codes: 0 the copy is written and passed its integrity check; 1 the copy failed (read or
 * write error, a source that is not a database, a failed integrity check: nothing is left
 * under `<file>`); 2 usage error (arguments, `DATABASE_URL` set, `DATABASE_PATH` in memory or
 * missing, `<file>` exists without `--force`, is the database itself, or its directory is
 * missing).
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BackupError, backupSqlite } from './db/backup.js';
import { EnvSchema } from './env.js';
import { parseOrExplain, runIfMain, usageFailure, UsageError, type CliIo } from './lib/cli.js';

const USAGE = `Usage: npm run backup -- [--force] <file>

  Copies the database at $DATABASE_PATH (the service's; default ${EnvSchema.shape.DATABASE_PATH.parse(undefined)},
  read from packages/server) into <file>, consistently, while the service runs.

  --force   replace <file> if it exists

  SQLite only: with $DATABASE_URL set (PostgreSQL), back up with PostgreSQL's own tools
  (pg_dump, or base backups with WAL archiving) instead.

Exit codes: 0 done, 1 the copy failed, 2 usage error.`;

/** What the backup command reads and writes (`cwd`: where a relative DATABASE_PATH is read from, packages/server under npm). */
export type BackupCliIo = Pick<CliIo, 'out' | 'err' | 'cwd' | 'env'>;

/** Runs the command; returns the exit code. Never exits the process itself, so tests can call it in-process. */
export async function runBackupCli(argv: string[], io: BackupCliIo): Promise<number> {
  // Empty counts as unset, as for the service (env.ts).
  if (io.env.DATABASE_URL) {
    return usageFailure(
      io,
      'DATABASE_URL is set: the service runs on PostgreSQL, and npm run backup only copies a SQLite database (DATABASE_PATH). ' +
        'Back PostgreSQL up with its own tools: pg_dump for a logical copy, or base backups (pg_basebackup) with WAL archiving for point-in-time recovery.',
    );
  }
  const args = parseOrExplain(io, USAGE, () => parseBackupArgs(argv, io));
  if (!args) return 2;
  const { source, destination, force } = args;
  if (!existsSync(source)) return usageFailure(io, `No database at ${source} (DATABASE_PATH): check the variable is the service's`);
  if (!statSync(source).isFile()) return usageFailure(io, `${source} (DATABASE_PATH) is not a file`);
  if (!existsSync(dirname(destination)) || !statSync(dirname(destination)).isDirectory()) return usageFailure(io, `No directory ${dirname(destination)}: create it first`);
  const sourceReal = realpathSync(source);
  const destinationReal = resolve(realpathSync(dirname(destination)), basename(destination));
  const sameFile = (a: string, b: string) => {
    const [x, y] = [statSync(a), statSync(b)];
    return x.dev === y.dev && x.ino === y.ino;
  };
  const itself = `${destination} is the database itself (or one of its files): name another file`;
  if ([sourceReal, `${sourceReal}-wal`, `${sourceReal}-shm`, `${sourceReal}-journal`].includes(destinationReal)) return usageFailure(io, itself);
  if (existsSync(destination)) {
    if (statSync(destination).isDirectory()) return usageFailure(io, `${destination} is a directory: name a file`);
    if (sameFile(destination, source)) return usageFailure(io, itself);
    if (!force) return usageFailure(io, `${destination} already exists: name a new file, or pass --force to replace it`);
  }

  try {
    const result = await backupSqlite(source, destination, { overwrite: force });
    io.out(`Backed up ${source} to ${destination}: ${formatBytes(result.bytes)} (${result.pages} pages) in ${result.ms} ms; integrity check ok`);
    return 0;
  } catch (err) {
    if (err instanceof BackupError && err.reason === 'exists') return usageFailure(io, `${destination} already exists: name a new file, or pass --force to replace it`);
    io.err(`Backup of ${source} failed: ${(err as Error).message}`);
    io.err(`Nothing was written to ${destination}.`);
    return 1;
  }
}

function parseBackupArgs(argv: string[], io: BackupCliIo) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { force: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) throw new UsageError('Backs up the service’s SQLite database.');
  if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'Name the file to write the copy to' : `One file at a time (got ${positionals.length})`);
  const file = positionals[0]!;
  // Empty counts as unset, as for the service (env.ts).
  const configured = io.env.DATABASE_PATH || EnvSchema.shape.DATABASE_PATH.parse(undefined);
  if (configured.trim() === ':memory:' || /^file::memory:/i.test(configured.trim())) {
    throw new UsageError('DATABASE_PATH is :memory:: an in-memory database lives only inside the service process and cannot be backed up from outside');
  }
  const at = (p: string, base: string) => (isAbsolute(p) ? p : resolve(base, p));
  // npm runs the script in packages/server; INIT_CWD is where the operator typed the command.
  const typedIn = io.env.INIT_CWD ?? io.cwd;
  return { source: at(configured, io.cwd), destination: at(file, typedIn), force: values.force === true };
}

function formatBytes(n: number): string {
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

runIfMain(import.meta.url, runBackupCli);
