import { and, asc, eq, gt, inArray, lte, ne, or, type SQL } from 'drizzle-orm';
import type { AppDeps } from '../../context.js';
import type { Tx } from '../../db/client.js';
import { toIso } from '../../lib/clock.js';
import { ApiError } from '../../lib/errors.js';
import { feesWithOverride, priceBreakdown, type PriceBreakdown } from '../../lib/fees.js';
import { newId } from '../../lib/ids.js';
import { toMajor, toMinor } from '../../lib/money.js';
import { isResaleOpen } from '../events/events.model.js';
import { combinations, events, priceTypes, shows, ticketOptions } from '../events/events.table.js';
import { priceLimits, settlePrice } from '../listings/listings.pricing.js';
import type { ListingRow } from '../listings/listings.service.js';
import { listings, listingTickets } from '../listings/listings.table.js';
import { partners } from '../partners/partners.table.js';
import { tickets } from '../tickets/tickets.table.js';
import { channelListings } from './channels.table.js';
import {
  DEFAULT_CHANNEL_ID,
  type ChannelEndReason,
  type ChannelListingApi,
  type ChannelListingCreate,
  type ChannelListingQuery,
  type ChannelListingState,
} from './channels.schemas.js';

export type ChannelListingRow = typeof channelListings.$inferSelect;

/** Why the service ended a listing when it ended it for a channel (`listings.end_reason`). */
export const CHANNEL_WITHDRAWN_REASON = 'channel_withdrawn';

/** The prefix of the partner user id that stands for a channel (the owner of its tickets until sold). */
export const CHANNEL_USER_PREFIX = 'channel:';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'bus' | 'events' | 'rules' | 'users' | 'webhooks' | 'listings' | 'config'>;

/** A channel listing with what its answer needs, from one joined read. */
interface Joined {
  l: ListingRow;
  ch: ChannelListingRow;
  eventRef: string;
  showId: string;
  startsAt: number;
  optionId: string;
}

/**
 * The channel side of a listing, or undefined for the partner's own listings. Checkout uses
 * it to skip the live ownership check (the channel vouches for its tickets) and payments to
 * mark the tickets of a channel sale in the partner's `ticket.update` webhook.
 */
export function channelListingOf(tx: Tx, listingId: string): ChannelListingRow | undefined {
  return tx.select().from(channelListings).where(eq(channelListings.listingId, listingId)).get();
}

/**
 * Listings pushed by external resale platforms (channels) into the partner's market.
 *
 * A channel listing is an ordinary `listings` row, ACTIVE when created, with one ticket row
 * per ticket it sells (ticket id `<listing id>-<n>`, owned by a user that stands for the
 * channel, `channel:<channelId>`, state LISTED), and a `channel_listings` row saying who
 * pushed it under which id. So the market, the buy access layer and buy intentions see and
 * reserve it with the same conditional update as every listing: it is never sold twice.
 *
 * Rules of the partner that apply: the show must be open for resale and not started; the
 * currency is the ticket option's; the price rules (minimum, maximum, fixed price) and the
 * fees (the partner's, or a platformFees rule) are those of the option or combination. The
 * per-seller `maxSell` rule does not apply: a channel is a platform of many sellers.
 *
 * What a sale does: the usual completion (listing SOLD, tickets to the buyer, a payout row
 * for the channel's user, buyer's confirmation e-mail) and the partner's `ticket.update`
 * webhook, whose tickets carry `channel` so the partner fulfils with the channel. No HTTP here.
 */
export class ChannelsService {
  constructor(private readonly deps: Deps) {
    // However a channel listing ends (withdrawn, delisted by the organiser, a ticket deleted),
    // the tickets the channel still holds stop existing: they were never the partner's.
    deps.bus.on('listing.ended', (tx, e) => this.dropChannelTickets(tx, e.listingId));
  }

