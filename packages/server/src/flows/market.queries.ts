import type { Tx } from '../db/client.js';
import { eventByRef, showsOfEvent, ticketOptionsByPks } from '../domain/events/events.queries.js';
import { activeListingsWithTicketsOfShow } from '../domain/listings/listings.queries.js';
import { ticketSeatsByPks } from '../domain/tickets/tickets.queries.js';

// The market's reads, composed from the owners' queries (events, listings, tickets): the
// market module has no tables of its own.

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

/** The partner's event with its shows (by the partner's ids), earliest first, or null. */
export async function marketEvent(tx: Tx, partnerId: string, externalReferenceId: string) {
  const event = await eventByRef(tx, partnerId, externalReferenceId);
  if (!event) return null;
  return { event, shows: await showsOfEvent(tx, event.id) };
}

/** The show's ACTIVE listings, cheapest first (by what the buyer pays per ticket). */
export async function offers(tx: Tx, showPk: string): Promise<Offer[]> {
  const active = await activeListingsWithTicketsOfShow(tx, showPk);
  const options = await ticketOptionsByPks(tx, active.map((a) => a.listing.ticketOptionPk));
  const seats = await ticketSeatsByPks(tx, active.flatMap((a) => a.ticketPks));
  const list = active.map(({ listing: l, ticketPks }): Offer => {
    const option = options.get(l.ticketOptionPk);
    if (!option) throw new Error(`No ticket option ${l.ticketOptionPk} of listing ${l.id}`);
    return {
      listingId: l.id,
      ticketOptionId: option.ticketId,
      optionTitle: option.title,
      area: option.area,
      quantity: l.quantity,
      currency: l.currency,
      priceMinor: l.priceMinor,
      buyerTotalMinor: l.priceMinor + l.buyerFeeMinor,
      seats: ticketPks.flatMap((pk) => {
        const t = seats.get(pk);
        return t ? [{ ticketId: t.ticketId, section: t.section, row: t.row, seat: t.seat }] : [];
      }),
    };
  });
  return list.sort((a, b) => a.buyerTotalMinor - b.buyerTotalMinor || a.listingId.localeCompare(b.listingId));
}
