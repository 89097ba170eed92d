import type { Job } from './job.js';
import { cancelAbandonedPayments } from '../flows/hosted-payment.js';

/**
 * Performs pending refunds, delivers payouts whose date has come, and, with a hosted provider,
 * cancels the provider's payments of checkouts that ended unpaid.
 */
export const paymentsJob: Job = {
  name: 'refunds-and-payouts',
  everyMs: 10_000,
  scope: 'deployment',
  run: async (deps) => {
    await deps.payments.runRefunds();
    await deps.payouts.deliverDue();
    const hosted = deps.payments.hosted;
    if (hosted) await cancelAbandonedPayments(deps, hosted);
  },
};
