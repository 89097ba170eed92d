import { and, asc, count, eq, gt, gte, inArray, isNotNull, lt, lte, min, or, type SQL } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { partnerUserId, usersByPks } from '../users/users.queries.js';
import { connectAccounts, PAYOUT_STATES, payoutAccounts, payouts } from './payouts.table.js';

/**
 * Reads of the payouts module other modules may use. Only `payouts.service.ts` writes payouts.
 */

/** A payout's states, in the order of its life (see payouts.table.ts), for those who list or filter them. */
export { PAYOUT_STATES };

/**
 * Payouts the payout job should have delivered: SCHEDULED and due at `now` or before, and the
 * earliest due instant among them (clock ms; null when there is none). Over `payouts_due_idx`.
 * Read by the metrics scrape.
 */
export async function duePayoutBacklog(tx: Tx, now: number): Promise<{ count: number; oldestDueAt: number | null }> {
  const row = (await tx.select({ n: count(), oldest: min(payouts.dueAt) }).from(payouts).where(and(eq(payouts.state, 'SCHEDULED'), lte(payouts.dueAt, now))))[0];
  return { count: Number(row?.n ?? 0), oldestDueAt: row?.oldest == null ? null : Number(row.oldest) };
}

/**
 * Payouts the sellers still wait for: `due` (scheduled, their date not reached), `overdue`
 * (SCHEDULED or SENDING past their date: what the job should have delivered), and among them
 * `failing` (a transfer refused or an account not ready: `lastError` says why, the job tries
 * again); one partner's with `partnerId`. For the console's overview.
 */
export async function payoutCounts(tx: Tx, now: number, partnerId?: string): Promise<{ due: number; overdue: number; failing: number }> {
  const of = partnerId !== undefined ? eq(payouts.partnerId, partnerId) : undefined;
  const n = async (where: SQL | undefined) => Number((await tx.select({ n: count() }).from(payouts).where(and(of, where)))[0]?.n ?? 0);
  return {
    due: await n(and(eq(payouts.state, 'SCHEDULED'), gt(payouts.dueAt, now))),
    overdue: await n(and(or(eq(payouts.state, 'SCHEDULED'), eq(payouts.state, 'SENDING')), lte(payouts.dueAt, now))),
    failing: await n(and(or(eq(payouts.state, 'SCHEDULED'), eq(payouts.state, 'SENDING')), lte(payouts.dueAt, now), isNotNull(payouts.lastError))),
  };
}

/** The state of each listing's payout (a listing sold has one), by listing id. */
export async function payoutStatesOfListings(tx: Tx, listingIds: readonly string[]): Promise<Map<string, (typeof payouts.$inferSelect)['state']>> {
  if (listingIds.length === 0) return new Map();
  const rows = await tx.select({ listingId: payouts.listingId, state: payouts.state }).from(payouts).where(inArray(payouts.listingId, [...listingIds]));
  return new Map(rows.map((r) => [r.listingId, r.state]));
}

/** The payouts of these listings (a listing sold has one), in the order they were scheduled. */
export async function payoutsOfListings(tx: Tx, listingIds: readonly string[]): Promise<(typeof payouts.$inferSelect)[]> {
  if (listingIds.length === 0) return [];
  return await tx.select().from(payouts).where(inArray(payouts.listingId, [...listingIds])).orderBy(asc(payouts.createdAt), asc(payouts.id));
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
  /** Only payouts due in `[from, to)` (clock ms): a period's payouts, as the console exports them. */
  due?: { from: number; to: number } | undefined;
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
  if (q.due !== undefined) where.push(gte(payouts.dueAt, q.due.from), lt(payouts.dueAt, q.due.to));
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

/**
 * {@link listPayouts} with each payout's seller as the partner knows them (`sellerId`: their
 * user id, else e-mail, else phone): what the operator API and the console list.
 */
export async function listPayoutsWithSellers(tx: Tx, q: PayoutListQuery, now: number): Promise<{ items: ((typeof payouts.$inferSelect) & { sellerId: string })[]; nextCursor: string | null }> {
  const page = await listPayouts(tx, q, now);
  const sellers = await usersByPks(tx, page.items.map((p) => p.sellerPk));
  return { items: page.items.map((p) => ({ ...p, sellerId: partnerUserId(sellers.get(p.sellerPk)!) })), nextCursor: page.nextCursor };
}
