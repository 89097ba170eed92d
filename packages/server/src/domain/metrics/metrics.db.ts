import type { Db, Tx } from '../../db/client.js';

/**
 * Timing of the database's root `transact` and `read`, and counting "when it commits", by
 * wrapping the two functions of the root handle (as tickets.worker.ts's `takeTurns` wraps
 * `transact`); the data layer (db/transaction.ts, db/postgres.ts) is not touched.
 *
 * Only root calls are timed: the handle a callback gets has its own `transact` (a savepoint)
 * and `read` (a read in the transaction), which are part of the root call's time.
 */

/** Where a root call's duration goes (Metrics.observeDb). */
export interface DbTimings {
  observeDb(call: 'transact' | 'read', seconds: number): void;
}

/** Work to run once the transaction of a handle commits; dropped if it rolls back. */
const pendingOf = new WeakMap<object, (() => void)[]>();

/** The sink of an instrumented database (the latest `instrumentDb` wins: one per database object). */
const INSTRUMENTED = Symbol('metrics.instrumented');
type Instrumented = Db & { [INSTRUMENTED]?: { sink: DbTimings } };

/**
 * Runs `count` once the transaction `tx` belongs to has committed (a savepoint's work once its
 * root commits, nothing if the savepoint or the root rolls back), or at once when `tx` is not
 * a handle of an instrumented transaction (the root database, a read, a synchronous drizzle
 * transaction). For counters that must count what happened, not what was attempted.
 *
 * @example afterCommit(tx, () => intentions.inc({ outcome: 'paid' }));
 */
export function afterCommit(tx: Tx | null | undefined, count: () => void): void {
  const pending = tx ? pendingOf.get(tx) : undefined;
  if (pending) pending.push(count);
  else count();
}

/**
 * Wraps `db.transact` and `db.read` of a root database handle: each call's duration goes to
 * `sink`, and the handles given to `transact` callbacks collect the work of {@link afterCommit}.
 * Calling it again on the same database only changes the sink (tests build several
 * dependency sets over one database rarely, but never wrap twice).
 */
export function instrumentDb(db: Db, sink: DbTimings): void {
  const target = db as Instrumented;
  const installed = target[INSTRUMENTED];
  if (installed) {
    installed.sink = sink;
    return;
  }
  const state = { sink };
  target[INSTRUMENTED] = state;
  const rawTransact = db.transact;
  const rawRead = db.read;
  db.transact = (<T>(fn: (tx: Db) => T | Promise<T>): Promise<T> => {
    const started = performance.now();
    const committed: (() => void)[] = [];
    return rawTransact((tx) => {
      collect(tx, committed);
      return fn(tx);
    }).then(
      (value) => {
        state.sink.observeDb('transact', (performance.now() - started) / 1000);
        for (const count of committed) count();
        return value;
      },
      (err: unknown) => {
        state.sink.observeDb('transact', (performance.now() - started) / 1000);
        throw err;
      },
    );
  }) as Db['transact'];
  db.read = (<T>(fn: (tx: Db) => T | Promise<T>, opts?: { snapshot?: boolean }): Promise<T> => {
    const started = performance.now();
    const done = () => state.sink.observeDb('read', (performance.now() - started) / 1000);
    return rawRead(fn, opts).then(
      (value) => {
        done();
        return value;
      },
      (err: unknown) => {
        done();
        throw err;
      },
    );
  }) as Db['read'];
}

/**
 * Makes `tx` collect afterCommit work into `into`, and its savepoints (`tx.transact`) into
 * lists of their own that join `into` only when the savepoint is released.
 */
function collect(tx: Db, into: (() => void)[]): void {
  pendingOf.set(tx, into);
  const savepoint = tx.transact;
  tx.transact = (<T>(fn: (sp: Db) => T | Promise<T>): Promise<T> => {
    const mine: (() => void)[] = [];
    return savepoint((sp) => {
      collect(sp, mine);
      return fn(sp);
    }).then((value) => {
      into.push(...mine);
      return value;
    });
  }) as Db['transact'];
}
