import { afterEach, describe, expect, it, vi } from 'vitest';
import { quietCommit, wakeWorkers } from '../db/dialect.js';
import { changeFeedOf } from '../db/postgres.js';
import { createTestApp } from '../testing/harness.js';
import { sameDatabase } from '../testing/postgres.js';
import type { Job } from './job.js';
import { startJobs, type RunningJobs } from './scheduler.js';

/** Wake-ups across processes on PostgreSQL: a commit that names a job's topic starts it in every process at once. */
describe('jobs woken by another process’s commit', () => {
  const running: RunningJobs[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((r) => r.stop()));
  });

  it('runs a woken job at once in another process, not for a rolled-back transaction, and again after a wake during a run', async () => {
    const a = createTestApp();
    const b = createTestApp({}, { db: sameDatabase(a.db) });
    // Both handles listen before the test writes.
    await Promise.all([a.db.read(async () => undefined), b.db.read(async () => undefined)]);
    let runs = 0;
    let release: (() => void) | null = null;
    const job: Job = {
      name: 'woken',
      // Its timer would not fire during the test: only wake-ups start it.
      everyMs: 3_600_000,
      wakeOn: 'test-topic',
      run: async () => {
        runs++;
        if (runs === 2) await new Promise<void>((resolve) => (release = resolve));
      },
    };
    running.push(startJobs(b.deps, [job]));

    await a.db.transact(async (tx) => wakeWorkers(tx, 'test-topic'));
    await vi.waitFor(() => expect(runs).toBe(1));

    await expect(
      a.db.transact(async (tx) => {
        wakeWorkers(tx, 'test-topic');
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    // Another topic wakes nothing either.
    await a.db.transact(async (tx) => wakeWorkers(tx, 'another-topic'));
    // A wake that is heard proves the two before it were heard and ignored (one connection, in order).
    await a.db.transact(async (tx) => wakeWorkers(tx, 'test-topic'));
    await vi.waitFor(() => expect(runs).toBe(2));

    // Woken while the second run is in hand: a third run follows it.
    await a.db.transact(async (tx) => wakeWorkers(tx, 'test-topic'));
    expect(runs).toBe(2);
    release!();
    await vi.waitFor(() => expect(runs).toBe(3));
  });

  it('tells other processes’ caches of a change, except for a quiet transaction, which may still wake work', async () => {
    const a = createTestApp();
    const bDb = sameDatabase(a.db);
    await Promise.all([a.db.read(async () => undefined), bDb.read(async () => undefined)]);
    const feed = changeFeedOf(bDb)!;
    let woken = 0;
    const unsubscribe = feed.onWake('test-topic', () => void woken++);
    try {
      const seen = feed.version;
      await a.db.transact(async (tx) => {
        quietCommit(tx);
        wakeWorkers(tx, 'test-topic');
      });
      await vi.waitFor(() => expect(woken).toBe(1));
      expect(feed.version).toBe(seen);
      // A savepoint cannot speak for its transaction: that one is counted.
      await a.db.transact(async (tx) => await tx.transact(async (sp) => quietCommit(sp)));
      await vi.waitFor(() => expect(feed.version).toBe(seen + 1));
      await a.db.transact(async (tx) => quietCommit(tx));
      await a.db.transact(async () => undefined);
      // The quiet one between was not counted (the one after it was heard after it).
      await vi.waitFor(() => expect(feed.version).toBe(seen + 2));
    } finally {
      unsubscribe();
    }
  });
});
