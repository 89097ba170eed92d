import { sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { autocommit, databaseNowMs } from '../db/dialect.js';
import { jobRuns } from './job-runs.table.js';

/**
 * Claims this period's run of a deployment-wide job (`job_runs`, written only here): true for the
 * one process whose conditional upsert moved the job's `dueAt` on, false for every other process
 * ticking in the same period. Compared against the database's clock, so processes on machines
 * whose clocks differ still agree. The next run is due 90 % of a period later, so the claiming
 * process's own next tick (a full period later) finds it due, and a process that stops leaves
 * the job to whichever process ticks next.
 *
 * @example if (await claimRun(deps.db, 'auth-purge', 3_600_000, deps.instance.id)) await purge();
 */
export async function claimRun(db: Db, name: string, everyMs: number, owner: string): Promise<boolean> {
  const now = databaseNowMs();
  const next = sql`${now} + ${Math.floor(everyMs * 0.9)}`;
  const claimed = await autocommit(db, async (tx) =>
    await tx
      .insert(jobRuns)
      .values({ name, dueAt: next, ranBy: owner })
      .onConflictDoUpdate({ target: jobRuns.name, set: { dueAt: next, ranBy: owner }, setWhere: sql`${jobRuns.dueAt} <= ${now}` })
      .returning({ name: jobRuns.name }),
  );
  return claimed.length === 1;
}
