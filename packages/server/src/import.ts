/**
 * `npm run import -- --partner <id> [--dry-run] [--database <path>] <file.csv|file.xlsx>`
 *
 * The operator command of manual load (docs/import.md). Opens the service's database as
 * main.ts does (migrations applied, services wired by buildDeps, so the domain events of
 * an import reach their handlers exactly as the API's do), imports the file for the
 * partner and prints a summary. The import itself is domain/events/import/import.ts, the
 * code path the console's manual load (flows/manual-load.ts) shares; this file is the
 * command's arguments, database and output. The database is PostgreSQL's at `DATABASE_URL` when it is set
 * (as for the service, db/client.ts `openDb`), else the SQLite file (`--database`,
 * `DATABASE_PATH`, the `npm start` one). Safe while the service runs: SQLite in WAL mode with
 * immediate transactions lets the two write in turn; PostgreSQL serves both at once.
 *
 * Exit codes: 0 everything applied (or, with --dry-run, would be); 1 some row was bad
 * (its event was not applied; the others were); 2 usage error (arguments, unknown
 * partner, missing file or database, `--database` with `DATABASE_URL`).
 */
import cliProgress from 'cli-progress';
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { closeDb, openDb, type Db } from './db/client.js';
import { EnvError, parseDatabaseUrlEnv } from './env.js';
import { buildDeps } from './deps.js';
import { partnerById } from './domain/partners/partners.queries.js';
import { systemClock } from './lib/clock.js';
import { importEvents, type ImportReport } from './domain/events/import/import.js';
import { SheetReadError, sheetFormat } from './domain/events/import/sheet.read.js';
import { parseOrExplain, runIfMain, usageFailure, UsageError, type CliIo } from './lib/cli.js';

/** The database of `npm start` (start-dev.ts), relative to packages/server where npm runs the script. */
export const DEFAULT_DATABASE = './data/resale-dev.sqlite';

/** Files with more data rows than this get a progress bar (on a terminal). */
export const PROGRESS_MIN_ROWS = 200;

const USAGE = `Usage: npm run import -- --partner <partnerId> [--dry-run] [--database <path>] <file.csv|file.xlsx>

  --partner <id>     the partner the events belong to (ptr_…), required
  --dry-run          check every row and report what would be created or updated; write nothing
  --database <path>  SQLite database (default: $DATABASE_PATH, else ${DEFAULT_DATABASE}, the npm start one)

With $DATABASE_URL set (postgres://…), the events go to that PostgreSQL database, as the
service's do; --database and $DATABASE_PATH are then not used.

Layout of the file: docs/import.md`;

export type { CliIo };

