/**
 * `npm run reseal`
 *
 * The operator command of secret rotation (docs/operating.md, "Secret
 * rotation"): seals every secret stored in the database again under the newest key of
 * `SECRET_KEY` (its first), so that the older keys can then be removed from it. The database
 * is the service's (`DATABASE_URL`, else `DATABASE_PATH` with the service's default, a
 * relative path read from packages/server as `npm run serve` reads it). One transaction
 * (flows/reseal-secrets.ts): a value no listed key opens rolls everything back and is named.
 * Values already under the newest key are left alone, so a second run rewrites nothing. Safe
 * beside running processes (they must already run with the new `SECRET_KEY`, so that what
 * they seal meanwhile is under the newest key too).
 *
 * Exit codes: 0 every stored secret is sealed under the newest key; 1 the run failed (a value
 * no listed key opens, migrations not applied, a database error: nothing was written); 2 usage
 * error (arguments, `SECRET_KEY` missing or malformed, `DATABASE_PATH` in memory or missing).
 */
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { closeDb, openDb, type Db } from './db/client.js';
import { buildDeps } from './deps.js';
import { EnvError, EnvSchema, parseResealEnv } from './env.js';
import { resealSecrets, type ResealReport } from './flows/reseal-secrets.js';
import { parseOrExplain, runIfMain, usageFailure, UsageError, type CliIo } from './lib/cli.js';
import { systemClock } from './lib/clock.js';
import { SealedSecretError } from './lib/crypto.js';
import { migrationStatus } from './http/api/health.readiness.js';

const USAGE = `Usage: npm run reseal

  Seals every secret stored in the database (partners' webhook and platform secrets, sellers'
  payout account numbers) again under the newest key of $SECRET_KEY (the first of its
  comma-separated keys), so the older keys can then be removed from SECRET_KEY. Every key
  listed must be one the stored values were sealed with. The database is $DATABASE_URL, else
  $DATABASE_PATH (default ${EnvSchema.shape.DATABASE_PATH.parse(undefined)}, read from packages/server).
  Harmless to run again.

Exit codes: 0 done, 1 failed (nothing written), 2 usage error.`;

/** What the reseal command reads and writes (`cwd`: where a relative DATABASE_PATH is read from, packages/server under npm). */
export type ResealCliIo = Pick<CliIo, 'out' | 'err' | 'cwd' | 'env'>;

/** Runs the command; returns the exit code. Never exits the process itself, so tests can call it in-process. */
export async function runResealCli(argv: string[], io: ResealCliIo): Promise<number> {
  const args = parseOrExplain(io, USAGE, () => parseResealArgs(argv, io));
  if (!args) return 2;
  const { env, path } = args;
  // Where, for the messages: the SQLite file, or the PostgreSQL server and database without the password.
  const where = env.DATABASE_URL ? redactUrl(env.DATABASE_URL) : path;
  // openDb would create an empty SQLite file: a missing one is a wrong DATABASE_PATH.
  if (!env.DATABASE_URL && !existsSync(path)) return usageFailure(io, `No database at ${path} (DATABASE_PATH): check the variable is the service's`);

  let db: Db | null = null;
  let closeMessages = () => {};
  try {
    db = await openDb({ url: env.DATABASE_URL, path }, { migrate: false, poolSize: 1 });
    const { pending } = await migrationStatus(db);
    if (pending.length > 0) {
      io.err(`reseal: ${pending.length} database migrations are not applied to ${where}: run npm run migrate (or start the service) first`);
      return 1;
    }
    const deps = buildDeps({
      db,
      clock: systemClock,
      // Warnings and errors of the services go to stderr; stdout is the report.
      logger: pino({ level: 'warn' }, pino.destination(2)),
      secretKey: env.SECRET_KEY,
      // Resealing sends nothing and serves nothing; the services only need a well-formed config.
      config: { env: 'production', publicBaseUrl: 'http://localhost:3000', operatorToken: null, maxBodyBytes: 1 << 20, rateLimitPerMinute: 0, smtpUrl: null, mailFrom: 'resale <no-reply@resale.invalid>' },
    });
    closeMessages = () => deps.messages.close();
    const report = await deps.db.transact(async (tx) => await resealSecrets(deps, tx));
    for (const line of formatResealReport(report, deps.box.keyIds, where)) io.out(line);
    return 0;
  } catch (err) {
    // A SealedSecretError names the row and the key id, never a secret.
    // A failed query's own message lists its parameters (sealed values): its cause says why.
    const cause = (err as { cause?: unknown }).cause;
    const reason = err instanceof SealedSecretError ? err.message : `failed: ${(cause instanceof Error ? cause : (err as Error)).message}`;
    io.err(`reseal: ${reason}`);
    io.err('Nothing was written.');
    return 1;
  } finally {
    closeMessages();
    if (db) await closeDb(db);
  }
}

/** The report the command prints: rows per table, and what may happen to the older keys. */
export function formatResealReport(report: ResealReport, keyIds: readonly string[], where: string): string[] {
  const [newest, ...older] = keyIds;
  const lines = [`Resealed ${where} under key ${newest}:`];
  for (const [table, count] of Object.entries(report)) lines.push(`  ${table}: ${count.resealed} of ${count.rows} rows rewritten`);
  lines.push(
    older.length > 0
      ? `Every stored secret is sealed under key ${newest}: key${older.length > 1 ? 's' : ''} ${older.join(', ')} may now be removed from SECRET_KEY (then restart every process).`
      : `Every stored secret is sealed under key ${newest}, the only key of SECRET_KEY.`,
  );
  return lines;
}

function parseResealArgs(argv: string[], io: ResealCliIo) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (parsed.values.help) throw new UsageError('Seals the stored secrets under the newest key of SECRET_KEY.');
  if (parsed.positionals.length > 0) throw new UsageError(`No arguments expected (got ${parsed.positionals.join(' ')})`);
  let env;
  try {
    env = parseResealEnv(io.env);
  } catch (err) {
    if (err instanceof EnvError) throw new UsageError(err.message);
    throw err;
  }
  return { env, path: isAbsolute(env.DATABASE_PATH) ? env.DATABASE_PATH : resolve(io.cwd, env.DATABASE_PATH) };
}

/** A database URL without its password. */
function redactUrl(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

runIfMain(import.meta.url, runResealCli);
