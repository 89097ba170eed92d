import type { Job } from '../../jobs/job.js';
import { FeedsService } from './feeds.service.js';

/**
 * Pull sync. Looks every second; each partner's feeds are polled every
 * `feedPollSeconds`, which `FeedsService.due` reads from `feed_runs`, so the job keeps no
 * state and a restart does not poll early. Each round also promotes ANNOUNCED shows whose
 * `dates.salesStartAt` has come. `tick()` never throws.
 */
export const feedsJob: Job = {
  name: 'feeds',
  everyMs: 1000,
  async run(deps) {
    await new FeedsService(deps).tick();
  },
};
