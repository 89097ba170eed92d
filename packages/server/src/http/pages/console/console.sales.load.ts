import type { Tx } from '../../../db/client.js';
import type { AppDeps } from '../../../context.js';
import { can, type ConsoleSession } from '../../../domain/console/console.service.js';
import { showsWithEvents } from '../../../domain/events/events.queries.js';
import { intentionById, liveOrPaidIntentionsOfBuyer, searchIntentions, type IntentionMatch, type IntentionRow } from '../../../domain/intentions/intentions.queries.js';
import { journalsOfIntention } from '../../../domain/ledger/ledger.queries.js';
import { listingIdsOfSeller, listingIdsOfTicket, listingsByIds, searchListings, ticketPksOfListings, type ListingMatch, type ListingRow, type ListingState } from '../../../domain/listings/listings.queries.js';
import type { PaymentRow } from '../../../domain/payments/payments.service.js';
import { payoutsOfListings } from '../../../domain/payouts/payouts.queries.js';
import { ticketByRef, ticketSeatsByPks, type TicketSeat } from '../../../domain/tickets/tickets.queries.js';
import { userByEmail, usersByPks, type UserRow } from '../../../domain/users/users.queries.js';
import { webhookMessagesOfResources } from '../../../domain/webhooks/webhooks.queries.js';
import { refundRefusal, type RefundRefusal } from '../../../flows/console-sales.js';

/**
 * What the sales section shows, read for one person: a page of the partner's resales (paid
 * checkouts), holds (checkouts waiting for payment) or listings, searched by ticket id, e-mail
 * (the buyer's or a seller's) or order (the buy intention's id); and one order with its
 * timeline, from the records each module keeps (intentions, listings, payments, payouts,
 * ledger journals, webhook messages). No HTTP here.
 */

type IntentionState = IntentionRow['state'];
type PaymentState = PaymentRow['state'];

/** What the section lists: paid checkouts, checkouts waiting for payment, or listings. */
export const SALE_KINDS = ['resales', 'holds', 'listings'] as const;
export type SaleKind = (typeof SALE_KINDS)[number];

/** Rows per page. */
export const SALES_PAGE_SIZE = 25;

/** The furthest page the list goes to (a search narrows it). */
export const MAX_SALES_PAGE = 1_000;

/** A search reaches at most this many listings of one seller, and orders of one buyer (the newest). */
const SEARCH_REACH = 500;

/** The list's kind, search and page, from the GET query (anything unknown reads as the default). */
export interface SalesQuery {
  kind: SaleKind;
  q: string;
  page: number;
}

/** The query of the list from the query string: resales by default, the search trimmed, the page from 1. */
export function salesQueryOf(q: { kind?: string | undefined; q?: string | undefined; page?: string | undefined }): SalesQuery {
  const kind = (SALE_KINDS as readonly string[]).includes(q.kind ?? '') ? (q.kind as SaleKind) : 'resales';
  const page = Math.min(Math.max(1, Number.parseInt(q.page ?? '1', 10) || 1), MAX_SALES_PAGE);
  return { kind, q: (q.q ?? '').trim().slice(0, 200), page };
}

/** Where the tickets are: the event, the show and when it starts. */
export interface ShowLabel {
  event: string;
  show: string;
  startsAt: number;
}

/** A checkout (paid, or holding its listings) in the list. */
export interface OrderItem {
  id: string;
  state: IntentionState;
  createdAt: number;
  paidAt: number | null;
  expiresAt: number;
  totalMinor: number;
  currency: string;
  buyer: string | null;
  sellers: string[];
  tickets: string[];
  where: ShowLabel | null;
  /** The paying payment's state (`succeeded`, or refunded); null for a hold. */
  payment: PaymentState | null;
}

/** A listing in the list. */
export interface ListingItem {
  id: string;
  state: ListingState;
  createdAt: number;
  seller: string;
  tickets: string[];
  where: ShowLabel | null;
  quantity: number;
  /** Per ticket, what the buyer pays (price and buyer fee). */
  unitMinor: number;
  currency: string;
  /** The checkout holding it, or the one that bought it; null otherwise. */
  orderId: string | null;
}

