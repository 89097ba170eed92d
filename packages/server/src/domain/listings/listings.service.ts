import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { toIso } from '../../lib/clock.js';
import { ApiError } from '../../lib/errors.js';
import { feesWithOverride, priceBreakdown, type FeeSchedule, type PriceBreakdown } from '@resale/shared/fees';
import { newId } from '../../lib/ids.js';
import { toMajor } from '../../lib/money.js';
import { isResaleOpen } from '../events/events.model.js';
import { combinationOf, eventByRef, externalRefs, showWithEvent, ticketOptionByPk, type EventRow, type ShowRow, type TicketOptionRow } from '../events/events.queries.js';
import { partnerOf, type PartnerRow } from '../partners/partners.queries.js';
import type { EffectiveRules } from '../rules/rules.service.js';
import { ticketByRef, ticketRowsByPks, ticketsByPks, type TicketRow } from '../tickets/tickets.queries.js';
import { userToApi } from '../users/users.service.js';
import { userOf, usersByPks } from '../users/users.queries.js';
import { priceCapOf } from '../waitinglist/waitinglist.queries.js';
import { priceLimits, settlePrice, type PriceLimits } from './listings.pricing.js';
import { latestListingOfTicket, listingsByIds, liveListingOfTicket, LIVE_LISTING_STATES, ticketPksOf, ticketWasListed, type ListingRow } from './listings.queries.js';
import { listings, listingTickets, type ListingState } from './listings.table.js';
import type { Kernel } from '../../lib/kernel.js';
import type { EventsService } from '../events/events.service.js';
import type { MessagesService } from '../email/email.service.js';
import type { RulesService } from '../rules/rules.service.js';
import type { TicketsService } from '../tickets/tickets.service.js';
import type { WebhooksService } from '../webhooks/webhooks.service.js';
import { serviceUrl, servicePaths } from '../../lib/urls.js';

export type { ListingRow };
export { LIVE_LISTING_STATES };

/** Why a ticket cannot be listed (the access layer's NOT_SELLABLE), or null. */
export type NotSellableReason = 'not_valid' | 'resale_closed' | 'show_started' | 'max_sell_reached';

/** What a seller sees before publishing: the rules' limits (with the waiting list's face-value cap, if any) and the fee breakdown. */
export interface SellQuote {
  currency: string;
  /** `limits.cap` says when fans are waiting and the price is capped at face value. */
  limits: PriceLimits;
  /** The breakdown at the given (or fixed) price; null while no price is known. */
  breakdown: PriceBreakdown | null;
  /** How many more tickets the seller may list for this show under maxSell; null = no limit. */
  remainingAllowance: number | null;
  /** The fees that apply (the partner's, or a platformFees rule's): the sell page calculates live with them. */
  fees: FeeSchedule;
}

/** Where a listing sells: what its price rules and fees depend on. */
export interface ListingScope {
  partnerId: string;
  showPk: string;
  ticketOptionPk: string;
  priceTypePk: string | null;
}

/** A new listing, its tickets already LISTED by their owner module (see `open`). */
export interface ListingDraft extends ListingScope {
  /** Set by callers that need the id before the listing exists (a channel names its tickets after it). */
  id?: string;
  eventPk: string;
  sellerPk: string;
  orderId: string | null;
  ticketPks: readonly string[];
  currency: string;
  price: PriceBreakdown;
}

/** The states a listing ends in (off the market without a sale). */
export type EndedState = Extract<ListingState, 'TERMINATED' | 'DELISTED'>;

interface Scope {
  ticket: TicketRow;
  show: ShowRow;
  event: EventRow;
  option: TicketOptionRow;
  partner: PartnerRow;
  rules: EffectiveRules;
  originalMinor: number | null;
}

type Deps = Pick<Kernel, 'db' | 'clock' | 'bus' | 'config' | 'logger'> & { events: EventsService; rules: RulesService; webhooks: WebhooksService; messages: MessagesService; tickets: TicketsService };

/** The refusal of a pick of which a listing is no longer ACTIVE (taken by another checkout, sold or ended): 409 `listing_unavailable`. */
export function listingUnavailable(): ApiError {
  return ApiError.conflict('One or more of these tickets are no longer available', undefined, 'listing_unavailable');
}

