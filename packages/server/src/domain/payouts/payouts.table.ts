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
 * CANCELLED (the show was cancelled before delivery). With a payout provider (Stripe), the job
 * first claims a due payout as SENDING, in its own transaction, then asks for the transfer:
 * a cancellation only stops SCHEDULED ones, so money in flight is never counted as stopped;
 * the provider's answer moves it to DELIVERED, or back to SCHEDULED to be tried again (the
 * same idempotency key: never two transfers). A SENDING payout left by a crash is tried again.
 */
export const PAYOUT_STATES = ['SCHEDULED', 'SENDING', 'DELIVERED', 'CANCELLED'] as const;

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
    /** The provider's transfer (Stripe `tr_…`), once delivered through one. */
    transferRef: text(),
    /** When the job claimed it (SENDING), to try again one a crash left behind. */
    sendingAt: integer(),
    /** Why the last transfer attempt was refused (the seller's account not ready, the provider unavailable). */
    lastError: text(),
    ...timestamps,
  },
  (t) => [uniqueIndex('payouts_listing_uq').on(t.listingId), index('payouts_due_idx').on(t.state, t.dueAt)],
);

/**
 * A seller's connected account at the payout provider (Stripe Connect, Express), where their
 * payouts are transferred when the provider is configured (instead of an IBAN). Its state is
 * the provider's, kept from its `account.updated` events and read again when the seller comes
 * back from onboarding. One per user.
 */
export const connectAccounts = dbTable(
  'connect_accounts',
  {
    id: text().primaryKey(),
    partnerId: partnerColumn(),
    userPk: text()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    provider: text().notNull(),
    /** The provider's account id (`acct_…`). */
    accountId: text().notNull(),
    /** The seller finished the provider's onboarding. */
    detailsSubmitted: integer({ mode: 'boolean' }).notNull(),
    /** The provider accepts transfers to the account (Stripe: the `transfers` capability is active). */
    transfersActive: integer({ mode: 'boolean' }).notNull(),
    /** The provider pays the account out to the seller's bank. */
    payoutsEnabled: integer({ mode: 'boolean' }).notNull(),
    ...timestamps,
  },
  (t) => [uniqueIndex('connect_accounts_user_uq').on(t.userPk), uniqueIndex('connect_accounts_account_uq').on(t.provider, t.accountId)],
);
