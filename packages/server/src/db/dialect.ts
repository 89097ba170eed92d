import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { Db, Tx } from './client.js';
import { ENGINE } from './engine.js';

const onPostgres = ENGINE === 'postgres';

/**
 * The SQL that differs between SQLite and PostgreSQL, behind small functions: modules build
 * their queries with these and never write a dialect's JSON functions, its row ids or its
 * pragmas themselves. Each answers for the engine of the process (db/engine.ts).
 *
 * | function             | SQLite                                              | PostgreSQL                                |
 * |----------------------|-----------------------------------------------------|-------------------------------------------|
 * | `jsonArrayContains`  | `exists (select 1 from json_each(c, '$.k') …)`      | `(c -> 'k') ? value` (jsonb)              |
 * | `jsonTextOrEmpty`    | `coalesce(json_extract(c, '$.k'), '')`              | `coalesce(c ->> 'k', '')`                 |
 * | `rowKey(id)`         | `rowid` (in the index the fingerprint scans)        | `hashtext(id)` (ids are never reused)     |
 * | `selectRows`         | drizzle's `all`                                     | `execute(…).rows`                         |
 * | WAL checkpoints      | `PRAGMA wal_autocheckpoint`, `wal_checkpoint`       | none (the server checkpoints itself)      |
 */

/** True when the JSON array at `column`'s top-level `key` holds `value`. */
export function jsonArrayContains(column: SQLWrapper, key: string, value: unknown): SQL<boolean> {
  if (onPostgres) return sql<boolean>`coalesce((${column} -> ${key}) ? (${value})::text, false)`;
  return sql<boolean>`exists (select 1 from json_each(${column}, ${`$.${key}`}) where value = ${value})`;
}

/** The text at `column`'s top-level `key`, or '' when absent or null. */
export function jsonTextOrEmpty(column: SQLWrapper, key: string): SQL<string> {
  if (onPostgres) return sql<string>`coalesce(${column} ->> ${key}, '')`;
  return sql<string>`coalesce(json_extract(${column}, ${`$.${key}`}), '')`;
}

/**
 * A key of each row that changes when the row is replaced (a new row gets a new one), for
 * cheap fingerprints of a set of rows (listings.queries.ts). SQLite: the rowid.
 */
export function rowKey(id: SQLWrapper): SQL<number> {
  if (onPostgres) return sql<number>`hashtext(${id})::bigint`;
  return sql<number>`rowid`;
}

/** The connection's automatic WAL checkpoint threshold in pages (0: off), and a way to set it. */
export function autoCheckpointPages(db: Db, pages?: number): number {
  if (onPostgres) return 0;
  if (pages !== undefined) db.$client.pragma(`wal_autocheckpoint = ${Math.max(0, Math.floor(pages))}`);
  return db.$client.pragma('wal_autocheckpoint', { simple: true }) as number;
}

/** A checkpoint that takes no write lock and never blocks writers (SQLite's PASSIVE). */
export function checkpointPassive(db: Db): void {
  if (onPostgres) return;
  db.$client.pragma('wal_checkpoint(PASSIVE)');
}

/**
 * The rows of a query written as SQL text (`sql\`…\``), as objects keyed by the column names
 * it selects. SQLite: drizzle's `all`; PostgreSQL answers `execute(…).rows`. Keep the SQL to
 * what both engines run (see db/columns.ts).
 *
 * @example const [row] = await selectRows<{ n: number }>(tx, sql`select count(*) as n from ${listings}`);
 */
export async function selectRows<T extends Record<string, unknown>>(tx: Tx, query: SQL): Promise<T[]> {
  if (onPostgres) return (await (tx as unknown as { execute(q: SQL): Promise<{ rows: T[] }> }).execute(query)).rows;
  return tx.all<T>(query);
}

/**
 * drizzle's table of applied migrations: `__drizzle_migrations` on SQLite, in the `drizzle`
 * schema on PostgreSQL (where its migrator keeps it).
 */
export function migrationsTable(): SQL {
  return onPostgres ? sql.raw('drizzle.__drizzle_migrations') : sql.raw('__drizzle_migrations');
}

/**
 * Serialises read-then-write work on `key` until the end of the transaction `tx`: a second
 * transaction asking for the same key waits for the first to commit or roll back, then reads
 * what it wrote. SQLite needs nothing (a write transaction holds the database's one write
 * lock from `BEGIN IMMEDIATE`); PostgreSQL takes a transaction-level advisory lock, since
 * READ COMMITTED lets two transactions read the same state and both write.
 *
 * @example await serializeOn(tx, `feed:${partnerId}:${feed}`); // then read, decide, write
 */
export async function serializeOn(tx: Tx, key: string): Promise<void> {
  if (!onPostgres) return;
  await selectRows(tx, sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0)) is not null as locked`);
}
