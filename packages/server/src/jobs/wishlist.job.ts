import { notifyWishlists, WISHLIST_BATCH, WISHLIST_EVERY_MS } from '../domain/marketdata/leads.wishlist.js';
import type { Job } from './job.js';

/** Batches per tick at most (the rest waits for the next tick). */
const MAX_BATCHES = 10;

/** Notifies wishlist leads every {@link WISHLIST_EVERY_MS}, batch after batch while there are more. */
export const wishlistJob: Job = {
  name: 'wishlist',
  everyMs: WISHLIST_EVERY_MS,
  scope: 'deployment',
  async run(deps) {
    let total = 0;
    for (let i = 0; i < MAX_BATCHES; i++) {
      const n = await notifyWishlists(deps);
      total += n;
      if (n < WISHLIST_BATCH) break;
    }
    if (total > 0) deps.logger.info({ job: 'wishlist', notified: total }, 'wishlist leads notified');
  },
};
