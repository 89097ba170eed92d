import { count, eq, min } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { webhookMessages } from './webhooks.table.js';

/**
 * Reads of the webhooks module other modules may use. Only `webhooks.service.ts` writes the
 * outbox (`webhook_messages`, `webhook_attempts`).
 */

/**
 * The outbox's backlog: messages still `pending` (due now or waiting for a retry) and when the
 * oldest of them was written (clock ms; null when there is none). Read by the metrics scrape.
 */
export async function pendingWebhookBacklog(tx: Tx): Promise<{ count: number; oldestAt: number | null }> {
  const row = (await tx.select({ n: count(), oldest: min(webhookMessages.createdAt) }).from(webhookMessages).where(eq(webhookMessages.state, 'pending')))[0];
  return { count: Number(row?.n ?? 0), oldestAt: row?.oldest == null ? null : Number(row.oldest) };
}
