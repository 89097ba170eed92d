import { AsyncLocalStorage } from 'node:async_hooks';
import type Database from 'better-sqlite3';

/**
 * Transactions whose callback may await (the data layer's transaction handle).
 *
 * `transact(fn)` runs `fn` in a transaction and resolves to what it returns; a throw, before
 * or after an await, rolls everything back. This is the API the PostgreSQL implementation
 * provides again (a pooled client, `BEGIN`, `COMMIT`/`ROLLBACK`, savepoints).
 *
 * On SQLite there is one connection, so two transactions must never be open on it at once:
 * - an async mutex queues transactions: the second waits until the first has committed or
 *   rolled back, so their statements never interleave and neither sees the other's
 *   uncommitted writes;
 * - `BEGIN IMMEDIATE` takes the database's write lock at once (another process, or the
 *   ingestion worker's connection, waits its turn through `busy_timeout` instead of failing
 *   with SQLITE_BUSY_SNAPSHOT on a read-then-write);
 * - a `transact` inside a transaction of the same async flow (AsyncLocalStorage) is a
 *   savepoint, so a flow may call a service that opens its own transaction;
 * - a callback that does not await runs BEGIN … COMMIT in one synchronous stretch, exactly as
 *   before: nothing else can run in between, and the hot paths pay nothing for the queue
 *   when it is empty.
 *
 * While a transaction awaits, other code of the process runs. It must not touch the
 * connection around the queue: every read and write inside a transaction goes through its
 * handle, and code outside one opens its own with `transact`. A synchronous drizzle
 * `db.transaction` started in that window is refused loudly (see `guardSync`), never nested
 * into the waiting transaction by accident.
 */
export type Transact<Tx> = <T>(fn: (tx: Tx) => T | Promise<T>) => Promise<T>;

interface Frame {
  /** Savepoint depth of the flow's open transaction (0: the outermost). */
  depth: number;
}

/**
 * The SQLite implementation of `transact` over one better-sqlite3 connection, handing `handle`
 * (the drizzle database of that connection) to callbacks.
 */
export class SqliteTransactor<Tx> {
  private readonly flow = new AsyncLocalStorage<Frame>();
  /** A transaction is open (and may be awaiting). */
  private busy = false;
  /** Transactions waiting for the connection, first come first served. */
  private readonly queue: (() => void)[] = [];

  constructor(
    private readonly connection: Database.Database,
    private readonly handle: Tx,
  ) {}

  /** @see Transact */
  readonly transact: Transact<Tx> = <T>(fn: (tx: Tx) => T | Promise<T>): Promise<T> => {
    const frame = this.flow.getStore();
    if (frame) return this.nested(frame, fn);
    // Inside a synchronous drizzle transaction (code not yet moved to `transact`): join it as
    // a savepoint; it can only be synchronous work, since the outer one cannot wait.
    if (this.connection.inTransaction && !this.busy) return this.nested({ depth: 0 }, fn, true);
    if (!this.busy) return this.run(fn);
    return new Promise<T>((resolve, reject) => this.queue.push(() => void this.run(fn).then(resolve, reject)));
  };

  /**
   * Reads outside a transaction, queued like one so that they never see another's uncommitted
   * writes: inside a flow's transaction, simply part of it; a callback that does not await
   * runs at once when the connection is free (each statement sees the last commit, no BEGIN,
   * so the hot read paths pay nothing); one that awaits runs in a read transaction (`BEGIN`,
   * which takes no write lock) holding the queue until it ends.
   */
  readonly read: Transact<Tx> = <T>(fn: (tx: Tx) => T | Promise<T>): Promise<T> => {
    if (this.flow.getStore() || (this.connection.inTransaction && !this.busy)) return this.inline(fn);
    if (!this.busy) return this.run(fn, 'read');
    return new Promise<T>((resolve, reject) => this.queue.push(() => void this.run(fn, 'read').then(resolve, reject)));
  };

