import { sql } from 'drizzle-orm';
import { drizzle, NodePgSession, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { PgDialect, type PgTransactionConfig } from 'drizzle-orm/pg-core';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import * as schema from './schema.js';
import { isConnectionLost, watchAvailability } from './availability.js';
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
  /** How long a connection must have been idle to be checked before use (see `newPool`); default 1 s. */
  idleCheckMs?: number;
}

/**
 * Opens the pool, applies the migrations (under an advisory lock, so processes starting
 * together apply them once) and answers the database handle.
 *
 * @example const db = await createPostgresDb('postgres://resale:secret@db:5432/resale', { migrationsFolder });
 */
export async function createPostgresDb(url: string, opts: PostgresOptions): Promise<PostgresHandle> {
  // Every commit is durable (flushed, and on synchronous replicas when the server has them)
  // whatever the server's default: what the service commits it acknowledges to partners.
  const pool = newPool({ connectionString: url, max: opts.poolSize ?? 10, options: '-c synchronous_commit=on' }, opts.idleCheckMs);
  const root = drizzle({ client: pool, schema, casing: 'snake_case' });
  if (opts.migrate !== false) await migrateWithLock(pool, opts.migrationsFolder);
  const feed = new ChangeFeed(url);
  // Listening before the first request, so caches work from the start (a feed that cannot
  // connect yet only keeps them off: it goes on trying).
  await Promise.race([feed.ready, new Promise((resolve) => setTimeout(resolve, FEED_WAIT_MS).unref())]);
  // Every root call feeds the availability: 503 and readiness while the server cannot be reached.
  const db = watchAvailability(withHandles(root, feed));
  (db as unknown as Record<symbol, ChangeFeed>)[CHANGE_FEED] = feed;
  (db as unknown as Record<symbol, Relaxed>)[RELAXED] = relaxedPool(url);
  return db;
}

/** How long a pool waits for a new connection before the query fails (a host that does not answer at all). */
const CONNECT_TIMEOUT_MS = 3_000;

/** A connection idle at least this long is checked before it is used (pgx checks after a second too). */
const IDLE_CHECK_MS = 1_000;

/** Set on a client whose connection reported an error or its end (see `newPool`). */
const DEAD = Symbol('resale.deadConnection');
/** When (performance.now()) a client went back to the pool. */
const IDLE_SINCE = Symbol('resale.idleSince');

type PoolClient = pg.PoolClient & { [DEAD]?: boolean; [IDLE_SINCE]?: number };

/**
 * A pool of the service (the main one, the relaxed one) that survives the server going away.
 *
 * - node-postgres removes the pool's `error` listener from a client while it is checked out,
 *   so a client whose socket dies mid-transaction (the server restarted or was killed, a
 *   failover, an administrator's `pg_terminate_backend`) emitted an `error` event nobody
 *   handled, and the process exited. Every client gets a listener of its own as it connects:
 *   its query in flight is rejected instead (the transaction rolls back, the request answers
 *   503), and the pool drops the client. The pool's own listener covers idle clients.
 * - A connection that died while idle says so only when its socket is next read: lent in that
 *   moment, its first statement would fail and a request would answer 503 although the server
 *   is back. A connection idle for {@link IDLE_CHECK_MS} or more waits one turn of the event
 *   loop before it is lent (its socket is read then), and one found dead is closed and another
 *   taken: the check pgx makes on acquire. Busy connections, the hot path, are not checked.
 * - A connection that cannot be made fails after {@link CONNECT_TIMEOUT_MS} instead of waiting
 *   for the operating system's TCP timeout.
 */
function newPool(config: pg.PoolConfig, idleCheckMs = IDLE_CHECK_MS): pg.Pool {
  const pool = new pg.Pool({ connectionTimeoutMillis: CONNECT_TIMEOUT_MS, ...config });
  pool.on('error', () => undefined);
  pool.on('connect', (c) => {
    const client = c as PoolClient;
    client.on('error', () => (client[DEAD] = true));
    client.on('end', () => (client[DEAD] = true));
  });
  pool.on('release', (_err, client) => ((client as PoolClient)[IDLE_SINCE] = performance.now()));
  const take = pool.connect.bind(pool) as () => Promise<PoolClient>;
  const max = pool.options.max;
  const acquire = async (): Promise<PoolClient> => {
    for (let tries = 0; ; tries++) {
      const client = await take();
      const since = client[IDLE_SINCE];
      if (tries >= max || since === undefined || performance.now() - since < idleCheckMs) return client;
      await new Promise((resolve) => setImmediate(resolve));
      if (!client[DEAD]) return client;
      client.release(new Error('the connection closed while idle'));
    }
  };
  // Both forms node-postgres uses: the promise (drizzle's transactions, ours) and the callback
  // (the pool's own `query`, every statement outside a transaction).
  pool.connect = ((callback?: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: Error | boolean) => void) => void) => {
    if (!callback) return acquire();
    acquire().then(
      (client) => callback(undefined, client, client.release),
      (err: Error) => callback(err, undefined, () => undefined),
    );
    return undefined;
  }) as typeof pool.connect;
  return pool;
}

