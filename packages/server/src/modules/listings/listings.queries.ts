import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import { listings, listingTickets, type ListingState } from './listings.table.js';
import { rowKey } from '../../db/dialect.js';

/**
 * Reads of the listings module other modules may use. Only `listings.service.ts` writes the
 * listings and listing_tickets tables: every state change goes through its one transition
 * function, which also tells the partner (`listing.*` webhooks).
 */
export type ListingRow = typeof listings.$inferSelect;
export type { ListingState };

/** States in which a listing holds its tickets. */
export const LIVE_LISTING_STATES: readonly ListingState[] = ['ACTIVE', 'RESERVED'];

export function listingById(tx: Tx, listingId: string): ListingRow | undefined {
  return tx.select().from(listings).where(eq(listings.id, listingId)).get();
}

/** Listings of a partner by id, in no particular order (unknown ids are left out). */
export function listingsByIds(tx: Tx, partnerId: string, listingIds: readonly string[]): ListingRow[] {
  if (listingIds.length === 0) return [];
  return tx.select().from(listings).where(and(eq(listings.partnerId, partnerId), inArray(listings.id, [...listingIds]))).all();
}

/** The primary keys of the tickets of a listing. */
export function ticketPksOf(tx: Tx, listingId: string): string[] {
  return tx.select({ pk: listingTickets.ticketPk }).from(listingTickets).where(eq(listingTickets.listingId, listingId)).all().map((r) => r.pk);
}

/** The live (ACTIVE or RESERVED) listing holding a ticket, if any. */
export function liveListingOfTicket(tx: Tx, ticketPk: string): ListingRow | undefined {
  return tx
    .select({ l: listings })
    .from(listings)
    .innerJoin(listingTickets, eq(listingTickets.listingId, listings.id))
    .where(and(eq(listingTickets.ticketPk, ticketPk), inArray(listings.state, [...LIVE_LISTING_STATES])))
    .get()?.l;
}

/** The live listing of a ticket, else its latest one. */
export function latestListingOfTicket(tx: Tx, ticketPk: string): ListingRow | undefined {
  return (
    liveListingOfTicket(tx, ticketPk) ??
    tx.select({ l: listings }).from(listings).innerJoin(listingTickets, eq(listingTickets.listingId, listings.id)).where(eq(listingTickets.ticketPk, ticketPk)).orderBy(desc(listings.createdAt)).limit(1).get()?.l
  );
}

/** The ids of the SOLD listings of a show (whose payouts a cancellation stops). */
export function soldListingIdsOfShow(tx: Tx, showPk: string): string[] {
  return tx
    .select({ id: listings.id })
    .from(listings)
    .where(and(eq(listings.showPk, showPk), eq(listings.state, 'SOLD')))
    .all()
    .map((r) => r.id);
}

/** Keys per statement in bulk reads (below SQLite's limit of bound parameters). */
const IN_CHUNK = 5_000;

/** The tickets of several listings as (listing, ticket) pairs, by listing id then ticket primary key. */
export function ticketPksOfListings(tx: Tx, listingIds: readonly string[]): { listingId: string; ticketPk: string }[] {
  const ids = [...new Set(listingIds)];
  const out: { listingId: string; ticketPk: string }[] = [];
  for (let i = 0; i < ids.length; i += IN_CHUNK) {
    out.push(
      ...tx
        .select({ listingId: listingTickets.listingId, ticketPk: listingTickets.ticketPk })
        .from(listingTickets)
        .where(inArray(listingTickets.listingId, ids.slice(i, i + IN_CHUNK)))
        .orderBy(asc(listingTickets.listingId), asc(listingTickets.ticketPk))
        .all(),
    );
  }
  return out;
}

/**
 * The ACTIVE listings of a show, by price then id, each with the primary keys of its tickets
 * (in key order): what a market page offers.
 */
export function activeListingsWithTicketsOfShow(tx: Tx, showPk: string): { listing: ListingRow; ticketPks: string[] }[] {
  const rows = tx
    .select({ l: listings, ticketPk: listingTickets.ticketPk })
    .from(listings)
    .innerJoin(listingTickets, eq(listingTickets.listingId, listings.id))
    .where(and(eq(listings.showPk, showPk), eq(listings.state, 'ACTIVE')))
    .orderBy(asc(listings.priceMinor), asc(listings.id), asc(listingTickets.ticketPk))
    .all();
  const out = new Map<string, { listing: ListingRow; ticketPks: string[] }>();
  for (const r of rows) {
    const entry = out.get(r.l.id);
    if (entry) entry.ticketPks.push(r.ticketPk);
    else out.set(r.l.id, { listing: r.l, ticketPks: [r.ticketPk] });
  }
  return [...out.values()];
}

/** The SOLD listings of a seller, latest sale first. */
export function soldListingsOfSeller(tx: Tx, partnerId: string, sellerPk: string): ListingRow[] {
  return tx
    .select()
    .from(listings)
    .where(and(eq(listings.partnerId, partnerId), eq(listings.sellerPk, sellerPk), eq(listings.state, 'SOLD')))
    .orderBy(desc(listings.soldAt))
    .all();
}

