import { purgeExpiredIdempotencyKeys } from '../domain/idempotency/idempotency.store.js';
import type { Job } from './job.js';

/**
 * Hourly purge of expired Idempotency-Keys: a key lives 24 h, so an hour late costs nothing.
 * The delete itself is the idempotency store's (`purgeExpiredIdempotencyKeys`), the only
 * writer of its table.
 */
export const purgeIdempotencyJob: Job = {
  name: 'purge-idempotency',
  everyMs: 60 * 60 * 1000,
  scope: 'deployment',
  async run(deps) {
    const deleted = await purgeExpiredIdempotencyKeys(deps);
    if (deleted > 0) deps.logger.info({ job: 'purge-idempotency', deleted }, 'expired idempotency keys purged');
  },
};
