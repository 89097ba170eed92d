import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { Db, Tx } from './client.js';
import { ENGINE } from './engine.js';
import { changeFeedOf, heldLock, markQuiet, relaxedOf, waitInPlaceOrYield, wakeTopic } from './postgres.js';

const onPostgres = ENGINE === 'postgres';

/**
 * The SQL that differs between SQLite and PostgreSQL, behind small functions: modules build
 * their queries with these and never write a dialect's JSON functions, its row ids or its
 * pragmas themselves. Each answers for the engine of the process (db/engine.ts).
 *
 * | function             | SQLite                                              | PostgreSQL                                |
 * |----------------------|-----------------------------------------------------|-------------------------------------------|
 * | `jsonArrayContains`  | `exists (select 1 from json_each(c, '$.k') …)`      | `(c -> 'k') ? value` (jsonb)              |
 * | `jsonArrayHasAny`    | `exists (select 1 from json_each(c) where value in …)` | `c ?| array[…]` (jsonb)                |
 * | `jsonTextOrEmpty`    | `coalesce(json_extract(c, '$.k'), '')`              | `coalesce(c ->> 'k', '')`                 |
 * | `jsonPairs`, `jsonPairsAgg` | `json_each`, `json_group_array`              | `jsonb_array_elements`, `jsonb_agg`       |
 * | `rowKey(id)`         | `rowid` (in the index the fingerprint scans)        | `hashtext(id)` (ids are never reused)     |
 * | `selectRows`         | drizzle's `all`                                     | `execute(…).rows`                         |
 * | WAL checkpoints      | `PRAGMA wal_autocheckpoint`, `wal_checkpoint`       | none (the server checkpoints itself)      |
 * | `databaseNowMs()`    | `unixepoch('subsec') * 1000`                        | `extract(epoch from clock_timestamp())…`  |
 * | `autocommit`         | `transact` (the single writer)                      | a pool with `synchronous_commit = off`    |
 * | `serializeOn`, `tryLockOn`, `lockOrYield` | nothing (one writer)            | `pg_(try_)advisory_xact_lock`             |
 * | `wakeWorkers`, `onWake` | nothing (one process polls)                     | topics on the commit's `pg_notify`        |
 * | `skipLocked(query)`  | the query as it is                                  | `… FOR UPDATE SKIP LOCKED`                |
 * | `quietCommit(tx)`    | nothing                                             | the commit notifies no cache              |
 * | `sharedByProcesses`  | false (one process per file)                        | true (N processes, one database)          |
 */

/**
 * Whether several service processes may share this database (PostgreSQL): state that would
 * otherwise live in one process's memory (rate limits) must then live in the database. SQLite
 * is served by one process (its file's single writer), which keeps such state in memory.
 */
export const sharedByProcesses: boolean = onPostgres;

/**
 * Runs `fn`'s statements each committing on its own, outside any transaction and without the
 * change notification of `transact` (db/postgres.ts), for state no cache reads and no other
 * write depends on, whose last moments a crash may lose (rate limits, job slots). On
 * PostgreSQL the statements go to the handle's relaxed pool, whose commits do not wait for the
 * WAL flush (`relaxedOf`); on SQLite they go through `transact`, the connection's single writer.
 */
export async function autocommit<T>(db: Db, fn: (db: Tx) => Promise<T>): Promise<T> {
  if (!onPostgres) return await db.transact(fn);
  // The root handle's `read` hands over the root itself (no BEGIN, no I/O), once it exists.
  return await db.read(async (root) => await fn((relaxedOf(root) as unknown as Tx | undefined) ?? root));
}

/**
 * A select that locks the rows it answers until the end of the transaction and passes over
 * rows another transaction has locked (`FOR UPDATE SKIP LOCKED`): how concurrent workers
 * of several processes each claim different rows of a queue. SQLite has no row locks (its
 * write transaction is the only one): the select as it is.
 *
 * @example const [next] = await skipLocked(tx.select({ id: t.id }).from(t).where(due).limit(1));
 */
export function skipLocked<Q>(query: Q): Q {
  if (!onPostgres) return query;
  return (query as unknown as { for(strength: 'update', config: { skipLocked: true }): Q }).for('update', { skipLocked: true });
}

/**
 * Wakes the workers of `topic` (a job's `wakeOn`, jobs/job.ts) in every process once the
 * transaction `tx` commits: new work for them is in it (a ticket job, a webhook message, an
 * e-mail), so they start at once instead of at their next poll. On PostgreSQL the topic rides
 * on the notification the commit sends anyway (db/postgres.ts); on SQLite, one process polls.
 */
export function wakeWorkers(tx: Tx, topic: string): void {
  if (onPostgres) wakeTopic(tx, topic);
}

/**
 * Declares that the transaction `tx` writes nothing any cache in front of the database reads
 * (the buy access layer's snapshots and key lookup read events, shows, options, listings,
 * inventory, partners and keys): a process's lease, an outbox's delivery bookkeeping. On
 * PostgreSQL its commit then tells no other process's cache of a change (db/postgres.ts); on
 * SQLite it changes nothing (the counter sees every write of the connection).
 */
