import { and, count, eq, inArray, lte, min } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { connectAccounts, payoutAccounts, payouts } from './payouts.table.js';

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

/** The state of each listing's payout (a listing sold has one), by listing id. */
export async function payoutStatesOfListings(tx: Tx, listingIds: readonly string[]): Promise<Map<string, (typeof payouts.$inferSelect)['state']>> {
  if (listingIds.length === 0) return new Map();
  const rows = await tx.select({ listingId: payouts.listingId, state: payouts.state }).from(payouts).where(inArray(payouts.listingId, [...listingIds]));
  return new Map(rows.map((r) => [r.listingId, r.state]));
}

/**
 * The seller can be paid: with a payout provider (`viaProvider`, Stripe Connect), their
 * connected account finished onboarding and takes transfers; without one (the sandbox), they
 * gave an account number. Nobody may buy a listing whose seller cannot be paid.
 */
export async function sellerPayoutReady(tx: Tx, userPk: string, viaProvider: boolean): Promise<boolean> {
  if (viaProvider) {
    const row = (await tx.select({ d: connectAccounts.detailsSubmitted, t: connectAccounts.transfersActive }).from(connectAccounts).where(eq(connectAccounts.userPk, userPk)).limit(1))[0];
    return !!row && row.d && row.t;
  }
  return (await tx.select({ id: payoutAccounts.id }).from(payoutAccounts).where(eq(payoutAccounts.userPk, userPk)).limit(1)).length === 1;
}
