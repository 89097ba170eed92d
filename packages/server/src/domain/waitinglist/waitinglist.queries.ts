import { and, asc, count, desc, eq, inArray, isNull, lt, or } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { LIVE_ENTRY_STATES } from './waitinglist.model.js';
import {
  waitinglistEntries,
  waitinglistHistory,
  waitinglistOffers,
  waitinglistSettings,
  type WaitinglistEntryRow,
  type WaitinglistHistoryRow,
  type WaitinglistOfferRow,
  type WaitinglistSettingsRow,
} from './waitinglist.table.js';

/**
 * Reads of the waiting list other modules and flows may use. Only `waitinglist.service.ts`
 * writes its tables. Lock-free reads: what must not change between the read and a write is
 * read again by the service under the show's lock.
 */

export type { WaitinglistEntryRow, WaitinglistHistoryRow, WaitinglistOfferRow, WaitinglistSettingsRow };

/**
 * A show's settings row, or undefined when the organiser never set any (the list is off). One
 * primary-key read: what a publish of a show without the feature pays.
 */
export async function waitingListSettingsOf(tx: Tx, showPk: string): Promise<WaitinglistSettingsRow | undefined> {
  return (await tx.select().from(waitinglistSettings).where(eq(waitinglistSettings.showPk, showPk)).limit(1))[0];
}

/** The offer a buy intention holds for the waiting list, whatever its state, or undefined for an ordinary checkout. */
export async function offerOfIntention(tx: Tx, intentionId: string): Promise<WaitinglistOfferRow | undefined> {
  return (await tx.select().from(waitinglistOffers).where(eq(waitinglistOffers.intentionId, intentionId)).limit(1))[0];
}

/** The LIVE offer of an entry, or undefined. */
export async function liveOfferOfEntry(tx: Tx, entryId: string): Promise<WaitinglistOfferRow | undefined> {
  return (await tx
    .select()
    .from(waitinglistOffers)
    .where(and(eq(waitinglistOffers.entryId, entryId), eq(waitinglistOffers.state, 'LIVE')))
    .limit(1))[0];
}

/** A class of WAITING entries: every entry of one class is satisfied by the same listings. */
export interface WaitingClass {
  quantity: number;
  together: boolean;
  /** null: any ticket option. */
  ticketOptionPk: string | null;
}

/**
 * The classes of a show's WAITING entries (quantity, together, option): what the offers' matcher
 * asks fits for, at most a few dozen whatever the length of the line (a range of the match index).
 */
export async function waitingClassesOf(tx: Tx, showPk: string): Promise<WaitingClass[]> {
  return await tx
    .selectDistinct({ quantity: waitinglistEntries.quantity, together: waitinglistEntries.together, ticketOptionPk: waitinglistEntries.ticketOptionPk })
    .from(waitinglistEntries)
    .where(and(eq(waitinglistEntries.showPk, showPk), eq(waitinglistEntries.state, 'WAITING')));
}

/**
 * The earliest WAITING entries of one class (smallest `seq` first), an entry of any option
 * counting for `optionPk`; `limit` of them (one index seek). `notUserPk`: leave that fan out.
 */
export async function earliestWaitingOf(tx: Tx, showPk: string, cls: { quantity: number; together: boolean; ticketOptionPk: string | null }, limit: number): Promise<WaitinglistEntryRow[]> {
  const option = cls.ticketOptionPk === null ? isNull(waitinglistEntries.ticketOptionPk) : eq(waitinglistEntries.ticketOptionPk, cls.ticketOptionPk);
  return await tx
    .select()
    .from(waitinglistEntries)
    .where(and(eq(waitinglistEntries.showPk, showPk), eq(waitinglistEntries.state, 'WAITING'), eq(waitinglistEntries.quantity, cls.quantity), eq(waitinglistEntries.together, cls.together), option))
    .orderBy(asc(waitinglistEntries.seq))
    .limit(limit);
}

/** An entry by id, or undefined. */
export async function waitingListEntryById(tx: Tx, entryId: string): Promise<WaitinglistEntryRow | undefined> {
  return (await tx.select().from(waitinglistEntries).where(eq(waitinglistEntries.id, entryId)).limit(1))[0];
}

/** Why a listing's price is capped at face value, and how many fans the cap protects. */
export interface WaitingListPriceCap {
  /** Live entries (WAITING or OFFERED) a listing of the option could serve: the option's and any-option entries. */
  fans: number;
}

/**
 * Whether the waiting list caps the price of a listing of `ticketOptionPk` at face value: the
 * show's list is enabled with `priceCap` FACE_VALUE and fans are waiting for that option (an
 * entry for it, or for any option of the show; live entries, WAITING or OFFERED). Null when it
 * does not. A show without the feature pays one primary-key read, and one with nobody waiting
 * stops at its `waiting` counter; only then are the option's entries counted (a range of the
 * live-entries index).
 *
 * Read without a lock when pricing: the contract caps listings "published while fans are
 * waiting", so the count as the listing is published is the one that matters.
 */
