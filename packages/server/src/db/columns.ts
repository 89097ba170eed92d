import { integer, text } from './schema-builders.js';

/**
 * Shared column mixins, and the portability rules of the schema.
 *
 * The schema is written for SQLite (the embedded default) and kept portable to PostgreSQL,
 * whose schema will be generated from the same tables with this column map:
 *
 * | SQLite (drizzle sqlite-core)              | PostgreSQL                 | used for                                   |
 * |-------------------------------------------|----------------------------|--------------------------------------------|
 * | `integer()` holding epoch milliseconds    | `bigint` (mode number)     | every instant (`createdAt`, `expiresAt` …) |
 * | `integer()` holding minor units or counts | `integer` (`bigint` if it may pass 2^31) | money, quantities, attempts   |
 * | `integer({ mode: 'boolean' })`            | `boolean`                  | flags (`resaleEnabled`, `ticketShield` …)  |
 * | `text({ mode: 'json' })`                  | `jsonb`                    | settings, seating, ticket access, payloads |
 * | `text()` / `text({ enum })`               | `text` (the enum as a check, not a type) | ids, names, states           |
 * | `integer().primaryKey({ autoIncrement })` | `bigint generated always as identity` | (tests only)                  |
 *
 * Rules for SQL that runs on both: no `rowid`, no `json_each`/`json_extract` and no pragmas
 * outside the data layer (they sit behind a seam with a SQLite implementation:
 * db/change-counter.ts, db/statements.ts, the fingerprint and JSON reads named in docs/architecture.md);
 * `INSERT … ON CONFLICT` (both engines) rather than `INSERT OR REPLACE`; affected rows through
 * db/affected.ts; `RETURNING` is fine on both; comparisons of instants on the integers, never
 * on formatted text.
 *
 * Naming: `id` is the service's own prefixed id; `<x>Pk` columns reference another
 * table's service id (`showPk` -> shows.id); plain `showId`, `ticketId`, `priceTypeId`
 * columns hold the partner's ids exactly as sent. Instants are UTC epoch milliseconds.
 */
export const timestamps = {
  createdAt: integer().notNull(),
  updatedAt: integer().notNull(),
};

/** Every tenant-owned row carries its partner; every query filters on it. */
export const partnerColumn = () => text().notNull();
