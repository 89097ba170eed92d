import { inOrder } from '../../lib/in-order.js';
import { affected } from '../../db/affected.js';
import { and, asc, eq, gt, type SQL } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { toIso } from '../../lib/clock.js';
import { ApiError } from '../../lib/errors.js';
import { toMajor, toMinor } from '../../lib/money.js';
import { isResaleOpen } from '../events/events.model.js';
import { eventByRef, priceTypeByPk, showsWithEvents, ticketOptionByPk, type ShowRow } from '../events/events.queries.js';
import { listingById, listingsByIds, ticketPksOf, type ListingRow } from '../listings/listings.queries.js';
import { channelListingOf, type ChannelListingRow } from './channels.queries.js';
import { channelListings } from './channels.table.js';
import {
  type ChannelEndReason,
  type ChannelListingApi,
  type ChannelListingQuery,
  type ChannelListingState,
} from './channels.schemas.js';
import type { Kernel } from '../../lib/kernel.js';
import type { EventsService } from '../events/events.service.js';
import type { ListingsService } from '../listings/listings.service.js';
import type { TicketsService } from '../tickets/tickets.service.js';
import { serviceUrl, servicePaths } from '../../lib/urls.js';

export type { ChannelListingRow };
export { channelListingOf };

/** Why the service ended a listing when it ended it for a channel (`listings.end_reason`). */
export const CHANNEL_WITHDRAWN_REASON = 'channel_withdrawn';

/** The prefix of the partner user id that stands for a channel (the owner of its tickets until sold). */
export const CHANNEL_USER_PREFIX = 'channel:';

/** Channel listings the list reads per round while it filters (pages are at most 200). */
const LIST_CHUNK = 250;

type Deps = Pick<Kernel, 'clock' | 'config'> & { events: EventsService; tickets: TicketsService; listings: ListingsService };

/** A channel listing with what its answer needs. */
interface Joined {
  l: ListingRow;
  ch: ChannelListingRow;
  eventRef: string;
  showId: string;
  startsAt: number;
  optionId: string;
}

/**
 * Listings pushed by external resale platforms (channels) into the partner's market.
 *
 * A channel listing is an ordinary listing of the listings module, ACTIVE when created, with
 * one ticket per ticket it sells (ticket id `<listing id>-<n>`, owned by a user that stands
 * for the channel, `channel:<channelId>`, state LISTED), and a `channel_listings` row, written
 * only here, saying who pushed it under which id. So the market, the buy access layer and buy
 * intentions see and reserve it as every listing, and every state change reaches the partner
 * as the same `listing.*` webhooks. Publishing is flows/publish-channel-listing.ts; repricing
 * and withdrawal go through the listings lifecycle (`reprice`, `end`).
 *
 * Rules of the partner that apply: the show must be open for resale and not started; the
 * currency is the ticket option's; the price rules (minimum, maximum, fixed price) and the
 * fees (the partner's, or a platformFees rule) are those of the option or combination. The
 * per-seller `maxSell` rule does not apply: a channel is a platform of many sellers. No HTTP here.
 */
export class ChannelsService {
  constructor(private readonly deps: Deps) {}

  /** @throws 409 when the channel already used `externalListingId` (a new listing needs a new id). */
  async assertUnused(tx: Tx, partnerId: string, channelId: string, externalListingId: string): Promise<void> {
    const used = (await tx
      .select({ listingId: channelListings.listingId })
      .from(channelListings)
      .where(and(eq(channelListings.partnerId, partnerId), eq(channelListings.channelId, channelId), eq(channelListings.externalListingId, externalListingId))).limit(1))[0];
    if (used) throw ApiError.conflict(`externalListingId '${externalListingId}' was already used by listing ${used.listingId}; use a new id for a new listing`, 'externalListingId');
  }

  /**
   * Records who pushed a listing under which id. The unique index is the final word on a race
   * between two publishes with the same id.
   * @throws 409 the id was taken meanwhile
   */
  async record(tx: Tx, input: { listingId: string; partnerId: string; channelId: string; externalListingId: string; sellerReference: string | null }): Promise<void> {
    const now = this.deps.clock.now();
    const claimed = await tx
      .insert(channelListings)
      .values({ ...input, createdAt: now, updatedAt: now })
      .onConflictDoNothing();
    if (affected(claimed) !== 1) throw ApiError.conflict(`externalListingId '${input.externalListingId}' was already used; use a new id for a new listing`, 'externalListingId');
  }