  /**
   * Puts a channel's listing on the partner's market.
   * @throws 404 unknown event, show or ticket option (or another partner's); 400 bad price,
   *   currency, seats or price type; 409 the externalListingId was used, resale closed, show started
   */
  create(tx: Tx, partnerId: string, input: ChannelListingCreate): ListingRow {
    const channelId = input.channelId ?? DEFAULT_CHANNEL_ID;
    const used = tx
      .select({ listingId: channelListings.listingId })
      .from(channelListings)
      .where(and(eq(channelListings.partnerId, partnerId), eq(channelListings.channelId, channelId), eq(channelListings.externalListingId, input.externalListingId)))
      .get();
    if (used) throw ApiError.conflict(`externalListingId '${input.externalListingId}' was already used by listing ${used.listingId}; use a new id for a new listing`, 'externalListingId');

    const { event, show } = this.deps.events.findShow(tx, partnerId, input.externalReferenceEventId, input.showId);
    const option = this.deps.events.findTicketOption(tx, show.id, input.ticketOptionId);
    const combo = input.priceTypeId === undefined ? null : this.deps.events.findCombination(tx, show.id, input.ticketOptionId, input.priceTypeId);
    if (input.currency !== option.currency) throw ApiError.field('invalid_value', 'currency', `currency must be ${option.currency}, the currency of ticket option '${option.ticketId}'`);
    if (input.seats && input.seats.length !== input.quantity) throw ApiError.field('invalid_value', 'seats', `seats must hold one entry per ticket (${input.quantity})`);
    this.assertOpen(show);
    const b = this.price(tx, partnerId, show.id, option.id, combo?.priceType.id ?? null, toMinor(input.price, option.currency, 'price'), option.priceMinor, combo?.combination.priceMinor ?? null);

    const now = this.deps.clock.now();
    const owner = this.deps.users.resolve(tx, partnerId, { id: CHANNEL_USER_PREFIX + channelId }, 'channelId');
    const listingId = newId('listing');
    const ticketRows = Array.from({ length: input.quantity }, (_, i) => {
      const seat = input.seats?.[i];
      return {
        id: newId('ticket'),
        partnerId,
        ticketId: `${listingId}-${i + 1}`,
        eventPk: event.id,
        showPk: show.id,
        ticketOptionPk: option.id,
        priceTypePk: combo?.priceType.id ?? null,
        ownerPk: owner.id,
        state: 'LISTED' as const,
        priceMinor: null,
        currency: option.currency,
        // Not an entry credential: the channel delivers the real ticket once it is sold.
        ticketAccess: { type: 'OTHER' as const, locator: `${channelId}:${input.externalListingId}` },
        tags: [],
        section: seat?.section ?? null,
        row: seat?.row ?? null,
        seat: seat?.seat ?? null,
        createdAt: now,
        updatedAt: now,
      };
    });
    tx.insert(tickets).values(ticketRows).run();
    const listing = tx
      .insert(listings)
      .values({
        id: listingId,
        partnerId,
        eventPk: event.id,
        showPk: show.id,
        ticketOptionPk: option.id,
        priceTypePk: combo?.priceType.id ?? null,
        sellerPk: owner.id,
        orderId: null,
        quantity: input.quantity,
        state: 'ACTIVE',
        currency: option.currency,
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
    tx.insert(listingTickets).values(ticketRows.map((t) => ({ listingId, ticketPk: t.id }))).run();
    // The unique index is the final word on a race between two creates with the same id.
    const claimed = tx
      .insert(channelListings)
      .values({ listingId, partnerId, channelId, externalListingId: input.externalListingId, sellerReference: input.sellerReference ?? null, createdAt: now, updatedAt: now })
      .onConflictDoNothing()
      .run();
    if (claimed.changes !== 1) throw ApiError.conflict(`externalListingId '${input.externalListingId}' was already used; use a new id for a new listing`, 'externalListingId');
    this.notify(tx, listing, 'listing.created');
    return listing;
  }

  /**
   * Reprices an ACTIVE channel listing within the rules.
   * @throws 404 not this partner's channel listing; 400 price or currency; 409 reserved, sold or ended
   */
  updatePrice(tx: Tx, partnerId: string, listingId: string, input: { price: number | string; currency?: string | undefined }): ListingRow {
    const j = this.load(tx, partnerId, listingId);
    if (input.currency !== undefined && input.currency !== j.l.currency) throw ApiError.field('invalid_value', 'currency', `currency must be ${j.l.currency}, the listing's currency`);
    this.assertActive(j);
    const show = tx.select().from(shows).where(eq(shows.id, j.l.showPk)).get()!;
    this.assertOpen(show);
    const option = tx.select().from(ticketOptions).where(eq(ticketOptions.id, j.l.ticketOptionPk)).get()!;
    const combo = j.l.priceTypePk
      ? tx.select().from(combinations).where(and(eq(combinations.ticketOptionPk, option.id), eq(combinations.priceTypePk, j.l.priceTypePk))).get()
      : undefined;
    const b = this.price(tx, partnerId, show.id, option.id, j.l.priceTypePk, toMinor(input.price, j.l.currency, 'price'), option.priceMinor, combo?.priceMinor ?? null);
    const updated = tx
      .update(listings)
      .set({ priceMinor: b.priceMinor, buyerFeeMinor: b.buyerFeeMinor, sellerFeeMinor: b.sellerFeeMinor, payoutMinor: b.payoutMinor, updatedAt: this.deps.clock.now() })
      .where(and(eq(listings.id, j.l.id), eq(listings.state, 'ACTIVE')))
      .returning()
      .get();
    if (!updated) throw ApiError.conflict('The listing changed meanwhile; read it again');
    this.notify(tx, updated, 'listing.updated');
    return updated;
  }

  /**
   * Takes a channel listing off the market (WITHDRAWN); its tickets are deleted. A listing in a
   * buyer's checkout is withdrawn too: that checkout ends (`endReason` `withdrawn`, the buyer is
   * told at checkout, nothing is charged), since the channel may have sold the tickets elsewhere.
   * Withdrawing a WITHDRAWN listing answers it unchanged, so a retried DELETE is safe.
   * @throws 404 not this partner's channel listing; 409 sold or ended
   */
  withdraw(tx: Tx, partnerId: string, listingId: string): ListingRow {
    const j = this.load(tx, partnerId, listingId);
    const { state } = this.stateOf(j);
    if (state === 'WITHDRAWN') return j.l;
    if (state !== 'ACTIVE' && state !== 'RESERVED') throw ApiError.conflict(`The listing is ${state}`);
    const now = this.deps.clock.now();
    const ended = tx
      .update(listings)
      .set({ state: 'TERMINATED', endReason: CHANNEL_WITHDRAWN_REASON, endedAt: now, intentionId: null, updatedAt: now })
      .where(and(eq(listings.id, j.l.id), eq(listings.state, j.l.state)))
      .returning()
      .get();
    if (!ended) throw ApiError.conflict('The listing changed meanwhile; read it again');
    this.notify(tx, ended, 'listing.deleted');
    // Its handlers: intentions (ends the checkout that held it) and dropChannelTickets below.
    this.deps.bus.emit(tx, 'listing.ended', { partnerId, listingId: ended.id, intentionId: j.l.intentionId, reason: CHANNEL_WITHDRAWN_REASON });
    return ended;
  }

  /** One channel listing of the partner. @throws 404 (another partner's reads the same) */
  get(tx: Tx, partnerId: string, listingId: string): ChannelListingApi {
    return this.toApi(tx, this.load(tx, partnerId, listingId));
  }

  /**
   * The partner's channel listings, oldest first, filtered; cursor pagination on the listing
   * id (ids sort by creation).
   * @throws 404 unknown event or show; 400 showId without externalReferenceEventId
   */
  list(tx: Tx, partnerId: string, q: ChannelListingQuery): { items: ChannelListingApi[]; nextCursor: string | null } {
    const where: SQL[] = [eq(channelListings.partnerId, partnerId)];
    if (q.externalReferenceEventId !== undefined) {
      if (q.showId !== undefined) where.push(eq(listings.showPk, this.deps.events.findShow(tx, partnerId, q.externalReferenceEventId, q.showId).show.id));
      else {
        const event = tx.select({ id: events.id }).from(events).where(and(eq(events.partnerId, partnerId), eq(events.externalReferenceId, q.externalReferenceEventId))).get();
        if (!event) throw ApiError.notFound('event', q.externalReferenceEventId);
        where.push(eq(listings.eventPk, event.id));
      }
    } else if (q.showId !== undefined) {
      throw ApiError.field('missing_field', 'externalReferenceEventId', 'externalReferenceEventId is required with showId', 'query');
    }
    if (q.channelId !== undefined) where.push(eq(channelListings.channelId, q.channelId));
    if (q.externalListingId !== undefined) where.push(eq(channelListings.externalListingId, q.externalListingId));
    if (q.state !== undefined) where.push(this.stateCondition(q.state));
    if (q.startingAfter !== undefined) where.push(gt(listings.id, q.startingAfter));
    const rows = this.select(tx, and(...where)!)
      .orderBy(asc(listings.id))
      .limit(q.limit + 1)
      .all();
    const page = rows.slice(0, q.limit);
    return { items: page.map((r) => this.toApi(tx, r)), nextCursor: rows.length > q.limit ? page[page.length - 1]!.l.id : null };
  }

  // ------------------------------------------------------------------ internals

  private select(tx: Tx, where: SQL) {
    return tx
      .select({ l: listings, ch: channelListings, eventRef: events.externalReferenceId, showId: shows.showId, startsAt: shows.startsAt, optionId: ticketOptions.ticketId })
      .from(channelListings)
      .innerJoin(listings, eq(listings.id, channelListings.listingId))
      .innerJoin(events, eq(events.id, listings.eventPk))
      .innerJoin(shows, eq(shows.id, listings.showPk))
      .innerJoin(ticketOptions, eq(ticketOptions.id, listings.ticketOptionPk))
      .where(where);
  }

  private load(tx: Tx, partnerId: string, listingId: string): Joined {
    const row = this.select(tx, and(eq(channelListings.partnerId, partnerId), eq(channelListings.listingId, listingId))!).get();
    if (!row) throw ApiError.notFound('channel listing', listingId);
    return row;
  }

  /** The listing's state as the channel sees it (see CHANNEL_LISTING_STATES). */
  private stateOf(j: Pick<Joined, 'l' | 'startsAt'>): { state: ChannelListingState; endReason: ChannelEndReason | null } {
    switch (j.l.state) {
      case 'ACTIVE':
        return this.deps.clock.now() >= j.startsAt ? { state: 'ENDED', endReason: 'show_started' } : { state: 'ACTIVE', endReason: null };
      case 'RESERVED':
        return { state: 'RESERVED', endReason: null };
      case 'SOLD':
        return { state: 'SOLD', endReason: null };
      case 'DELISTED':
        return { state: 'ENDED', endReason: 'delisted' };
      case 'TERMINATED':
        if (j.l.endReason === CHANNEL_WITHDRAWN_REASON) return { state: 'WITHDRAWN', endReason: 'withdrawn' };
        return { state: 'ENDED', endReason: j.l.endReason === 'ticket_cancelled' ? 'show_cancelled' : 'removed' };
    }
  }

  /** The SQL form of `stateOf`, for the list filter. */
  private stateCondition(state: ChannelListingState): SQL {
    const now = this.deps.clock.now();
    switch (state) {
      case 'ACTIVE':
        return and(eq(listings.state, 'ACTIVE'), gt(shows.startsAt, now))!;
      case 'RESERVED':
        return eq(listings.state, 'RESERVED');
      case 'SOLD':
        return eq(listings.state, 'SOLD');
      case 'WITHDRAWN':
        return and(eq(listings.state, 'TERMINATED'), eq(listings.endReason, CHANNEL_WITHDRAWN_REASON))!;
      case 'ENDED':
        return or(eq(listings.state, 'DELISTED'), and(eq(listings.state, 'TERMINATED'), ne(listings.endReason, CHANNEL_WITHDRAWN_REASON)), and(eq(listings.state, 'ACTIVE'), lte(shows.startsAt, now)))!;
    }
  }

  private assertActive(j: Joined): void {
    const { state } = this.stateOf(j);
    if (state === 'RESERVED') throw ApiError.conflict('A buyer is checking out this listing; try again in a few minutes');
    if (state !== 'ACTIVE') throw ApiError.conflict(`The listing is ${state}`);
  }

  private assertOpen(show: typeof shows.$inferSelect): void {
    if (!isResaleOpen(show)) throw ApiError.conflict(`Resale is closed for show '${show.showId}'`, 'showId');
    if (this.deps.clock.now() >= show.startsAt) throw ApiError.conflict(`Show '${show.showId}' has started: its tickets can no longer be listed`, 'showId');
  }

  /** The price settled under the rules of the option or combination, and its fee breakdown. @throws 400 naming `price` */
  private price(tx: Tx, partnerId: string, showPk: string, optionPk: string, priceTypePk: string | null, askedMinor: number, optionMinor: number | null, comboMinor: number | null): PriceBreakdown {
    const rules = this.deps.rules.effective(tx, showPk, optionPk, priceTypePk);
    const option = tx.select({ currency: ticketOptions.currency }).from(ticketOptions).where(eq(ticketOptions.id, optionPk)).get()!;
    const settled = settlePrice(askedMinor, priceLimits(rules, comboMinor ?? optionMinor), option.currency);
    const partner = tx.select({ settings: partners.settings }).from(partners).where(eq(partners.id, partnerId)).get()!;
    const b = priceBreakdown(settled, feesWithOverride(partner.settings.fees, rules.platformFees?.rules));
    if (b.payoutMinor <= 0) throw ApiError.field('out_of_range', 'price', 'The price must be more than the seller fee');
    return b;
  }

  private ticketsOf(tx: Tx, listingId: string) {
    return tx
      .select({ ticketId: tickets.ticketId, section: tickets.section, row: tickets.row, seat: tickets.seat })
      .from(tickets)
      .innerJoin(listingTickets, eq(listingTickets.ticketPk, tickets.id))
      .where(eq(listingTickets.listingId, listingId))
      .orderBy(asc(tickets.ticketId))
      .all();
  }

  private toApi(tx: Tx, j: Joined): ChannelListingApi {
    const { l, ch } = j;
    const priceTypeId = l.priceTypePk ? (tx.select({ id: priceTypes.priceTypeId }).from(priceTypes).where(eq(priceTypes.id, l.priceTypePk)).get()?.id ?? null) : null;
    const major = (m: number) => toMajor(m, l.currency);
    const q = new URLSearchParams({ showId: j.showId, listingId: l.id });
    return {
      id: l.id,
      channelId: ch.channelId,
      externalListingId: ch.externalListingId,
      sellerReference: ch.sellerReference,
      externalReferenceEventId: j.eventRef,
      showId: j.showId,
      ticketOptionId: j.optionId,
      priceTypeId,
      quantity: l.quantity,
      // Ticket ids end in -1, -2 … -20: order by number, not by text.
      tickets: this.ticketsOf(tx, l.id).sort((a, b) => seatNumber(a.ticketId) - seatNumber(b.ticketId)),
      ...this.stateOf(j),
      currency: l.currency,
      price: major(l.priceMinor),
      buyerFee: major(l.buyerFeeMinor),
      buyerTotal: major(l.priceMinor + l.buyerFeeMinor),
      sellerFee: major(l.sellerFeeMinor),
      payout: major(l.payoutMinor),
      shareUrl: `${this.deps.config.publicBaseUrl}/market/${encodeURIComponent(l.partnerId)}/${encodeURIComponent(j.eventRef)}?${q}`,
      createdAt: toIso(l.createdAt),
      updatedAt: toIso(l.updatedAt),
      soldAt: l.soldAt === null ? null : toIso(l.soldAt),
      endedAt: l.endedAt === null ? null : toIso(l.endedAt),
    };
  }

  /** The partner hears of channel listings as of its own: the same listing.* webhooks. */
  private notify(tx: Tx, l: ListingRow, action: 'listing.created' | 'listing.updated' | 'listing.deleted'): void {
    const api = this.deps.listings.toApi(tx, l);
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

  /**
   * A channel listing ended: the tickets the channel still holds (VALID or LISTED, owned by
   * the channel's user) are deleted. A ticket the partner gave someone else is left alone.
   */
  private dropChannelTickets(tx: Tx, listingId: string): void {
    if (!channelListingOf(tx, listingId)) return;
    const listing = tx.select({ sellerPk: listings.sellerPk }).from(listings).where(eq(listings.id, listingId)).get();
    if (!listing) return;
    const held = tx.select({ pk: listingTickets.ticketPk }).from(listingTickets).where(eq(listingTickets.listingId, listingId)).all();
    if (held.length === 0) return;
    const now = this.deps.clock.now();
    tx.update(tickets)
      .set({ state: 'DELETED', deletedAt: now, updatedAt: now })
      .where(and(inArray(tickets.id, held.map((h) => h.pk)), inArray(tickets.state, ['VALID', 'LISTED']), eq(tickets.ownerPk, listing.sellerPk)))
      .run();
  }
}

function seatNumber(ticketId: string): number {
  return Number(ticketId.slice(ticketId.lastIndexOf('-') + 1));
}
