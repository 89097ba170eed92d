import type { AppDeps } from '../context.js';
import type { Job } from './job.js';
import { purgeIdempotencyJob } from './purge-idempotency.js';
import { claimRun } from './job-runs.js';
import { onWake } from '../db/dialect.js';
import { availabilityOf, isDatabaseUnavailable } from '../db/availability.js';
import { ticketsJob } from './tickets.job.js';
import { feedsJob } from './feeds.job.js';
import { webhooksJob } from './webhooks.job.js';
import { emailJob } from './email.job.js';
import { unlocksJob } from './ticket-unlocks.job.js';
import { authPurgeJob } from './auth.job.js';
import { intentionsJob } from './intentions.job.js';
import { paymentsJob } from './payments.job.js';
import { wishlistJob } from './wishlist.job.js';
import { waitingListJob } from './waitinglist.job.js';
import { instanceLeaseJob } from './instances.job.js';

/** Every scheduled job of the service. */
export function jobs(): Job[] {
  return [instanceLeaseJob, purgeIdempotencyJob, ticketsJob, feedsJob, webhooksJob, emailJob, unlocksJob, authPurgeJob, intentionsJob, paymentsJob, wishlistJob, waitingListJob];
}

/** While the database cannot be used, how often each job tries again. */
export const OUTAGE_RETRY_MS = 1_000;

/** The running jobs, as `startJobs` returns them. */
export interface RunningJobs {
  /**
   * Starts no job any more and resolves once the runs in hand have finished (a run that throws
   * counts as finished). Harmless twice. A shutdown that cannot wait that long (main.ts,
   * SHUTDOWN_TIMEOUT_SECONDS) exits anyway: a job applies its work in transactions, so a run cut
   * short leaves nothing half-applied and is done again at a later tick (here or in another process).
   */
  stop(): Promise<void>;
  /** Names of the jobs running now (for the shutdown's log line). */
  running(): string[];
}

/**
 * Runs the jobs on timers. A `deployment` job runs only when this process claims the period's
 * run (see `Job.scope`). A job that throws is logged and tried again at its next tick;
 * it never stops the service. A job still running when its next tick comes is skipped.
 * `stop()` aborts the runs' `signal` (see JobContext), so a run that keeps going while it has
 * work in hand starts nothing new, and waits for them.
 */
export function startJobs(deps: AppDeps, list: Job[] = jobs()): RunningJobs {
  /** When each job last started, for the back-off while the database cannot be used. */
  const lastStart = new Map<Job, number>();
  const timers: NodeJS.Timeout[] = [];
  const unsubscribes: (() => void)[] = [];
  const inHand = new Map<Job, Promise<void>>();
  /** Jobs woken while a run was in hand: they run again as soon as it ends. */
  const wokenMeanwhile = new Set<Job>();
  const stopping = new AbortController();
  let stopped = false;
  for (const job of list) {
    const tick = () => {
      if (stopped || inHand.has(job)) return;
      // While the database cannot be used, each job tries once a second at most (not every
      // 25 ms, not 11 jobs' errors a tick): the first to succeed when it is back ends the pause.
      const availability = availabilityOf(deps.db);
      if (availability) {
        const now = deps.clock.now();
        if (availability.down && now - (lastStart.get(job) ?? -Infinity) < OUTAGE_RETRY_MS) return;
        lastStart.set(job, now);
      }
      let settled = false;
      const run = (async () => {
        try {
          if (job.scope === 'deployment' && !(await claimRun(deps.db, job.name, job.everyMs, deps.instance.id))) return;
          await job.run(deps, { signal: stopping.signal });
        } catch (err) {
          // An outage is logged once, when it begins (main.ts); each job's failure during it is not news.
          if (isDatabaseUnavailable(err)) deps.logger.debug({ job: job.name, err: { message: (err as Error).message } }, 'job waiting for the database');
          else deps.logger.error({ job: job.name, err: { message: (err as Error).message, stack: (err as Error).stack } }, 'job failed');
        } finally {
          settled = true;
          inHand.delete(job);
          if (wokenMeanwhile.delete(job)) setImmediate(tick);
        }
      })();
      // A job that threw synchronously has already settled (its `finally` ran before this line).
      if (!settled) inHand.set(job, run);
    };
    const timer = setInterval(tick, job.everyMs);
    timer.unref();
    timers.push(timer);
    if (job.wakeOn) {
      unsubscribes.push(
        onWake(deps.db, job.wakeOn, () => {
          if (inHand.has(job)) wokenMeanwhile.add(job);
          else tick();
        }),
      );
    }
  }
  return {
    stop: async () => {
      stopped = true;
      for (const timer of timers) clearInterval(timer);
      for (const unsubscribe of unsubscribes.splice(0)) unsubscribe();
      stopping.abort();
      await Promise.all(inHand.values());
    },
    running: () => [...inHand.keys()].map((job) => job.name),
  };
}
