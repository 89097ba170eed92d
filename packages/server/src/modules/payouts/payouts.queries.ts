import { and, count, eq, lte, min } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { payouts } from './payouts.table.js';

/**
 * Reads of the payouts module other modules may use. Only `payouts.service.ts` writes payouts.
 */

/**
 * Payouts the payout job should have delivered: SCHEDULED and due at `now` or before, and the
 * earliest due instant among them (clock ms; null when there is none). Over `payouts_due_idx`.
 * Read by the metrics scrape.
 */
export async function duePayoutBacklog(tx: Tx, now: number): Promise<{ count: number; oldestDueAt: number | null }> {
  const row = (await tx.select({ n: count(), oldest: min(payouts.dueAt) }).from(payouts).where(and(eq(payouts.state, 'SCHEDULED'), lte(payouts.dueAt, now))))[0];
  return { count: Number(row?.n ?? 0), oldestDueAt: row?.oldest == null ? null : Number(row.oldest) };
}
