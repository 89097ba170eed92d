import pg from 'pg';
import { postgresDb, type Db } from '../db/client.js';
import { ENGINE } from '../db/engine.js';
import { closePostgres } from '../db/postgres.js';

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
const names = new WeakMap<Db, string>();
/** Second handles (`sameDatabase`), closed before their databases are dropped. */
const closers: Db[] = [];

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
 * `read`, whose first query waits with them). `migrate: false` makes it empty instead (no
 * tables, no migrations applied).
 */
export function freshPostgresDb(opts: { migrate?: boolean } = {}): Db {
  if (ENGINE !== 'postgres') throw new Error('freshPostgresDb: this process runs on SQLite');
  const name = `t_${process.pid}_${++made}`;
  const template = opts.migrate === false ? 'template0' : PG_TEMPLATE;
  const created = adminPool()
    .query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`)
    .then(() => undefined);
  // The handle is made once the database exists (no migrations: the template has them).
  let db!: Db;
  const making = created.then(() => postgresDb(urlOf(name), { migrate: false, migrationsFolder: '', poolSize: 4 })).then((d) => (db = d));
  void making;
  const lazy = lazyPostgresDb(created, () => db, making);
  opened.push({ name, db: lazy });
  names.set(lazy, name);
  return lazy;
}

/**
 * A second handle on the database of `db` (its own pool and change feed), as another process
 * of the same deployment would open it.
 */
export function sameDatabase(db: Db): Db {
  const name = names.get(db);
  if (!name) throw new Error('sameDatabase: not a test database of freshPostgresDb');
  let other!: Db;
  // After the first handle is ready, so the database exists.
  const making = db.read(async () => undefined).then(() => postgresDb(urlOf(name), { migrate: false, migrationsFolder: '', poolSize: 4 })).then((d) => (other = d));
  const lazy = lazyPostgresDb(making.then(() => undefined), () => other, making);
  // Closed with the first (the database is dropped once).
  closers.push(lazy);
  return lazy;
}


/**
 * The URL of a fresh database of its own, for a service the test starts itself (main.ts's
 * `start`, with `DATABASE_URL`): migrated, or empty with `migrate: false` (the service then
 * migrates it at start, as on a first deployment). Dropped with the others after the file.
 */
export async function freshPostgresUrl(opts: { migrate?: boolean } = {}): Promise<string> {
  if (ENGINE !== 'postgres') throw new Error('freshPostgresUrl: this process runs on SQLite');
  const name = `t_${process.pid}_${++made}`;
  await adminPool().query(`CREATE DATABASE "${name}" TEMPLATE "${opts.migrate === false ? 'template0' : PG_TEMPLATE}"`);
  byUrl.push(name);
  return urlOf(name);
}
/** Databases made by {@link freshPostgresUrl}: whoever opened them closed them; they are only dropped. */
const byUrl: string[] = [];

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
      if (prop === 'then') return undefined;
      const db = real();
      if (typeof prop === 'symbol') return db ? Reflect.get(db, prop) : undefined;
      if (!db) throw new Error(`the test database is not ready yet: use t.db.transact or t.db.read before t.db.${String(prop)}`);
      const value = (db as unknown as Record<string | symbol, unknown>)[prop];
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(db) : value;
    },
  });
}

/** Closes the test databases of this file and drops them (the global setup's server stays). */
export async function dropTestDatabases(): Promise<void> {
  for (const db of closers.splice(0)) await closePostgres(db).catch(() => undefined);
  const all = opened.splice(0);
  for (const { name, db } of all) {
    try {
      await db.read(async () => undefined);
      await closePostgres(db);
    } catch {
      // Never made (a failed CREATE): nothing to close.
    }
    await adminPool().query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
  for (const name of byUrl.splice(0)) await adminPool().query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}
