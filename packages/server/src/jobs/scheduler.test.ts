import { describe, expect, it } from 'vitest';
import { availabilityOf } from '../db/availability.js';
import { createTestApp } from '../testing/harness.js';
import type { Job } from './job.js';
import { OUTAGE_RETRY_MS, startJobs } from './scheduler.js';

/** Lets the jobs' timers fire for `ms` of real time (their intervals are real; the back-off reads the service's clock). */
const ticks = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the jobs while the database cannot be used', () => {
  it('try once a second by the service’s clock instead of at their own pace, and resume their pace when it is back', async () => {
    const t = createTestApp();
    // The database handle is opened by its first use (a PostgreSQL test database is made on demand).
    await t.partner();
    let runs = 0;
    const job: Job = { name: 'probe', everyMs: 5, run: async () => void runs++ };
    const running = startJobs(t.deps, [job]);
    try {
      await ticks(150);
      expect(runs).toBeGreaterThan(2);

      const availability = availabilityOf(t.db)!;
      availability.fail(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
      await ticks(20);
      const during = runs;
      // The clock does not move: at most the one try of this second.
      await ticks(150);
      expect(runs - during).toBeLessThanOrEqual(1);
      const before = runs;
      t.clock.advance(OUTAGE_RETRY_MS);
      await ticks(150);
      expect(runs - before).toBe(1);

      availability.up();
      await ticks(150);
      expect(runs - before).toBeGreaterThan(2);
    } finally {
      await running.stop();
    }
  });
});
