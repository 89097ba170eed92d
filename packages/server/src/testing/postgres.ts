import pg from 'pg';
import { postgresDb, type Db } from '../db/client.js';
import { ENGINE } from '../db/engine.js';
import { poolOf } from '../db/postgres.js';

/**
 * Test databases on PostgreSQL (the `server-pg` project of vite.config.ts): a real server
 * started once per run by testing/postgres.global.ts, one fresh database per test app, made
 * from a template the global setup migrated (`CREATE DATABASE … TEMPLATE`, a file copy: tens
 * of milliseconds, where migrating each would take a second).
 */

/** The server's URL with the admin database, as the global setup left it in the environment. */
export const PG_TEST_URL_VAR = 'RESALE_PG_TEST_URL';
/** The migrated database every test database is copied from. */
export const PG_TEMPLATE = 'resale_template';

let admin: pg.Pool | null = null;
let made = 0;
const opened: { name: string; db: Db }[] = [];

function adminPool(): pg.Pool {
  const url = process.env[PG_TEST_URL_VAR];
  if (!url) throw new Error(`${PG_TEST_URL_VAR} is not set: PostgreSQL tests run in the server-pg project (its global setup starts the server)`);
  admin ??= new pg.Pool({ connectionString: url, max: 1 });
  return admin;
}

function urlOf(database: string): string {
  const u = new URL(process.env[PG_TEST_URL_VAR]!);
  u.pathname = `/${database}`;
  return u.toString();
}

/**
 * A fresh, migrated database of its own, synchronously: the handle is made at once and its
 * connections wait until the database exists (every entry point goes through `transact` or
 * `read`, whose first query waits with them).
 */
export function freshPostgresDb(): Db {
  if (ENGINE !== 'postgres') throw new Error('freshPostgresDb: this process runs on SQLite');
  const name = `t_${process.pid}_${++made}`;
  const created = adminPool()
    .query(`CREATE DATABASE "${name}" TEMPLATE "${PG_TEMPLATE}"`)
    .then(() => undefined);
  // The handle is made now (no migrations: the template has them), its pool connects lazily.
  let db!: Db;
  const making = postgresDb(urlOf(name), { migrate: false, migrationsFolder: '', poolSize: 4 }).then((d) => (db = d));
  void making;
  const lazy = lazyPostgresDb(created, () => db, making);
  opened.push({ name, db: lazy });
  return lazy;
}

/**
 * The database handle before the pool exists: `transact` and `read` wait for the database and
 * then run; anything else is forwarded to the real handle once made.
 */
function lazyPostgresDb(created: Promise<void>, real: () => Db, making: Promise<Db>): Db {
  const ready = Promise.all([created, making]).then(() => real());
  const target = {} as Db;
  return new Proxy(target, {
    // What code sets on the handle (a wrapper around `transact`, a marker) is kept here.
    get(_t, prop) {
      if (Reflect.has(target, prop)) return Reflect.get(target, prop);
      if (prop === 'transact') return (fn: Parameters<Db['transact']>[0]) => ready.then((db) => db.transact(fn));
      if (prop === 'read') return (fn: Parameters<Db['read']>[0], opts?: { snapshot?: boolean }) => ready.then((db) => db.read(fn, opts));
      if (prop === 'then' || typeof prop === 'symbol') return undefined;
      const db = real();
      if (!db) throw new Error(`the test database is not ready yet: use t.db.transact or t.db.read before t.db.${String(prop)}`);
      const value = (db as unknown as Record<string | symbol, unknown>)[prop];
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(db) : value;
    },
  });
}

/** Closes the test databases of this file and drops them (the global setup's server stays). */
export async function dropTestDatabases(): Promise<void> {
  const all = opened.splice(0);
  for (const { name, db } of all) {
    try {
      await db.read(async () => undefined);
      await poolOf(db).end();
    } catch {
      // Never made (a failed CREATE): nothing to close.
    }
    await adminPool().query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
}
