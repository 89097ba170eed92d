import { quietCommit } from '../db/dialect.js';
import type { Job } from './job.js';
import { INSTANCE_RENEW_MS } from '../domain/instances/instances.service.js';

/** Renews this process's lease while it runs (see `InstanceLease`). */
export const instanceLeaseJob: Job = {
  name: 'instance-lease',
  everyMs: INSTANCE_RENEW_MS,
  async run(deps) {
    await deps.db.transact(async (tx) => {
      // No cache reads the leases: idle processes do not make each other's caches check.
      quietCommit(tx);
      await deps.instance.renew(tx, { force: true });
    });
  },
};
