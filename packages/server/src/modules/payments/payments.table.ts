import { dbTable, index, integer, text, uniqueIndex } from '../../db/schema-builders.js';
import { partnerColumn, timestamps } from '../../db/columns.js';
import { buyIntentions } from '../intentions/intentions.table.js';

/**
 * A charge of a buy intention through the payment provider. `refund_pending` is written in
 * the transaction that decides the refund (a cancelled show); a job performs it with the
 * provider and marks it `refunded`, so a crash delays a refund but never loses it.
 */
export const PAYMENT_STATES = ['requires_action', 'succeeded', 'declined', 'refund_pending', 'refunded'] as const;
export type PaymentState = (typeof PAYMENT_STATES)[number];

export const payments = dbTable(
  'payments',
  {
    id: text().primaryKey(),
    partnerId: partnerColumn(),
    intentionId: text()
      .notNull()
      .references(() => buyIntentions.id, { onDelete: 'cascade' }),
    provider: text().notNull(),
    /** The provider's reference of the charge. */
    providerRef: text().notNull(),
    state: text({ enum: PAYMENT_STATES }).notNull(),
    amountMinor: integer().notNull(),
    currency: text().notNull(),
    cardLast4: text(),
    failureCode: text(),
    refundedAt: integer(),
    ...timestamps,
  },
  (t) => [uniqueIndex('payments_provider_ref_uq').on(t.provider, t.providerRef), index('payments_intention_idx').on(t.intentionId), index('payments_state_idx').on(t.state)],
);