/**
 * Listings under the partner's rules: the whole lifecycle of a listing, the partner's own and a
 * channel's alike. Every change of a listing row goes through `transition` (one conditional
 * UPDATE whose rows are the ones that changed), which tells the partner: `listing.updated` on
 * every change with the state after it, `listing.deleted` too when the listing leaves the
 * market without a sale, and the `listing.ended` domain event.
 *
 * States: ACTIVE (on sale) → RESERVED (`reserve`, one live buy intention holds it) → ACTIVE
 * (`release`) or SOLD (`markSold`); ACTIVE or RESERVED → TERMINATED / DELISTED (`end`). Its
 * tickets move through the tickets module: VALID → LISTED when listed (conditional, so a
 * ticket is never in two live listings), LISTED → VALID when the listing ends unsold, to the
 * buyer on a sale (flows/complete-purchase.ts). No HTTP here.
 */
export class ListingsService {
  constructor(private readonly deps: Deps) {}

  /** Null when the ticket may be listed now by its owner, else why not. */
  async notSellable(tx: Tx, ticket: TicketRow): Promise<NotSellableReason | null> {
    const s = await this.scope(tx, ticket);
    return await this.check(tx, s, 1);
  }

  /** Limits and fees for a price (minor units) of the seller's ticket(s). */
  async quote(tx: Tx, ticket: TicketRow, askedMinor: number | null): Promise<SellQuote> {
    const s = await this.scope(tx, ticket);
    const limits = await this.limitsOf(tx, s);
    const price = limits.fixedMinor ?? askedMinor;
    const max = s.rules.maxSell?.rules.maxTickets;
    const fees = this.fees(s.partner, s.rules);
    return {
      currency: s.option.currency,
      limits,
      fees,
      breakdown: price === null ? null : priceBreakdown(price, fees),
      remainingAllowance: max === undefined ? null : Math.max(0, max - (await this.heldBySeller(tx, s))),
    };
  }

  /**
   * The price of a listing in `scope` settled under the rules of its option or combination
   * (minimum, maximum, fixed price), capped at face value while the show's waiting list holds
   * fans for the option (FACE_VALUE), and its fee breakdown (the partner's fees, or a
   * platformFees rule). The one price assembly of every listing, the partner's and a channel's
   * (a reprice too).
   * @throws 400 naming `price` (reason `price_rejected`)
   */
  async price(tx: Tx, scope: ListingScope, askedMinor: number | null): Promise<PriceBreakdown> {
    const option = (await ticketOptionByPk(tx, scope.ticketOptionPk))!;
    const rules = await this.deps.rules.effective(tx, scope.showPk, scope.ticketOptionPk, scope.priceTypePk);
    const original = (await combinationOf(tx, scope.ticketOptionPk, scope.priceTypePk))?.priceMinor ?? option.priceMinor;
    const limits = priceLimits(rules, original, await priceCapOf(tx, scope.showPk, scope.ticketOptionPk));
    return this.settle(await partnerOf(tx, scope.partnerId), rules, limits, askedMinor, option.currency);
  }

  /**
   * Lists one ticket, or the tickets of one order as a pack, for `priceMinor` per ticket.
   * Every ticket must belong to the seller, be VALID, and share show, option and price type
   * (and order, for a pack). Refusals are 400 (price, rules) or 409 (state).
   */
  async create(tx: Tx, partnerId: string, input: { sellerPk: string; ticketPks: readonly string[]; priceMinor: number | null }): Promise<ListingRow> {
    const rows = await ticketsByPks(tx, partnerId, input.ticketPks);
    if (rows.length === 0 || rows.length !== new Set(input.ticketPks).size) throw ApiError.notFound('ticket');
    const first = rows[0]!;
    for (const t of rows) {
      if (t.ownerPk !== input.sellerPk) throw ApiError.notFound('ticket', t.ticketId);
      if (t.showPk !== first.showPk || t.ticketOptionPk !== first.ticketOptionPk || t.priceTypePk !== first.priceTypePk) {
        throw ApiError.field('invalid_value', 'tickets', 'The tickets of one listing must share show, ticket option and price type');
      }
      if (rows.length > 1 && (!t.orderId || t.orderId !== first.orderId)) throw ApiError.field('invalid_value', 'tickets', 'Several tickets are listed together only as the tickets of one order');
    }
    const s = await this.scope(tx, first);
    const refusal = await this.check(tx, s, rows.length);
    if (refusal === 'not_valid' || rows.some((t) => t.state !== 'VALID')) throw ApiError.conflict('A ticket of this listing cannot be listed now (already listed, sold, used or cancelled)', undefined, 'ticket_not_listable');
    if (refusal === 'resale_closed') throw ApiError.conflict('Resale is closed for this show', undefined, 'resale_closed');
    if (refusal === 'show_started') throw ApiError.conflict('The show has started: its tickets can no longer be listed', undefined, 'show_started');
    if (refusal === 'max_sell_reached') throw ApiError.field('out_of_range', 'tickets', `At most ${s.rules.maxSell!.rules.maxTickets} tickets per seller may be listed or sold for this show`, 'body', 'max_sell_reached');
    const price = this.settle(s.partner, s.rules, await this.limitsOf(tx, s), input.priceMinor, s.option.currency);
    // The tickets first: VALID -> LISTED in one conditional statement, all or none.
    if (!(await this.deps.tickets.markListed(tx, rows.map((t) => t.id)))) throw ApiError.conflict('A ticket of this listing was listed or changed meanwhile', undefined, 'changed_meanwhile');
    return await this.open(tx, {
      partnerId,
      eventPk: s.event.id,
      showPk: s.show.id,
      ticketOptionPk: s.option.id,
      priceTypePk: first.priceTypePk,
      sellerPk: input.sellerPk,
      orderId: rows.length > 1 ? first.orderId : null,
      ticketPks: rows.map((t) => t.id),
      currency: s.option.currency,
      price,
    });
  }

