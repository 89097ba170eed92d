import { and, asc, count, eq, gt, inArray, lte, min, or, type SQL } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { connectAccounts, PAYOUT_STATES, payoutAccounts, payouts } from './payouts.table.js';

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

/** What the operator's list of payouts selects. */
export interface PayoutListQuery {
  partnerId?: string | undefined;
  state?: (typeof PAYOUT_STATES)[number] | undefined;
  /** Only payouts the job should have delivered by `now` and has not (SCHEDULED or SENDING, due): the ones to look at. */
  overdue?: boolean | undefined;
  limit: number;
  /** Cursor: the last id of the previous page. */
  startingAfter?: string | undefined;
}

/**
 * Payouts for the operator, in the order they were scheduled (ids sort by creation), a page
 * at a time. With `overdue`, the ones stuck past their date, whose `lastError` says why.
 */
export async function listPayouts(tx: Tx, q: PayoutListQuery, now: number): Promise<{ items: (typeof payouts.$inferSelect)[]; nextCursor: string | null }> {
  const where: SQL[] = [];
  if (q.partnerId !== undefined) where.push(eq(payouts.partnerId, q.partnerId));
  if (q.state !== undefined) where.push(eq(payouts.state, q.state));
  if (q.overdue) where.push(or(eq(payouts.state, 'SCHEDULED'), eq(payouts.state, 'SENDING'))!, lte(payouts.dueAt, now));
  if (q.startingAfter !== undefined) where.push(gt(payouts.id, q.startingAfter));
  const rows = await tx
    .select()
    .from(payouts)
    .where(and(...where))
    .orderBy(asc(payouts.id))
    .limit(q.limit + 1);
  const items = rows.slice(0, q.limit);
  return { items, nextCursor: rows.length > q.limit ? items[items.length - 1]!.id : null };
}