/** The sales page's model: a page of orders or of listings, and whether a next page exists. */
export interface SalesPageModel {
  query: SalesQuery;
  orders: OrderItem[];
  listings: ListingItem[];
  hasNext: boolean;
}

/** How the console names a user: the e-mail, else the phone, else the partner's id for them. */
export function userLabel(user: UserRow | undefined): string | null {
  if (!user) return null;
  return user.email ?? user.phone ?? user.externalId ?? user.id;
}

/** A search term read as what it may name: the order itself, a user by e-mail, a ticket by the partner's id. */
interface Term {
  term: string;
  user: UserRow | undefined;
  ticketPk: string | undefined;
}

async function termOf(tx: Tx, partnerId: string, q: string): Promise<Term> {
  const user = q.includes('@') ? await userByEmail(tx, partnerId, q.toLowerCase()) : undefined;
  const ticket = await ticketByRef(tx, partnerId, q);
  return { term: q, user, ticketPk: ticket?.id };
}

/** The orders a term matches: by id, by buyer, or holding a listing of the seller or of the ticket. */
async function orderMatch(tx: Tx, partnerId: string, t: Term): Promise<IntentionMatch> {
  const listingIds = [...(t.user ? await listingIdsOfSeller(tx, partnerId, t.user.id, SEARCH_REACH) : []), ...(t.ticketPk ? await listingIdsOfTicket(tx, t.ticketPk) : [])];
  return { ids: [t.term], buyerPks: t.user ? [t.user.id] : [], listingIds: [...new Set(listingIds)] };
}

/** The listings a term matches: by id, by seller, holding the ticket, or of the order (or the buyer's orders). */
async function listingMatch(tx: Tx, partnerId: string, t: Term): Promise<ListingMatch> {
  const order = await intentionById(tx, t.term);
  const bought = t.user ? await liveOrPaidIntentionsOfBuyer(tx, partnerId, t.user.id, SEARCH_REACH) : [];
  const ids = [t.term, ...(order?.partnerId === partnerId ? order.listingIds : []), ...bought.flatMap((i) => i.listingIds)];
  return { ids: [...new Set(ids)], sellerPks: t.user ? [t.user.id] : [], ticketPks: t.ticketPk ? [t.ticketPk] : [] };
}

/** The tickets (partner's ids) of listings, by listing id, with their seats by ticket primary key. */
async function ticketsOfListings(tx: Tx, listingIds: readonly string[]): Promise<{ byListing: Map<string, string[]>; seats: Map<string, TicketSeat>; pksByListing: Map<string, string[]> }> {
  const pairs = await ticketPksOfListings(tx, listingIds);
  const seats = await ticketSeatsByPks(tx, pairs.map((p) => p.ticketPk));
  const byListing = new Map<string, string[]>();
  const pksByListing = new Map<string, string[]>();
  for (const p of pairs) {
    byListing.set(p.listingId, [...(byListing.get(p.listingId) ?? []), seats.get(p.ticketPk)?.ticketId ?? p.ticketPk]);
    pksByListing.set(p.listingId, [...(pksByListing.get(p.listingId) ?? []), p.ticketPk]);
  }
  return { byListing, seats, pksByListing };
}

async function showLabels(tx: Tx, showPks: readonly string[]): Promise<Map<string, ShowLabel>> {
  const shows = await showsWithEvents(tx, showPks);
  return new Map([...shows].map(([pk, { show, event }]): [string, ShowLabel] => [pk, { event: event.title, show: show.title, startsAt: show.startsAt }]));
}

/** The paying payment of each intention (its succeeded one, else a refunded one), by intention id. */
function payingOf(payments: readonly PaymentRow[]): Map<string, PaymentRow> {
  const out = new Map<string, PaymentRow>();
  for (const p of payments) {
    const had = out.get(p.intentionId);
    if (p.state === 'succeeded' && had?.state !== 'succeeded') out.set(p.intentionId, p);
    else if (!had && (p.state === 'refund_pending' || p.state === 'refunded')) out.set(p.intentionId, p);
  }
  return out;
}

