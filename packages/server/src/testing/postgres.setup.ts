import { afterAll } from 'vitest';

/**
 * Setup file of the `server-pg` test project: this test process runs on PostgreSQL
 * (db/engine.ts reads DATABASE_URL when the tables are first imported, which is after this
 * file), and the databases a test file made are dropped after it.
 */
process.env.DATABASE_URL = process.env.RESALE_PG_TEST_URL;
if (!process.env.DATABASE_URL) throw new Error('RESALE_PG_TEST_URL is not set: the server-pg project starts PostgreSQL in its global setup');

// A file may make well over a hundred test apps (surface.test.ts: 150), each with a database of
// its own, dropped here one after the other (tens of milliseconds each, more under the load of a
// whole run): far beyond the 10 s a hook gets by default.
afterAll(async () => {
  const { dropTestDatabases } = await import('./postgres.js');
  await dropTestDatabases();
}, 120_000);
