import { afterAll } from 'vitest';

/**
 * Setup file of the `server-pg` test project: this test process runs on PostgreSQL
 * (db/engine.ts reads DATABASE_URL when the tables are first imported, which is after this
 * file), and the databases a test file made are dropped after it.
 */
process.env.DATABASE_URL = process.env.RESALE_PG_TEST_URL;
if (!process.env.DATABASE_URL) throw new Error('RESALE_PG_TEST_URL is not set: the server-pg project starts PostgreSQL in its global setup');

afterAll(async () => {
  const { dropTestDatabases } = await import('./postgres.js');
  await dropTestDatabases();
});
