import type { Job } from '../../jobs/job.js';
import { INSTANCE_RENEW_MS } from './instances.service.js';

/** Renews this process's lease while it runs (see `InstanceLease`). */
export const instanceLeaseJob: Job = {
  name: 'instance-lease',
  everyMs: INSTANCE_RENEW_MS,
  async run(deps) {
    await deps.db.transact((tx) => deps.instance.renew(tx, { force: true }));
  },
};
