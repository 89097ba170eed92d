import { afterEach, describe, expect, it, vi } from 'vitest';
import { eq } from 'drizzle-orm';
import { ENGINE } from '../db/engine.js';
import { createTestApp, testDb } from '../testing/harness.js';
import { sameDatabase } from '../testing/postgres.js';
import type { Db } from '../db/client.js';
import { claimRun } from './job-runs.js';
import { jobRuns } from './job-runs.table.js';
import { jobs, startJobs } from './scheduler.js';
import type { Job } from './job.js';

/** Another process's handle on the same database (PostgreSQL); SQLite is served by one process. */
function otherProcess(db: Db): Db {
  return ENGINE === 'postgres' ? sameDatabase(db) : db;
}

/** Makes the job's next run due now, as if its period had passed (the database's clock cannot be moved). */
async function periodPassed(db: Db, name: string): Promise<void> {
  await db.transact(async (tx) => void (await tx.update(jobRuns).set({ dueAt: 0 }).where(eq(jobRuns.name, name))));
}

describe('claimRun: one run per period in the whole deployment', () => {
  it('lets exactly one of many concurrent claims through, from any process, and the next only once the period passed', async () => {
    const db = testDb();
    const other = otherProcess(db);
    const claims = await Promise.all(Array.from({ length: 12 }, (_, i) => claimRun(i % 2 ? db : other, 'scan', 60_000, `instance_${i}`)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await claimRun(db, 'scan', 60_000, 'instance_late')).toBe(false);
    // Another job has its own period.
    expect(await claimRun(other, 'another-scan', 60_000, 'instance_1')).toBe(true);

    await periodPassed(db, 'scan');
    expect(await claimRun(other, 'scan', 60_000, 'instance_next')).toBe(true);
    const row = (await db.select().from(jobRuns).where(eq(jobRuns.name, 'scan')))[0]!;
    expect(row.ranBy).toBe('instance_next');
    // Due again 90 % of a period later by the database's clock (give the test a minute's slack).
    expect(row.dueAt - Date.now()).toBeGreaterThan(54_000 - 60_000);
    expect(row.dueAt - Date.now()).toBeLessThanOrEqual(54_000 + 60_000);
  });
});

describe('the scheduler with several processes', () => {
  afterEach(() => vi.useRealTimers());

  it('runs a deployment job in one process per period and a process job in each', async () => {
    const a = createTestApp();
    const b = createTestApp({}, { db: otherProcess(a.db) });
    const runs: string[] = [];
    const scan = (who: string): Job => ({ name: 'test-scan', everyMs: 60_000, scope: 'deployment', run: () => void runs.push(`scan by ${who}`) });
    const drain = (who: string): Job => ({ name: 'test-drain', everyMs: 60_000, run: () => void runs.push(`drain by ${who}`) });
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const first = startJobs(a.deps, [scan('a'), drain('a')]);
    const second = startJobs(b.deps, [scan('b'), drain('b')]);
    const tick = async (expected: number) => {
      runs.length = 0;
      vi.advanceTimersByTime(60_000);
      await vi.waitFor(() => expect(first.running().length + second.running().length).toBe(0));
      await vi.waitFor(() => expect(runs.filter((r) => r.startsWith('drain'))).toHaveLength(2));
      expect(runs.filter((r) => r.startsWith('drain')).sort()).toEqual(['drain by a', 'drain by b']);
      expect(runs.filter((r) => r.startsWith('scan'))).toHaveLength(expected);
    };
    try {
      await tick(1);
      // The next ticks come before the period has passed by the database's clock: no scan.
      await tick(0);
      await periodPassed(a.db, 'test-scan');
      await tick(1);
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
  });

  it('declares the scans deployment-wide and the queue consumers and the lease per process', () => {
    const scopes = Object.fromEntries(jobs().map((j) => [j.name, j.scope ?? 'process']));
    expect(scopes).toEqual({
      'instance-lease': 'process',
      'purge-idempotency': 'deployment',
      'tickets-ingestion': 'process',
      feeds: 'process',
      webhooks: 'process',
      email: 'process',
      'ticket-unlocks': 'deployment',
      'auth-purge': 'deployment',
      'intention-expiry': 'deployment',
      'refunds-and-payouts': 'deployment',
      wishlist: 'deployment',
      waitinglist: 'deployment',
    });
  });
});
