import { count, eq, min } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { messages } from './email.table.js';

/**
 * Reads of the email module other modules may use. Only `email.service.ts` writes the
 * e-mail/SMS outbox (`messages`).
 */

/**
 * The outbox's backlog per channel (`email`, `sms`): messages still `pending` (due now or
 * waiting for a retry) and when the oldest was written (clock ms). A channel with nothing
 * pending is absent. Read by the metrics scrape.
 */
export async function pendingMessageBacklog(tx: Tx): Promise<{ channel: 'email' | 'sms'; count: number; oldestAt: number }[]> {
  const rows = await tx
    .select({ channel: messages.channel, n: count(), oldest: min(messages.createdAt) })
    .from(messages)
    .where(eq(messages.state, 'pending'))
    .groupBy(messages.channel);
  return rows.map((r) => ({ channel: r.channel, count: Number(r.n), oldestAt: Number(r.oldest) }));
}
