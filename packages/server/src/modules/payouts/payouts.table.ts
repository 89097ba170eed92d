import { sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { partnerColumn, timestamps } from '../../db/columns.js';
import { users } from '../users/users.table.js';

/**
 * Where a seller's payouts go. The account number is sealed with SECRET_KEY (AES-256-GCM)
 * and never leaves the service again; `accountHint` (last four characters) lets the seller
 * recognise it. One account per user.
 */
export const payoutAccounts = sqliteTable(
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
