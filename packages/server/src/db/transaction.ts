import type Database from 'better-sqlite3';

/**
 * Transactions whose callback may await (the data layer's transaction handle).
 *
 * `db.transact(fn)` runs `fn` in a transaction and resolves to what it returns; a throw, before
 * or after an await, rolls everything back. `db.read(fn)` reads outside a transaction. This is
 * the API the PostgreSQL implementation provides again (a pooled client, `BEGIN`,
 * `COMMIT`/`ROLLBACK`, savepoints).
 *
 * On SQLite there is one connection, so two transactions must never be open on it at once:
 * - a queue (first come, first served) holds every `transact` and `read` while a transaction is
 *   open: the second waits until the first has committed or rolled back, so their statements
 *   never interleave and neither sees the other's uncommitted writes;
 * - `BEGIN IMMEDIATE` takes the database's write lock at once (another process, or the
 *   ingestion worker's connection, waits its turn through `busy_timeout` instead of failing
 *   with SQLITE_BUSY_SNAPSHOT on a read-then-write);
 * - a callback that does not await runs BEGIN … COMMIT in one synchronous stretch: nothing else
 *   can run in between, and the hot paths pay nothing for the queue when it is empty.
 *
 * The callback's `tx` is a handle of its own (the database, plus `transact` and `read` that
 * stay inside this transaction: a nested `tx.transact` is a savepoint, `tx.read` reads in it).
 * Code inside a transaction uses `tx`, never the root `db`: a root `db.transact` or `db.read`
 * there would wait for the transaction it is part of. The queue refuses to wait forever
 * (`QUEUE_WAIT_MS`), so such a mistake fails loudly instead of hanging.
 *
 * Why not AsyncLocalStorage to find "the current transaction": on Node 20 it turned on promise
 * hooks for every promise of the process once used, which cost the buy access layer about a
 * third of its throughput (measured then). Node 24 propagates it without promise hooks, but an
 * explicit handle still shows in each signature which code runs inside a transaction, and
 * costs nothing.
 */
export type Transact<Tx> = <T>(fn: (tx: Tx) => T | Promise<T>) => Promise<T>;

/** `read`: `transact`'s shape, and `snapshot` for several statements that must see one state of the data. */
export type Read<Tx> = <T>(fn: (tx: Tx) => T | Promise<T>, opts?: { snapshot?: boolean }) => Promise<T>;

/** The most a `transact` or `read` waits in the queue before it fails (a deadlock, or a stuck transaction). */
export const QUEUE_WAIT_MS = 30_000;

/** What a transaction handle adds to the database it wraps. */
interface HandleMethods<Tx> {
  transact: Transact<Tx>;
  read: Read<Tx>;
}

/**
 * The SQLite implementation of `transact` and `read` over one better-sqlite3 connection.
 * `db` is the drizzle database of that connection; callbacks get handles made from it.
 */
export class SqliteTransactor<Tx extends object> {
  /** A transaction (or a read that awaits) is open. */
  private busy = false;
  /** Work waiting for the connection, first come first served. */
  private readonly queue: (() => void)[] = [];

  constructor(
    private readonly connection: Database.Database,
    private readonly db: Tx,
  ) {}

  /** @see Transact */
  readonly transact: Transact<Tx> = <T>(fn: (tx: Tx) => T | Promise<T>): Promise<T> => {
    // Inside a synchronous drizzle transaction (the ingestion thread, tests): join it as a
    // savepoint; only synchronous work, since the outer one cannot wait.
    if (this.connection.inTransaction && !this.busy) return this.savepoint(0, fn, true);
    return this.whenFree(() => this.run(fn));
  };

  /**
   * Reads outside a transaction, queued like one so that they never see another's uncommitted
   * writes. A callback that does not await runs at once when the connection is free (each
   * statement sees the last commit, no BEGIN: the hot read paths pay nothing); one that awaits,
   * or asks for a `snapshot` (several statements that must agree while another process may
   * write), runs in a read transaction (`BEGIN`, no write lock) holding the queue until it ends.
   */
  readonly read: Read<Tx> = <T>(fn: (tx: Tx) => T | Promise<T>, opts: { snapshot?: boolean } = {}): Promise<T> => {
    if (this.connection.inTransaction && !this.busy) return settle(() => fn(this.db));
    return this.whenFree(() => this.runRead(fn, opts.snapshot === true));
  };

