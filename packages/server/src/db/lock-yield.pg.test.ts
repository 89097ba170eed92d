import { describe, expect, it } from 'vitest';
import type pg from 'pg';
import { testDb } from '../testing/harness.js';
import { partnerRow } from '../testing/factories.js';
import { partners } from '../domain/partners/partners.table.js';
import { sql } from 'drizzle-orm';
import { lockOrYield, selectRows } from './dialect.js';
import { IN_PLACE_WAITERS, LockBusy } from './postgres.js';
import type { Db } from './client.js';

/**
 * `lockOrYield` on a real PostgreSQL server: a transaction that finds the lock held gives its
 * connection back and runs again after a pause, instead of waiting on the lock with a pooled
 * connection (a burst of one show's publishes wider than the pool then starved every other
 * request into 503s).
 */

const poolOf = (db: Db) => (db as unknown as { $client: pg.Pool }).$client;
/** Connections lent out now. */
const busy = (db: Db) => poolOf(db).totalCount - poolOf(db).idleCount;

/** Transactions PostgreSQL has waiting for an advisory lock. */
const waitingOnLocks = async (db: Db) => (await db.read(async (tx) => await selectRows<{ n: number }>(tx, sql`select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted`)))[0]!.n;

/** A transaction that takes `key` and holds it until `release` is called. */
function holder(db: Db, key: string) {
  let release!: () => void;
  let locked!: () => void;
  const held = new Promise<void>((r) => (locked = r));
  const gate = new Promise<void>((r) => (release = r));
  const done = db.transact(async (tx) => {
    await lockOrYield(tx, key);
    locked();
    await gate;
  });
  return { held, release, done };
}

describe('lockOrYield', () => {
  it('keeps a few transactions waiting in place and parks the others without their connections, each run again as a place frees', async () => {
    const db = testDb();
    const a = holder(db, 'show:1');
    await a.held;
    const WAITERS = IN_PLACE_WAITERS + 4;
    const attempts = new Map<number, number>();
    const order: number[] = [];
    const waiters = Array.from({ length: WAITERS }, (_, i) =>
      db.transact(async (tx) => {
        attempts.set(i, (attempts.get(i) ?? 0) + 1);
        // Written before the lock: rolled back with each attempt that gives way.
        await tx.insert(partners).values(partnerRow(`p_${i}_${attempts.get(i)}`));
        await lockOrYield(tx, 'show:1');
        order.push(i);
      }),
    );
    // Every waiter has run once: the first ones wait in place, the rest gave way and are parked.
    await expect.poll(() => attempts.size, { timeout: 2_000, interval: 1 }).toBe(WAITERS);
    // A's connection and the in-place waiters' only: the parked gave theirs back.
    await expect.poll(() => busy(db), { timeout: 2_000, interval: 1 }).toBe(1 + IN_PLACE_WAITERS);
    await expect.poll(() => waitingOnLocks(db), { timeout: 2_000, interval: 5 }).toBe(IN_PLACE_WAITERS);
    expect(order).toEqual([]);
    a.release();
    await a.done;
    await Promise.all(waiters);
    expect(order.sort()).toEqual(Array.from({ length: WAITERS }, (_, i) => i));
    // Some ran more than once; only each one's last attempt committed its write.
    expect([...attempts.values()].some((n) => n > 1)).toBe(true);
    const ids = (await db.read((tx) => tx.select({ id: partners.id }).from(partners))).map((r) => r.id).sort();
    expect(ids).toEqual([...attempts].map(([i, n]) => `p_${i}_${n}`).sort());
  });

  it('rolls back an attempt that gave way even when the code in it caught the error and went on', async () => {
    const db = testDb();
    const a = holder(db, 'show:2');
    await a.held;
    // The process's places in the lock's queue taken, so the next transaction gives way.
    const inPlace = Array.from({ length: IN_PLACE_WAITERS }, () => db.transact(async (tx) => await lockOrYield(tx, 'show:2')));
    await expect.poll(() => waitingOnLocks(db), { timeout: 2_000, interval: 5 }).toBe(IN_PLACE_WAITERS);
    let attempts = 0;
    const swallowed: unknown[] = [];
    const b = db.transact(async (tx) => {
      attempts++;
      await tx.insert(partners).values(partnerRow(`q_${attempts}`));
      try {
        await lockOrYield(tx, 'show:2');
      } catch (err) {
        // A careless catch-all: the attempt must still not commit what it skipped.
        swallowed.push(err);
        if (attempts === 2) a.release();
      }
      return attempts;
    });
    const n = await b;
    await a.done;
    await Promise.all(inPlace);
    expect(swallowed.length).toBeGreaterThanOrEqual(1);
    expect(swallowed.every((e) => e instanceof LockBusy)).toBe(true);
    expect(n).toBe(swallowed.length + 1);
    expect((await db.read((tx) => tx.select({ id: partners.id }).from(partners))).map((r) => r.id)).toEqual([`q_${n}`]);
  });

  it('takes a free lock at once, and again within the same transaction', async () => {
    const db = testDb();
    let attempts = 0;
    await db.transact(async (tx) => {
      attempts++;
      await lockOrYield(tx, 'show:3');
      await lockOrYield(tx, 'show:3');
      await tx.transact(async (sp) => await lockOrYield(sp, 'show:3'));
    });
    expect(attempts).toBe(1);
  });

});