export function quietCommit(tx: Tx): void {
  if (onPostgres) markQuiet(tx);
}

/**
 * Calls `fn` whenever a committed transaction of any process woke `topic` (see `wakeWorkers`).
 * Returns the unsubscribe. Never called on SQLite, nor while PostgreSQL's listening connection
 * is down (polls find the work then).
 */
export function onWake(db: Db, topic: string, fn: () => void): () => void {
  if (!onPostgres) return () => undefined;
  return changeFeedOf(db)?.onWake(topic, fn) ?? (() => undefined);
}

/**
 * The database server's clock now, in epoch milliseconds: what leases and deployment-wide job
 * slots compare against, so processes whose machines' clocks differ still agree.
 */
export function databaseNowMs(): SQL<number> {
  if (onPostgres) return sql<number>`(extract(epoch from clock_timestamp()) * 1000)::bigint`;
  return sql<number>`cast(unixepoch('subsec') * 1000 as integer)`;
}

/** True when the JSON array at `column`'s top-level `key` holds `value`. */
export function jsonArrayContains(column: SQLWrapper, key: string, value: unknown): SQL<boolean> {
  if (onPostgres) return sql<boolean>`coalesce((${column} -> ${key}) ? (${value})::text, false)`;
  return sql<boolean>`exists (select 1 from json_each(${column}, ${`$.${key}`}) where value = ${value})`;
}

/** True when the JSON array of strings in `column` (the whole value) holds any of `values` (none: false). */
export function jsonArrayHasAny(column: SQLWrapper, values: readonly string[]): SQL<boolean> {
  if (values.length === 0) return sql<boolean>`false`;
  const list = sql.join(values.map((v) => sql`${v}`), sql`, `);
  if (onPostgres) return sql<boolean>`(${column} ?| array[${list}]::text[])`;
  return sql<boolean>`exists (select 1 from json_each(${column}) where value in (${list}))`;
}

/** The text at `column`'s top-level `key`, or '' when absent or null. */
export function jsonTextOrEmpty(column: SQLWrapper, key: string): SQL<string> {
  if (onPostgres) return sql<string>`coalesce(${column} ->> ${key}, '')`;
  return sql<string>`coalesce(json_extract(${column}, ${`$.${key}`}), '')`;
}

/**
 * A JSON array of `[s, n]` pairs of integers in `column`, as rows `(s, n)` to select from
 * (`select … from ${jsonPairs(c)} where s > 5`). Written by {@link jsonPairsAgg}.
 */
export function jsonPairs(column: SQLWrapper): SQL {
  if (onPostgres) return sql`(select (e ->> 0)::bigint as s, (e ->> 1)::bigint as n from jsonb_array_elements(${column}) as e) as pairs`;
  return sql`(select cast(json_extract(value, '$[0]') as integer) as s, cast(json_extract(value, '$[1]') as integer) as n from json_each(${column})) as pairs`;
}

/** The rows' `s` and `n` aggregated into a JSON array of `[s, n]` pairs (`[]` for none), ordered by `s`: what {@link jsonPairs} reads. */
export function jsonPairsAgg(s: SQL, n: SQL): SQL {
  if (onPostgres) return sql`coalesce(jsonb_agg(jsonb_build_array(${s}, ${n}) order by ${s}), '[]'::jsonb)`;
  // SQLite aggregates in the order of its input: callers select from a subquery ordered by s.
  return sql`json_group_array(json_array(${s}, ${n}))`;
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

/**
 * `serializeOn` for a lock a burst of transactions wants at once (a show's waiting list while
 * its listings are published). With a blocking lock every transaction of the burst would wait
 * holding a pooled connection, and a burst wider than the pool would starve every other request
 * of connections. Here a process keeps only `IN_PLACE_WAITERS` transactions waiting for it in
 * place, so the lock still passes on at once; any other that finds it held is rolled back, parked
 * without its connection, and run again as soon as a place frees (`LockBusy`, db/postgres.ts).
 * Nothing on SQLite (one writer). Use it only where the whole transaction may run again: it must
 * do nothing outside the database before it commits.
 */
export async function lockOrYield(tx: Tx, key: string): Promise<void> {
  if (!onPostgres) return;
  if (await tryLockOn(tx, key)) return heldLock(tx, key);
  await waitInPlaceOrYield(tx, key, () => serializeOn(tx, key));
}

/**
 * `serializeOn` without the wait: takes the lock on `key` until the end of the transaction `tx`
 * and answers true, or answers false at once when another transaction holds it (the work is
 * in another process's hands: do something else). Always true on SQLite, whose write
 * transaction is the only one.
 */
export async function tryLockOn(tx: Tx, key: string): Promise<boolean> {
  if (!onPostgres) return true;
  const [row] = await selectRows<{ locked: boolean }>(tx, sql`select pg_try_advisory_xact_lock(hashtextextended(${key}, 0)) as locked`);
  return row?.locked === true;
}