/** Where a PostgreSQL handle keeps its relaxed pool (see {@link relaxedOf}). */
const RELAXED = Symbol('resale.relaxed');

/** Connections of the relaxed pool: its statements are short single upserts. */
const RELAXED_POOL_SIZE = 4;

interface Relaxed {
  db: PgDb;
  pool: pg.Pool;
}

/** A small pool whose commits do not wait for the WAL flush, made on first use. */
function relaxedPool(url: string): Relaxed {
  let made: Relaxed | null = null;
  const make = () => {
    // Idle connections close after a second: between bursts the rate limits hold none open.
    const pool = newPool({ connectionString: url, max: RELAXED_POOL_SIZE, idleTimeoutMillis: 1_000, options: '-c synchronous_commit=off' });
    return (made = { pool, db: drizzle({ client: pool, schema, casing: 'snake_case' }) });
  };
  return {
    get db() {
      return (made ?? make()).db;
    },
    get pool() {
      return (made ?? make()).pool;
    },
    end: () => made?.pool.end(),
  } as Relaxed & { end(): Promise<void> | undefined };
}

/**
 * The handle of `db`'s relaxed pool: statements committing on their own, without waiting for
 * the WAL flush (`synchronous_commit = off`), for state worth no flush per request: the rate
 * limits (an UNLOGGED table, still paying a flushed commit record otherwise: 1,525 against
 * 16,429 upserts a second measured) and the deployment-wide job slots (a claim lost to a
 * server crash only lets a scan run once more). Undefined for a handle that has none (not
 * PostgreSQL's, or not made yet).
 */
export function relaxedOf(db: object): PgDb | undefined {
  return (db as Record<symbol, Relaxed | undefined>)[RELAXED]?.db;
}

/** The channel every committed write transaction notifies (see {@link ChangeFeed}). */
const CHANGES_CHANNEL = 'resale_changes';

/** How long a lost notification connection waits before it connects again. */
const RECONNECT_MS = 1_000;

/** How long opening the database waits for the change feed's first connection. */
const FEED_WAIT_MS = 5_000;

/**
 * Which writes this process has seen, for caches in front of the database (the buy access
 * layer's snapshots and key lookups: db/change-counter.ts). Every write transaction of every
 * process notifies `resale_changes` as it commits (`pg_notify`, delivered only on commit);
 * each process listens on a connection of its own and counts what the others commit, and
 * counts its own commits at once (its notifications name it, so they are not counted again). While the listening
 * connection is down, the feed says so (`live` false) and caches must not answer from memory:
 * a notification may have been missed; it connects again and counts one change once back.
 */
export class ChangeFeed {
  /** Names this process's notifications, so it does not count its own commits twice. */
  readonly id = randomUUID();
  private n = 0;
  private client: pg.Client | null = null;
  private connected = false;
  private closed = false;
  private retry: NodeJS.Timeout | null = null;
  private listening!: () => void;
  private readonly wakeListeners = new Map<string, Set<() => void>>();
  private readonly changeListeners = new Set<() => void>();
  /** Settles once the feed first listens. */
  readonly ready = new Promise<void>((resolve) => (this.listening = resolve));

  constructor(private readonly url: string) {
    this.connect();
  }

  /** Changes seen so far (committed here, or heard from any process). */
  get version(): number {
    return this.n;
  }

  /** Whether every change is being heard now; when not, callers must read the database. */
  get live(): boolean {
    return this.connected;
  }

  /** A commit of this process (counted at once). */
  committed(): void {
    this.counted();
  }

  /**
   * Calls `fn` after every change the feed counts (a commit of this process, or one heard from
   * another): for caches that push what changed (the live stock streams) rather than wait for
   * their next read. Returns the unsubscribe.
   */
  onChange(fn: () => void): () => void {
    this.changeListeners.add(fn);
    return () => void this.changeListeners.delete(fn);
  }

  private counted(): void {
    this.n++;
    for (const fn of this.changeListeners) fn();
  }

