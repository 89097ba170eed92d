import type { Tx } from '../db/client.js';
import { ApiError } from '../lib/errors.js';
import { toMajor } from '../lib/money.js';
import { showWithEvent } from '../domain/events/events.queries.js';
import { ticketPksOfListings } from '../domain/listings/listings.queries.js';
import { ticketSeatsByPks } from '../domain/tickets/tickets.queries.js';
import type { PartnerRow } from '../domain/partners/partners.service.js';
import { marketEvent, offers, type Offer } from './market.queries.js';
// The seat map widget's own rule, by path: see the note at the top of seat-rules.ts.
import { buildRows, chartSeats, indexSeats, selectionLeavesOrphan } from '@resale/shared/seat-rules';
import { serviceUrl, servicePaths } from '../lib/urls.js';

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
  /** The show's pick on the service (`…/buy/pick`); the widget appends `&listingIds=lst_a,lst_b`: the pick is reserved and the checkout opens. */
  selectUrl: string;
}

/**
 * The seat map of a partner's show.
 *
 * @throws ApiError 404 for an unknown event or show, or a hidden show (as the market page).
 */
export async function seatMapData(tx: Tx, partner: PartnerRow, ref: { eventId: string; showId: string }, opts: { publicBaseUrl: string; lang: string; carry?: Record<string, string> }): Promise<SeatMapData> {
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
    // Continue reserves the pick and opens the checkout (`…/buy/pick`). `carry`: the market
    // page's way back to the partner (returnTo and its tag), kept through the checkout (checked
    // again there before it is shown).
    selectUrl: `${serviceUrl(opts.publicBaseUrl, servicePaths.marketPick(partner.id, found.event.externalReferenceId))}?${new URLSearchParams({ showId: show.showId, lang: opts.lang, ...opts.carry })}`,
  };
}

/**
 * A pick refused because, bought as it stands, it would leave a single free seat between taken
 * seats in a row (400 `invalid_value` on `items`). A class of its own, as HoldLimitError is, so
 * the market page tells this refusal apart without reading message texts.
 */
export class OrphanSeatError extends ApiError {
  constructor() {
    super(400, 'invalid_value', 'This selection would leave a single empty seat in a row: add the seat next to it or choose other seats', { path: 'items', in: 'body', reason: 'orphan_seat' });
  }
}

/** The seats of the last charts read, by markup: a busy show's chart is parsed once, not on every reservation. */
const chartSeatsMemo = new Map<string, ReturnType<typeof chartSeats>>();
const CHART_MEMO_SIZE = 8;

function seatsOfChart(svgCode: string): ReturnType<typeof chartSeats> {
  let seats = chartSeatsMemo.get(svgCode);
  if (seats) return seats;
  seats = chartSeats(svgCode);
  if (chartSeatsMemo.size >= CHART_MEMO_SIZE) chartSeatsMemo.delete(chartSeatsMemo.keys().next().value!);
  chartSeatsMemo.set(svgCode, seats);
  return seats;
}

/**
 * The seat map's orphan-seat rule, applied where listings are reserved (the market's Buy, the
 * API's buy intention and checkout URL), so a pick the map refuses is refused everywhere: the
 * same rows (the stored chart's seats and every ACTIVE listing's seats of the show), the same
 * index of seats for sale and the same check (seat-rules.ts). Skipped when the partner allows
 * orphan seats (`buyAccessLayer.integratedMap.allowOrphanTicketSelection`), and for picks
 * without seats. A picked listing that is not ACTIVE any more is left to the reservation, which
 * refuses it as unavailable.
 *
 * Judged on the transaction's reading of the show: two buyers whose picks are each fine may
 * still, together, strand a seat; the rule is about the pick a buyer makes, not a lock on the row.
 *
 * @throws OrphanSeatError when the pick would strand a seat
 */
export async function assertNoOrphanSeat(tx: Tx, partner: PartnerRow, showPk: string, listingIds: readonly string[]): Promise<void> {
  if (partner.settings.buyAccessLayer?.integratedMap?.allowOrphanTicketSelection) return;
  // A pick without seats (general admission) costs two small reads, not the show's whole market.
  const seats = await ticketSeatsByPks(tx, (await ticketPksOfListings(tx, listingIds)).map((t) => t.ticketPk));
  if (![...seats.values()].some((s) => s.row !== null && s.seat !== null)) return;
  const listed = await offers(tx, showPk);
  const byId = new Map(listed.map((o) => [o.listingId, o]));
  const picked: Offer[] = [];
  for (const id of listingIds) {
    const offer = byId.get(id);
    if (!offer) return;
    picked.push(offer);
  }
  const svgCode = (await showWithEvent(tx, showPk))?.event.seating?.svgCode;
  const rows = buildRows(svgCode ? seatsOfChart(svgCode) : [], listed);
  if (selectionLeavesOrphan(picked, rows, indexSeats(listed))) throw new OrphanSeatError();
}

/**
 * The market list's side of the orphan-seat rule: each listing that, bought alone, would strand
 * a seat (so its own Buy would be refused), with a listing of its row to buy with it that
 * strands none (the nearest seat first), or null when no single one does (the seat map picks
 * more). Judged as {@link assertNoOrphanSeat} judges a pick, on the same reading of the show.
 * Empty when the partner allows orphan seats.
 */
export function strandedAlone(partner: PartnerRow, svgCode: string | null | undefined, listed: readonly Offer[]): Map<string, Offer | null> {
  const out = new Map<string, Offer | null>();
  if (partner.settings.buyAccessLayer?.integratedMap?.allowOrphanTicketSelection) return out;
  const seated = listed.filter((o) => o.seats.some((s) => s.row !== null && s.seat !== null));
  if (seated.length === 0) return out;
  const rows = buildRows(svgCode ? seatsOfChart(svgCode) : [], listed);
  const index = indexSeats(listed);
  const rowOf = (o: Offer) => new Set(o.seats.filter((s) => s.row !== null).map((s) => `${s.section ?? ''}|${s.row}`));
  const number = (o: Offer) => Number(o.seats.find((s) => s.seat !== null)?.seat ?? NaN);
  for (const o of seated) {
    if (!selectionLeavesOrphan([o], rows, index)) continue;
    const mine = rowOf(o);
    const near = seated
      .filter((n) => n !== o && [...rowOf(n)].some((r) => mine.has(r)))
      .sort((a, b) => Math.abs(number(a) - number(o)) - Math.abs(number(b) - number(o)) || a.buyerTotalMinor - b.buyerTotalMinor);
    out.set(o.listingId, near.find((n) => !selectionLeavesOrphan([o, n], rows, index)) ?? null);
  }
  return out;
}
