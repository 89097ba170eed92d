import { and, asc, eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { events, shows, ticketOptions } from '../events/events.table.js';
import { listings, listingTickets } from '../listings/listings.table.js';
import { tickets } from '../tickets/tickets.table.js';

/** An offer on the market: an ACTIVE listing with what a buyer needs to choose it. */
export interface Offer {
  listingId: string;
  ticketOptionId: string;
  optionTitle: string;
  area: string | null;
  quantity: number;
  currency: string;
  priceMinor: number;
  buyerTotalMinor: number;
  seats: { ticketId: string; section: string | null; row: string | null; seat: string | null }[];
}

/** The partner's event with its shows (by the partner's ids), or null. */
export function marketEvent(tx: Tx, partnerId: string, externalReferenceId: string) {
  const event = tx.select().from(events).where(and(eq(events.partnerId, partnerId), eq(events.externalReferenceId, externalReferenceId))).get();
  if (!event) return null;
  const showRows = tx.select().from(shows).where(eq(shows.eventPk, event.id)).orderBy(asc(shows.startsAt)).all();
  return { event, shows: showRows };
}

/** The show's ACTIVE listings, cheapest first (by what the buyer pays per ticket). */
export function offers(tx: Tx, showPk: string): Offer[] {
  const rows = tx
    .select({ l: listings, optionId: ticketOptions.ticketId, optionTitle: ticketOptions.title, area: ticketOptions.area, t: tickets })
    .from(listings)
    .innerJoin(ticketOptions, eq(ticketOptions.id, listings.ticketOptionPk))
    .innerJoin(listingTickets, eq(listingTickets.listingId, listings.id))
    .innerJoin(tickets, eq(tickets.id, listingTickets.ticketPk))
    .where(and(eq(listings.showPk, showPk), eq(listings.state, 'ACTIVE')))
    .orderBy(asc(listings.priceMinor), asc(listings.id))
    .all();
  const byListing = new Map<string, Offer>();
  for (const r of rows) {
    const offer = byListing.get(r.l.id) ?? {
      listingId: r.l.id,
      ticketOptionId: r.optionId,
      optionTitle: r.optionTitle,
      area: r.area,
      quantity: r.l.quantity,
      currency: r.l.currency,
      priceMinor: r.l.priceMinor,
      buyerTotalMinor: r.l.priceMinor + r.l.buyerFeeMinor,
      seats: [],
    };
    offer.seats.push({ ticketId: r.t.ticketId, section: r.t.section, row: r.t.row, seat: r.t.seat });
    byListing.set(r.l.id, offer);
  }
  return [...byListing.values()].sort((a, b) => a.buyerTotalMinor - b.buyerTotalMinor || a.listingId.localeCompare(b.listingId));
}
