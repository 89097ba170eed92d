import { sweepWaitingLists } from '../flows/waiting-list-offers.js';
import type { Job } from './job.js';

/** How often the waiting lists are swept (a show that begins closes its line within this). */
export const WAITING_LIST_SWEEP_MS = 30_000;

/** The waiting lists' sweep (flows/waiting-list-offers.ts `sweepWaitingLists`): lines of shows cancelled or begun closed, and stock on sale offered again. */
export const waitingListJob: Job = {
  name: 'waitinglist',
  everyMs: WAITING_LIST_SWEEP_MS,
  scope: 'deployment',
  async run(deps) {
    const r = await sweepWaitingLists(deps);
    if (r.closed > 0) deps.logger.info({ job: 'waitinglist', closed: r.closed }, 'waiting-list entries closed');
  },
};
