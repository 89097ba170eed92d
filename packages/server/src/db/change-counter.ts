import type Database from 'better-sqlite3';
import type { Clock } from '../lib/clock.js';
import type { Db } from './client.js';
import { ENGINE } from './engine.js';
import { changeFeedOf, type ChangeFeed } from './postgres.js';

/** A value of the database's change counter; compare two with {@link DbChangeCounter.same}. */
export interface DbVersion {
  changes: number;
  data: number;
}

/**
 * A value that changes whenever any row of the database changes (any table, any connection),
 * cheap enough to read on every request. What caches in modules use to know whether anything
 * was written since they read (the buy access layer's snapshots and key lookup). The dialect
 * lives here (see {@link SqliteChangeCounter}); modules see only this interface.
 */
export interface DbChangeCounter {
  /** The current version. */
  read(): DbVersion;
  /** Whether nothing was written between two versions. */
  same(a: DbVersion, b: DbVersion): boolean;
  /**
   * Runs `work`, then forgives the rows it changed on this connection, so they do not count
   * as a change. Only for work that writes tables no cache of the caller reads (one-time
   * tokens, users). No other request's writes may land while it runs: call it inside the
   * transaction that does the work (`transact` queues every other one until it ends), or with
   * synchronous work.
   */
  forgive<T>(work: () => T): T;
  /**
   * Calls `fn` soon after a change is counted, where the database says so (PostgreSQL's commit
   * notifications); absent where only reading tells (SQLite: another process's commit is seen
   * only by reading `data_version`). Returns the unsubscribe.
   */
  onChange?(fn: () => void): () => void;
}

/**
 * The change counter of SQLite: this connection's `total_changes()` (minus the writes
 * forgiven, see {@link forgive}), read on every call (an O(1) statement, 0.1 µs), and
 * `PRAGMA data_version`, which moves when another connection or process commits to the same
 * file, read at most once per millisecond of the clock (it opens and closes a read
 * transaction, the costliest part of a cached answer: about a tenth of the buy access layer's
 * throughput when read on every call). So this process's own writes are seen at once, other
 * processes' within a millisecond.
 *
 * On PostgreSQL the equivalent is a version bumped by the writers (a column, or a NOTIFY).
 */
export class SqliteChangeCounter implements DbChangeCounter {
  private readonly totalChanges: Database.Statement;
  private readonly dataVersion: Database.Statement;
  private forgiven = 0;
  private data = 0;
  private dataReadAt = Number.NaN;

  constructor(
    client: Database.Database,
    private readonly clock: Clock,
  ) {
    this.totalChanges = client.prepare('SELECT total_changes()').pluck();
    this.dataVersion = client.prepare('PRAGMA data_version').pluck();
  }

  read(): DbVersion {
    const now = this.clock.now();
    // `!==` rather than `>`: a clock set back reads it again too.
    if (now !== this.dataReadAt) {
      this.data = this.dataVersion.get() as number;
      this.dataReadAt = now;
    }
    return { changes: (this.totalChanges.get() as number) - this.forgiven, data: this.data };
  }

  same(a: DbVersion, b: DbVersion): boolean {
    return a.changes === b.changes && a.data === b.data;
  }

  forgive<T>(work: () => T): T {
    const before = this.totalChanges.get() as number;
    const settle = () => void (this.forgiven += (this.totalChanges.get() as number) - before);
    let result: T;
    try {
      result = work();
    } catch (err) {
      settle();
      throw err;
    }
    if (result instanceof Promise) return result.finally(settle) as T;
    settle();
    return result;
  }
}

/**
 * The change counter of a database (one per connection; keep it for the life of the cache).
 *
 * @example const counter = changeCounter(deps.db, deps.clock); const v = counter.read();
 */
export function changeCounter(db: Db, clock: Clock): DbChangeCounter {
  if (ENGINE === 'postgres') return new PostgresChangeCounter(() => changeFeedOf(db));
  return new SqliteChangeCounter(db.$client, clock);
}

/**
 * PostgreSQL: the changes this process has seen, committed here or heard from another process
 * (db/postgres.ts, `ChangeFeed`: every write transaction notifies as it commits). While the
 * feed is not listening, every read is a new version, so caches read the database. Nothing is
 * forgiven: a signed answer's tokens count as a change (the cache then checks its fingerprint).
 */
class PostgresChangeCounter implements DbChangeCounter {
  private missed = 0;

  constructor(private readonly feed: () => ChangeFeed | undefined) {}

  read(): DbVersion {
    const feed = this.feed();
    if (!feed?.live) return { changes: feed?.version ?? 0, data: --this.missed };
    return { changes: feed.version, data: 0 };
  }

  same(a: DbVersion, b: DbVersion): boolean {
    return a.changes === b.changes && a.data === b.data;
  }

  forgive<T>(work: () => T): T {
    return work();
  }

  onChange(fn: () => void): () => void {
    // The feed appears once the pool is open; a counter made before that listens from its first call after.
    const feed = this.feed();
    return feed ? feed.onChange(fn) : () => undefined;
  }
}