  /**
   * Puts a listing on the market (ACTIVE) whose tickets are already LISTED by the tickets
   * module, and tells the partner (`listing.created`). Used by `create` and by the channel
   * flow (flows/publish-channel-listing.ts).
   *
   * `listing.available` (cause `new`) is raised first, in this transaction: the show's waiting
   * list may offer the listing to a fan at once (it is then RESERVED before anyone could see it
   * on sale). The partner is told after, with the state read back, so a listing offered at birth
   * is announced once, as RESERVED (the offer's reservation stays quiet about it), and the row
   * returned is the listing as it stands.
   */
  async open(tx: Tx, draft: ListingDraft): Promise<ListingRow> {
    const now = this.deps.clock.now();
    const listing = (await tx
      .insert(listings)
      .values({
        id: draft.id ?? newId('listing'),
        partnerId: draft.partnerId,
        eventPk: draft.eventPk,
        showPk: draft.showPk,
        ticketOptionPk: draft.ticketOptionPk,
        priceTypePk: draft.priceTypePk,
        sellerPk: draft.sellerPk,
        orderId: draft.orderId,
        quantity: draft.ticketPks.length,
        state: 'ACTIVE',
        currency: draft.currency,
        priceMinor: draft.price.priceMinor,
        buyerFeeMinor: draft.price.buyerFeeMinor,
        sellerFeeMinor: draft.price.sellerFeeMinor,
        payoutMinor: draft.price.payoutMinor,
        intentionId: null,
        endReason: null,
        soldAt: null,
        endedAt: null,
        createdAt: now,
        updatedAt: now,
      })
      .returning())[0]!;
    await tx.insert(listingTickets).values(draft.ticketPks.map((ticketPk) => ({ listingId: listing.id, ticketPk })));
    await this.deps.bus.emit(tx, 'listing.available', { partnerId: listing.partnerId, showPk: listing.showPk, listingIds: [listing.id], cause: 'new' });
    const current = (await listingsByIds(tx, listing.partnerId, [listing.id]))[0] ?? listing;
    await this.notify(tx, current, 'listing.created');
    return current;
  }

  /** The seller changes the price of their ACTIVE listing, within the rules. */
  async updatePrice(tx: Tx, partnerId: string, listingId: string, sellerPk: string, priceMinor: number): Promise<ListingRow> {
    const listing = await this.get(tx, partnerId, listingId);
    if (listing.sellerPk !== sellerPk) throw ApiError.notFound('listing', listingId);
    return await this.reprice(tx, listing, priceMinor);
  }

