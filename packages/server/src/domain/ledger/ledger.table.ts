import { dbTable, index, integer, text, uniqueIndex } from '../../db/schema-builders.js';
import { partnerColumn } from '../../db/columns.js';

/**
 * The ledger: every money movement of a resale as a journal of balanced entries (double
 * entry, integer minor units, one currency per journal). Written only by ledger.service.ts,
 * in the transaction of the change it records; never updated nor deleted (a correction is a
 * journal of its own). See ledger.accounts.ts for the accounts and their signs.
 */
export const ledgerJournals = dbTable(
  'ledger_journals',
  {
    id: text().primaryKey(),
    partnerId: partnerColumn(),
    /** What moved: a {@link import('./ledger.accounts.js').JournalKind}. */
    kind: text().notNull(),
    /**
     * What the journal records, once: `sale:<intentionId>`, `refund_due:<paymentId>` … A
     * second posting of the same movement (a retried job, a redelivered webhook) is ignored.
     */
    key: text().notNull(),
    currency: text().notNull(),
    /** The resale (buy intention) the movement belongs to, when it belongs to one. */
    intentionId: text(),
    /** The payout the movement belongs to, when it belongs to one. */
    payoutId: text(),
    /** The provider's reference of the money movement (charge, refund, transfer), when there is one. */
    provider: text(),
    providerRef: text(),
    createdAt: integer().notNull(),
  },
  (t) => [
    uniqueIndex('ledger_journals_key_uq').on(t.key),
    index('ledger_journals_created_idx').on(t.createdAt),
    index('ledger_journals_partner_created_idx').on(t.partnerId, t.createdAt),
    index('ledger_journals_intention_idx').on(t.intentionId),
  ],
);

/**
 * One line of a journal: an amount on an account, positive for a debit and negative for a
 * credit. The lines of a journal sum to zero. `partnerId`, `currency` and `createdAt` repeat
 * the journal's, so a period's totals are one indexed scan of this table.
 */
export const ledgerEntries = dbTable(
  'ledger_entries',
  {
    id: text().primaryKey(),
    journalId: text()
      .notNull()
      .references(() => ledgerJournals.id),
    partnerId: partnerColumn(),
    account: text().notNull(),
    amountMinor: integer().notNull(),
    currency: text().notNull(),
    createdAt: integer().notNull(),
  },
  (t) => [index('ledger_entries_created_idx').on(t.createdAt), index('ledger_entries_partner_created_idx').on(t.partnerId, t.createdAt), index('ledger_entries_journal_idx').on(t.journalId)],
);
