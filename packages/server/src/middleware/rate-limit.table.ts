import { dbTable, real, text } from '../db/schema-builders.js';

/**
 * The rate limits' state when several processes share it (PostgreSQL): one row per key with its
 * GCRA "theoretical arrival time" (middleware/rate-limit.ts). Written only by
 * `DatabaseRateLimiter`. On PostgreSQL the table is UNLOGGED (its migration says so): the state
 * of a limit is worth no WAL write and no flush per request, and a crash that empties it only
 * gives every client a fresh burst. On SQLite (one process) the limits live in memory and the
 * table stays empty; it exists so both engines have the same schema.
 */
export const rateLimits = dbTable('rate_limits', {
  key: text().primaryKey(),
  /** When the key's bucket is empty again, in epoch milliseconds (fractional). */
  tat: real().notNull(),
});