/**
 * Runs the command; returns the exit code. Never exits the process itself, so tests can
 * call it in-process.
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const args = parseOrExplain(io, USAGE, () => parseCliArgs(argv, io));
  if (!args) return 2;
  if (!existsSync(args.file)) return usageFailure(io, `No file at ${args.file}`);
  // openDb would create an empty SQLite file: a missing one is a wrong path.
  if (!args.url && !existsSync(args.database)) return usageFailure(io, `No database at ${args.database}: start the service once (npm start) or pass --database`);
  // Where, for the messages: the SQLite file, or the PostgreSQL server and database without the password.
  const where = args.url ? redactUrl(args.url) : args.database;

  let db: Db | null = null;
  let closeMessages = () => {};
  let bar: cliProgress.SingleBar | null = null;
  try {
    db = await openDb({ url: args.url, path: args.database }, { poolSize: 2 });
    const deps = buildDeps({
      db,
      clock: systemClock,
      // Warnings and errors of the services go to stderr; stdout is the report.
      logger: pino({ level: 'warn' }, pino.destination(2)),
      // The import seals and opens no secret; the services only need a well-formed key.
      secretKey: io.env.SECRET_KEY ?? 'import-cli-placeholder-secret-key-000000',
      config: {
        env: 'production',
        publicBaseUrl: io.env.PUBLIC_BASE_URL ?? 'http://localhost:3000',
        operatorToken: null,
        maxBodyBytes: 5 * 1024 * 1024,
        rateLimitPerMinute: 0,
        smtpUrl: null,
        mailFrom: 'resale <no-reply@resale.invalid>',
      },
    });
    closeMessages = () => deps.messages.close();
    if (!(await deps.db.read(async (tx) => await partnerById(tx, args.partner)))) return usageFailure(io, `Unknown partner '${args.partner}' in ${where}`);
    let report: ImportReport;
    try {
      report = await importEvents(deps, {
        partnerId: args.partner,
        file: args.file,
        dryRun: args.dryRun,
        onProgress: (done, total) => {
          if (total <= PROGRESS_MIN_ROWS || !io.isTTY) return;
          if (!bar) {
            bar = new cliProgress.SingleBar({ format: 'importing [{bar}] {value}/{total} rows', clearOnComplete: true, stream: process.stdout }, cliProgress.Presets.shades_classic);
            bar.start(total, 0);
          }
          bar.update(done);
        },
      });
    } catch (err) {
      if (!(err instanceof SheetReadError)) throw err;
      io.out(`${args.file}: nothing imported`);
      io.out(`  ${err.row !== undefined ? `row ${err.row}: ` : ''}${err.message}`);
      return 1;
    } finally {
      (bar as cliProgress.SingleBar | null)?.stop();
    }
    for (const line of formatReport(report, args.file)) io.out(line);
    return report.errors.length > 0 ? 1 : 0;
  } finally {
    closeMessages();
    if (db) await closeDb(db);
  }
}

function parseCliArgs(argv: string[], io: CliIo) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { partner: { type: 'string' }, 'dry-run': { type: 'boolean' }, database: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) throw new UsageError('Imports events, shows, ticket options, price types and combinations from a sheet.');
  if (!values.partner) throw new UsageError('--partner <partnerId> is required');
  if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'Name the file to import' : `One file at a time (got ${positionals.length})`);
  const file = positionals[0]!;
  if (sheetFormat(file) === null) throw new UsageError(`${file}: only .csv and .xlsx files can be imported`);
  // The service's database (db/client.ts `openDb`): PostgreSQL when DATABASE_URL is set.
  if (io.env.DATABASE_URL && values.database !== undefined) {
    throw new UsageError('--database names a SQLite file, but DATABASE_URL is set: the events go to its PostgreSQL database (unset DATABASE_URL to import into a SQLite file)');
  }
  let url: string | undefined;
  try {
    url = parseDatabaseUrlEnv(io.env);
  } catch (err) {
    if (err instanceof EnvError) throw new UsageError(err.message);
    throw err;
  }
  const at = (p: string, base: string) => (isAbsolute(p) ? p : resolve(base, p));
  // npm runs the script in packages/server; INIT_CWD is where the operator typed the command.
  const typedIn = io.env.INIT_CWD ?? io.cwd;
  const database = values.database !== undefined ? at(values.database, typedIn) : at(io.env.DATABASE_PATH || DEFAULT_DATABASE, io.cwd);
  return { partner: values.partner, dryRun: values['dry-run'] === true, url, database, file: at(file, typedIn) };
}

/** The summary the command prints. */
export function formatReport(report: ImportReport, file: string): string[] {
  const count = (o: string) => report.events.filter((e) => e.outcome === o);
  const created = count('created');
  const updated = count('updated');
  const rejected = count('rejected');
  const [c, u] = report.dryRun ? ['would create', 'would update'] : ['created', 'updated'];
  const lines = [
    `${file}: ${report.rows} row(s), ${report.events.length} event(s)${report.dryRun ? ' (dry run: nothing written)' : ''}`,
    `  ${c.padEnd(13)}${created.length}${list(created)}`,
    `  ${u.padEnd(13)}${updated.length}${list(updated)}`,
    `  ${'rejected'.padEnd(13)}${rejected.length}${list(rejected)}`,
  ];
  if (report.errors.length > 0) {
    lines.push('', `Bad rows (${report.errors.length} problem(s); an event with any bad row is not applied):`);
    for (const e of report.errors) {
      lines.push(`  row ${e.row}${e.column ? `, ${e.column}` : ''}: ${e.message}${e.eventId ? ` [event ${e.eventId}]` : ''}`);
    }
  }
  return lines;
}

/** A database URL without its password. */
function redactUrl(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

function list(events: { externalReferenceId: string }[]): string {
  return events.length > 0 ? `  (${events.map((e) => e.externalReferenceId).join(', ')})` : '';
}

runIfMain(import.meta.url, runCli);