  /**
   * Reprices an ACTIVE listing within the rules (`listing.updated`).
   * @throws 409 reserved (`listing_reserved`) or no longer on sale; 400 price
   */
  async reprice(tx: Tx, listing: ListingRow, priceMinor: number): Promise<ListingRow> {
    if (listing.state === 'RESERVED') throw ApiError.conflict('A buyer is checking out this listing; try again in a few minutes', undefined, 'listing_reserved');
    if (listing.state !== 'ACTIVE') throw ApiError.conflict(`The listing is ${listing.state}`, undefined, 'listing_unavailable');
    const b = await this.price(tx, listing, priceMinor);
    const [updated] = await this.transition(tx, and(eq(listings.id, listing.id), eq(listings.state, 'ACTIVE'))!, {
      priceMinor: b.priceMinor,
      buyerFeeMinor: b.buyerFeeMinor,
      sellerFeeMinor: b.sellerFeeMinor,
      payoutMinor: b.payoutMinor,
    });
    if (!updated) throw ApiError.conflict('The listing changed meanwhile', undefined, 'changed_meanwhile');
    return updated;
  }

  /**
   * ACTIVE → RESERVED for exactly `listingIds`, held by `intentionId`: ONE conditional
   * statement whose row count is checked, so under any concurrency a listing is held by at
   * most one intention and never sold twice. The caller's transaction rolls back when short.
   *
   * @param opts.unannounced listings being published in this very transaction (an offer made
   *   from `listing.available` cause `new`): no `listing.updated` for them, `open` announces them
   *   once, RESERVED, with `listing.created`
   * @throws 409 `listing_unavailable`
   */
  async reserve(tx: Tx, partnerId: string, listingIds: readonly string[], intentionId: string, opts: { unannounced?: readonly string[] } = {}): Promise<ListingRow[]> {
    const held = await this.transition(tx, and(eq(listings.partnerId, partnerId), inArray(listings.id, [...listingIds]), eq(listings.state, 'ACTIVE'))!, { state: 'RESERVED', intentionId }, new Set(opts.unannounced ?? []));
    if (held.length !== listingIds.length) throw listingUnavailable();
    return held;
  }

  /**
   * RESERVED by `intentionId` → ACTIVE: the checkout ended without a sale. Answers the rows on
   * sale afterwards: a listing the waiting list held again for its next fan (`listing.available`)
   * is not among them.
   */
  async release(tx: Tx, intentionId: string): Promise<ListingRow[]> {
    return await this.transition(tx, and(eq(listings.intentionId, intentionId), eq(listings.state, 'RESERVED'))!, { state: 'ACTIVE', intentionId: null });
  }

  /** RESERVED by `intentionId` → SOLD: the checkout was paid (flows/complete-purchase.ts). */
  async markSold(tx: Tx, intentionId: string): Promise<ListingRow[]> {
    return await this.transition(tx, and(eq(listings.intentionId, intentionId), eq(listings.state, 'RESERVED'))!, { state: 'SOLD', soldAt: this.deps.clock.now(), intentionId: null });
  }

  /**
   * Ends the live listing of a ticket (DELETE /v1/marketplace/items/ticket/:ticketId, or the
   * seller's "remove"). A RESERVED listing is in a buyer's checkout: 409, never pulled.
   */
  async terminateByTicket(tx: Tx, partnerId: string, ticketId: string, sellerPk?: string): Promise<ListingRow> {
    const ticket = await ticketByRef(tx, partnerId, ticketId);
    if (!ticket) throw ApiError.notFound('ticket', ticketId);
    const listing = await liveListingOfTicket(tx, ticket.id);
    if (!listing || (sellerPk !== undefined && listing.sellerPk !== sellerPk)) throw ApiError.notFound('active listing of ticket', ticketId);
    if (listing.state === 'RESERVED') throw ApiError.conflict('A buyer is checking out this listing; it cannot be removed now', undefined, 'listing_reserved');
    return await this.end(tx, listing, 'TERMINATED', 'seller');
  }

