import { dbTable, index, integer, text } from '../../db/schema-builders.js';
import { partnerColumn } from '../../db/columns.js';
import { WEBHOOK_MESSAGE_STATES } from './webhooks.model.js';

/**
 * The webhook outbox: a message is written in the same transaction as the change that
 * causes it, then delivered by a worker. `id` is the Standard Webhooks `webhook-id`.
 */
export const webhookMessages = dbTable(
  'webhook_messages',
  {
    id: text().primaryKey(),
    partnerId: partnerColumn(),
    /** `{family}.{verb}` action, e.g. `ticketShield.updated`. */
    action: text().notNull(),
    family: text().notNull(),
    /** Messages of one resource are delivered in order (e.g. `ticket:tkt_…`). */
    resourceKey: text().notNull(),
    /**
     * The body exactly as it is signed and sent: the text `JSON.stringify({family, action, data})`
     * made once at enqueue. Text, not JSON: PostgreSQL's `jsonb` keeps a value, not its text (it
     * reorders an object's keys), and a partner must get the same bytes on either engine.
     */
    payload: text().notNull(),
    state: text({ enum: WEBHOOK_MESSAGE_STATES }).notNull(),
    attempts: integer().notNull(),
    nextAttemptAt: integer(),
    deliveredAt: integer(),
    lastStatus: integer(),
    lastError: text(),
    createdAt: integer().notNull(),
  },
  (t) => [
    index('webhook_messages_due_idx').on(t.state, t.nextAttemptAt),
    index('webhook_messages_resource_idx').on(t.partnerId, t.resourceKey, t.createdAt),
    index('webhook_messages_partner_idx').on(t.partnerId, t.createdAt),
  ],
);

/** One delivery attempt: the delivery log operators read. */
export const webhookAttempts = dbTable(
  'webhook_attempts',
  {
    id: text().primaryKey(),
    messageId: text()
      .notNull()
      .references(() => webhookMessages.id, { onDelete: 'cascade' }),
    partnerId: partnerColumn(),
    attempt: integer().notNull(),
    url: text().notNull(),
    at: integer().notNull(),
    statusCode: integer(),
    latencyMs: integer().notNull(),
    error: text(),
    nextAttemptAt: integer(),
    /**
     * What the partner’s server answered: the first 1,024 characters (`MAX_ANSWER_CHARS`, webhooks.delivery.ts) of the
     * body (secrets removed), whatever the status; null when nothing answered, the body was
     * empty, or the answer was a redirect (nothing of its target is kept).
     */
    answer: text(),
  },
  (t) => [index('webhook_attempts_message_idx').on(t.messageId, t.attempt)],
);
