import { dbTable, index, integer, text, uniqueIndex } from '../../db/schema-builders.js';
import { partnerColumn } from '../../db/columns.js';

import { CONSOLE_ROLES } from './console.model.js';

/**
 * The people who sign in to the console: the operators (the addresses of `OPERATOR_EMAILS`,
 * `operator` kept true at each start while the address is listed) and the partners' people,
 * invited by e-mail. One row per e-mail address (lowercased).
 */
export const consoleUsers = dbTable(
  'console_users',
  {
    id: text().primaryKey(),
    email: text().notNull(),
    /** Whether the address is listed in OPERATOR_EMAILS (set at each start). */
    operator: integer({ mode: 'boolean' }).notNull(),
    /** When the person first signed in (null: invited, never signed in). */
    firstSignInAt: integer(),
    lastSignInAt: integer(),
    createdAt: integer().notNull(),
  },
  (t) => [uniqueIndex('console_users_email_uq').on(t.email)],
);

/** A person's role at a partner: one per person and partner. Removing the row removes the access. */
export const consoleMemberships = dbTable(
  'console_memberships',
  {
    id: text().primaryKey(),
    userPk: text()
      .notNull()
      .references(() => consoleUsers.id, { onDelete: 'cascade' }),
    partnerId: partnerColumn(),
    role: text({ enum: CONSOLE_ROLES }).notNull(),
    /** Who invited them (a console user's id), for the team page. */
    invitedBy: text(),
    createdAt: integer().notNull(),
  },
  (t) => [uniqueIndex('console_memberships_user_partner_uq').on(t.userPk, t.partnerId), index('console_memberships_partner_idx').on(t.partnerId)],
);

/** One-time codes of the console (sign-in and step-up), hashed, with attempts counted. */
export const consoleCodes = dbTable(
  'console_codes',
  {
    id: text().primaryKey(),
    /** The lowercased address the code was sent to. */
    email: text().notNull(),
    /** `sign_in` or `step_up` (a step-up's code is bound to its session). */
    purpose: text({ enum: ['sign_in', 'step_up'] }).notNull(),
    sessionPk: text(),
    codeHash: text().notNull(),
    attempts: integer().notNull(),
    expiresAt: integer().notNull(),
    usedAt: integer(),
    createdAt: integer().notNull(),
    /** The client address that asked for it (its per-address limit counts these). */
    clientAddress: text().notNull(),
  },
  (t) => [index('console_codes_email_idx').on(t.email, t.createdAt), index('console_codes_client_address_idx').on(t.clientAddress, t.createdAt)],
);

/**
 * Console sessions: separate from the fans' (their own cookie). The cookie holds a random token;
 * we keep its hash. Idle after 30 minutes without a request, over 12 hours after sign-in.
 */
export const consoleSessions = dbTable(
  'console_sessions',
  {
    id: text().primaryKey(),
    userPk: text()
      .notNull()
      .references(() => consoleUsers.id, { onDelete: 'cascade' }),
    tokenHash: text().notNull(),
    csrfSecret: text().notNull(),
    createdAt: integer().notNull(),
    /** The last request of the session (the idle timeout counts from it). */
    seenAt: integer().notNull(),
    /** Absolute end: sign-in + 12 hours. */
    expiresAt: integer().notNull(),
    revokedAt: integer(),
    /** When a fresh code was last entered in this session (a secret shown, a key rotated …). */
    steppedUpAt: integer(),
    /** The passkey this session was signed in with (null: by an e-mailed code); removing the passkey ends the session. */
    passkeyPk: text(),
  },
  (t) => [uniqueIndex('console_sessions_hash_uq').on(t.tokenHash), index('console_sessions_user_idx').on(t.userPk)],
);

/**
 * The console's passkeys (WebAuthn credentials): a second way in beside the e-mailed code. The
 * public key and the credential id are what the authenticator gave at registration
 * (base64url); `counter` is its signature counter, checked and moved at each sign-in (a clone
 * of an authenticator that counts shows as a counter going back).
 */
export const consolePasskeys = dbTable(
  'console_passkeys',
  {
    id: text().primaryKey(),
    userPk: text()
      .notNull()
      .references(() => consoleUsers.id, { onDelete: 'cascade' }),
    /** The credential's id, base64url, as the browser sends it back at each sign-in. */
    credentialId: text().notNull(),
    /** The credential's public key (COSE), base64url. */
    publicKey: text().notNull(),
    counter: integer().notNull(),
    /** How the browser may reach the authenticator (`internal`, `hybrid`, `usb` …), as it said at registration. */
    transports: text({ mode: 'json' }).$type<string[]>().notNull(),
    /** The person's own name for it ("Work laptop"). */
    name: text().notNull(),
    createdAt: integer().notNull(),
    lastUsedAt: integer(),
  },
  (t) => [uniqueIndex('console_passkeys_credential_uq').on(t.credentialId), index('console_passkeys_user_idx').on(t.userPk)],
);

/**
 * The challenges of the passkey ceremonies: each used once (`usedAt` set when an answer is
 * checked, right or wrong) and only until `expiresAt`. A registration's is bound to its session;
 * a sign-in's to nothing (the browser has no session yet), counted per client address.
 */
export const consolePasskeyChallenges = dbTable(
  'console_passkey_challenges',
  {
    id: text().primaryKey(),
    purpose: text({ enum: ['register', 'sign_in'] }).notNull(),
    /** The random challenge the authenticator signs, base64url. */
    challenge: text().notNull(),
    /** A registration's session (the person adding the passkey); null for a sign-in. */
    sessionPk: text(),
    clientAddress: text().notNull(),
    expiresAt: integer().notNull(),
    usedAt: integer(),
    createdAt: integer().notNull(),
  },
  (t) => [index('console_passkey_challenges_client_idx').on(t.clientAddress, t.createdAt), index('console_passkey_challenges_session_idx').on(t.sessionPk, t.createdAt)],
);

export type ConsoleUserRow = typeof consoleUsers.$inferSelect;
export type ConsoleMembershipRow = typeof consoleMemberships.$inferSelect;
export type ConsoleSessionRow = typeof consoleSessions.$inferSelect;
export type ConsolePasskeyRow = typeof consolePasskeys.$inferSelect;