/** The orders of a page with their buyers, sellers, tickets, show and paying payment. */
async function orderItems(deps: Pick<AppDeps, 'payments'>, tx: Tx, partnerId: string, rows: readonly IntentionRow[]): Promise<OrderItem[]> {
  const listings = await listingsByIds(tx, partnerId, rows.flatMap((r) => r.listingIds));
  const byId = new Map(listings.map((l) => [l.id, l]));
  const users = await usersByPks(tx, [...rows.flatMap((r) => (r.buyerPk ? [r.buyerPk] : [])), ...listings.map((l) => l.sellerPk)]);
  const { byListing } = await ticketsOfListings(tx, listings.map((l) => l.id));
  const shows = await showLabels(tx, rows.map((r) => r.showPk));
  const paying = payingOf(await deps.payments.ofIntentions(tx, rows.filter((r) => r.state === 'PAID').map((r) => r.id)));
  return rows.map((r) => {
    const held = r.listingIds.map((id) => byId.get(id)).filter((l): l is ListingRow => l !== undefined);
    return {
      id: r.id,
      state: r.state,
      createdAt: r.createdAt,
      paidAt: r.paidAt,
      expiresAt: r.expiresAt,
      totalMinor: r.totalMinor,
      currency: r.currency,
      buyer: r.buyerPk ? userLabel(users.get(r.buyerPk)) : null,
      sellers: [...new Set(held.map((l) => userLabel(users.get(l.sellerPk)) ?? l.sellerPk))],
      tickets: held.flatMap((l) => byListing.get(l.id) ?? []),
      where: shows.get(r.showPk) ?? null,
      payment: paying.get(r.id)?.state ?? null,
    };
  });
}

/** The listings of a page with their sellers, tickets, show and order. */
async function listingItems(tx: Tx, partnerId: string, rows: readonly ListingRow[]): Promise<ListingItem[]> {
  const users = await usersByPks(tx, rows.map((l) => l.sellerPk));
  const { byListing } = await ticketsOfListings(tx, rows.map((l) => l.id));
  const shows = await showLabels(tx, rows.map((l) => l.showPk));
  // A sold listing no longer names its order: the paid order that holds it does.
  const sold = rows.filter((l) => l.state === 'SOLD').map((l) => l.id);
  const orders = sold.length === 0 ? [] : await searchIntentions(tx, partnerId, ['PAID'], { ids: [], buyerPks: [], listingIds: sold }, { limit: sold.length, offset: 0 });
  const orderOf = new Map(orders.flatMap((o) => o.listingIds.map((id) => [id, o.id] as const)));
  return rows.map((l) => ({
    id: l.id,
    state: l.state,
    createdAt: l.createdAt,
    seller: userLabel(users.get(l.sellerPk)) ?? l.sellerPk,
    tickets: byListing.get(l.id) ?? [],
    where: shows.get(l.showPk) ?? null,
    quantity: l.quantity,
    unitMinor: l.priceMinor + l.buyerFeeMinor,
    currency: l.currency,
    orderId: l.intentionId ?? orderOf.get(l.id) ?? null,
  }));
}

/** A page of the partner's sales of `query.kind`, newest first, matching `query.q` (empty: all). */
export async function loadSalesPage(deps: Pick<AppDeps, 'db' | 'payments'>, partnerId: string, query: SalesQuery): Promise<SalesPageModel> {
  return await deps.db.read(
    async (tx) => {
      const page = { limit: SALES_PAGE_SIZE + 1, offset: (query.page - 1) * SALES_PAGE_SIZE };
      const term = query.q ? await termOf(tx, partnerId, query.q) : null;
      if (query.kind === 'listings') {
        const rows = await searchListings(tx, partnerId, term ? await listingMatch(tx, partnerId, term) : null, page);
        return { query, orders: [], listings: await listingItems(tx, partnerId, rows.slice(0, SALES_PAGE_SIZE)), hasNext: rows.length > SALES_PAGE_SIZE };
      }
      const states: IntentionState[] = query.kind === 'holds' ? ['PENDING'] : ['PAID'];
      const rows = await searchIntentions(tx, partnerId, states, term ? await orderMatch(tx, partnerId, term) : null, page);
      return { query, orders: await orderItems(deps, tx, partnerId, rows.slice(0, SALES_PAGE_SIZE)), listings: [], hasNext: rows.length > SALES_PAGE_SIZE };
    },
    { snapshot: true },
  );
}

