import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { SERVER_ROOT } from '../lib/paths.js';
import { ENGINE } from './engine.js';
import { closePostgres, createPostgresDb, type PostgresOptions } from './postgres.js';
import * as schema from './schema.js';
import { SqliteTransactor, type Read, type Transact } from './transaction.js';
import { watchAvailability } from './availability.js';

/**
 * The handle services get: the database inside a transaction (`db.transact`) or a read
 * (`db.read`), whose own `transact` is a savepoint and `read` reads in it. It is the only way
 * services touch the database; they await every query (`await tx.select()…`), which both
 * SQLite and PostgreSQL run.
 */
export type Tx = Db;

/**
 * The database (the types are SQLite's; on PostgreSQL the same API over a pool, see
 * db/postgres.ts): drizzle over one better-sqlite3 connection, with `transact` (a transaction
 * whose callback may await) and `read` (reads outside a transaction, queued behind an open
 * one); see db/transaction.ts. Callbacks get a handle of the same type whose `transact` and
 * `read` stay inside their transaction.
 */
export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database; transact: Transact<Db>; read: Read<Db> };

/** The committed migrations of this process's engine (drizzle-kit's folder, with its `meta/_journal.json`). */
export const MIGRATIONS_FOLDER = join(SERVER_ROOT, ENGINE === 'postgres' ? 'drizzle-pg' : 'drizzle');

/** Where the database is: a PostgreSQL URL (`DATABASE_URL`) or a SQLite path (`DATABASE_PATH`). */
export interface DatabaseLocation {
  url?: string | null | undefined;
  path: string;
}

/**
 * Opens the database of the process's engine (db/engine.ts): PostgreSQL at `url` when the
 * process runs on PostgreSQL, else SQLite at `path`. Applies the migrations unless
 * `migrate: false`.
 *
 * @example const db = await openDb({ url: env.DATABASE_URL, path: env.DATABASE_PATH });
 */
export async function openDb(where: DatabaseLocation, opts: { migrate?: boolean; poolSize?: number } = {}): Promise<Db> {
  if (ENGINE === 'postgres') {
    if (!where.url) throw new Error('DATABASE_URL is required on PostgreSQL');
    return postgresDb(where.url, { migrationsFolder: MIGRATIONS_FOLDER, ...opts });
  }
  return createDb(where.path, opts);
}

/** The PostgreSQL database at `url` (db/postgres.ts), as the handle services take. */
export async function postgresDb(url: string, opts: PostgresOptions): Promise<Db> {
  return (await createPostgresDb(url, opts)) as unknown as Db;
}

/** Closes the database: the SQLite connection, or the PostgreSQL pool (after its queries end). */
export async function closeDb(db: Db): Promise<void> {
  if (ENGINE === 'postgres') return closePostgres(db);
  if (db.$client.open) db.$client.close();
}

/**
 * How SQLite makes a commit last (`PRAGMA synchronous`, with WAL):
 * - `durable` (FULL): the WAL is flushed to disk at every commit, so a commit survives a power
 *   loss or an operating-system crash, not only a process crash. What the service acknowledges
 *   to a partner (a 202 for a ticket job, a 200 for a sale, an idempotent answer) is committed
 *   so. Costs one fsync per write transaction (docs/benchmarks.md).
 * - `fast` (NORMAL): the WAL is flushed at checkpoints only; a power loss may lose the last
 *   commits (never corrupt the database). Only for connections whose commits acknowledge
 *   nothing to anyone: the ingestion worker thread's (a job whose application is lost is
 *   applied again from its durable row, after its lease), and tools.
 */
export type Durability = 'durable' | 'fast';

/**
 * The page cache of each connection (`PRAGMA cache_size`), in KiB: 64 MiB, where SQLite's default
 * is 2 MiB. A request's lookups walk B-tree pages of tables far larger than 2 MiB (a stadium's
 * tickets, the webhook outbox), and a page not in the cache is read again from the file or the
 * WAL, a system call each: measured with bench/admission-verify.ts, the default cache cost a
 * door's scan about a tenth of its CPU time. Memory is taken only as pages are read.
 */
