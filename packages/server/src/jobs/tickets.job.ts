import { setImmediate as nextTurn } from 'node:timers/promises';
import { sharedByProcesses } from '../db/dialect.js';
import type { Job } from './job.js';

/** The topic a queued ticket job wakes (`TicketsIngest.insertJob`). */
export const TICKETS_WAKE = 'tickets';

/**
 * Drains the ticket ingestion queue in-process. Each drain works for at most 200 ms so HTTP
 * requests are served between jobs. It stands down while a worker thread drains the queue
 * (tickets.worker.ts: main.ts over a SQLite file).
 *
 * - SQLite in memory (one process): looked at every 25 ms; the next tick goes on.
 * - PostgreSQL (several processes): woken as soon as any process queues a job (`wakeOn`), it
 *   keeps draining while there is work it can take, yielding to HTTP between drains; the poll
 *   every second only finds what a lost notification or a process that died mid-drain left.
 */
export const ticketsJob: Job = {
  name: 'tickets-ingestion',
  everyMs: sharedByProcesses ? 1_000 : 25,
  wakeOn: TICKETS_WAKE,
  run: async (deps, ctx) => {
    if (!deps.ticketsIngest.drainsHere) return;
    for (;;) {
      const applied = await deps.ticketsIngest.drain(200);
      if (applied === 0 || !sharedByProcesses || ctx?.signal.aborted) return;
      await nextTurn();
    }
  },
};