/** A payment as the order's page shows it. */
export interface PaymentView {
  id: string;
  state: PaymentState;
  provider: string;
  providerRef: string;
  method: string | null;
  cardLast4: string | null;
  amountMinor: number;
  currency: string;
  failureCode: string | null;
}

/** One thing that happened to an order, at its time (`at`, clock ms). */
export type TimelineEntry = { at: number } & (
  | { kind: 'listed'; listingId: string; seller: string; quantity: number; unitMinor: number; currency: string }
  | { kind: 'reserved'; buyer: string | null; expiresAt: number }
  | { kind: 'attempt'; payment: PaymentView }
  | { kind: 'paid'; payment: PaymentView | null; totalMinor: number; currency: string }
  | { kind: 'journal'; journalId: string; journalKind: string; amountMinor: number; currency: string; providerRef: string | null }
  | { kind: 'webhookQueued' | 'webhookDelivered'; messageId: string; action: string; state: string; attempts: number }
  | { kind: 'payoutScheduled'; payoutId: string; seller: string; amountMinor: number; currency: string; dueAt: number }
  | { kind: 'payoutDelivered'; payoutId: string; transferRef: string | null }
  | { kind: 'payoutCancelled'; payoutId: string }
  | { kind: 'refunded'; payment: PaymentView }
  | { kind: 'ended'; state: IntentionState; reason: string | null }
);

/** A ticket of the order, with its seat, seller and listing. */
export interface OrderTicket {
  ticketId: string;
  section: string | null;
  row: string | null;
  seat: string | null;
  seller: string;
  listingId: string;
  /** What the buyer paid for it (price and buyer fee). */
  unitMinor: number;
  currency: string;
}

/** An order's page. */
export interface OrderPageModel {
  order: OrderItem;
  tickets: OrderTicket[];
  payment: PaymentView | null;
  timeline: TimelineEntry[];
  /** Why a refund would be refused (null: it can be refunded). */
  refusal: RefundRefusal | null;
  /** The person may refund (operators only). */
  mayRefund: boolean;
}

function paymentView(p: PaymentRow): PaymentView {
  return { id: p.id, state: p.state, provider: p.provider, providerRef: p.providerRef, method: p.method, cardLast4: p.cardLast4, amountMinor: p.amountMinor, currency: p.currency, failureCode: p.failureCode };
}

/** The order of entries of one instant: as the flows write them. */
const KIND_ORDER: readonly TimelineEntry['kind'][] = ['listed', 'reserved', 'attempt', 'paid', 'journal', 'payoutScheduled', 'payoutDelivered', 'payoutCancelled', 'refunded', 'webhookQueued', 'webhookDelivered', 'ended'];

/**
 * An order of the partner (a buy intention: paid, held, or ended) with its timeline, or null
 * when the person may not read the partner, or the order is unknown or another partner's (one
 * answer for all three).
 */