  /** @throws 409 when the show is not open for resale or has started. */
  assertOpen(show: ShowRow): void {
    if (!isResaleOpen(show)) throw ApiError.conflict(`Resale is closed for show '${show.showId}'`, 'showId', 'resale_closed');
    if (this.deps.clock.now() >= show.startsAt) throw ApiError.conflict(`Show '${show.showId}' has started: its tickets can no longer be listed`, 'showId', 'show_started');
  }

  /**
   * Reprices an ACTIVE channel listing within the rules.
   * @throws 404 not this partner's channel listing; 400 price or currency; 409 reserved, sold or ended
   */
  async updatePrice(tx: Tx, partnerId: string, listingId: string, input: { price: number | string; currency?: string | undefined }): Promise<ListingRow> {
    const j = await this.load(tx, partnerId, listingId);
    if (input.currency !== undefined && input.currency !== j.l.currency) throw ApiError.field('invalid_value', 'currency', `currency must be ${j.l.currency}, the listing's currency`);
    this.assertActive(j);
    const show = (await showsWithEvents(tx, [j.l.showPk])).get(j.l.showPk)!.show;
    this.assertOpen(show);
    try {
      return await this.deps.listings.reprice(tx, j.l, toMinor(input.price, j.l.currency, 'price'));
    } catch (err) {
      if (err instanceof ApiError && err.reason === 'changed_meanwhile') throw ApiError.conflict('The listing changed meanwhile; read it again', undefined, 'changed_meanwhile');
      throw err;
    }
  }

  /**
   * Takes a channel listing off the market (WITHDRAWN); its tickets are deleted. A listing in a
   * buyer's checkout is withdrawn too: that checkout ends (`endReason` `withdrawn`, the buyer is
   * told at checkout, nothing is charged), since the channel may have sold the tickets elsewhere.
   * Withdrawing a WITHDRAWN listing answers it unchanged, so a retried DELETE is safe.
   * @throws 404 not this partner's channel listing; 409 sold or ended
   */
  async withdraw(tx: Tx, partnerId: string, listingId: string): Promise<ListingRow> {
    const j = await this.load(tx, partnerId, listingId);
    const { state } = this.stateOf(j);
    if (state === 'WITHDRAWN') return j.l;
    if (state !== 'ACTIVE' && state !== 'RESERVED') throw ApiError.conflict(`The listing is ${state}`);
    try {
      // listing.ended follows: intentions end the checkout that held it, dropChannelTickets below.
      return await this.deps.listings.end(tx, j.l, 'TERMINATED', CHANNEL_WITHDRAWN_REASON);
    } catch (err) {
      if (err instanceof ApiError && err.reason === 'changed_meanwhile') throw ApiError.conflict('The listing changed meanwhile; read it again', undefined, 'changed_meanwhile');
      throw err;
    }
  }

  /** One channel listing of the partner. @throws 404 (another partner's reads the same) */
  async get(tx: Tx, partnerId: string, listingId: string): Promise<ChannelListingApi> {
    return await this.toApi(tx, await this.load(tx, partnerId, listingId));
  }

  /**
   * The partner's channel listings, oldest first, filtered; cursor pagination on the listing
   * id (ids sort by creation). Reads the partner's channel listings in id order, a chunk at a
   * time, and keeps those whose listing matches (its state and show come from their owners).
   * @throws 404 unknown event or show; 400 showId without externalReferenceEventId
   */
  async list(tx: Tx, partnerId: string, q: ChannelListingQuery): Promise<{ items: ChannelListingApi[]; nextCursor: string | null }> {
    let matchEvent: string | null = null;
    let matchShow: string | null = null;
    if (q.externalReferenceEventId !== undefined) {
      if (q.showId !== undefined) matchShow = (await this.deps.events.findShow(tx, partnerId, q.externalReferenceEventId, q.showId)).show.id;
      else {
        const event = await eventByRef(tx, partnerId, q.externalReferenceEventId);
        if (!event) throw ApiError.notFound('event', q.externalReferenceEventId);
        matchEvent = event.id;
      }
    } else if (q.showId !== undefined) {
      throw ApiError.field('missing_field', 'externalReferenceEventId', 'externalReferenceEventId is required with showId', 'query');
    }
    const where: SQL[] = [eq(channelListings.partnerId, partnerId)];
    if (q.channelId !== undefined) where.push(eq(channelListings.channelId, q.channelId));
    if (q.externalListingId !== undefined) where.push(eq(channelListings.externalListingId, q.externalListingId));
    const found: Joined[] = [];
    let after = q.startingAfter;
    while (found.length <= q.limit) {
      const chunk = await tx
        .select()
        .from(channelListings)
        .where(and(...where, ...(after === undefined ? [] : [gt(channelListings.listingId, after)])))
        .orderBy(asc(channelListings.listingId))
        .limit(LIST_CHUNK);
      for (const j of await this.join(tx, partnerId, chunk)) {
        if (matchEvent !== null && j.l.eventPk !== matchEvent) continue;
        if (matchShow !== null && j.l.showPk !== matchShow) continue;
        if (q.state !== undefined && this.stateOf(j).state !== q.state) continue;
        found.push(j);
        if (found.length > q.limit) break;
      }
      if (chunk.length < LIST_CHUNK) break;
      after = chunk[chunk.length - 1]!.listingId;
    }
    const page = found.slice(0, q.limit);
    return { items: await inOrder(page, async (r) => await this.toApi(tx, r)), nextCursor: found.length > q.limit ? page[page.length - 1]!.l.id : null };
  }