  /**
   * Calls `fn` whenever a committed transaction of any process (this one included) woke
   * `topic` (see `wakeWorkers` in db/dialect.ts). Nothing is heard while the listening
   * connection is down: the woken work is found by its poll then. Returns the unsubscribe.
   */
  onWake(topic: string, fn: () => void): () => void {
    let set = this.wakeListeners.get(topic);
    if (!set) this.wakeListeners.set(topic, (set = new Set()));
    set.add(fn);
    return () => void set.delete(fn);
  }

  /** A notification's payload: `<feed id>[!][ <topic>,<topic>…]` (`!`: a quiet transaction, no change to count). */
  private heard(payload: string): void {
    const space = payload.indexOf(' ');
    const from = space < 0 ? payload : payload.slice(0, space);
    if (from !== this.id && !from.endsWith(QUIET_MARK)) this.counted();
    if (space < 0) return;
    for (const topic of payload.slice(space + 1).split(',')) for (const fn of this.wakeListeners.get(topic) ?? []) fn();
  }

  /** Stops listening (when the database closes). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    this.connected = false;
    await client?.end().catch(() => undefined);
  }

  private connect(): void {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.url });
    this.client = client;
    const lost = () => {
      if (this.client !== client) return;
      this.connected = false;
      this.client = null;
      void client.end().catch(() => undefined);
      if (!this.closed) this.retry = setTimeout(() => this.connect(), RECONNECT_MS).unref();
    };
    client.on('notification', (message) => this.heard(message.payload ?? ''));
    client.on('error', lost);
    client.on('end', lost);
    client
      .connect()
      .then(() => client.query(`LISTEN ${CHANGES_CHANNEL}`))
      .then(() => {
        if (this.client !== client) return;
        // Whatever was committed while nobody listened: one change covers it.
        this.counted();
        this.connected = true;
        this.listening();
      })
      .catch(lost);
  }
}

/** Where a PostgreSQL handle keeps its change feed. */
const CHANGE_FEED = Symbol('resale.changeFeed');

/** The change feed of a PostgreSQL database handle (see {@link ChangeFeed}); undefined while it has none yet. */
export function changeFeedOf(db: object): ChangeFeed | undefined {
  return (db as Record<symbol, ChangeFeed | undefined>)[CHANGE_FEED];
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

/**
 * The root handle: the pool's database with `transact` and `read`. Every `transact` notifies
 * the other processes as it commits (a cache in front of the database must hear about it).
 */
function withHandles(root: PgDb, feed: ChangeFeed): Handle {
  const db = root as Handle;
  const inTransaction = transactionsOver(root);
  db.transact = async (fn) => {
    let h!: Handle & TxMarks;
    const result = await inTransaction(async (tx, turn) => {
      // Fresh for each attempt: a yielded attempt's topics were rolled back with it.
      const topics = new Set<string>();
      h = handle(tx, topics, turn);
      const value = await fn(h);
      // A `LockBusy` some code caught and went on from: the attempt must not commit (its work
      // skipped what the lock guards), so it is rolled back and run again all the same.
      if (turn.busy !== null) throw new LockBusy(turn.busy);
      // One notification per transaction (delivered only on commit), naming the work it woke;
      // none for a quiet one that woke nothing (see `quietCommit`).
      if (!h[QUIET] || topics.size > 0) {
        const payload = `${feed.id}${h[QUIET] ? QUIET_MARK : ''}${topics.size === 0 ? '' : ` ${[...topics].join(',')}`}`;
        await tx.execute(sql`select pg_notify(${CHANGES_CHANNEL}, ${payload})`);
      }
      return value;
    });
    if (!h[QUIET]) feed.committed();
    return result;
  };
  db.read = (fn, opts = {}) => {
    if (opts.snapshot) return inTransaction(async (tx, turn) => fn(handle(tx, new Set(), { ...turn, mayYield: false })), { isolationLevel: 'repeatable read', accessMode: 'read only' });
    return settle(() => fn(db));
  };
  return db;
}

/**
 * Transactions on clients this module checks out and returns itself, instead of drizzle's
 * `db.transaction` over the pool.
 *
 * Why: drizzle sends `BEGIN` outside the `try` whose `finally` returns the client, so a client
 * whose connection died while idle in the pool (the server restarted, a failover, an
 * administrator's `pg_terminate_backend`, in the moment before its socket reports it) failed
 * its `BEGIN` and was never returned: each such failure took one connection from the pool for
 * good, and ten of them left the process waiting for connections it could never get. Here a
 * client is always returned, with the error when its connection was lost (the pool closes it
 * instead of lending it again).
 *
 * And a `BEGIN` that failed because the connection was lost is tried again on another client
 * (the callback never ran, so nothing is done twice), up to once per connection of the pool:
 * after a failover every idle connection may be dead, and the request that finds them should
 * not be the one that fails. A connection lost after the callback started fails the
 * transaction (503, see db/availability.ts): whether its work committed is unknown only at
 * `COMMIT`, and the caller's retry with its idempotency key is what resolves it.
 */
function transactionsOver(root: PgDb): <T>(fn: (tx: PgTx, turn: Turn) => Promise<T>, config?: PgTransactionConfig) => Promise<T> {
  const pool = (root as unknown as { $client: pg.Pool }).$client;
  const dialect = new PgDialect({ casing: 'snake_case' });
  const relations = { fullSchema: root._.fullSchema, schema: root._.schema!, tableNamesMap: root._.tableNamesMap };
  return async (fn, config) => {
    let yields = 0;
    for (let attempt = 0; ; attempt++) {
      const client = await pool.connect();
      let entered = false;
      let lost: Error | undefined;
      let busy: string | undefined;
      const turn: Turn = { mayYield: yields < MAX_LOCK_YIELDS, busy: null, locked: new Set() };
      try {
        // A session over this one client: its `transaction` runs on it and leaves it to us.
        const session = new NodePgSession(client, dialect, relations);
        return await session.transaction(async (tx) => {
          entered = true;
          return fn(tx as unknown as PgTx, turn);
        }, config);
      } catch (err) {
        if (err instanceof LockBusy && yields < MAX_LOCK_YIELDS) {
          // Rolled back: the connection goes back to the pool while it is parked (below, after `finally`).
          busy = err.key;
          attempt--;
        } else {
          if (!isConnectionLost(err)) throw err;
          lost = err instanceof Error ? err : new Error(String(err));
          if (entered || attempt >= pool.options.max) throw err;
        }
      } finally {
        client.release(lost);
        // Committed or rolled back, its locks are free: the transactions parked for them queue again.
        for (const key of turn.locked) wakeParked(key);
      }
      if (busy !== undefined) {
        yields++;
        await parkedFor(busy);
      }
    }
  };
}

/**
 * A transaction gives way (`lockOrYield`) at most this many times before it waits for the lock
 * in place whatever the queue: a bound, so that one which keeps losing the race is served.
 */
export const MAX_LOCK_YIELDS = 20;

/**
 * Transactions of this process waiting in place (holding a pooled connection) for one contended
 * lock, at most: enough that the lock passes on at once when its holder commits (the next waiter
 * is already in PostgreSQL's queue), few enough that a burst leaves the pool to other requests.
 * The others wait parked, without a connection, and are woken in order as these get the lock.
 */
export const IN_PLACE_WAITERS = 2;

/** The longest a parked transaction waits to be woken before it tries again anyway (a safety net, not the rhythm). */
const PARKED_MAX_MS = 1_000;

/** One contended lock as this process queues for it. */
interface LockQueue {
  /** Transactions waiting for it in place (see {@link IN_PLACE_WAITERS}). */
  inPlace: number;
  /** Parked transactions' wake-ups, first parked first. */
  parked: (() => void)[];
}

const lockQueues = new Map<string, LockQueue>();

function lockQueue(key: string): LockQueue {
  let q = lockQueues.get(key);
  if (!q) lockQueues.set(key, (q = { inPlace: 0, parked: [] }));
  return q;
}

/**
 * After `tryLock` failed on `key`: waits for it in place with `wait` (a blocking lock) when this
 * process has a place left in the lock's queue or the transaction may not give way (its last
 * attempt, a read, outside a transaction); otherwise marks the transaction to roll back (whatever
 * catches the error) and throws {@link LockBusy}: `transact` parks it without its connection
 * and runs it again once a place is free.
 */
export async function waitInPlaceOrYield(tx: object, key: string, wait: () => Promise<void>): Promise<void> {
  const turn = (tx as Partial<TxMarks>)[TURN];
  const q = lockQueue(key);
  if (turn?.mayYield && q.inPlace >= IN_PLACE_WAITERS) {
    turn.busy = key;
    throw new LockBusy(key);
  }
  q.inPlace++;
  try {
    await wait();
  } finally {
    q.inPlace--;
    // Its place is free: a parked transaction takes it (most likely to wait in it, behind this one).
    wakeParked(key);
  }
  turn?.locked.add(key);
}

/**
 * Notes that the transaction `tx` holds `key` (taken without waiting): when it ends, the lock is
 * free, and parked transactions are woken to queue for it again.
 */
export function heldLock(tx: object, key: string): void {
  (tx as Partial<TxMarks>)[TURN]?.locked.add(key);
}

/** Wakes as many parked transactions as `key`'s queue has free places (in parking order). */
function wakeParked(key: string): void {
  const q = lockQueues.get(key);
  if (!q) return;
  for (let free = IN_PLACE_WAITERS - q.inPlace; free > 0 && q.parked.length > 0; free--) q.parked.shift()!();
  if (q.inPlace === 0 && q.parked.length === 0) lockQueues.delete(key);
}

/** Resolves when a place in `key`'s queue frees (at once if one is free), or after {@link PARKED_MAX_MS}. */
function parkedFor(key: string): Promise<void> {
  const q = lockQueue(key);
  if (q.inPlace < IN_PLACE_WAITERS) return Promise.resolve();
  return new Promise((resolve) => {
    const wake = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      const i = q.parked.indexOf(wake);
      if (i >= 0) q.parked.splice(i, 1);
      resolve();
    }, PARKED_MAX_MS);
    q.parked.push(wake);
  });
}

