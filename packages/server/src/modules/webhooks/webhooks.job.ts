import type { Job } from '../../jobs/job.js';
import { webhooksServiceOf } from './webhooks.service.js';

/**
 * Webhook delivery: every second, sends the due messages of the outbox (see
 * `WebhooksService.deliverDue`). Keeps no state: the outbox is the state, so a restart
 * loses nothing and several processes may run it (claims are conditional updates).
 */
export const webhooksJob: Job = {
  name: 'webhooks',
  everyMs: 1000,
  async run(deps) {
    const report = await webhooksServiceOf(deps).deliverDue();
    if (report.attempted > 0) deps.logger.debug({ job: 'webhooks', ...report }, 'webhook deliveries');
  },
};