  // ------------------------------------------------------------------ internals

  /** Channel listings with their listings and the partner's ids of show and option, in the order given. */
  private async join(tx: Tx, partnerId: string, rows: readonly ChannelListingRow[]): Promise<Joined[]> {
    const byId = new Map((await listingsByIds(tx, partnerId, rows.map((r) => r.listingId))).map((l) => [l.id, l]));
    const shows = await showsWithEvents(tx, [...byId.values()].map((l) => l.showPk));
    const options = new Map<string, string>();
    const out: Joined[] = [];
    for (const ch of rows) {
      const l = byId.get(ch.listingId);
      if (!l) continue;
      const se = shows.get(l.showPk)!;
      let optionId = options.get(l.ticketOptionPk);
      if (optionId === undefined) options.set(l.ticketOptionPk, (optionId = (await ticketOptionByPk(tx, l.ticketOptionPk))!.ticketId));
      out.push({ l, ch, eventRef: se.event.externalReferenceId, showId: se.show.showId, startsAt: se.show.startsAt, optionId });
    }
    return out;
  }

  private async load(tx: Tx, partnerId: string, listingId: string): Promise<Joined> {
    const ch = (await tx.select().from(channelListings).where(and(eq(channelListings.partnerId, partnerId), eq(channelListings.listingId, listingId))).limit(1))[0];
    const row = ch ? (await this.join(tx, partnerId, [ch]))[0] : undefined;
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

  private assertActive(j: Joined): void {
    const { state } = this.stateOf(j);
    if (state === 'RESERVED') throw ApiError.conflict('A buyer is checking out this listing; try again in a few minutes', undefined, 'listing_reserved');
    if (state !== 'ACTIVE') throw ApiError.conflict(`The listing is ${state}`, undefined, 'listing_unavailable');
  }

  private async toApi(tx: Tx, j: Joined): Promise<ChannelListingApi> {
    const { l, ch } = j;
    const priceTypeId = l.priceTypePk ? ((await priceTypeByPk(tx, l.priceTypePk))?.priceTypeId ?? null) : null;
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
      tickets: (await this.deps.listings
        .ticketsOf(tx, l.id))
        .map((t) => ({ ticketId: t.ticketId, section: t.section, row: t.row, seat: t.seat }))
        .sort((a, b) => seatNumber(a.ticketId) - seatNumber(b.ticketId)),
      ...this.stateOf(j),
      currency: l.currency,
      price: major(l.priceMinor),
      buyerFee: major(l.buyerFeeMinor),
      buyerTotal: major(l.priceMinor + l.buyerFeeMinor),
      sellerFee: major(l.sellerFeeMinor),
      payout: major(l.payoutMinor),
      shareUrl: serviceUrl(this.deps.config.publicBaseUrl, servicePaths.market(l.partnerId, j.eventRef, q)),
      createdAt: toIso(l.createdAt),
      updatedAt: toIso(l.updatedAt),
      soldAt: l.soldAt === null ? null : toIso(l.soldAt),
      endedAt: l.endedAt === null ? null : toIso(l.endedAt),
    };
  }

  /**
   * A channel listing ended (`listing.ended`, flows/reactions.ts), however (withdrawn, delisted
   * by the organiser, a ticket deleted): the tickets the channel still holds (VALID or LISTED,
   * owned by the channel's user) stop existing, they were never the partner's. A ticket the
   * partner gave someone else is left alone. Nothing for a listing that is not a channel's.
   */
  async dropChannelTickets(tx: Tx, listingId: string): Promise<void> {
    if (!(await channelListingOf(tx, listingId))) return;
    const listing = await listingById(tx, listingId);
    if (!listing) return;
    await this.deps.tickets.deleteHeldBy(tx, await ticketPksOf(tx, listingId), listing.sellerPk);
  }
}

function seatNumber(ticketId: string): number {
  return Number(ticketId.slice(ticketId.lastIndexOf('-') + 1));
}