  /**
   * Throws when a synchronous transaction would start on the connection while an async one is
   * open there (it would silently become part of it). Installed on drizzle's `db.transaction`;
   * inside a callback, `tx.transaction` (a savepoint of that transaction) is fine.
   */
  guardSync(handle: unknown): void {
    if (this.busy && handle === this.db) {
      throw new Error('A synchronous transaction was started while an async transaction is open on the connection: use db.transact (or tx.transaction inside one)');
    }
  }

  /** Runs `start` now when the connection is free, else when its turn comes (failing after QUEUE_WAIT_MS). */
  private whenFree<T>(start: () => Promise<T>): Promise<T> {
    if (!this.busy) return start();
    return new Promise<T>((resolve, reject) => {
      const turn = () => {
        clearTimeout(timer);
        start().then(resolve, reject);
      };
      const timer = setTimeout(() => {
        const at = this.queue.indexOf(turn);
        if (at >= 0) this.queue.splice(at, 1);
        reject(new Error(`The database connection stayed busy for ${QUEUE_WAIT_MS / 1000} s (a root db.transact/db.read inside a transaction waits for itself: use tx)`));
      }, QUEUE_WAIT_MS);
      timer.unref?.();
      this.queue.push(turn);
    });
  }

  private take(): () => void {
    this.busy = true;
    // The next in the queue starts as soon as this one has ended.
    return () => {
      this.busy = false;
      this.queue.shift()?.();
    };
  }

  /** The outermost transaction: BEGIN IMMEDIATE … COMMIT, holding the queue. */
  private run<T>(fn: (tx: Tx) => T | Promise<T>): Promise<T> {
    const end = this.take();
    try {
      this.connection.exec('BEGIN IMMEDIATE');
    } catch (err) {
      end();
      return Promise.reject(err);
    }
    let result: T | Promise<T>;
    try {
      result = fn(this.handle(0));
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

  /** A read outside a transaction (see `read`): no BEGIN unless it awaits or wants a snapshot. */
  private runRead<T>(fn: (tx: Tx) => T | Promise<T>, snapshot: boolean): Promise<T> {
    const end = this.take();
    let result: T | Promise<T> | undefined;
    let began = false;
    try {
      if (snapshot) {
        this.connection.exec('BEGIN');
        began = true;
      }
      result = fn(this.handle(0));
      if (!isThenable(result)) {
        if (began) this.rollback();
        end();
        return Promise.resolve(result);
      }
      // It awaits: what it reads next must be one snapshot, and nobody may write in between.
      if (!began) {
        this.connection.exec('BEGIN');
        began = true;
      }
    } catch (err) {
      // The callback's own promise fails too (its statements meet the same error): that is
      // this failure, not another one left unhandled.
      if (isThenable(result)) Promise.resolve(result).catch(() => undefined);
      if (began) this.rollback();
      end();
      return Promise.reject(err);
    }
    return Promise.resolve(result as T | Promise<T>).finally(() => {
      this.rollback();
      end();
    });
  }

  /**
   * The handle of a transaction at savepoint `depth`: the database (same connection), whose
   * `transact` is a savepoint inside this transaction and whose `read` reads in it.
   */
  private handle(depth: number): Tx {
    const handle = Object.create(this.db) as Tx & HandleMethods<Tx>;
    handle.transact = (fn) => this.savepoint(depth, fn);
    handle.read = (fn) => settle(() => fn(handle));
    return handle;
  }

  /** A transaction inside one: a savepoint, released on success, rolled back to on a throw. */
  private savepoint<T>(depth: number, fn: (tx: Tx) => T | Promise<T>, syncOnly = false): Promise<T> {
    const name = `tx_${depth + 1}`;
    this.connection.exec(`SAVEPOINT ${name}`);
    const undo = () => this.connection.exec(`ROLLBACK TO ${name}; RELEASE ${name}`);
    let result: T | Promise<T>;
    try {
      result = fn(this.handle(depth + 1));
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

/** `fn()` as a promise, its throw as a rejection. */
function settle<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(err);
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
