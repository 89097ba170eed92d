import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { AppDeps } from '../../context.js';
import type { Tx } from '../../db/client.js';
import { toIso } from '../../lib/clock.js';
import { ApiError } from '../../lib/errors.js';
import { feesWithOverride, priceBreakdown, type PriceBreakdown } from '../../lib/fees.js';
import { newId } from '../../lib/ids.js';
import { toMajor } from '../../lib/money.js';
import { isResaleOpen } from '../events/events.model.js';
import { combinations, events, priceTypes, shows, ticketOptions } from '../events/events.table.js';
import type { PartnerRow } from '../partners/partners.service.js';
import { partners } from '../partners/partners.table.js';
import type { EffectiveRules } from '../rules/rules.service.js';
import { tickets } from '../tickets/tickets.table.js';
import { userToApi } from '../users/users.service.js';
import { users } from '../users/users.table.js';
import { priceLimits, settlePrice, type PriceLimits } from './listings.pricing.js';
import { listings, listingTickets, type ListingState } from './listings.table.js';

export type ListingRow = typeof listings.$inferSelect;
type TicketRow = typeof tickets.$inferSelect;

/** States in which a listing holds its tickets. */
export const LIVE_LISTING_STATES: readonly ListingState[] = ['ACTIVE', 'RESERVED'];

/** Why a ticket cannot be listed (the access layer's NOT_SELLABLE), or null. */
export type NotSellableReason = 'not_valid' | 'resale_closed' | 'show_started' | 'max_sell_reached';

/** What a seller sees before publishing: the rules' limits and the fee breakdown. */
export interface SellQuote {
  currency: string;
  limits: PriceLimits;
  /** The breakdown at the given (or fixed) price; null while no price is known. */
  breakdown: PriceBreakdown | null;
  /** How many more tickets the seller may list for this show under maxSell; null = no limit. */
  remainingAllowance: number | null;
}

interface Scope {
  ticket: TicketRow;
  show: typeof shows.$inferSelect;
  event: typeof events.$inferSelect;
  option: typeof ticketOptions.$inferSelect;
  partner: PartnerRow;
  rules: EffectiveRules;
  originalMinor: number | null;
}

/**
 * Listings under the partner's rules. Ticket moves: VALID → LISTED when listed (a
 * conditional update, so a ticket is never in two live listings), LISTED → VALID when the
 * listing ends, LISTED → SOLD by the buy side. No HTTP here.
 */
export class ListingsService {
  constructor(private readonly deps: Pick<AppDeps, 'db' | 'clock' | 'bus' | 'rules' | 'webhooks' | 'messages' | 'config' | 'logger'>) {
    deps.bus.on('ticket.invalidated', (tx, e) => this.endForTicket(tx, e.ticketPk, e.reason));
  }

  /** Null when the ticket may be listed now by its owner, else why not. */
  notSellable(tx: Tx, ticket: TicketRow): NotSellableReason | null {
    const s = this.scope(tx, ticket);
    return this.check(tx, s, 1);
  }

  /** Limits and fees for a price (minor units) of the seller's ticket(s). */
  quote(tx: Tx, ticket: TicketRow, askedMinor: number | null): SellQuote {
    const s = this.scope(tx, ticket);
    const limits = priceLimits(s.rules, s.originalMinor);
    const price = limits.fixedMinor ?? askedMinor;
    const max = s.rules.maxSell?.rules.maxTickets;
    return {
      currency: s.option.currency,
      limits,
      breakdown: price === null ? null : priceBreakdown(price, this.fees(s)),
      remainingAllowance: max === undefined ? null : Math.max(0, max - this.heldBySeller(tx, s)),
    };
  }

