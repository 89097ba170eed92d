import { join } from 'node:path';
import { SERVER_ROOT } from '../lib/paths.js';

/**
 * `@resale/server/bench` (package.json `exports`): the internals the benchmarks (bench/) drive
 * directly, below the HTTP API: the database, the composition, clocks, the rate limiters, the
 * job scheduler and the webhooks job, the tickets' bulk writer and table, the buy access
 * layer's fixtures. Test tooling like the rest of `src/testing/` (outside the boundary lint,
 * which is why the tickets table may be named here; an entry directly in `src/` may not).
 * The process entry the benchmarks spawn is `SERVICE_MAIN` of `@resale/server/testing`.
 */
export type { AppDeps } from '../context.js';
export { closeDb, createDb, openDb, type Db } from '../db/client.js';
export { migrateWithLock } from '../db/postgres.js';
export { buildDeps } from '../deps.js';
export { systemClock } from '../lib/clock.js';
export { inOrder } from '../lib/in-order.js';
export { startJobs } from '../jobs/scheduler.js';
export { webhooksJob } from '../jobs/webhooks.job.js';
export { DatabaseRateLimiter, MemoryRateLimiter } from '../http/middleware/rate-limit.js';
export { TicketBulkWriter, type TicketRow } from '../domain/tickets/tickets.bulk.js';
export { tickets } from '../domain/tickets/tickets.table.js';
export { BANNER_SETTINGS } from '../flows/accesslayer/accesslayer.buy.fixtures.js';

/** The PostgreSQL migrations (packages/server/drizzle-pg/), whichever engine this process was started for. */
export const POSTGRES_MIGRATIONS_FOLDER = join(SERVER_ROOT, 'drizzle-pg');
