import { dbTable, index, integer, text, uniqueIndex } from '../../db/schema-builders.js';
import { partnerColumn } from '../../db/columns.js';
import { users } from '../users/users.table.js';

/** Single-use, short-lived tokens (Login Trust, Login Force, smart publish). Stored hashed. */
export const oneTimeTokens = dbTable(
  'one_time_tokens',
  {
    id: text().primaryKey(),
    partnerId: partnerColumn(),
    userPk: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text().notNull(),
    /** What the token was minted for (`login`, `smartPublish` …), for audit. */
    purpose: text().notNull(),
    expiresAt: integer().notNull(),
    usedAt: integer(),
    createdAt: integer().notNull(),
  },
  (t) => [uniqueIndex('one_time_tokens_hash_uq').on(t.tokenHash)],
);

/** Sessions on the service's hosted pages. The cookie holds a random token; we keep its hash. */
export const sessions = dbTable(
  'sessions',
  {
    id: text().primaryKey(),
    partnerId: partnerColumn(),
    userPk: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text().notNull(),
    /** Per-session CSRF secret for the synchronizer-token pattern. */
    csrfSecret: text().notNull(),
    expiresAt: integer().notNull(),
    revokedAt: integer(),
    /**
     * When the user last proved, inside this session, that they hold the account's e-mail or
     * phone (a one-time code): the sign-in by code, or a step-up. Null for a session that began
     * from a one-time token in a URL. Changes to money destinations need it fresh.
     */
    steppedUpAt: integer(),
    createdAt: integer().notNull(),
  },
  (t) => [uniqueIndex('sessions_hash_uq').on(t.tokenHash)],
);

/** One-time passwords (fallback authentication), hashed, with attempts counted. */
export const otpCodes = dbTable(
  'otp_codes',
  {
    id: text().primaryKey(),
    partnerId: partnerColumn(),
    /** `email:<lowercased>` or `phone:<E.164>`. */
    identifier: text().notNull(),
    codeHash: text().notNull(),
    attempts: integer().notNull(),
    expiresAt: integer().notNull(),
    usedAt: integer(),
    createdAt: integer().notNull(),
    /** The client address that asked for the code (its per-address limit counts these); purged with the code. */
    clientAddress: text(),
  },
  (t) => [index('otp_codes_identifier_idx').on(t.partnerId, t.identifier, t.createdAt), index('otp_codes_client_address_idx').on(t.clientAddress, t.createdAt)],
);
