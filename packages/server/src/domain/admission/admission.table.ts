import { partnerColumn, timestamps } from '../../db/columns.js';
import { dbTable, index, integer, text, uniqueIndex } from '../../db/schema-builders.js';
import { shows } from '../events/events.table.js';
import { tickets } from '../tickets/tickets.table.js';
import { users } from '../users/users.table.js';

/**
 * A show's issuer of rotating admission codes (admission.keys.ts): its Ed25519 key pair and the
 * secret its phones' tag keys derive from, both sealed with `SECRET_KEY`, made the first time a
 * phone of the show is certified. `keyTag` names it in codes: unique among the partner's
 * shows, so a scan finds its show from the code alone. `lastSerial` numbers the show's tickets
 * in codes (4 bytes instead of an id), advanced under the show's lock.
 */
export const admissionIssuers = dbTable(
  'admission_issuers',
  {
    showPk: text()
      .primaryKey()
      .references(() => shows.id, { onDelete: 'cascade' }),
    partnerId: partnerColumn(),
    keyTag: integer().notNull(),
    /** 32 raw bytes, base64url: public (scanner kits list it). */
    publicKey: text().notNull(),
    privateKeySealed: text().notNull(),
    tagSecretSealed: text().notNull(),
    lastSerial: integer().notNull(),
    ...timestamps,
  },
  (t) => [uniqueIndex('admission_issuers_partner_tag_uq').on(t.partnerId, t.keyTag)],
);

/**
 * A ticket's credential: its number in codes (`serial`), its generation (`epoch`), the holder it
 * was issued to and the phone certified for them. A code is valid only for the epoch, holder
 * and phone written here: a resale (the ticket's owner is no longer `ownerPk`), or a new phone,
 * makes every earlier code worthless. `admittedScan` is the hash of the scan that admitted the
 * ticket, so the same scan again answers as it did (a door's retry) and any other scan
 * `already_admitted`.
 */
export const admissionCredentials = dbTable(
  'admission_credentials',
  {
    ticketPk: text()
      .primaryKey()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    partnerId: partnerColumn(),
    showPk: text()
      .notNull()
      .references(() => shows.id, { onDelete: 'cascade' }),
    serial: integer().notNull(),
    epoch: integer().notNull(),
    ownerPk: text()
      .notNull()
      .references(() => users.id),
    /** The certified phone's Ed25519 public key (32 bytes, base64url); null while none is bound at this epoch. */
    deviceKey: text(),
    boundAt: integer(),
    /** Phones certified for the ticket since `bindsSince` (the limit on moving a code from phone to phone). */
    recentBinds: integer().notNull().default(0),
    bindsSince: integer(),
    admittedScan: text(),
    ...timestamps,
  },
  (t) => [uniqueIndex('admission_credentials_show_serial_uq').on(t.showPk, t.serial)],
);

/**
 * A door of a show: a link (`/door#<token>`) that opens the venue's scanner page for that show
 * alone, made in the console by who may administer the partner, so door staff hired for a
 * night need no console account and no API key. Only the token's hash is kept (the link is
 * shown once). It works until `revokedAt`, or until the show's certificates end (12 hours after
 * the show starts, read from the show at each use: a show moved moves its doors too).
 * `lastSeenAt`: the door's last call, at most a minute stale (the console tells an operator
 * which doors are live).
 */
export const admissionDoors = dbTable(
  'admission_doors',
  {
    id: text().primaryKey(),
    partnerId: partnerColumn(),
    showPk: text()
      .notNull()
      .references(() => shows.id, { onDelete: 'cascade' }),
    /** What staff call the door ("North gate 3"), 1–60 characters. */
    label: text().notNull(),
    /** Hex SHA-256 of the door's token. */
    tokenHash: text().notNull(),
    /** Who made the link (the console person's e-mail, as the audit names them). */
    createdBy: text().notNull(),
    revokedAt: integer(),
    lastSeenAt: integer(),
    ...timestamps,
  },
  (t) => [uniqueIndex('admission_doors_token_uq').on(t.tokenHash), index('admission_doors_show_idx').on(t.showPk)],
);

export type AdmissionIssuerRow = typeof admissionIssuers.$inferSelect;
export type AdmissionCredentialRow = typeof admissionCredentials.$inferSelect;
export type AdmissionDoorRow = typeof admissionDoors.$inferSelect;