export const PAGE_CACHE_KIB = 65_536;

/** How many prepared statements the query cache keeps per connection (least recently used out first). */
export const STATEMENT_CACHE_LIMIT = 500;

/**
 * Drizzle prepares every query it runs (`client.prepare(sql)`), and SQLite's preparation (parse,
 * plan) costs more than running the small indexed statements most requests make: in a rush of
 * buy attempts it was the largest item of the service's CPU profile after building the SQL. So
 * the queries drizzle runs are prepared once per SQL text and connection and kept (a bounded
 * LRU): only drizzle's session gets the cached `prepare`; code preparing statements of its own
 * on `$client` (the change counter, pragmas) keeps SQLite's. A statement's row mode sticks, and
 * drizzle sets `raw()` where it wants rows as arrays and relies on the default elsewhere, so a
 * statement handed out again is reset to the default first; one still being iterated (`busy`)
 * is never handed out: a fresh one is prepared for that caller.
 */
function cacheStatements(db: Db, sqlite: Database.Database, limit = STATEMENT_CACHE_LIMIT): void {
  const session = (db as unknown as { session: { client: Database.Database } }).session;
  const cache = new Map<string, Database.Statement>();
  const prepare = (source: string): Database.Statement => {
    const kept = cache.get(source);
    if (kept && !kept.busy) {
      cache.delete(source);
      cache.set(source, kept);
      if (kept.reader) kept.raw(false);
      return kept;
    }
    const fresh = sqlite.prepare(source);
    if (!kept) {
      if (cache.size >= limit) cache.delete(cache.keys().next().value!);
      cache.set(source, fresh);
    }
    return fresh;
  };
  session.client = new Proxy(sqlite, {
    get(target, key) {
      if (key === 'prepare') return prepare;
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * Opens the database with WAL, foreign keys, a busy timeout and durable commits (unless
 * `durability: 'fast'`, see {@link Durability}), and applies the committed migrations unless
 * `migrate: false` (`MIGRATE_ON_START=false`: `npm run migrate` applies them; see src/migrate.ts).
 *
 * @example const db = createDb(':memory:');
 */
export function createDb(path: string, opts: { migrate?: boolean; durability?: Durability } = {}): Db {
  if (ENGINE === 'postgres') throw new Error('createDb opens SQLite; this process runs on PostgreSQL (use openDb)');
  if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
  const sqlite = new Database(path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
  sqlite.pragma(opts.durability === 'fast' ? 'synchronous = NORMAL' : 'synchronous = FULL');
  const db = drizzle({ client: sqlite, schema, casing: 'snake_case' }) as Db;
  cacheStatements(db, sqlite);
  const transactor = new SqliteTransactor<Db>(sqlite, db);
  db.transact = transactor.transact;
  db.read = transactor.read;
  // A full disk or a read-only file answers 503 and turns readiness off until a write commits again.
  watchAvailability(db);
  // Drizzle's synchronous transactions (outside the data layer only in tests: the lint refuses
  // them elsewhere) take the write lock when they begin (BEGIN IMMEDIATE), as `transact` does: a deferred one that reads, then writes, fails
  // with SQLITE_BUSY_SNAPSHOT when another connection (another process, the ingestion worker)
  // wrote in between, and busy_timeout does not retry that; an immediate one waits its turn.
  // Nested calls are savepoints and unaffected. One started while an async transaction awaits
  // on this connection is refused (it would become part of that one).
  const transaction = db.transaction;
  db.transaction = function (this: unknown, fn, config) {
    transactor.guardSync(this);
    return transaction.call(this as Db, fn, { behavior: 'immediate', ...config });
  } as Db['transaction'];
  if (opts.migrate !== false) migrate(db, { migrationsFolder: MIGRATIONS_FOLDER });
  return db;
}