/**
 * Thrown by `lockOrYield` (db/dialect.ts) when another transaction holds a contended lock and
 * this process already has its waiters in place: the transaction is rolled back, its connection
 * returned to the pool, and it runs again once a place is free, up to {@link MAX_LOCK_YIELDS}
 * times. Never seen by callers of `transact`.
 */
export class LockBusy extends Error {
  constructor(readonly key: string) {
    super(`the lock '${key}' is held by another transaction: this one gives way and runs again`);
    this.name = 'LockBusy';
  }
}

/** What an attempt of a transaction knows of its turn at contended locks (shared by its savepoints). */
interface Turn {
  /** The attempt may give way rather than wait for a lock (not its last). */
  mayYield: boolean;
  /** The key of the lock it gave way on, once it did. */
  busy: string | null;
  /** The contended locks it holds (`lockOrYield`): free when it ends, so the transactions parked for them are woken then. */
  locked: Set<string>;
}


/** Where a transaction's handle collects the topics `wakeTopic` names (sent with its commit's notification). */
const WAKE_TOPICS = Symbol('resale.wakeTopics');
/** Set on a transaction's handle by `markQuiet`. */
const QUIET = Symbol('resale.quiet');
/** Ends the sender's id in the payload of a quiet transaction's notification. */
const QUIET_MARK = '!';