export async function priceCapOf(tx: Tx, showPk: string, ticketOptionPk: string): Promise<WaitingListPriceCap | null> {
  const settings = await waitingListSettingsOf(tx, showPk);
  if (!settings?.enabled || settings.priceCap !== 'FACE_VALUE' || settings.waiting <= 0) return null;
  const [row] = await tx
    .select({ fans: count() })
    .from(waitinglistEntries)
    .where(
      and(
        eq(waitinglistEntries.showPk, showPk),
        inArray(waitinglistEntries.state, LIVE_ENTRY_STATES),
        or(eq(waitinglistEntries.ticketOptionPk, ticketOptionPk), isNull(waitinglistEntries.ticketOptionPk)),
      ),
    );
  const fans = row?.fans ?? 0;
  return fans > 0 ? { fans } : null;
}

// ------------------------------------------------------------------ the console's reads (a show's line, a page at a time)

/** How many entries of a show are live, and how many of them hold an offer. */
export interface LiveEntryCounts {
  /** WAITING and OFFERED together: the line's length. */
  live: number;
  offered: number;
}

/** A show's live entries counted by state (a range of the live-entries index, whatever the line's length). */
export async function liveEntryCountsOf(tx: Tx, showPk: string): Promise<LiveEntryCounts> {
  const rows = await tx
    .select({ state: waitinglistEntries.state, n: count() })
    .from(waitinglistEntries)
    .where(and(eq(waitinglistEntries.showPk, showPk), inArray(waitinglistEntries.state, LIVE_ENTRY_STATES)))
    .groupBy(waitinglistEntries.state);
  const of = (state: string) => Number(rows.find((r) => r.state === state)?.n ?? 0);
  return { live: of('WAITING') + of('OFFERED'), offered: of('OFFERED') };
}

/**
 * A page of a show's live entries in join order (smallest `seq` first): the entry at `offset`
 * is at position `offset + 1`, as positions count live entries only. Offset paging over the
 * partial live-entries index: a page deep in a line of ten thousand skips index entries, never rows.
 */
export async function liveEntriesPage(tx: Tx, showPk: string, page: { limit: number; offset: number }): Promise<WaitinglistEntryRow[]> {
  return await tx
    .select()
    .from(waitinglistEntries)
    .where(and(eq(waitinglistEntries.showPk, showPk), inArray(waitinglistEntries.state, LIVE_ENTRY_STATES)))
    .orderBy(asc(waitinglistEntries.seq))
    .limit(page.limit)
    .offset(page.offset);
}

/** The live entry of a fan in a show's line, or undefined. */
export async function liveEntryOfUser(tx: Tx, showPk: string, userPk: string): Promise<WaitinglistEntryRow | undefined> {
  return (await tx
    .select()
    .from(waitinglistEntries)
    .where(and(eq(waitinglistEntries.showPk, showPk), eq(waitinglistEntries.userPk, userPk), inArray(waitinglistEntries.state, LIVE_ENTRY_STATES)))
    .limit(1))[0];
}

/** A live entry's position: 1 + the live entries of its show with a smaller `seq` (the service's own count, read without the lock). */
export async function livePositionOf(tx: Tx, showPk: string, seq: number): Promise<number> {
  const [row] = await tx
    .select({ n: count() })
    .from(waitinglistEntries)
    .where(and(eq(waitinglistEntries.showPk, showPk), inArray(waitinglistEntries.state, LIVE_ENTRY_STATES), lt(waitinglistEntries.seq, seq)));
  return Number(row?.n ?? 0) + 1;
}

/** The LIVE offers of some entries (at most one each). */
export async function liveOffersOfEntries(tx: Tx, entryIds: readonly string[]): Promise<WaitinglistOfferRow[]> {
  if (entryIds.length === 0) return [];
  return await tx
    .select()
    .from(waitinglistOffers)
    .where(and(inArray(waitinglistOffers.entryId, [...entryIds]), eq(waitinglistOffers.state, 'LIVE')));
}

/** Entries by id, keyed by it (whatever their state: the history names ended ones too). */
export async function waitingListEntriesByIds(tx: Tx, entryIds: readonly string[]): Promise<Map<string, WaitinglistEntryRow>> {
  if (entryIds.length === 0) return new Map();
  return new Map((await tx.select().from(waitinglistEntries).where(inArray(waitinglistEntries.id, [...new Set(entryIds)]))).map((e) => [e.id, e]));
}

/** The latest `limit` rows of a show's history, newest first (a range of the history's show-and-seq index). */
export async function recentHistoryOf(tx: Tx, showPk: string, limit: number): Promise<WaitinglistHistoryRow[]> {
  return await tx.select().from(waitinglistHistory).where(eq(waitinglistHistory.showPk, showPk)).orderBy(desc(waitinglistHistory.seq)).limit(limit);
}