  /**
   * POST /v1/delist: ends every live listing of the show, ticket option or combination and
   * e-mails their sellers. A listing in a buyer's checkout is delisted too: that checkout ends
   * (`endReason` `delisted`, the buyer is told at checkout, nothing is charged; a payment that
   * lands afterwards is refunded), so an organiser's decision never waits on a hold.
   */
  async delist(tx: Tx, partnerId: string, scope: { externalReferenceEventId: string; showId: string; ticketOptionId?: string | undefined; priceTypeId?: string | undefined }) {
    const event = await eventByRef(tx, partnerId, scope.externalReferenceEventId);
    if (!event) throw ApiError.notFound('event', scope.externalReferenceEventId);
    const { show } = await this.deps.events.findShow(tx, partnerId, scope.externalReferenceEventId, scope.showId);
    const conditions: SQL[] = [eq(listings.showPk, show.id), inArray(listings.state, [...LIVE_LISTING_STATES])];
    if (scope.priceTypeId !== undefined && scope.ticketOptionId === undefined) throw ApiError.field('missing_field', 'ticketOptionId', 'ticketOptionId is required with priceTypeId');
    if (scope.ticketOptionId !== undefined) conditions.push(eq(listings.ticketOptionPk, (await this.deps.events.findTicketOption(tx, show.id, scope.ticketOptionId)).id));
    if (scope.priceTypeId !== undefined) conditions.push(eq(listings.priceTypePk, (await this.deps.events.findPriceType(tx, show.id, scope.priceTypeId)).id));
    // All in one statement, before any reaction runs: ending a listing ends the checkout that
    // held it, which releases its other listings; one by one, a sibling of the scope would be
    // put back on sale (and offered to the waiting list) before its own turn came.
    const ended = await this.transition(tx, and(...conditions)!, { state: 'DELISTED', endReason: 'organiser', endedAt: this.deps.clock.now(), intentionId: null });
    const lang = (await partnerOf(tx, partnerId)).settings.defaultLang;
    const sellers = await usersByPks(tx, ended.map((l) => l.sellerPk));
    for (const listing of ended) await this.deps.messages.toUser(tx, partnerId, sellers.get(listing.sellerPk)!, 'delistNotice', lang, { eventTitle: event.title, showTitle: show.title, reason: null });
    return { delisted: ended.length, listingIds: ended.map((l) => l.id) };
  }

  /**
   * Ends a live listing (ACTIVE or RESERVED) without a sale: its tickets still LISTED go back
   * to VALID, the partner hears `listing.updated` and `listing.deleted`, and `listing.ended`
   * ends a checkout that held it. `reason` is its `endReason` (`seller`, `organiser`,
   * `channel_withdrawn`, `ticket_<why>`).
   * @throws 409 `changed_meanwhile` when it is not in the state read any more
   */
  async end(tx: Tx, listing: ListingRow, state: EndedState, reason: string): Promise<ListingRow> {
    const now = this.deps.clock.now();
    const [ended] = await this.transition(tx, and(eq(listings.id, listing.id), eq(listings.state, listing.state))!, { state, endReason: reason, endedAt: now, intentionId: null });
    if (!ended) throw ApiError.conflict('The listing changed meanwhile', undefined, 'changed_meanwhile');
    return ended;
  }

  /** The live listing of a ticket, else its latest one; 404 when it was never listed. */
  async getByTicket(tx: Tx, partnerId: string, ticketId: string, sellerEmail?: string): Promise<ListingRow> {
    const ticket = await ticketByRef(tx, partnerId, ticketId);
    if (!ticket) throw ApiError.notFound('ticket', ticketId);
    const listing = await latestListingOfTicket(tx, ticket.id);
    if (!listing) throw ApiError.notFound('listing of ticket', ticketId);
    if (sellerEmail !== undefined && (await userOf(tx, listing.sellerPk)).email !== sellerEmail.trim().toLowerCase()) throw ApiError.notFound('listing of ticket', ticketId);
    return listing;
  }

  async get(tx: Tx, partnerId: string, listingId: string): Promise<ListingRow> {
    const row = (await tx.select().from(listings).where(and(eq(listings.partnerId, partnerId), eq(listings.id, listingId))).limit(1))[0];
    if (!row) throw ApiError.notFound('listing', listingId);
    return row;
  }

  /** The live (ACTIVE or RESERVED) listing holding a ticket, if any. */
  async liveListingOf(tx: Tx, ticketPk: string): Promise<ListingRow | undefined> {
    return await liveListingOfTicket(tx, ticketPk);
  }

  /** The tickets of a listing. */
  async ticketsOf(tx: Tx, listingId: string): Promise<TicketRow[]> {
    return await ticketRowsByPks(tx, await ticketPksOf(tx, listingId));
  }

