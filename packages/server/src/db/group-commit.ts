import type { Db } from './client.js';
import { ENGINE } from './engine.js';

/**
 * The most pieces of work one group's transaction runs. It holds the connection that long, and
 * on SQLite every read of the process (an access-layer poll, a page) waits behind it: 16 buy
 * attempts are about 50 ms of writing, while one durable commit per 16 already takes nearly
 * all that grouping saves (on a disk whose flush costs 2 ms, 500 attempts over 3,000 listings:
 * p99 3.2 s one by one, 2.3 s grouped; on this machine's 0.2 ms flush, the same 2.2 s).
 */
export const GROUP_COMMIT_MAX = 16;

interface Pending {
  work: (tx: Db) => unknown;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

/**
 * Group commit: pieces of work that arrive while a group is being written run together in the
 * next group's one transaction, each in a savepoint of its own, so a burst pays one durable
 * commit (one fsync of SQLite's WAL) per group rather than per piece.
 *
 * - The window is one turn of the event loop, not a timer: a piece that finds nothing running
 *   starts a group after the current turn (what arrives in that turn joins it); pieces that
 *   arrive while a group runs form the next one, written one turn after that one ends. The
 *   turn matters: on SQLite a request's reads before its write (`refuseTaken`) queue behind
 *   the open group on the one connection, so without it every group would hold one piece (it
 *   measured so). So at low load a piece waits less than a millisecond, and in a rush a group
 *   is whatever arrived during the previous one (at most {@link GROUP_COMMIT_MAX}).
 * - A piece that throws rolls back its own savepoint only: the others of the group commit, and
 *   its caller gets its own error at once (it wrote nothing; a refusal read from pieces before
 *   it that then fail to commit is a refusal a retry corrects, never a sale). A piece that
 *   wrote hears its result only once the group has committed; if the group's transaction
 *   fails (the commit itself, the database gone), each of those is refused with that error and
 *   nothing of it was written. A crash in the middle loses only pieces nobody was told about.
 * - Order: pieces run in the order they arrived, within a group and from one group to the
 *   next, so a fan's second request (sent after the first was answered, or after it was sent)
 *   never runs before the first; a piece sees the pieces before it in its group as committed
 *   (the same transaction), as it would have seen them one transaction earlier.
 *
 * Used for buy attempts (the buy intention, the checkout URL, the market's Buy), whose
 * successful ones each ended in a durable commit while every other request waited behind it.
 *
 * Off unless `SQLITE_GROUP_COMMIT` is on (deps.ts): measured on the 2-core workplace, whose disk
 * flushes in about 0.2 ms, grouping saved nothing with many sales and cost 20–30 % of the p99
 * with many refusals (the reads of every request wait behind a whole group on SQLite's one
 * connection); with a flush of 2 ms (an fsync slowed by a preload shim), 500 attempts over
 * 3,000 listings went from p99 3.2 s to 2.7 s. So it is for disks that flush slowly, with
 * on-sales that sell more than they refuse (docs/benchmarks.md).
 *
 * On SQLite only (`grouped`): there one connection writes, and every request waits while a
 * transaction is open and its commit flushes. PostgreSQL runs each attempt in a transaction of
 * its own on its own connection and already writes the commits of concurrent transactions to
 * its WAL together; grouping there would hold row locks across pieces, and two processes'
 * groups locking listings in different orders could deadlock, refusing a whole group.
 * So there `transact` is the database's own.
 *
 * @example const body = await reservations.transact(async (tx) => reserveListings(deps, tx, input));
 */
export class GroupCommit {
  private queue: Pending[] = [];
  private running = false;
  /** Groups written since start (tests and benchmarks read it). */
  groups = 0;

  constructor(
    private readonly db: Pick<Db, 'transact'>,
    private readonly max = GROUP_COMMIT_MAX,
    /** Whether work is grouped (SQLite, see above); otherwise each piece is its own transaction. */
    readonly grouped = ENGINE === 'sqlite',
  ) {}

  /** Runs `work` in the next group's transaction (its own savepoint); settles once that group committed. */
  transact = <T>(work: (tx: Db) => T | Promise<T>): Promise<T> => {
    if (!this.grouped) return this.db.transact(work);
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.running) void this.next();
    });
  };

  private async next(): Promise<void> {
    this.running = true;
    while (this.queue.length > 0) {
      // One turn of the event loop first: the requests whose reads were queued behind the last
      // group (SQLite: one connection) reach their write and join this one.
      await new Promise((resolve) => setImmediate(resolve));
      const group = this.queue.splice(0, this.max);
      const written: { piece: Pending; value: unknown }[] = [];
      try {
        await this.db.transact(async (tx) => {
          for (const piece of group) {
            try {
              written.push({ piece, value: await tx.transact(async (savepoint) => await piece.work(savepoint)) });
            } catch (error) {
              // Refused: its savepoint wrote nothing, so its answer need not wait for the commit.
              piece.reject(error);
            }
          }
        });
        this.groups++;
      } catch (error) {
        // The group did not commit: nothing of it was written, and every caller still waiting is told so.
        for (const { piece } of written) piece.reject(error);
        continue;
      }
      for (const { piece, value } of written) piece.resolve(value);
    }
    this.running = false;
  }
}
