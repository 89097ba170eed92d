import { dbTable, text } from '../../db/schema-builders.js';

/**
 * The rate limits' state when several processes share it (PostgreSQL): one row per key with
 * the requests it let through in each second of its window (http/middleware/rate-limit.ts), as
 * `[second, count]` pairs. Written only by `DatabaseRateLimiter`. On PostgreSQL the table is
 * UNLOGGED (its migration says so): the state of a limit is worth no WAL write and no flush
 * per request, and a crash that empties it only gives every client a fresh minute. On SQLite
 * (one process) the limits live in memory and the table stays empty; it exists so both
 * engines have the same schema.
 */
export const rateLimits = dbTable('rate_limits', {
  key: text().primaryKey(),
  /** `[second since the epoch, requests let through in it]`, oldest first, at most 61 pairs. */
  hits: text({ mode: 'json' }).$type<[number, number][]>().notNull(),
});
