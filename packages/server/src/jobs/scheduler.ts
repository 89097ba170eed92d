import type { AppDeps } from '../context.js';
import type { Job } from './job.js';
import { purgeIdempotencyJob } from './purge-idempotency.js';
import { ticketsJob } from '../modules/tickets/tickets.job.js';
import { feedsJob } from '../modules/feeds/feeds.job.js';
import { webhooksJob } from '../modules/webhooks/webhooks.job.js';
import { emailJob } from '../modules/email/email.job.js';
import { unlocksJob } from '../modules/tickets/tickets.unlock.js';
import { authPurgeJob } from '../modules/auth/auth.job.js';
import { intentionsJob } from '../modules/intentions/intentions.job.js';
import { paymentsJob } from '../modules/payments/payments.job.js';
import { wishlistJob } from '../modules/marketdata/wishlist.job.js';

/** Every scheduled job of the service. */
export function jobs(): Job[] {
  return [purgeIdempotencyJob, ticketsJob, feedsJob, webhooksJob, emailJob, unlocksJob, authPurgeJob, intentionsJob, paymentsJob, wishlistJob];
}

/**
 * Runs the jobs on timers. A job that throws is logged and tried again at its next tick;
 * it never stops the service. A job still running when its next tick comes is skipped.
 */
export function startJobs(deps: AppDeps, list: Job[] = jobs()): { stop: () => void } {
  const timers: NodeJS.Timeout[] = [];
  for (const job of list) {
    let running = false;
    const tick = async () => {
      if (running) return;
      running = true;
      try {
        await job.run(deps);
      } catch (err) {
        deps.logger.error({ job: job.name, err: { message: (err as Error).message, stack: (err as Error).stack } }, 'job failed');
      } finally {
        running = false;
      }
    };
    const timer = setInterval(() => void tick(), job.everyMs);
    timer.unref();
    timers.push(timer);
  }
  return { stop: () => timers.forEach(clearInterval) };
}
