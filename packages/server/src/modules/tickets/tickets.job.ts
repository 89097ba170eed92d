import type { Job } from '../../jobs/job.js';

/**
 * Drains the ticket ingestion queue in-process. Each tick works for at most 200 ms so HTTP
 * requests are served between jobs; the next tick goes on. It stands down while a worker
 * thread drains the queue (tickets.worker.ts: main.ts over a file database).
 */
export const ticketsJob: Job = {
  name: 'tickets-ingestion',
  everyMs: 25,
  run: async (deps) => {
    if (deps.ticketsIngest.drainsHere) await deps.ticketsIngest.drain(200);
  },
};