export async function loadOrderPage(deps: Pick<AppDeps, 'db' | 'payments'>, session: ConsoleSession, partnerId: string, intentionId: string): Promise<OrderPageModel | null> {
  if (!can(session, 'read', partnerId)) return null;
  return await deps.db.read(
    async (tx) => {
      const intention = await intentionById(tx, intentionId.slice(0, 100));
      if (!intention || intention.partnerId !== partnerId) return null;
      const [order] = await orderItems(deps, tx, partnerId, [intention]);
      const listings = await listingsByIds(tx, partnerId, intention.listingIds);
      const ordered = intention.listingIds.map((id) => listings.find((l) => l.id === id)).filter((l): l is ListingRow => l !== undefined);
      const users = await usersByPks(tx, [...(intention.buyerPk ? [intention.buyerPk] : []), ...ordered.map((l) => l.sellerPk)]);
      const sellerOf = (l: ListingRow) => userLabel(users.get(l.sellerPk)) ?? l.sellerPk;
      const { seats, pksByListing } = await ticketsOfListings(tx, ordered.map((l) => l.id));
      const tickets = ordered.flatMap((l) =>
        (pksByListing.get(l.id) ?? []).map((pk) => {
          const seat = seats.get(pk);
          return { ticketId: seat?.ticketId ?? pk, section: seat?.section ?? null, row: seat?.row ?? null, seat: seat?.seat ?? null, seller: sellerOf(l), listingId: l.id, unitMinor: l.priceMinor + l.buyerFeeMinor, currency: l.currency };
        }),
      );
      const payments = await deps.payments.ofIntentions(tx, [intention.id]);
      const paying = intention.state === 'PAID' ? payingOf(payments).get(intention.id) : undefined;
      const payouts = await payoutsOfListings(tx, ordered.map((l) => l.id));
      const journals = await journalsOfIntention(tx, intention.id);
      const messages = await webhookMessagesOfResources(tx, partnerId, [`intention:${intention.id}`, ...payouts.map((p) => `payout:${p.id}`)]);

      const timeline: TimelineEntry[] = [];
      for (const l of ordered) timeline.push({ at: l.createdAt, kind: 'listed', listingId: l.id, seller: sellerOf(l), quantity: l.quantity, unitMinor: l.priceMinor + l.buyerFeeMinor, currency: l.currency });
      timeline.push({ at: intention.createdAt, kind: 'reserved', buyer: order!.buyer, expiresAt: intention.expiresAt });
      for (const p of payments) if (p.id !== paying?.id) timeline.push({ at: p.createdAt, kind: 'attempt', payment: paymentView(p) });
      if (intention.paidAt !== null) timeline.push({ at: intention.paidAt, kind: 'paid', payment: paying ? paymentView(paying) : null, totalMinor: intention.totalMinor, currency: intention.currency });
      for (const j of journals) {
        // A journal's size: what it debits (its lines sum to zero).
        const amountMinor = j.lines.reduce((sum, line) => sum + Math.max(0, Number(line.amountMinor)), 0);
        timeline.push({ at: Number(j.createdAt), kind: 'journal', journalId: j.id, journalKind: j.kind, amountMinor, currency: j.currency, providerRef: j.providerRef });
      }
      for (const m of messages) {
        timeline.push({ at: m.createdAt, kind: 'webhookQueued', messageId: m.id, action: m.action, state: m.state, attempts: m.attempts });
        if (m.deliveredAt !== null) timeline.push({ at: m.deliveredAt, kind: 'webhookDelivered', messageId: m.id, action: m.action, state: m.state, attempts: m.attempts });
      }
      for (const p of payouts) {
        const listing = ordered.find((l) => l.id === p.listingId);
        timeline.push({ at: p.createdAt, kind: 'payoutScheduled', payoutId: p.id, seller: listing ? sellerOf(listing) : p.sellerPk, amountMinor: p.amountMinor, currency: p.currency, dueAt: p.dueAt });
        if (p.deliveredAt !== null) timeline.push({ at: p.deliveredAt, kind: 'payoutDelivered', payoutId: p.id, transferRef: p.transferRef });
        if (p.cancelledAt !== null) timeline.push({ at: p.cancelledAt, kind: 'payoutCancelled', payoutId: p.id });
      }
      for (const p of payments) if (p.refundedAt !== null) timeline.push({ at: p.refundedAt, kind: 'refunded', payment: paymentView(p) });
      if (intention.endedAt !== null && intention.state !== 'PAID') timeline.push({ at: intention.endedAt, kind: 'ended', state: intention.state, reason: intention.endReason });
      timeline.sort((a, b) => a.at - b.at || KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind));

      return {
        order: order!,
        tickets,
        payment: paying ? paymentView(paying) : null,
        timeline,
        refusal: refundRefusal(intention, paying),
        mayRefund: session.user.operator,
      };
    },
    { snapshot: true },
  );
}