/** A transaction's turn at contended locks (see `yieldOn`). */
const TURN = Symbol('resale.turn');

interface TxMarks {
  [WAKE_TOPICS]: Set<string>;
  [QUIET]?: boolean;
  [TURN]: Turn;
}

/** A transaction's handle: its `transact` is a savepoint, its `read` reads in it. */
function handle(tx: PgTx, topics: Set<string>, turn: Turn): Handle & TxMarks {
  const h = Object.create(tx) as Handle & TxMarks;
  // A savepoint wakes with its transaction; its own quiet mark is not read (only the whole
  // transaction can say it writes nothing a cache reads). It gives way with its transaction.
  h.transact = (fn) => tx.transaction(async (sp) => fn(handle(sp, topics, turn)));
  h.read = (fn) => settle(() => fn(h));
  h[WAKE_TOPICS] = topics;
  h[TURN] = turn;
  return h;
}

/**
 * Marks the transaction `tx` as writing nothing a cache reads (a process's lease, an outbox's
 * delivery bookkeeping): its commit tells no process's cache of a change, so busy background
 * work does not make every process check its snapshots. Read only on the transaction itself:
 * a savepoint's mark is ignored, as are marks outside a transaction.
 */
export function markQuiet(tx: object): void {
  if (WAKE_TOPICS in tx) (tx as TxMarks)[QUIET] = true;
}

/**
 * Names `topic` in the notification the transaction `tx` sends as it commits, so every process
 * listening for it (`ChangeFeed.onWake`) starts that work at once. Outside a transaction (a
 * root handle) there is no commit to carry it: ignored.
 */
export function wakeTopic(tx: object, topic: string): void {
  (tx as { [WAKE_TOPICS]?: Set<string> })[WAKE_TOPICS]?.add(topic);
}

/** `fn()` as a promise, its throw as a rejection. */
function settle<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(err);
  }
}

/** Closes a PostgreSQL handle: its change feed, then its pool (after the queries in flight). */
export async function closePostgres(db: object): Promise<void> {
  await changeFeedOf(db)?.close();
  await (db as Record<symbol, { end(): Promise<void> | undefined } | undefined>)[RELAXED]?.end();
  await (db as unknown as { $client: pg.Pool }).$client.end();
}
