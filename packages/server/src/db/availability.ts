import { ENGINE } from './engine.js';

/**
 * Whether the database can be used at all, as opposed to a query that failed for its own
 * reasons (a constraint, a bug): what decides between a 503 with `Retry-After` and a 500, what
 * readiness reports, and what pauses the jobs.
 *
 * - PostgreSQL: the server cannot be reached or went away — a refused or reset connection, a
 *   connection terminated mid-query (the server restarted, an administrator or a failover
 *   killed the backend), a connect timeout, and the server's own codes for it: class 08
 *   (connection exception), 57P01–57P03 (shutdown, crash, "the database system is starting
 *   up"), 53300 (too many connections) and 25006 (a read-only transaction: a standby not yet
 *   promoted).
 * - SQLite: the file cannot be written or read — `SQLITE_FULL` (disk full), `SQLITE_READONLY*`
 *   (a read-only file or mount), `SQLITE_IOERR*`, `SQLITE_CANTOPEN`.
 *
 * Looks through `cause` only where drizzle wrapped the driver's error in its own
 * (`DrizzleQueryError`): a `fetch` to a partner's platform that failed with a refused
 * connection is a `TypeError` whose cause is ECONNREFUSED, and is not the database's.
 *
 * @example isDatabaseUnavailable(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })) // true
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  return someDriverError(err, (code, message) => {
    if (SOCKET_CODES.has(code)) return true;
    if (/^SQLITE_(FULL|READONLY|IOERR|CANTOPEN)/.test(code)) return true;
    if (/^08[0-9A-Z]{3}$/.test(code) || ['57P01', '57P02', '57P03', '53300', '25006'].includes(code)) return true;
    return PG_CONNECTION_MESSAGES.some((re) => re.test(message));
  });
}

/**
 * Whether `err` says a PostgreSQL connection that was open is gone (its backend was ended by a
 * restart, a crash or an administrator, or its socket closed), as opposed to one that could not
 * be made: what a transaction may try again on another connection of the pool when its `BEGIN`
 * failed (db/postgres.ts). Trying again where the server cannot be reached would only double
 * the wait before the 503.
 *
 * @example isConnectionLost(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })) // true
 */
export function isConnectionLost(err: unknown): boolean {
  return someDriverError(err, (code, message) => ['57P01', '57P02', 'ECONNRESET', 'EPIPE'].includes(code) || LOST_CONNECTION_MESSAGES.some((re) => re.test(message)));
}

/** Whether `test` holds for `err` or, through drizzle's wrapper only, for the driver's error it wraps. */
function someDriverError(err: unknown, test: (code: string, message: string) => boolean): boolean {
  let previous: unknown = null;
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (typeof e !== 'object') return false;
    if (depth > 0 && !isDrizzleWrapper(previous)) return false;
    previous = e;
    if (test(String((e as { code?: unknown }).code ?? ''), String((e as { message?: unknown }).message ?? ''))) return true;
  }
  return false;
}

/** drizzle's wrapper of a failed query (its message starts `Failed query:`), whose `cause` is the driver's error. */
function isDrizzleWrapper(e: unknown): boolean {
  return e instanceof Error && (e.constructor.name === 'DrizzleQueryError' || e.message.startsWith('Failed query:'));
}

/** Node's socket errors of a connection that cannot be made or was lost. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** node-postgres's own messages for a connection that was open and died (they carry no code). */
const LOST_CONNECTION_MESSAGES = [/^Connection terminated unexpectedly/, /^Client has encountered a connection error and is not queryable/, /^Client was closed and is not queryable/];

/** node-postgres's own messages for a connection that died or could not be had (they carry no code). */
const PG_CONNECTION_MESSAGES = [
  ...LOST_CONNECTION_MESSAGES,
  // Terminated in any way, a connect timeout included ("… due to connection timeout").
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
];

/**
 * The database's availability as this process last saw it: down from the first call that
 * failed because the database could not be used (see {@link isDatabaseUnavailable}) until a
 * call succeeds again. On PostgreSQL any successful call says the server is back; on SQLite
 * only a committed write does (a full disk or a read-only file still answers reads).
 *
 * Fed by the root `transact` and `read` of the database handle (db/client.ts); read by the
 * readiness probe, the error handler's `Retry-After` and the job scheduler's back-off.
 */
export class DatabaseAvailability {
  private since: number | null = null;
  private reason: string | null = null;
  private readonly listeners = new Set<(change: AvailabilityChange) => void>();

  constructor(private readonly now: () => number = Date.now) {}

  /** True while the last call failed because the database could not be used. */
  get down(): boolean {
    return this.since !== null;
  }

  /** Since when (epoch ms) it has been down, and why (the driver's message); null when up. */
  get outage(): { since: number; reason: string } | null {
    return this.since === null ? null : { since: this.since, reason: this.reason ?? '' };
  }

  /** Calls `listener` at each change (down, then up again); answers the unsubscribe. */
  onChange(listener: (change: AvailabilityChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Watches a database call: its success or its unavailability updates the state. Answers the
   * same promise (a failure is rethrown as it is).
   */
  async watch<T>(call: Promise<T>, kind: 'read' | 'write'): Promise<T> {
    try {
      const result = await call;
      if (kind === 'write' || ENGINE === 'postgres') this.up();
      return result;
    } catch (err) {
      if (isDatabaseUnavailable(err)) this.fail(err);
      throw err;
    }
  }

  /** Records a failure that says the database cannot be used. */
  fail(err: unknown): void {
    if (this.since !== null) return;
    this.since = this.now();
    this.reason = err instanceof Error ? err.message : String(err);
    for (const listener of this.listeners) listener({ available: false, reason: this.reason });
  }

  /** Records a call that succeeded. */
  up(): void {
    if (this.since === null) return;
    const downMs = this.now() - this.since;
    this.since = null;
    this.reason = null;
    for (const listener of this.listeners) listener({ available: true, downMs });
  }
}

/** What {@link DatabaseAvailability.onChange} listeners receive. */
export type AvailabilityChange = { available: false; reason: string } | { available: true; downMs: number };

/** Where a database handle keeps its availability. */
const AVAILABILITY = Symbol('resale.availability');

/**
 * Wraps the root `transact` and `read` of a database handle so that each call feeds its
 * {@link DatabaseAvailability} (made here, once), and answers the handle. Nested handles
 * (`tx.transact`, `tx.read`) are part of their root call and are not watched again.
 */
export function watchAvailability<D extends { transact: (...args: never[]) => Promise<unknown>; read: (...args: never[]) => Promise<unknown> }>(db: D): D {
  const holder = db as unknown as Record<symbol, DatabaseAvailability | undefined>;
  if (holder[AVAILABILITY]) return db;
  const availability = new DatabaseAvailability();
  holder[AVAILABILITY] = availability;
  const transact = db.transact.bind(db) as (...args: unknown[]) => Promise<unknown>;
  const read = db.read.bind(db) as (...args: unknown[]) => Promise<unknown>;
  (db as { transact: unknown }).transact = (...args: unknown[]) => availability.watch(transact(...args), 'write');
  (db as { read: unknown }).read = (...args: unknown[]) => availability.watch(read(...args), 'read');
  return db;
}

/** The availability of a database handle opened by `openDb` (undefined for a handle made otherwise). */
export function availabilityOf(db: object | undefined): DatabaseAvailability | undefined {
  return (db as Record<symbol, DatabaseAvailability | undefined> | undefined)?.[AVAILABILITY];
}
