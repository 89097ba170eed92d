import { dbTable, integer, primaryKey, text } from '../../db/schema-builders.js';

/** Stored first answers of POSTs sent with an `Idempotency-Key`. */
export const idempotencyKeys = dbTable(
  'idempotency_keys',
  {
    partnerId: text().notNull(),
    key: text().notNull(),
    /** SHA-256 of method, path and body of the first request. */
    requestHash: text().notNull(),
    state: text({ enum: ['processing', 'done'] }).notNull(),
    responseStatus: integer(),
    responseBody: text(),
    /** A `processing` claim older than this was abandoned (crash) and may be taken over. */
    lockedUntil: integer().notNull(),
    /** The process running a `processing` claim (service_instances): once its lease lapses, the claim may be taken over. */
    owner: text(),
    createdAt: integer().notNull(),
    expiresAt: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.partnerId, t.key] })],
);
