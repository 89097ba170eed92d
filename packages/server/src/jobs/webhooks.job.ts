import type { Job } from './job.js';
import { webhooksServiceOf } from '../domain/webhooks/webhooks.service.js';

/**
 * Webhook delivery: every second, when no run is in hand, sends the due messages of the outbox
 * and keeps sending while there is any (see `WebhooksService.deliverContinuously`): each
 * partner through its own lanes, a lane refilled as soon as it frees and the outbox read again
 * at least every second, so a partner whose endpoint hangs never holds the others' deliveries
 * (the run itself lasts as long as something is in flight). At a shutdown it starts nothing
 * new and returns once the attempts in flight are recorded. Keeps no state of its own: the
 * outbox is the state, so a restart loses nothing and several processes may run it (claims
 * are conditional updates).
 */
export const webhooksJob: Job = {
  name: 'webhooks',
  everyMs: 1000,
  // Woken by a new message (WebhooksService.enqueue) in any process.
  wakeOn: 'webhooks',
  async run(deps, ctx) {
    const report = await webhooksServiceOf(deps).deliverContinuously({ pollMs: webhooksJob.everyMs, signal: ctx?.signal });
    if (report.attempted > 0) deps.logger.debug({ job: 'webhooks', ...report }, 'webhook deliveries');
  },
};
