import type { Tx } from '../../db/client.js';
import { ApiError } from '../../lib/errors.js';
import { toMajor } from '../../lib/money.js';
import type { PartnerRow } from '../partners/partners.service.js';
import { marketEvent, offers } from './market.queries.js';

/**
 * What the seat map (`<resale-seat-map>`, packages/widgets) draws and lets a buyer pick from:
 * the event's seating chart as the partner sent it, the show's offers per area and one by one
 * with their seats, and where to continue with the picked listings.
 *
 * The chart is passed through untouched: the widget sanitises the SVG (DOMPurify) before it
 * touches the DOM, so the one place that decides what is safe is the one that renders it.
 * Zones are matched by `data-area` (the ticket option's `area`) and seats by `data-section`,
 * `data-row`, `data-seat` (see packages/widgets/src/components/seat-map/seat-map.md).
 */
export interface SeatMapData {
  eventId: string;
  showId: string;
  chart: { svgCode: string | null; image: string | null };
  config: { allowOrphanTicketSelection: boolean };
  /** Per area with offers: tickets for sale and the lowest price per ticket, buyer fee included. */
  areas: { area: string; quantityForSale: number; floorPrice: number; currency: string; ticketOptionIds: string[] }[];
  /** Every ACTIVE listing of the show, cheapest first; `price` is per ticket with the buyer fee, in major units. */
  listings: {
    listingId: string;
    ticketOptionId: string;
    area: string | null;
    quantity: number;
    price: number;
    currency: string;
    seats: { section: string | null; row: string | null; seat: string | null }[];
  }[];
  /** The hosted market page of the show; the widget appends `&listingIds=lst_a,lst_b` to continue to checkout. */
  selectUrl: string;
}

/**
 * The seat map of a partner's show.
 *
 * @throws ApiError 404 for an unknown event or show, or a hidden show (as the market page).
 */
export async function seatMapData(tx: Tx, partner: PartnerRow, ref: { eventId: string; showId: string }, opts: { publicBaseUrl: string; lang: string }): Promise<SeatMapData> {
  const found = await marketEvent(tx, partner.id, ref.eventId);
  if (!found) throw new ApiError(404, 'not_found', `No event ${ref.eventId}`, { path: 'eventId', in: 'query' });
  const show = found.shows.find((s) => s.showId === ref.showId && s.status !== 'HIDDEN');
  if (!show) throw new ApiError(404, 'not_found', `No show ${ref.showId} in event ${ref.eventId}`, { path: 'showId', in: 'query' });
  const list = show.status === 'CANCELLED' ? [] : await offers(tx, show.id);
  const areas = new Map<string, SeatMapData['areas'][number] & { floorMinor: number }>();
  for (const o of list) {
    if (!o.area) continue;
    const a = areas.get(o.area);
    if (!a) {
      areas.set(o.area, { area: o.area, quantityForSale: o.quantity, floorMinor: o.buyerTotalMinor, floorPrice: toMajor(o.buyerTotalMinor, o.currency), currency: o.currency, ticketOptionIds: [o.ticketOptionId] });
      continue;
    }
    a.quantityForSale += o.quantity;
    if (!a.ticketOptionIds.includes(o.ticketOptionId)) a.ticketOptionIds.push(o.ticketOptionId);
    // Offers come cheapest first, so the first one of an area is its floor.
  }
  const market = `${opts.publicBaseUrl}/market/${encodeURIComponent(partner.id)}/${encodeURIComponent(found.event.externalReferenceId)}`;
  return {
    eventId: found.event.externalReferenceId,
    showId: show.showId,
    chart: { svgCode: found.event.seating?.svgCode || null, image: found.event.seating?.image || null },
    config: { allowOrphanTicketSelection: partner.settings.buyAccessLayer?.integratedMap?.allowOrphanTicketSelection ?? false },
    areas: [...areas.values()].map(({ floorMinor: _floor, ...a }) => a),
    listings: list.map((o) => ({
      listingId: o.listingId,
      ticketOptionId: o.ticketOptionId,
      area: o.area,
      quantity: o.quantity,
      price: toMajor(o.buyerTotalMinor, o.currency),
      currency: o.currency,
      seats: o.seats.map(({ section, row, seat }) => ({ section, row, seat })),
    })),
    selectUrl: `${market}?${new URLSearchParams({ showId: show.showId, lang: opts.lang })}`,
  };
}
