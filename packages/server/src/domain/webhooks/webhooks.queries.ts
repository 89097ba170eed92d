import { and, asc, count, eq, gte, inArray, lt, min, or, isNull, type SQL } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { webhookAttempts, webhookMessages } from './webhooks.table.js';

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

/**
 * Delivery attempts made in a period (`from` inclusive, `to` exclusive; one partner's with
 * `partnerId`) and how many failed (no answer, or an answer outside 2xx). For the console's
 * overview: the failure rate a partner's endpoint shows.
 */
export async function webhookAttemptStats(tx: Tx, period: { from: number; to: number; partnerId?: string | undefined }): Promise<{ attempts: number; failed: number }> {
  const where: SQL[] = [gte(webhookAttempts.at, period.from), lt(webhookAttempts.at, period.to)];
  if (period.partnerId !== undefined) where.push(eq(webhookAttempts.partnerId, period.partnerId));
  const n = async (extra?: SQL) => Number((await tx.select({ n: count() }).from(webhookAttempts).where(and(...where, extra)))[0]?.n ?? 0);
  return { attempts: await n(), failed: await n(or(isNull(webhookAttempts.statusCode), lt(webhookAttempts.statusCode, 200), gte(webhookAttempts.statusCode, 300))) };
}

/** A message as a timeline names it: what, when, and how its delivery went (no body). */
export interface WebhookMessageSummary {
  id: string;
  action: string;
  resourceKey: string;
  state: (typeof webhookMessages.$inferSelect)['state'];
  attempts: number;
  createdAt: number;
  deliveredAt: number | null;
}

/** A partner's messages about these resources (`intention:bi_…`, `payout:po_…`), oldest first. */
export async function webhookMessagesOfResources(tx: Tx, partnerId: string, resourceKeys: readonly string[]): Promise<WebhookMessageSummary[]> {
  if (resourceKeys.length === 0) return [];
  return await tx
    .select({ id: webhookMessages.id, action: webhookMessages.action, resourceKey: webhookMessages.resourceKey, state: webhookMessages.state, attempts: webhookMessages.attempts, createdAt: webhookMessages.createdAt, deliveredAt: webhookMessages.deliveredAt })
    .from(webhookMessages)
    .where(and(eq(webhookMessages.partnerId, partnerId), inArray(webhookMessages.resourceKey, [...resourceKeys])))
    .orderBy(asc(webhookMessages.createdAt), asc(webhookMessages.id));
}
