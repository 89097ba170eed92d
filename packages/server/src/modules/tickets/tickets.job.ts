import type { Job } from '../../jobs/scheduler.js';

/**
 * Drains the ticket ingestion queue. Each tick works for at most 200 ms so HTTP requests
 * are served between jobs; the next tick goes on.
 */
export const ticketsJob: Job = {
  name: 'tickets-ingestion',
  everyMs: 25,
  run: (deps) => {
    deps.tickets.drain(200);
  },
};
