import { resolve } from 'node:path';
import { createDb } from './db/client.js';
import { EnvError, parseMigrateEnv } from './env.js';
import { migrationStatus } from './modules/health/health.readiness.js';

/**
 * `npm run migrate`: applies the committed migrations (`drizzle/`) to the configured database
 * (`DATABASE_PATH`, as the service reads it) and exits 0; exit 1 with the reason when it cannot.
 * Harmless to run again (nothing to apply), and safe beside running processes: drizzle applies
 * the pending migrations in one transaction, under SQLite's write lock.
 *
 * For deployments that migrate once, before the new release starts (a migration job), with
 * `MIGRATE_ON_START=false` on the service: a service started before the migrations are applied
 * answers 503 on `/readyz` and serves nothing else until they are (main.ts).
 */
export async function runMigrations(databasePath: string): Promise<{ applied: string[]; expected: number }> {
  // Read what is pending first, then open again to apply: applying goes through createDb, the
  // one place that may use drizzle's SQLite migrator (module boundaries, .dependency-cruiser.cjs).
  const before = createDb(databasePath, { migrate: false });
  let pending: string[];
  try {
    pending = (await migrationStatus(before)).pending;
  } finally {
    before.$client.close();
  }
  const db = createDb(databasePath);
  try {
    const after = await migrationStatus(db);
    if (after.pending.length > 0) throw new Error(`migrations still pending after migrating: ${after.pending.join(', ')}`);
    return { applied: pending, expected: after.expected };
  } finally {
    db.$client.close();
  }
}

const isEntry = process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isEntry) {
  try {
    const env = parseMigrateEnv(process.env);
    const path = resolve(env.DATABASE_PATH);
    const { applied, expected } = await runMigrations(env.DATABASE_PATH);
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