  /** The listing as the API answers it. */
  async toApi(tx: Tx, l: ListingRow) {
    const ref = await externalRefs(tx, l);
    const major = (m: number) => toMajor(m, l.currency);
    const q = new URLSearchParams({ showId: ref.showId, listingId: l.id });
    return {
      id: l.id,
      ticketIds: await this.ticketIdsOf(tx, l),
      orderId: l.orderId,
      externalReferenceEventId: ref.eventRef,
      showId: ref.showId,
      ticketOptionId: ref.ticketOptionId,
      priceTypeId: ref.priceTypeId,
      seller: userToApi(await userOf(tx, l.sellerPk)),
      quantity: l.quantity,
      state: l.state,
      currency: l.currency,
      price: major(l.priceMinor),
      buyerFee: major(l.buyerFeeMinor),
      buyerTotal: major(l.priceMinor + l.buyerFeeMinor),
      sellerFee: major(l.sellerFeeMinor),
      payout: major(l.payoutMinor),
      shareUrl: serviceUrl(this.deps.config.publicBaseUrl, servicePaths.market(l.partnerId, ref.eventRef, q)),
      endReason: l.endReason,
      createdAt: toIso(l.createdAt),
      updatedAt: toIso(l.updatedAt),
      soldAt: l.soldAt === null ? null : toIso(l.soldAt),
      endedAt: l.endedAt === null ? null : toIso(l.endedAt),
    };
  }

  // ------------------------------------------------------------------ internals

  /**
   * THE write of a listing: one conditional UPDATE (`where` carries the state it expects), then
   * the partner is told of each row that changed: `listing.updated` with the state after it,
   * and, when it ended unsold, its tickets freed, `listing.deleted` and the `listing.ended`
   * domain event. Returns the rows that changed.
   *
   * Rows moved to ACTIVE raise `listing.available` (cause `released`, one event per show) before
   * anyone is told: the waiting list may hold them again for the next fan in this transaction,
   * and then its reservation told the partner RESERVED; only rows still ACTIVE are announced
   * ACTIVE. `quiet`: rows not to announce (see `reserve`).
   */
  private async transition(tx: Tx, where: SQL, set: Partial<Pick<ListingRow, 'state' | 'intentionId' | 'endReason' | 'soldAt' | 'endedAt' | 'priceMinor' | 'buyerFeeMinor' | 'sellerFeeMinor' | 'payoutMinor'>>, quiet: ReadonlySet<string> = new Set()): Promise<ListingRow[]> {
    const before = set.state === 'TERMINATED' || set.state === 'DELISTED' ? await tx.select({ id: listings.id, intentionId: listings.intentionId }).from(listings).where(where) : [];
    let changed = await tx
      .update(listings)
      .set({ ...set, updatedAt: this.deps.clock.now() })
      .where(where)
      .returning();
    if (set.state === 'ACTIVE' && changed.length > 0) changed = await this.announceAvailable(tx, changed);
    for (const l of changed) {
      if (quiet.has(l.id)) continue;
      await this.notify(tx, l, 'listing.updated');
      if (l.state !== 'TERMINATED' && l.state !== 'DELISTED') continue;
      await this.deps.tickets.markUnlisted(tx, await ticketPksOf(tx, l.id));
      await this.notify(tx, l, 'listing.deleted');
      const intentionId = before.find((b) => b.id === l.id)?.intentionId ?? null;
      await this.deps.bus.emit(tx, 'listing.ended', { partnerId: l.partnerId, listingId: l.id, intentionId, reason: l.endReason ?? '' });
    }
    return changed;
  }

  /**
   * Raises `listing.available` (cause `released`) for rows just moved to ACTIVE, one event per
   * show, and answers those still ACTIVE afterwards (read back: a reaction may have reserved
   * them again, and told the partner so itself).
   */
  private async announceAvailable(tx: Tx, freed: ListingRow[]): Promise<ListingRow[]> {
    const byShow = new Map<string, ListingRow[]>();
    for (const l of freed) byShow.set(l.showPk, [...(byShow.get(l.showPk) ?? []), l]);
    for (const [showPk, rows] of byShow) await this.deps.bus.emit(tx, 'listing.available', { partnerId: rows[0]!.partnerId, showPk, listingIds: rows.map((l) => l.id), cause: 'released' });
    const now = new Map((await listingsByIds(tx, freed[0]!.partnerId, freed.map((l) => l.id))).map((l) => [l.id, l]));
    return freed.flatMap((l) => {
      const current = now.get(l.id);
      return current?.state === 'ACTIVE' ? [current] : [];
    });
  }

  private async scope(tx: Tx, ticket: TicketRow): Promise<Scope> {
    const { show, event } = (await showWithEvent(tx, ticket.showPk))!;
    const option = (await ticketOptionByPk(tx, ticket.ticketOptionPk))!;
    const combo = await combinationOf(tx, ticket.ticketOptionPk, ticket.priceTypePk);
    return {
      ticket,
      show,
      event,
      option,
      partner: await partnerOf(tx, show.partnerId),
      rules: await this.deps.rules.effective(tx, ticket.showPk, ticket.ticketOptionPk, ticket.priceTypePk),
      originalMinor: combo?.priceMinor ?? option.priceMinor ?? ticket.priceMinor,
    };
  }

