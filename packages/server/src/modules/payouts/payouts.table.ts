import { dbTable, index, integer, text, uniqueIndex } from '../../db/schema-builders.js';
import { partnerColumn, timestamps } from '../../db/columns.js';
import { listings } from '../listings/listings.table.js';
import { users } from '../users/users.table.js';

/**
 * Where a seller's payouts go. The account number is sealed with SECRET_KEY (AES-256-GCM)
 * and never leaves the service again; `accountHint` (last four characters) lets the seller
 * recognise it. One account per user.
 */
export const payoutAccounts = dbTable(
  'payout_accounts',
  {
    id: text().primaryKey(),
    partnerId: partnerColumn(),
    userPk: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    holderName: text().notNull(),
    /** IBAN (or another account number), sealed. */
    accountSealed: text().notNull(),
    accountHint: text().notNull(),
    ...timestamps,
  },
  (t) => [uniqueIndex('payout_accounts_user_uq').on(t.userPk)],
);

/**
 * What a seller is owed for a sold listing, distributed `payoutDelayDays` after the show.
 * SCHEDULED → DELIVERED (by the payout job; final: a delivered payout is never touched) or
 * CANCELLED (the show was cancelled before delivery).
 */
export const PAYOUT_STATES = ['SCHEDULED', 'DELIVERED', 'CANCELLED'] as const;

export const payouts = dbTable(
  'payouts',
  {
    id: text().primaryKey(),
    partnerId: partnerColumn(),
    sellerPk: text()
      .notNull()
      .references(() => users.id),
    listingId: text()
      .notNull()
      .references(() => listings.id, { onDelete: 'cascade' }),
    amountMinor: integer().notNull(),
    currency: text().notNull(),
    dueAt: integer().notNull(),
    state: text({ enum: PAYOUT_STATES }).notNull(),
    deliveredAt: integer(),
    cancelledAt: integer(),
    ...timestamps,
  },
  (t) => [uniqueIndex('payouts_listing_uq').on(t.listingId), index('payouts_due_idx').on(t.state, t.dueAt)],
);
