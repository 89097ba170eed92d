import { dbTable, index, integer, primaryKey, text, uniqueIndex } from '../../db/schema-builders.js';
import { partnerColumn, timestamps } from '../../db/columns.js';
import { buyIntentions } from '../intentions/intentions.table.js';

/**
 * A charge of a buy intention through the payment provider. `refund_pending` is written in
 * the transaction that decides the refund (a cancelled show); a job performs it with the
 * provider and marks it `refunded`, so a crash delays a refund but never loses it.
 *
 * The sandbox's card form records one payment per attempt, answered at once: `succeeded`,
 * `declined` or `requires_action`. A hosted provider (Stripe) has one payment per intention,
 * opened before the buyer pays (`open`), moved by the provider's events: `requires_action`,
 * `processing`, `succeeded`, or back to `open` after a decline (`declines` counts them), or
 * `cancelled`.
 */
export const PAYMENT_STATES = ['open', 'processing', 'requires_action', 'succeeded', 'declined', 'cancelled', 'refund_pending', 'refunded'] as const;
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
    /**
     * How the buyer paid, as the provider names it: `card`, a wallet that paid with a card
     * (`apple_pay`, `google_pay`, `link`…) or a bank method (`ideal`, `bancontact`, `eps`, `p24`);
     * null until known. The receipt says it.
     */
    method: text(),
    /** The provider's charge of a succeeded payment, when it differs from the payment's reference (Stripe: the `ch_…` of a `pi_…`): what its balance names. */
    chargeRef: text(),
    failureCode: text(),
    /** Declined attempts of a hosted payment (each attempt of the card form is a payment of its own). */
    declines: integer().notNull().default(0),
    refundedAt: integer(),
    ...timestamps,
  },
  (t) => [uniqueIndex('payments_provider_ref_uq').on(t.provider, t.providerRef), index('payments_intention_idx').on(t.intentionId), index('payments_state_idx').on(t.state)],
);

/**
 * The payment provider's events processed, by their id: an event redelivered (the provider
 * retries until it hears 2xx) is recognised and changes nothing again. Written in the
 * transaction of the change the event causes.
 */
export const providerEvents = dbTable(
  'provider_events',
  {
    provider: text().notNull(),
    eventId: text().notNull(),
    type: text().notNull(),
    receivedAt: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.provider, t.eventId] }), index('provider_events_received_idx').on(t.receivedAt)],
);
