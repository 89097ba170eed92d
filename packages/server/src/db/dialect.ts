import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { Db, Tx } from './client.js';

/**
 * The SQL that differs between SQLite and PostgreSQL, behind small functions: modules build
 * their queries with these and never write a dialect's JSON functions, its row ids or its
 * pragmas themselves. This is the SQLite implementation (the embedded default); the
 * PostgreSQL issue adds the other one here, and nothing outside `db/` changes.
 *
 * | function             | SQLite                                              | PostgreSQL                                |
 * |----------------------|-----------------------------------------------------|-------------------------------------------|
 * | `jsonArrayContains`  | `exists (select 1 from json_each(c, '$.k') …)`      | `c -> 'k' ? value` (jsonb)                |
 * | `jsonTextOrEmpty`    | `coalesce(json_extract(c, '$.k'), '')`              | `coalesce(c ->> 'k', '')`                 |
 * | `rowKey`             | `rowid` (in the index the fingerprint scans)        | a per-show version bumped by the writers  |
 * | WAL checkpoints      | `PRAGMA wal_autocheckpoint`, `wal_checkpoint`       | none (the server checkpoints itself)      |
 */

/** True when the JSON array at `column`'s top-level `key` holds `value`. */
export function jsonArrayContains(column: SQLWrapper, key: string, value: unknown): SQL<boolean> {
  return sql<boolean>`exists (select 1 from json_each(${column}, ${`$.${key}`}) where value = ${value})`;
}

/** The text at `column`'s top-level `key`, or '' when absent or null. */
export function jsonTextOrEmpty(column: SQLWrapper, key: string): SQL<string> {
  return sql<string>`coalesce(json_extract(${column}, ${`$.${key}`}), '')`;
}

/**
 * A key of each row that changes when the row is replaced (a new row gets a new one), for
 * cheap fingerprints of a set of rows (listings.queries.ts). SQLite: the rowid.
 */
export function rowKey(): SQL<number> {
  return sql<number>`rowid`;
}

/** The connection's automatic WAL checkpoint threshold in pages (0: off), and a way to set it. */
export function autoCheckpointPages(db: Db, pages?: number): number {
  if (pages !== undefined) db.$client.pragma(`wal_autocheckpoint = ${Math.max(0, Math.floor(pages))}`);
  return db.$client.pragma('wal_autocheckpoint', { simple: true }) as number;
}

/** A checkpoint that takes no write lock and never blocks writers (SQLite's PASSIVE). */
export function checkpointPassive(db: Db): void {
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
  return tx.all<T>(query);
}
