import { lte } from 'drizzle-orm';
import type { AppDeps } from '../context.js';
import { idempotencyKeys } from '../middleware/idempotency.table.js';
import type { Job } from './scheduler.js';

/**
 * Deletes the Idempotency-Key rows whose replay window has passed (`expiresAt <= now`).
 * Correctness does not depend on it (the middleware treats an expired row as absent); it
 * only keeps the table from growing. One conditional delete, safe with several processes.
 *
 * @returns how many rows were deleted
 * @example purgeExpiredIdempotencyKeys(deps); // 0 when nothing had expired
 */
export function purgeExpiredIdempotencyKeys(deps: Pick<AppDeps, 'db' | 'clock'>): number {
  return deps.db.delete(idempotencyKeys).where(lte(idempotencyKeys.expiresAt, deps.clock.now())).run().changes;
}

/** Hourly purge of expired Idempotency-Keys: a key lives 24 h, so an hour late costs nothing. */
export const purgeIdempotencyJob: Job = {
  name: 'purge-idempotency',
  everyMs: 60 * 60 * 1000,
  run(deps) {
    const deleted = purgeExpiredIdempotencyKeys(deps);
    if (deleted > 0) deps.logger.info({ job: 'purge-idempotency', deleted }, 'expired idempotency keys purged');
  },
};
