import type { Job } from './job.js';

/** Releases the listings of buy intentions whose time ran out (reads also expire them on the way). */
export const intentionsJob: Job = { name: 'intention-expiry', everyMs: 5_000, scope: 'deployment', run: async (deps) => void (await deps.intentions.expireDue()) };
