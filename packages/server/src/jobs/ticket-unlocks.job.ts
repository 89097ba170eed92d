import { runUnlocks } from '../domain/tickets/tickets.unlock.js';
import type { Job } from './job.js';

/** Announces the tickets whose code unlocks soon (see domain/tickets/tickets.unlock.ts), every 30 seconds. */
export const unlocksJob: Job = { name: 'ticket-unlocks', everyMs: 30_000, scope: 'deployment', run: (deps) => runUnlocks(deps).then(() => undefined) };