  /** A read inside an open transaction of the same flow: it is part of it. */
  private inline<T>(fn: (tx: Tx) => T | Promise<T>): Promise<T> {
    try {
      return Promise.resolve(fn(this.handle));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * Throws when a synchronous transaction would start on the connection while an async one is
   * open there (it would silently become part of it). Installed on drizzle's `db.transaction`.
   */
  guardSync(): void {
    if (this.busy && !this.flow.getStore()) {
      throw new Error('A synchronous transaction was started while an async transaction is open on the connection: use db.transact');
    }
  }

  /**
   * The outermost transaction of a flow: BEGIN IMMEDIATE … COMMIT, holding the queue. A read
   * that does not await needs no transaction at all; one that awaits gets a deferred BEGIN.
   */
  private run<T>(fn: (tx: Tx) => T | Promise<T>, mode: 'write' | 'read' = 'write'): Promise<T> {
    if (mode === 'read') return this.runRead(fn);
    this.busy = true;
    // The next transaction in the queue starts as soon as this one has ended.
    const end = () => {
      this.busy = false;
      this.queue.shift()?.();
    };
    try {
      this.connection.exec('BEGIN IMMEDIATE');
    } catch (err) {
      end();
      return Promise.reject(err);
    }
    let result: T | Promise<T>;
    try {
      result = this.flow.run({ depth: 0 }, () => fn(this.handle));
    } catch (err) {
      this.rollback();
      end();
      return Promise.reject(err);
    }
    if (!isThenable(result)) {
      try {
        this.connection.exec('COMMIT');
      } catch (err) {
        this.rollback();
        end();
        return Promise.reject(err);
      }
      end();
      return Promise.resolve(result);
    }
    return Promise.resolve(result).then(
      (value) => {
        try {
          this.connection.exec('COMMIT');
        } catch (err) {
          this.rollback();
          throw err;
        } finally {
          end();
        }
        return value;
      },
      (err: unknown) => {
        this.rollback();
        end();
        throw err;
      },
    );
  }

  private runRead<T>(fn: (tx: Tx) => T | Promise<T>): Promise<T> {
    this.busy = true;
    const end = () => {
      this.busy = false;
      this.queue.shift()?.();
    };
    let result: T | Promise<T>;
    let began = false;
    try {
      result = this.flow.run({ depth: 0 }, () => fn(this.handle));
      if (!isThenable(result)) {
        end();
        return Promise.resolve(result);
      }
      // It awaits: what it reads next must be one snapshot, and nobody may write in between.
      this.connection.exec('BEGIN');
      began = true;
    } catch (err) {
      if (began) this.rollback();
      end();
      return Promise.reject(err);
    }
    return Promise.resolve(result).finally(() => {
      this.rollback();
      end();
    });
  }

  /** A transaction inside one: a savepoint, released on success, rolled back to on a throw. */
  private nested<T>(frame: Frame, fn: (tx: Tx) => T | Promise<T>, syncOnly = false): Promise<T> {
    const name = `tx_${frame.depth + 1}`;
    this.connection.exec(`SAVEPOINT ${name}`);
    const undo = () => this.connection.exec(`ROLLBACK TO ${name}; RELEASE ${name}`);
    let result: T | Promise<T>;
    try {
      result = this.flow.run({ depth: frame.depth + 1 }, () => fn(this.handle));
    } catch (err) {
      undo();
      return Promise.reject(err);
    }
    if (!isThenable(result)) {
      this.connection.exec(`RELEASE ${name}`);
      return Promise.resolve(result);
    }
    if (syncOnly) {
      undo();
      return Promise.reject(new Error('transact: an async callback inside a synchronous transaction cannot be awaited by it'));
    }
    return Promise.resolve(result).then(
      (value) => {
        this.connection.exec(`RELEASE ${name}`);
        return value;
      },
      (err: unknown) => {
        undo();
        throw err;
      },
    );
  }

  private rollback(): void {
    // A failed COMMIT or a statement error may have ended the transaction already.
    if (this.connection.inTransaction) this.connection.exec('ROLLBACK');
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