  /**
   * Lists one ticket, or the tickets of one order as a pack, for `priceMinor` per ticket.
   * Every ticket must belong to the seller, be VALID, and share show, option and price type
   * (and order, for a pack). Refusals are 400 (price, rules) or 409 (state).
   */
  create(tx: Tx, partnerId: string, input: { sellerPk: string; ticketPks: readonly string[]; priceMinor: number | null }): ListingRow {
    const rows = input.ticketPks.length ? tx.select().from(tickets).where(and(eq(tickets.partnerId, partnerId), inArray(tickets.id, [...input.ticketPks]))).all() : [];
    if (rows.length === 0 || rows.length !== new Set(input.ticketPks).size) throw ApiError.notFound('ticket');
    const first = rows[0]!;
    for (const t of rows) {
      if (t.ownerPk !== input.sellerPk) throw ApiError.notFound('ticket', t.ticketId);
      if (t.showPk !== first.showPk || t.ticketOptionPk !== first.ticketOptionPk || t.priceTypePk !== first.priceTypePk) {
        throw ApiError.field('invalid_value', 'tickets', 'The tickets of one listing must share show, ticket option and price type');
      }
      if (rows.length > 1 && (!t.orderId || t.orderId !== first.orderId)) throw ApiError.field('invalid_value', 'tickets', 'Several tickets are listed together only as the tickets of one order');
    }
    const s = this.scope(tx, first);
    const refusal = this.check(tx, s, rows.length);
    if (refusal === 'not_valid' || rows.some((t) => t.state !== 'VALID')) throw ApiError.conflict('A ticket of this listing cannot be listed now (already listed, sold, used or cancelled)');
    if (refusal === 'resale_closed') throw ApiError.conflict('Resale is closed for this show');
    if (refusal === 'show_started') throw ApiError.conflict('The show has started: its tickets can no longer be listed');
    if (refusal === 'max_sell_reached') throw ApiError.field('out_of_range', 'tickets', `At most ${s.rules.maxSell!.rules.maxTickets} tickets per seller may be listed or sold for this show`);
    const price = settlePrice(input.priceMinor, priceLimits(s.rules, s.originalMinor), s.option.currency);
    const b = priceBreakdown(price, this.fees(s));
    if (b.payoutMinor <= 0) throw ApiError.field('out_of_range', 'price', 'The price must be more than the seller fee');

    // Reserve the tickets: VALID -> LISTED in one conditional statement, then count.
    const moved = tx
      .update(tickets)
      .set({ state: 'LISTED', updatedAt: this.deps.clock.now() })
      .where(and(inArray(tickets.id, rows.map((t) => t.id)), eq(tickets.state, 'VALID')))
      .run();
    if (moved.changes !== rows.length) throw ApiError.conflict('A ticket of this listing was listed or changed meanwhile');
    const now = this.deps.clock.now();
    const listing = tx
      .insert(listings)
      .values({
        id: newId('listing'),
        partnerId,
        eventPk: s.event.id,
        showPk: s.show.id,
        ticketOptionPk: s.option.id,
        priceTypePk: first.priceTypePk,
        sellerPk: input.sellerPk,
        orderId: rows.length > 1 ? first.orderId : null,
        quantity: rows.length,
        state: 'ACTIVE',
        currency: s.option.currency,
        priceMinor: b.priceMinor,
        buyerFeeMinor: b.buyerFeeMinor,
        sellerFeeMinor: b.sellerFeeMinor,
        payoutMinor: b.payoutMinor,
        intentionId: null,
        endReason: null,
        soldAt: null,
        endedAt: null,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    tx.insert(listingTickets).values(rows.map((t) => ({ listingId: listing.id, ticketPk: t.id }))).run();
    this.notify(tx, listing, 'listing.created');
    return listing;
  }

  /** Changes the price of an ACTIVE listing, within the rules. */
  updatePrice(tx: Tx, partnerId: string, listingId: string, sellerPk: string, priceMinor: number): ListingRow {
    const listing = this.get(tx, partnerId, listingId);
    if (listing.sellerPk !== sellerPk) throw ApiError.notFound('listing', listingId);
    if (listing.state !== 'ACTIVE') throw ApiError.conflict(listing.state === 'RESERVED' ? 'A buyer is checking out this listing; try again in a few minutes' : `The listing is ${listing.state}`);
    const s = this.scope(tx, this.ticketsOf(tx, listing.id)[0]!);
    const price = settlePrice(priceMinor, priceLimits(s.rules, s.originalMinor), s.option.currency);
    const b = priceBreakdown(price, this.fees(s));
    if (b.payoutMinor <= 0) throw ApiError.field('out_of_range', 'price', 'The price must be more than the seller fee');
    const updated = tx
      .update(listings)
      .set({ priceMinor: b.priceMinor, buyerFeeMinor: b.buyerFeeMinor, sellerFeeMinor: b.sellerFeeMinor, payoutMinor: b.payoutMinor, updatedAt: this.deps.clock.now() })
      .where(and(eq(listings.id, listing.id), eq(listings.state, 'ACTIVE')))
      .returning()
      .get();
    if (!updated) throw ApiError.conflict('The listing changed meanwhile');
    this.notify(tx, updated, 'listing.updated');
    return updated;
  }

  /**
   * Ends the live listing of a ticket (DELETE /v1/marketplace/items/ticket/:ticketId, or the
   * seller's "remove"). A RESERVED listing is in a buyer's checkout: 409, never pulled.
   */
  terminateByTicket(tx: Tx, partnerId: string, ticketId: string, sellerPk?: string): ListingRow {
    const ticket = tx.select().from(tickets).where(and(eq(tickets.partnerId, partnerId), eq(tickets.ticketId, ticketId))).get();
    if (!ticket) throw ApiError.notFound('ticket', ticketId);
    const listing = this.liveListingOf(tx, ticket.id);
    if (!listing || (sellerPk !== undefined && listing.sellerPk !== sellerPk)) throw ApiError.notFound('active listing of ticket', ticketId);
    return this.end(tx, listing, 'TERMINATED', 'seller', true);
  }

  /**
   * POST /v1/delist: ends every live listing of the show, ticket option or combination and
   * e-mails their sellers. A listing in a buyer's checkout is delisted too: that checkout ends
   * (`endReason` `delisted`, the buyer is told at checkout, nothing is charged; a payment that
   * lands afterwards is refunded), so an organiser's decision never waits on a hold.
   */
  delist(tx: Tx, partnerId: string, scope: { externalReferenceEventId: string; showId: string; ticketOptionId?: string | undefined; priceTypeId?: string | undefined }) {
    const event = tx.select().from(events).where(and(eq(events.partnerId, partnerId), eq(events.externalReferenceId, scope.externalReferenceEventId))).get();
    if (!event) throw ApiError.notFound('event', scope.externalReferenceEventId);
    const show = tx.select().from(shows).where(and(eq(shows.eventPk, event.id), eq(shows.showId, scope.showId))).get();
    if (!show) throw ApiError.notFound('show', scope.showId);
    const conditions = [eq(listings.showPk, show.id), inArray(listings.state, [...LIVE_LISTING_STATES])];
    if (scope.priceTypeId !== undefined && scope.ticketOptionId === undefined) throw ApiError.field('missing_field', 'ticketOptionId', 'ticketOptionId is required with priceTypeId');
    if (scope.ticketOptionId !== undefined) {
      const option = tx.select().from(ticketOptions).where(and(eq(ticketOptions.showPk, show.id), eq(ticketOptions.ticketId, scope.ticketOptionId))).get();
      if (!option) throw ApiError.notFound('ticket option', scope.ticketOptionId);
      conditions.push(eq(listings.ticketOptionPk, option.id));
    }
    if (scope.priceTypeId !== undefined) {
      const pt = tx.select().from(priceTypes).where(and(eq(priceTypes.showPk, show.id), eq(priceTypes.priceTypeId, scope.priceTypeId))).get();
      if (!pt) throw ApiError.notFound('price type', scope.priceTypeId);
      conditions.push(eq(listings.priceTypePk, pt.id));
    }
    const live = tx.select().from(listings).where(and(...conditions)).all();
    for (const listing of live) {
      this.end(tx, listing, 'DELISTED', 'organiser', true);
      const seller = tx.select().from(users).where(eq(users.id, listing.sellerPk)).get()!;
      const partner = tx.select().from(partners).where(eq(partners.id, partnerId)).get()!;
      this.deps.messages.toUser(tx, partnerId, seller, 'delistNotice', partner.settings.defaultLang, { eventTitle: event.title, showTitle: show.title, reason: null });
    }
    return { delisted: live.length, listingIds: live.map((l) => l.id) };
  }

  /** The live listing of a ticket, else its latest one; 404 when it was never listed. */
  getByTicket(tx: Tx, partnerId: string, ticketId: string, sellerEmail?: string): ListingRow {
    const ticket = tx.select().from(tickets).where(and(eq(tickets.partnerId, partnerId), eq(tickets.ticketId, ticketId))).get();
    if (!ticket) throw ApiError.notFound('ticket', ticketId);
    const listing =
      this.liveListingOf(tx, ticket.id) ??
      tx.select({ l: listings }).from(listings).innerJoin(listingTickets, eq(listingTickets.listingId, listings.id)).where(eq(listingTickets.ticketPk, ticket.id)).orderBy(desc(listings.createdAt)).limit(1).get()?.l;
    if (!listing) throw ApiError.notFound('listing of ticket', ticketId);
    if (sellerEmail !== undefined) {
      const seller = tx.select().from(users).where(eq(users.id, listing.sellerPk)).get();
      if (seller?.email !== sellerEmail.trim().toLowerCase()) throw ApiError.notFound('listing of ticket', ticketId);
    }
    return listing;
  }

  get(tx: Tx, partnerId: string, listingId: string): ListingRow {
    const row = tx.select().from(listings).where(and(eq(listings.partnerId, partnerId), eq(listings.id, listingId))).get();
    if (!row) throw ApiError.notFound('listing', listingId);
    return row;
  }

  /** The live (ACTIVE or RESERVED) listing holding a ticket, if any. */
  liveListingOf(tx: Tx, ticketPk: string): ListingRow | undefined {
    return tx
      .select({ l: listings })
      .from(listings)
      .innerJoin(listingTickets, eq(listingTickets.listingId, listings.id))
      .where(and(eq(listingTickets.ticketPk, ticketPk), inArray(listings.state, [...LIVE_LISTING_STATES])))
      .get()?.l;
  }

  ticketsOf(tx: Tx, listingId: string): TicketRow[] {
    return tx.select({ t: tickets }).from(tickets).innerJoin(listingTickets, eq(listingTickets.ticketPk, tickets.id)).where(eq(listingTickets.listingId, listingId)).all().map((r) => r.t);
  }

  /** The listing as the API answers it. */
  toApi(tx: Tx, l: ListingRow) {
    const ref = tx
      .select({ eventRef: events.externalReferenceId, showId: shows.showId, optionId: ticketOptions.ticketId, seller: users })
      .from(listings)
      .innerJoin(events, eq(events.id, listings.eventPk))
      .innerJoin(shows, eq(shows.id, listings.showPk))
      .innerJoin(ticketOptions, eq(ticketOptions.id, listings.ticketOptionPk))
      .innerJoin(users, eq(users.id, listings.sellerPk))
      .where(eq(listings.id, l.id))
      .get()!;
    const priceTypeId = l.priceTypePk ? (tx.select({ id: priceTypes.priceTypeId }).from(priceTypes).where(eq(priceTypes.id, l.priceTypePk)).get()?.id ?? null) : null;
    const major = (m: number) => toMajor(m, l.currency);
    const q = new URLSearchParams({ showId: ref.showId, listingId: l.id });
    return {
      id: l.id,
      ticketIds: this.ticketsOf(tx, l.id).map((t) => t.ticketId),
      orderId: l.orderId,
      externalReferenceEventId: ref.eventRef,
      showId: ref.showId,
      ticketOptionId: ref.optionId,
      priceTypeId,
      seller: userToApi(ref.seller),
      quantity: l.quantity,
      state: l.state,
      currency: l.currency,
      price: major(l.priceMinor),
      buyerFee: major(l.buyerFeeMinor),
      buyerTotal: major(l.priceMinor + l.buyerFeeMinor),
      sellerFee: major(l.sellerFeeMinor),
      payout: major(l.payoutMinor),
      shareUrl: `${this.deps.config.publicBaseUrl}/market/${encodeURIComponent(l.partnerId)}/${encodeURIComponent(ref.eventRef)}?${q}`,
      endReason: l.endReason,
      createdAt: toIso(l.createdAt),
      updatedAt: toIso(l.updatedAt),
      soldAt: l.soldAt === null ? null : toIso(l.soldAt),
      endedAt: l.endedAt === null ? null : toIso(l.endedAt),
    };
  }

  // ------------------------------------------------------------------ internals

  private scope(tx: Tx, ticket: TicketRow): Scope {
    const r = tx
      .select({ show: shows, event: events, option: ticketOptions, partner: partners })
      .from(shows)
      .innerJoin(events, eq(events.id, shows.eventPk))
      .innerJoin(ticketOptions, eq(ticketOptions.id, ticket.ticketOptionPk))
      .innerJoin(partners, eq(partners.id, shows.partnerId))
      .where(eq(shows.id, ticket.showPk))
      .get()!;
    const combo = ticket.priceTypePk
      ? tx.select().from(combinations).where(and(eq(combinations.ticketOptionPk, ticket.ticketOptionPk), eq(combinations.priceTypePk, ticket.priceTypePk))).get()
      : undefined;
    return { ticket, ...r, rules: this.deps.rules.effective(tx, ticket.showPk, ticket.ticketOptionPk, ticket.priceTypePk), originalMinor: combo?.priceMinor ?? r.option.priceMinor ?? ticket.priceMinor };
  }

  private check(tx: Tx, s: Scope, adding: number): NotSellableReason | null {
    if (s.ticket.state !== 'VALID') return 'not_valid';
    if (!isResaleOpen(s.show)) return 'resale_closed';
    if (this.deps.clock.now() >= s.show.startsAt) return 'show_started';
    const max = s.rules.maxSell?.rules.maxTickets;
    if (max !== undefined && this.heldBySeller(tx, s) + adding > max) return 'max_sell_reached';
    return null;
  }

  /** Tickets the seller has listed or sold in this show within the maxSell rule's scope. */
  private heldBySeller(tx: Tx, s: Scope): number {
    const rule = s.rules.maxSell;
    const conditions = [eq(listings.showPk, s.show.id), eq(listings.sellerPk, s.ticket.ownerPk), inArray(listings.state, ['ACTIVE', 'RESERVED', 'SOLD'])];
    if (rule) conditions.push(eq(listings.ticketOptionPk, s.ticket.ticketOptionPk));
    if (rule?.scope === 'combination' && s.ticket.priceTypePk) conditions.push(eq(listings.priceTypePk, s.ticket.priceTypePk));
    return tx.select({ n: sql<number>`coalesce(sum(${listings.quantity}), 0)` }).from(listings).where(and(...conditions)).get()!.n;
  }

  private fees(s: Scope) {
    return feesWithOverride(s.partner.settings.fees, s.rules.platformFees?.rules);
  }

  /** Ends a listing; `freeTickets` returns its LISTED tickets to VALID. */
  private end(tx: Tx, listing: ListingRow, state: 'TERMINATED' | 'DELISTED', reason: string, freeTickets: boolean): ListingRow {
    if (listing.state === 'RESERVED' && reason === 'seller') throw ApiError.conflict('A buyer is checking out this listing; it cannot be removed now');
    const now = this.deps.clock.now();
    const ended = tx
      .update(listings)
      .set({ state, endReason: reason, endedAt: now, intentionId: null, updatedAt: now })
      .where(and(eq(listings.id, listing.id), eq(listings.state, listing.state)))
      .returning()
      .get();
    if (!ended) throw ApiError.conflict('The listing changed meanwhile');
    if (freeTickets) {
      const ids = this.ticketsOf(tx, listing.id).map((t) => t.id);
      tx.update(tickets).set({ state: 'VALID', updatedAt: now }).where(and(inArray(tickets.id, ids), eq(tickets.state, 'LISTED'))).run();
    }
    this.notify(tx, ended, 'listing.deleted');
    this.deps.bus.emit(tx, 'listing.ended', { partnerId: listing.partnerId, listingId: listing.id, intentionId: listing.intentionId, reason });
    return ended;
  }

  /** A ticket stopped being sellable: its live listing ends, the pack's other tickets are freed. */
  private endForTicket(tx: Tx, ticketPk: string, reason: string): void {
    const listing = this.liveListingOf(tx, ticketPk);
    if (listing) this.end(tx, listing, 'TERMINATED', `ticket_${reason}`, true);
  }

  private notify(tx: Tx, l: ListingRow, action: 'listing.created' | 'listing.updated' | 'listing.deleted'): void {
    const api = this.toApi(tx, l);
    this.deps.webhooks.enqueue(tx, l.partnerId, {
      action,
      resourceKey: `listing:${l.id}`,
      data: {
        listingId: l.id,
        ticketIds: api.ticketIds,
        eventId: api.externalReferenceEventId,
        showId: api.showId,
        ticketOptionId: api.ticketOptionId,
        ...(api.priceTypeId ? { priceTypeId: api.priceTypeId } : {}),
        price: api.price,
        currency: l.currency,
        state: l.state,
      },
    });
  }
}
