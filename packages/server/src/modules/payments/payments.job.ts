import type { Job } from '../../jobs/job.js';

/** Performs pending refunds and delivers payouts whose date has come. */
export const paymentsJob: Job = {
  name: 'refunds-and-payouts',
  everyMs: 10_000,
  scope: 'deployment',
  run: async (deps) => {
    await deps.payments.runRefunds();
    await deps.payouts.deliverDue();
  },
};
