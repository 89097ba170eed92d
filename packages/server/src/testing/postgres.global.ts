import { join } from 'node:path';
import pg from 'pg';
import { migrateWithLock } from '../db/postgres.js';
import { SERVER_ROOT } from '../lib/paths.js';
import { startEmbeddedPostgres } from './embedded-postgres.js';
import { PG_TEMPLATE, PG_TEST_URL_VAR } from './postgres.js';

/**
 * Global setup of the `server-pg` test project: a real PostgreSQL server for the run
 * (embedded-postgres, see testing/embedded-postgres.ts), tuned for tests (no fsync: a crash of
 * the test machine loses nothing that matters; connections for every worker), with the
 * migrated template database the test databases are copied from. The URL goes to the test
 * processes in `RESALE_PG_TEST_URL` (they start after this).
 */
export default async function setup(): Promise<() => Promise<void>> {
  const server = await startEmbeddedPostgres({ fast: true, maxConnections: 800, stopOnExit: false });
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${PG_TEMPLATE}"`);
  await admin.end();
  const templateUrl = new URL(server.url);
  templateUrl.pathname = `/${PG_TEMPLATE}`;
  const pool = new pg.Pool({ connectionString: templateUrl.toString(), max: 1 });
  await migrateWithLock(pool, join(SERVER_ROOT, 'drizzle-pg'));
  await pool.end();
  process.env[PG_TEST_URL_VAR] = server.url;
  return async () => await server.stop();
}