/** The SOLD listing that sold a ticket (of one seller, when given). */
export function soldListingOfTicket(tx: Tx, ticketPk: string, sellerPk?: string): ListingRow | undefined {
  return tx
    .select({ l: listings })
    .from(listings)
    .innerJoin(listingTickets, eq(listingTickets.listingId, listings.id))
    .where(and(eq(listingTickets.ticketPk, ticketPk), eq(listings.state, 'SOLD'), ...(sellerPk === undefined ? [] : [eq(listings.sellerPk, sellerPk)])))
    .get()?.l;
}

/** Per show, the ticket options (primary keys) with at least one ACTIVE listing; shows without any are absent. */
export function activeOptionPksOfShows(tx: Tx, showPks: readonly string[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const pks = [...new Set(showPks)];
  for (let i = 0; i < pks.length; i += IN_CHUNK) {
    const rows = tx
      .selectDistinct({ showPk: listings.showPk, optionPk: listings.ticketOptionPk })
      .from(listings)
      .where(and(inArray(listings.showPk, pks.slice(i, i + IN_CHUNK)), eq(listings.state, 'ACTIVE')))
      .all();
    for (const r of rows) {
      const set = out.get(r.showPk) ?? new Set<string>();
      set.add(r.optionPk);
      out.set(r.showPk, set);
    }
  }
  return out;
}

/** The cheapest ACTIVE listing of a ticket option: price per ticket with the buyer fee. */
export interface CheapestActiveListing {
  id: string;
  optionPk: string;
  quantity: number;
  currency: string;
  totalMinor: number;
}

/** The cheapest ACTIVE listing of each ticket option of a show (ties: the smaller id, as the market page orders them). */
export function cheapestActivePerOption(tx: Tx, showPk: string): CheapestActiveListing[] {
  return tx
    .all<{ id: string; option_pk: string; quantity: number; currency: string; total_minor: number }>(
      sql`
      select id, option_pk, quantity, currency, total_minor from (
        select ${listings.id} as id, ${listings.ticketOptionPk} as option_pk, ${listings.quantity} as quantity, ${listings.currency} as currency,
               ${listings.priceMinor} + ${listings.buyerFeeMinor} as total_minor,
               row_number() over (partition by ${listings.ticketOptionPk} order by ${listings.priceMinor} + ${listings.buyerFeeMinor}, ${listings.id}) as rn
        from ${listings}
        where ${listings.showPk} = ${showPk} and ${listings.state} = 'ACTIVE'
      ) where rn = 1`,
    )
    .map((r) => ({ id: r.id, optionPk: r.option_pk, quantity: r.quantity, currency: r.currency, totalMinor: r.total_minor }));
}

/**
 * Prepared reads of a show's ACTIVE listings for a hot path (the buy access layer's snapshots,
 * accesslayer.buy.cache.ts), through `listings_show_state_idx`: prepared once on `db`, they
 * build no SQL per call, and may be called inside a transaction of `db`.
 *
 * - `statsOfShow`: per ticket option, the tickets for sale and the floor (price + buyer fee);
 * - `fingerprintOfShow`: the set of ACTIVE listings and their prices from the index alone (a
 *   covering scan: the index holds show_pk, state, price_minor and the rowid), as the count,
 *   the sum of rowids and the sum of a hash of each (rowid, price) pair below 2^32 (so the sum
 *   cannot overflow): a listing in or out of ACTIVE, or repriced, changes it. SQLite-specific
 *   (the rowid); on PostgreSQL a per-show version bumped by the listing writes does this.
 */
export function showListingReads(db: Db) {
  const showPk = sql.placeholder('showPk');
  const stats = db
    .select({
      optionPk: listings.ticketOptionPk,
      quantity: sql<number>`sum(${listings.quantity})`.mapWith(Number),
      floorMinor: sql<number>`min(${listings.priceMinor} + ${listings.buyerFeeMinor})`.mapWith(Number),
    })
    .from(listings)
    .where(and(eq(listings.showPk, showPk), eq(listings.state, 'ACTIVE')))
    .groupBy(listings.ticketOptionPk)
    .prepare();
  const fingerprint = db
    .select({
      n: sql<number>`count(*)`.mapWith(Number),
      rowids: sql<number>`coalesce(sum(${rowKey()}), 0)`.mapWith(Number),
      pairs: sql<number>`coalesce(sum((${rowKey()} * 65537 + ${listings.priceMinor}) % 4294967311), 0)`.mapWith(Number),
    })
    .from(listings)
    .where(and(eq(listings.showPk, showPk), eq(listings.state, 'ACTIVE')))
    .prepare();
  return {
    statsOfShow: (pk: string) => stats.all({ showPk: pk }),
    fingerprintOfShow: (pk: string) => fingerprint.get({ showPk: pk }),
  };
}
