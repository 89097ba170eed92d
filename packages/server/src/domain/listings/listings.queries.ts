import { and, asc, desc, eq, exists, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { listings, listingTickets, type ListingState } from './listings.table.js';
import { rowKey, selectRows, skipLocked } from '../../db/dialect.js';
import { perConnection, prepared } from '../../db/statements.js';

/**
 * Reads of the listings module other modules may use. Only `listings.service.ts` writes the
 * listings and listing_tickets tables: every state change goes through its one transition
 * function, which also tells the partner (`listing.*` webhooks).
 */
export type ListingRow = typeof listings.$inferSelect;
export type { ListingState };

/** States in which a listing holds its tickets. */
export const LIVE_LISTING_STATES: readonly ListingState[] = ['ACTIVE', 'RESERVED'];

export async function listingById(tx: Tx, listingId: string): Promise<ListingRow | undefined> {
  return (await tx.select().from(listings).where(eq(listings.id, listingId)).limit(1))[0];
}

/** Listings of a partner by id, in no particular order (unknown ids are left out). */
export async function listingsByIds(tx: Tx, partnerId: string, listingIds: readonly string[]): Promise<ListingRow[]> {
  if (listingIds.length === 0) return [];
  return await tx.select().from(listings).where(and(eq(listings.partnerId, partnerId), inArray(listings.id, [...listingIds])));
}

/** The primary keys of the tickets of a listing. */
export async function ticketPksOf(tx: Tx, listingId: string): Promise<string[]> {
  return (await tx.select({ pk: listingTickets.ticketPk }).from(listingTickets).where(eq(listingTickets.listingId, listingId))).map((r) => r.pk);
}

/** The live (ACTIVE or RESERVED) listing holding a ticket, if any. */
export async function liveListingOfTicket(tx: Tx, ticketPk: string): Promise<ListingRow | undefined> {
  return (await liveListingStatement(tx).execute({ ticketPk }))[0]?.l;
}

/**
 * The statement of {@link liveListingOfTicket}, prepared once per connection: every admission
 * asks it (`ticket.invalidated`), a door thousands of times a minute, and drizzle building its
 * SQL cost several times running it.
 */
const liveListingStatement = perConnection((tx) =>
  prepared(
    tx
      .select({ l: listings })
      .from(listings)
      .innerJoin(listingTickets, eq(listingTickets.listingId, listings.id))
      .where(and(eq(listingTickets.ticketPk, sql.placeholder('ticketPk')), inArray(listings.state, [...LIVE_LISTING_STATES])))
      .limit(1),
    'listings_liveListingOfTicket',
  ),
);

/**
 * Whether a ticket was ever in a listing (live or ended). Most tickets a door admits never
 * were, and this answers that from the index of `listing_tickets` alone: measured, a fifth
 * of the cost of {@link liveListingOfTicket}, which joins the listings, tests their state
 * against a list and reads every column even to find nothing. Prepared once per connection.
 */
export async function ticketWasListed(tx: Tx, ticketPk: string): Promise<boolean> {
  return (await wasListedStatement(tx).execute({ ticketPk })).length > 0;
}

const wasListedStatement = perConnection((tx) =>
  prepared(tx.select({ listingId: listingTickets.listingId }).from(listingTickets).where(eq(listingTickets.ticketPk, sql.placeholder('ticketPk'))).limit(1), 'listings_ticketWasListed'),
);

/** The live listing of a ticket, else its latest one. */
export async function latestListingOfTicket(tx: Tx, ticketPk: string): Promise<ListingRow | undefined> {
  return (
    (await liveListingOfTicket(tx, ticketPk)) ??
    (await tx.select({ l: listings }).from(listings).innerJoin(listingTickets, eq(listingTickets.listingId, listings.id)).where(eq(listingTickets.ticketPk, ticketPk)).orderBy(desc(listings.createdAt)).limit(1))[0]?.l
  );
}

/** The ids of the SOLD listings of a show (whose payouts a cancellation stops). */
export async function soldListingIdsOfShow(tx: Tx, showPk: string): Promise<string[]> {
  return (await tx
    .select({ id: listings.id })
    .from(listings)
    .where(and(eq(listings.showPk, showPk), eq(listings.state, 'SOLD'))))
    .map((r) => r.id);
}

/** Keys per statement in bulk reads (below SQLite's limit of bound parameters). */
const IN_CHUNK = 5_000;

/** The tickets of several listings as (listing, ticket) pairs, by listing id then ticket primary key. */
export async function ticketPksOfListings(tx: Tx, listingIds: readonly string[]): Promise<{ listingId: string; ticketPk: string }[]> {
  const ids = [...new Set(listingIds)];
  const out: { listingId: string; ticketPk: string }[] = [];
  for (let i = 0; i < ids.length; i += IN_CHUNK) {
    out.push(
      ...await tx
        .select({ listingId: listingTickets.listingId, ticketPk: listingTickets.ticketPk })
        .from(listingTickets)
        .where(inArray(listingTickets.listingId, ids.slice(i, i + IN_CHUNK)))
        .orderBy(asc(listingTickets.listingId), asc(listingTickets.ticketPk)),
    );
  }
  return out;
}

/**
 * The ACTIVE listings of a show, by price then id, each with the primary keys of its tickets
 * (in key order): what a market page offers.
 */
export async function activeListingsWithTicketsOfShow(tx: Tx, showPk: string): Promise<{ listing: ListingRow; ticketPks: string[] }[]> {
  const rows = await tx
    .select({ l: listings, ticketPk: listingTickets.ticketPk })
    .from(listings)
    .innerJoin(listingTickets, eq(listingTickets.listingId, listings.id))
    .where(and(eq(listings.showPk, showPk), eq(listings.state, 'ACTIVE')))
    .orderBy(asc(listings.priceMinor), asc(listings.id), asc(listingTickets.ticketPk));
  const out = new Map<string, { listing: ListingRow; ticketPks: string[] }>();
  for (const r of rows) {
    const entry = out.get(r.l.id);
    if (entry) entry.ticketPks.push(r.ticketPk);
    else out.set(r.l.id, { listing: r.l, ticketPks: [r.ticketPk] });
  }
  return [...out.values()];
}

/** The SOLD listings of a seller, latest sale first. */
export async function soldListingsOfSeller(tx: Tx, partnerId: string, sellerPk: string): Promise<ListingRow[]> {
  return await tx
    .select()
    .from(listings)
    .where(and(eq(listings.partnerId, partnerId), eq(listings.sellerPk, sellerPk), eq(listings.state, 'SOLD')))
    .orderBy(desc(listings.soldAt));
}

/** The SOLD listing that sold a ticket (of one seller, when given). */
export async function soldListingOfTicket(tx: Tx, ticketPk: string, sellerPk?: string): Promise<ListingRow | undefined> {
  return (await tx
    .select({ l: listings })
    .from(listings)
    .innerJoin(listingTickets, eq(listingTickets.listingId, listings.id))
    .where(and(eq(listingTickets.ticketPk, ticketPk), eq(listings.state, 'SOLD'), ...(sellerPk === undefined ? [] : [eq(listings.sellerPk, sellerPk)]))).limit(1))[0]?.l;
}

/** Per show, the ticket options (primary keys) with at least one ACTIVE listing; shows without any are absent. */
export async function activeOptionPksOfShows(tx: Tx, showPks: readonly string[]): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  const pks = [...new Set(showPks)];
  for (let i = 0; i < pks.length; i += IN_CHUNK) {
    const rows = await tx
      .selectDistinct({ showPk: listings.showPk, optionPk: listings.ticketOptionPk })
      .from(listings)
      .where(and(inArray(listings.showPk, pks.slice(i, i + IN_CHUNK)), eq(listings.state, 'ACTIVE')));
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
export async function cheapestActivePerOption(tx: Tx, showPk: string): Promise<CheapestActiveListing[]> {
  const rows = await selectRows<{ id: string; option_pk: string; quantity: number; currency: string; total_minor: number }>(
    tx,
    sql`
      select id, option_pk, quantity, currency, total_minor from (
        select ${listings.id} as id, ${listings.ticketOptionPk} as option_pk, ${listings.quantity} as quantity, ${listings.currency} as currency,
               ${listings.priceMinor} + ${listings.buyerFeeMinor} as total_minor,
               row_number() over (partition by ${listings.ticketOptionPk} order by ${listings.priceMinor} + ${listings.buyerFeeMinor}, ${listings.id}) as rn
        from ${listings}
        where ${listings.showPk} = ${showPk} and ${listings.state} = 'ACTIVE'
      ) as ranked where rn = 1`,
  );
  return rows.map((r) => ({ id: r.id, optionPk: r.option_pk, quantity: r.quantity, currency: r.currency, totalMinor: r.total_minor }));
}

/**
 * Prepared reads of a show's ACTIVE listings for a hot path (the buy access layer's snapshots,
 * accesslayer.buy.cache.ts), through `listings_show_state_idx`: prepared once per connection
 * (`perConnection`), they build no SQL per call and run on the connection of the handle given.
 *
 * - `statsOfShow`: per ticket option, the tickets for sale and the floor (price + buyer fee);
 * - `fingerprintOfShow`: the set of ACTIVE listings and their prices from the index alone (a
 *   covering scan: the index holds show_pk, state, price_minor and the rowid), as the count,
 *   the sum of rowids and the sum of a hash of each (rowid, price) pair below 2^32 (so the sum
 *   cannot overflow): a listing in or out of ACTIVE, or repriced, changes it. SQLite-specific
 *   (the rowid); on PostgreSQL a per-show version bumped by the listing writes does this.
 */
export const showListingReads = perConnection((db: Tx) => {
  const showPk = sql.placeholder('showPk');
  const stats = prepared(db
    .select({
      optionPk: listings.ticketOptionPk,
      quantity: sql<number>`sum(${listings.quantity})`.mapWith(Number),
      floorMinor: sql<number>`min(${listings.priceMinor} + ${listings.buyerFeeMinor})`.mapWith(Number),
    })
    .from(listings)
    .where(and(eq(listings.showPk, showPk), eq(listings.state, 'ACTIVE')))
    .groupBy(listings.ticketOptionPk), 'listings_stats');
  const fingerprint = prepared(db
    .select({
      n: sql<number>`count(*)`.mapWith(Number),
      rowids: sql<number>`coalesce(sum(${rowKey(listings.id)}), 0)`.mapWith(Number),
      pairs: sql<number>`coalesce(sum((${rowKey(listings.id)} * 65537 + ${listings.priceMinor}) % 4294967311), 0)`.mapWith(Number),
    })
    .from(listings)
    .where(and(eq(listings.showPk, showPk), eq(listings.state, 'ACTIVE'))), 'listings_fingerprint');
  return {
    statsOfShow: async (pk: string) => await stats.execute({ showPk: pk }),
    fingerprintOfShow: async (pk: string) => (await fingerprint.execute({ showPk: pk }))[0],
  };
});

/** Listings of a state and the tickets they hold. */
export interface ListingCount {
  listings: number;
  tickets: number;
}

/**
 * For each of `showPks`, how many listings it has in each state and how many tickets they
 * hold (a state with none is absent), by `listings_show_state_idx`: the console's inventory
 * of a show (for sale: ACTIVE and RESERVED; sold: SOLD).
 */
export async function listingCountsOfShows(tx: Tx, showPks: readonly string[]): Promise<Map<string, Partial<Record<ListingState, ListingCount>>>> {
  const out = new Map<string, Partial<Record<ListingState, ListingCount>>>();
  if (showPks.length === 0) return out;
  const rows = await tx
    .select({ showPk: listings.showPk, state: listings.state, n: sql<number>`count(*)`.mapWith(Number), tickets: sql<number>`coalesce(sum(${listings.quantity}), 0)`.mapWith(Number) })
    .from(listings)
    .where(inArray(listings.showPk, [...new Set(showPks)]))
    .groupBy(listings.showPk, listings.state);
  for (const r of rows) {
    const counts = out.get(r.showPk) ?? {};
    counts[r.state] = { listings: r.n, tickets: r.tickets };
    out.set(r.showPk, counts);
  }
  return out;
}

/** The ids of a seller's latest `limit` listings (any state), newest first. */
export async function listingIdsOfSeller(tx: Tx, partnerId: string, sellerPk: string, limit: number): Promise<string[]> {
  return (await tx
    .select({ id: listings.id })
    .from(listings)
    .where(and(eq(listings.partnerId, partnerId), eq(listings.sellerPk, sellerPk)))
    .orderBy(desc(listings.createdAt), desc(listings.id))
    .limit(limit))
    .map((r) => r.id);
}

/** The ids of every listing that held a ticket (any state), newest first. */
export async function listingIdsOfTicket(tx: Tx, ticketPk: string): Promise<string[]> {
  return (await tx
    .select({ id: listings.id })
    .from(listings)
    .innerJoin(listingTickets, eq(listingTickets.listingId, listings.id))
    .where(eq(listingTickets.ticketPk, ticketPk))
    .orderBy(desc(listings.createdAt), desc(listings.id)))
    .map((r) => r.id);
}

/** What {@link searchListings} matches: a listing that is any of these (ids, of these sellers, holding these tickets). */
export interface ListingMatch {
  ids: readonly string[];
  sellerPks: readonly string[];
  ticketPks: readonly string[];
}

/**
 * A page of a partner's listings, newest first (by creation, then id): all of them, or those
 * matching `match` (null: no filter). The console's sales tab.
 */
export async function searchListings(tx: Tx, partnerId: string, match: ListingMatch | null, page: { limit: number; offset: number }): Promise<ListingRow[]> {
  let matches: SQL | undefined;
  if (match) {
    const any: SQL[] = [];
    if (match.ids.length > 0) any.push(inArray(listings.id, [...match.ids]));
    if (match.sellerPks.length > 0) any.push(inArray(listings.sellerPk, [...match.sellerPks]));
    if (match.ticketPks.length > 0) any.push(exists(tx.select({ one: sql`1` }).from(listingTickets).where(and(eq(listingTickets.listingId, listings.id), inArray(listingTickets.ticketPk, [...match.ticketPks])))));
    if (any.length === 0) return [];
    matches = or(...any);
  }
  return await tx
    .select()
    .from(listings)
    .where(and(eq(listings.partnerId, partnerId), matches))
    .orderBy(desc(listings.createdAt), desc(listings.id))
    .limit(page.limit)
    .offset(page.offset);
}

/** The partner's live listings (for sale or held by a checkout), oldest first, at most `limit`. */
export async function liveListingsOfPartner(tx: Tx, partnerId: string, limit: number): Promise<ListingRow[]> {
  return await tx.select().from(listings).where(and(eq(listings.partnerId, partnerId), inArray(listings.state, ['ACTIVE', 'RESERVED']))).orderBy(listings.createdAt, listings.id).limit(limit);
}

/**
 * The ACTIVE listings of a show with the primary keys of their tickets, for the waiting list's
 * offers: on PostgreSQL read `FOR UPDATE SKIP LOCKED`, so the reader (who holds the show's
 * waiting-list lock) never waits on a row another transaction is changing; that transaction
 * offers what it frees itself. A transaction's own locked rows are never skipped.
 */
export async function freeListingsOfShow(tx: Tx, showPk: string): Promise<{ listing: ListingRow; ticketPks: string[] }[]> {
  const rows = await skipLocked(tx.select().from(listings).where(and(eq(listings.showPk, showPk), eq(listings.state, 'ACTIVE'))));
  const pks = await ticketPksOfListings(tx, rows.map((l) => l.id));
  const byListing = new Map<string, string[]>();
  for (const t of pks) byListing.set(t.listingId, [...(byListing.get(t.listingId) ?? []), t.ticketPk]);
  return rows.map((listing) => ({ listing, ticketPks: byListing.get(listing.id) ?? [] }));
}
