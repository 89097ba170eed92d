import { dbTable, index, integer, text } from '../../db/schema-builders.js';
import { partnerColumn } from '../../db/columns.js';
import type { StoredRiskSignal } from './risk.model.js';

/** Every evaluation, kept for velocity and history (no card number: only BIN and last four). */
export const riskEvaluations = dbTable(
  'risk_evaluations',
  {
    id: text().primaryKey(),
    partnerId: partnerColumn(),
    transactionId: text().notNull(),
    customerKey: text().notNull(),
    deviceKey: text(),
    cardKey: text(),
    amountMinor: integer(),
    currency: text(),
    overall: text({ enum: ['low', 'medium', 'high'] }).notNull(),
    /** The level of each side; null for an evaluation made before they were kept. */
    customerLevel: text({ enum: ['low', 'medium', 'high'] }),
    transactionLevel: text({ enum: ['low', 'medium', 'high'] }),
    /** Every signal with its level and what it saw; null for an evaluation made before they were kept. */
    signals: text({ mode: 'json' }).$type<StoredRiskSignal[]>(),
    createdAt: integer().notNull(),
  },
  (t) => [
    index('risk_evaluations_partner_idx').on(t.partnerId, t.createdAt),
    index('risk_evaluations_customer_idx').on(t.partnerId, t.customerKey, t.createdAt),
    index('risk_evaluations_card_idx').on(t.partnerId, t.cardKey, t.createdAt),
    index('risk_evaluations_device_idx').on(t.partnerId, t.deviceKey, t.createdAt),
    index('risk_evaluations_tx_idx').on(t.partnerId, t.transactionId),
  ],
);

/** Outcomes partners report; a chargeback marks the customer, card and device of that transaction. */
export const riskFeedback = dbTable(
  'risk_feedback',
  {
    id: text().primaryKey(),
    partnerId: partnerColumn(),
    transactionId: text().notNull(),
    userId: text().notNull(),
    result: text({ enum: ['approved', 'rejected', 'chargeback'] }).notNull(),
    customerKey: text(),
    deviceKey: text(),
    cardKey: text(),
    createdAt: integer().notNull(),
  },
  (t) => [index('risk_feedback_partner_idx').on(t.partnerId, t.result), index('risk_feedback_tx_idx').on(t.partnerId, t.transactionId)],
);