  private async check(tx: Tx, s: Scope, adding: number): Promise<NotSellableReason | null> {
    if (s.ticket.state !== 'VALID') return 'not_valid';
    if (!isResaleOpen(s.show)) return 'resale_closed';
    if (this.deps.clock.now() >= s.show.startsAt) return 'show_started';
    const max = s.rules.maxSell?.rules.maxTickets;
    if (max !== undefined && (await this.heldBySeller(tx, s)) + adding > max) return 'max_sell_reached';
    return null;
  }

  /** Tickets the seller has listed or sold in this show within the maxSell rule's scope. */
  private async heldBySeller(tx: Tx, s: Scope): Promise<number> {
    const rule = s.rules.maxSell;
    const conditions = [eq(listings.showPk, s.show.id), eq(listings.sellerPk, s.ticket.ownerPk), inArray(listings.state, ['ACTIVE', 'RESERVED', 'SOLD'])];
    if (rule) conditions.push(eq(listings.ticketOptionPk, s.ticket.ticketOptionPk));
    if (rule?.scope === 'combination' && s.ticket.priceTypePk) conditions.push(eq(listings.priceTypePk, s.ticket.priceTypePk));
    return (await tx.select({ n: sql<number>`coalesce(sum(${listings.quantity}), 0)` }).from(listings).where(and(...conditions)).limit(1))[0]!.n;
  }

  private fees(partner: PartnerRow, rules: EffectiveRules) {
    return feesWithOverride(partner.settings.fees, rules.platformFees?.rules);
  }

  /**
   * The limits for the scope's ticket: the rules', capped at face value while the show's
   * waiting list holds fans for its option. Read here, not in `scope`: a sellability check
   * (`notSellable`) does not need the waiting list.
   */
  private async limitsOf(tx: Tx, s: Scope): Promise<PriceLimits> {
    return priceLimits(s.rules, s.originalMinor, await priceCapOf(tx, s.show.id, s.option.id));
  }

  private settle(partner: PartnerRow, rules: EffectiveRules, limits: PriceLimits, askedMinor: number | null, currency: string): PriceBreakdown {
    const b = priceBreakdown(settlePrice(askedMinor, limits, currency), this.fees(partner, rules));
    if (b.payoutMinor <= 0) throw ApiError.field('out_of_range', 'price', 'The price must be more than the seller fee', 'body', 'price_rejected');
    return b;
  }

  /**
   * A ticket stopped being sellable (`ticket.invalidated`, flows/reactions.ts): its live
   * listing ends (endReason `ticket_<reason>`), the pack's other tickets are freed.
   */
  async endForTicket(tx: Tx, ticketPk: string, reason: string): Promise<void> {
    // Every admission asks (a door's scans, thousands a minute); most of those tickets were never listed.
    if (!(await ticketWasListed(tx, ticketPk))) return;
    const listing = await liveListingOfTicket(tx, ticketPk);
    if (listing) await this.end(tx, listing, 'TERMINATED', `ticket_${reason}`);
  }

  private async ticketIdsOf(tx: Tx, l: Pick<ListingRow, 'id'>): Promise<string[]> {
    return (await this.ticketsOf(tx, l.id)).map((t) => t.ticketId);
  }

  /** One `listing.*` webhook: the listing as it is after the change. */
  private async notify(tx: Tx, l: ListingRow, action: 'listing.created' | 'listing.updated' | 'listing.deleted'): Promise<void> {
    const ref = await externalRefs(tx, l);
    await this.deps.webhooks.enqueue(tx, l.partnerId, {
      action,
      resourceKey: `listing:${l.id}`,
      data: {
        listingId: l.id,
        ticketIds: await this.ticketIdsOf(tx, l),
        eventId: ref.eventRef,
        showId: ref.showId,
        ticketOptionId: ref.ticketOptionId,
        ...(ref.priceTypeId ? { priceTypeId: ref.priceTypeId } : {}),
        price: toMajor(l.priceMinor, l.currency),
        currency: l.currency,
        state: l.state,
        ...(l.endReason ? { endReason: l.endReason } : {}),
      },
    });
  }
}
