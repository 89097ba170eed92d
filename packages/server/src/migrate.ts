import { resolve } from 'node:path';
import { closeDb, openDb, type DatabaseLocation } from './db/client.js';
import { EnvError, parseMigrateEnv } from './env.js';
import { migrationStatus } from './http/api/health.readiness.js';

/**
 * `npm run migrate`: applies the committed migrations (`drizzle/`, or `drizzle-pg/` on
 * PostgreSQL) to the configured database (`DATABASE_URL` or `DATABASE_PATH`, as the service
 * reads them) and exits 0; exit 1 with the reason when it cannot.
 * Harmless to run again (nothing to apply), and safe beside running processes: drizzle applies
 * the pending migrations in one transaction, under SQLite's write lock.
 *
 * For deployments that migrate once, before the new release starts (a migration job), with
 * `MIGRATE_ON_START=false` on the service: a service started before the migrations are applied
 * answers 503 on `/readyz` and serves nothing else until they are (main.ts).
 */
export async function runMigrations(where: DatabaseLocation): Promise<{ applied: string[]; expected: number }> {
  // Read what is pending first, then open again to apply: applying goes through openDb, the
  // one place that may use drizzle's migrators (module boundaries, .dependency-cruiser.cjs).
  const before = await openDb(where, { migrate: false, poolSize: 1 });
  let pending: string[];
  try {
    pending = (await migrationStatus(before)).pending;
  } finally {
    await closeDb(before);
  }
  const db = await openDb(where, { poolSize: 1 });
  try {
    const after = await migrationStatus(db);
    if (after.pending.length > 0) throw new Error(`migrations still pending after migrating: ${after.pending.join(', ')}`);
    return { applied: pending, expected: after.expected };
  } finally {
    await closeDb(db);
  }
}

/** A database URL without its password. */
function redactUrl(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

const isEntry = process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isEntry) {
  try {
    const env = parseMigrateEnv(process.env);
    // Where, for the message: the SQLite file, or the PostgreSQL server and database without the password.
    const path = env.DATABASE_URL ? redactUrl(env.DATABASE_URL) : resolve(env.DATABASE_PATH);
    const { applied, expected } = await runMigrations({ url: env.DATABASE_URL, path: env.DATABASE_PATH });
    if (env.LOG_LEVEL !== 'silent') {
      console.log(
        applied.length === 0
          ? `migrate: ${path} is up to date (${expected} migrations)`
          : `migrate: applied ${applied.length} of ${expected} migrations to ${path}: ${applied.join(', ')}`,
      );
    }
    process.exit(0);
  } catch (err) {
    console.error(err instanceof EnvError ? err.message : `migrate: ${(err as Error).message}`);
    process.exit(1);
  }
}
