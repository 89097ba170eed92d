import type { Job } from './job.js';
import { FeedsService } from '../domain/feeds/feeds.service.js';

/**
 * Pull sync. Looks every second; each partner's feeds are polled every
 * `feedPollSeconds`, which `FeedsService.due` reads from `feed_runs`, so the job keeps no
 * state and a restart does not poll early. Due feeds of different partners are polled at once,
 * each within its own time limit, and the run keeps looking every second while a poll is in
 * flight (`FeedsService.pollContinuously`), so a partner whose feed hangs never holds another's
 * poll. Each round also promotes ANNOUNCED shows whose `dates.salesStartAt` has come. At a
 * shutdown it starts nothing new and returns once the polls in flight have finished. Never throws.
 */
export const feedsJob: Job = {
  name: 'feeds',
  everyMs: 1000,
  async run(deps, ctx) {
    await new FeedsService(deps).pollContinuously({ pollMs: feedsJob.everyMs, signal: ctx?.signal });
  },
};
