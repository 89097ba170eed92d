import { and, desc, eq, inArray, ne, or, sql, type SQL } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { jsonArrayHasAny, rowKey } from '../../db/dialect.js';
import { perConnection, prepared } from '../../db/statements.js';
import { buyIntentions, type IntentionKind, type IntentionState } from './intentions.table.js';

/**
 * Reads of the intentions module other modules may use. Only `intentions.service.ts` writes
 * buy intentions.
 */
export type IntentionRow = typeof buyIntentions.$inferSelect;

/** A buy intention by id, of any partner (the id came from a row of ours). */
export async function intentionById(tx: Tx, intentionId: string): Promise<IntentionRow | undefined> {
  return (await tx.select().from(buyIntentions).where(eq(buyIntentions.id, intentionId)).limit(1))[0];
}

/** The ids of the PAID intentions of a show (whose buyers a cancellation refunds). */
export async function paidIntentionIdsOfShow(tx: Tx, showPk: string): Promise<string[]> {
  return (await tx
    .select({ id: buyIntentions.id })
    .from(buyIntentions)
    .where(and(eq(buyIntentions.showPk, showPk), eq(buyIntentions.state, 'PAID'))))
    .map((r) => r.id);
}

/** Of these intentions, the ids of those no longer PENDING (paid, expired, failed or cancelled). */
export async function endedIntentionIds(tx: Tx, intentionIds: readonly string[]): Promise<Set<string>> {
  if (intentionIds.length === 0) return new Set();
  const rows = await tx.select({ id: buyIntentions.id }).from(buyIntentions).where(and(inArray(buyIntentions.id, [...intentionIds]), ne(buyIntentions.state, 'PENDING')));
  return new Set(rows.map((r) => r.id));
}

/** What {@link searchIntentions} matches: an intention that is any of these (ids, bought by these users, holding or having held these listings). */
export interface IntentionMatch {
  ids: readonly string[];
  buyerPks: readonly string[];
  listingIds: readonly string[];
}

/**
 * A page of a partner's intentions in `states`, newest first (by creation, then id): all of
 * them, or those matching `match` (null: no filter). The console's sales tab.
 */
export async function searchIntentions(tx: Tx, partnerId: string, states: readonly IntentionState[], match: IntentionMatch | null, page: { limit: number; offset: number }): Promise<IntentionRow[]> {
  let matches: SQL | undefined;
  if (match) {
    const any: SQL[] = [];
    if (match.ids.length > 0) any.push(inArray(buyIntentions.id, [...match.ids]));
    if (match.buyerPks.length > 0) any.push(inArray(buyIntentions.buyerPk, [...match.buyerPks]));
    if (match.listingIds.length > 0) any.push(jsonArrayHasAny(buyIntentions.listingIds, match.listingIds));
    if (any.length === 0) return [];
    matches = or(...any);
  }
  return await tx
    .select()
    .from(buyIntentions)
    .where(and(eq(buyIntentions.partnerId, partnerId), inArray(buyIntentions.state, [...states]), matches))
    .orderBy(desc(buyIntentions.createdAt), desc(buyIntentions.id))
    .limit(page.limit)
    .offset(page.offset);
}

/** The latest `limit` intentions of a buyer that paid or still hold their listings, newest first. */
export async function liveOrPaidIntentionsOfBuyer(tx: Tx, partnerId: string, buyerPk: string, limit: number): Promise<IntentionRow[]> {
  return await tx
    .select()
    .from(buyIntentions)
    .where(and(eq(buyIntentions.partnerId, partnerId), eq(buyIntentions.buyerPk, buyerPk), inArray(buyIntentions.state, ['PENDING', 'PAID'])))
    .orderBy(desc(buyIntentions.createdAt), desc(buyIntentions.id))
    .limit(limit);
}

/** A live hold of a show: a PENDING intention, whose buyer, how many tickets, until when. */
export type { IntentionKind };

export interface LiveHold {
  intentionId: string;
  buyerPk: string | null;
  listingIds: string[];
  expiresAt: number;
  /** `waitinglist`: an offer to a fan in line, whose tickets pass to the next fan rather than back on sale. */
  kind: IntentionKind;
}

/** The show's live holds (PENDING intentions), earliest ending first: who holds what on its market, and when it may be back. */
export async function liveHoldsOfShow(tx: Tx, showPk: string): Promise<LiveHold[]> {
  return await tx
    .select({ intentionId: buyIntentions.id, buyerPk: buyIntentions.buyerPk, listingIds: buyIntentions.listingIds, expiresAt: buyIntentions.expiresAt, kind: buyIntentions.kind })
    .from(buyIntentions)
    .where(and(eq(buyIntentions.showPk, showPk), eq(buyIntentions.state, 'PENDING')))
    .orderBy(buyIntentions.expiresAt, buyIntentions.id);
}

/**
 * The set of a show's live holds as three numbers, read through `buy_intentions_show_idx`
 * (show, state): their count, the sum of their row keys and the sum of their ends. A hold made,
 * paid, cancelled or expired changes it: the buy access layer's snapshot fingerprint reads it
 * (a paid hold's listing goes RESERVED → SOLD, which the ACTIVE listings alone do not show).
 * Prepared once per connection.
 */
export const liveHoldsFingerprint = perConnection((db: Tx) => {
  const statement = prepared(db
    .select({
      n: sql<number>`count(*)`.mapWith(Number),
      keys: sql<number>`coalesce(sum(${rowKey(buyIntentions.id)}), 0)`.mapWith(Number),
      ends: sql<number>`coalesce(sum(${buyIntentions.expiresAt}), 0)`.mapWith(Number),
    })
    .from(buyIntentions)
    .where(and(eq(buyIntentions.showPk, sql.placeholder('showPk')), eq(buyIntentions.state, 'PENDING'))), 'intentions_live_fingerprint');
  return async (showPk: string) => (await statement.execute({ showPk }))[0];
});
