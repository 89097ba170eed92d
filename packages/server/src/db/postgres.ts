import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import * as schema from './schema.js';
import type { Read, Transact } from './transaction.js';

/**
 * The PostgreSQL implementation of the database handle (`DATABASE_URL=postgres://…`): drizzle
 * over a node-postgres pool, with the same `transact` and `read` as SQLite's
 * (db/transaction.ts), so services run unchanged.
 *
 * - `transact(fn)`: a transaction on one pooled connection (`BEGIN` … `COMMIT`, `ROLLBACK` on
 *   a throw before or after an await); `tx.transact` inside it is a savepoint, `tx.read` reads
 *   in it. READ COMMITTED, PostgreSQL's default: read-then-write code takes explicit locks or
 *   writes conditionally.
 * - `read(fn)`: statements on the pool, each seeing the latest commit; with `snapshot`, one
 *   REPEATABLE READ, READ ONLY transaction, so several statements agree.
 *
 * The tables are the same definitions as SQLite's, built for PostgreSQL (db/schema-builders.ts);
 * the pool returns `bigint` and `numeric` as JavaScript numbers (every stored integer is below
 * 2^53: instants in milliseconds, minor units, counts).
 */

// int8 (20) and numeric (1700) as numbers: every stored integer is below 2^53 (instants in
// milliseconds, minor units, counts). Set on node-postgres's global parsers, which drizzle's
// sessions use for every query; a process serves one database.
pg.types.setTypeParser(20, (value: string) => Number(value));
pg.types.setTypeParser(1700, (value: string) => Number(value));

/** The advisory-lock key that serialises migrations of several processes starting at once. */
const MIGRATION_LOCK_KEY = 7_340_001;

export interface PostgresOptions {
  /** Apply the committed migrations (drizzle-pg/) before answering; default true. */
  migrate?: boolean;
  /** Where the migrations are; default the package's drizzle-pg/. */
  migrationsFolder: string;
  /** Connections of this process's pool; default 10. */
  poolSize?: number;
}

/**
 * Opens the pool, applies the migrations (under an advisory lock, so processes starting
 * together apply them once) and answers the database handle.
 *
 * @example const db = await createPostgresDb('postgres://resale:secret@db:5432/resale', { migrationsFolder });
 */
export async function createPostgresDb(url: string, opts: PostgresOptions): Promise<PostgresHandle> {
  const pool = new pg.Pool({ connectionString: url, max: opts.poolSize ?? 10 });
  // An idle client's error (the server restarted, a network cut) must not crash the process:
  // the pool drops that client and the next query opens another.
  pool.on('error', () => undefined);
  const root = drizzle({ client: pool, schema, casing: 'snake_case' });
  if (opts.migrate !== false) await migrateWithLock(pool, opts.migrationsFolder);
  return withHandles(root);
}

/** Applies the migrations holding a session-level advisory lock on one connection. */
export async function migrateWithLock(pool: pg.Pool, migrationsFolder: string): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      await migrate(drizzle({ client }), { migrationsFolder });
    } finally {
      await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    client.release();
  }
}

type PgDb = NodePgDatabase<typeof schema>;
type PgTx = Parameters<Parameters<PgDb['transaction']>[0]>[0];
type Handle = (PgDb | PgTx) & { transact: Transact<Handle>; read: Read<Handle> };

/** The root handle over the pool (db/client.ts presents it as `Db`). */
export type PostgresHandle = Handle;

/** The root handle: the pool's database with `transact` and `read`. */
function withHandles(root: PgDb): Handle {
  const db = root as Handle;
  db.transact = (fn) => root.transaction(async (tx) => fn(handle(tx)));
  db.read = (fn, opts = {}) => {
    if (opts.snapshot) return root.transaction(async (tx) => fn(handle(tx)), { isolationLevel: 'repeatable read', accessMode: 'read only' });
    return settle(() => fn(db));
  };
  return db;
}

/** A transaction's handle: its `transact` is a savepoint, its `read` reads in it. */
function handle(tx: PgTx): Handle {
  const h = Object.create(tx) as Handle;
  h.transact = (fn) => tx.transaction(async (sp) => fn(handle(sp)));
  h.read = (fn) => settle(() => fn(h));
  return h;
}

/** `fn()` as a promise, its throw as a rejection. */
function settle<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(err);
  }
}

/** The pool under a PostgreSQL handle (for closing it). */
export function poolOf(db: object): pg.Pool {
  return (db as unknown as { $client: pg.Pool }).$client;
}
