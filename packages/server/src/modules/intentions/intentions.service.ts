import { and, eq, inArray, lte } from 'drizzle-orm';
import type { AppDeps } from '../../context.js';
import type { Tx } from '../../db/client.js';
import { toIso } from '../../lib/clock.js';
import { ApiError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { toMajor } from '../../lib/money.js';
import { isResaleOpen } from '../events/events.model.js';
import { shows } from '../events/events.table.js';
import { listings } from '../listings/listings.table.js';
import { partners } from '../partners/partners.table.js';
import { userToApi } from '../users/users.service.js';
import { users } from '../users/users.table.js';
import { buyIntentions, type IntentionState } from './intentions.table.js';

export type IntentionRow = typeof buyIntentions.$inferSelect;

/** Listings one checkout may hold. */
export const MAX_INTENTION_ITEMS = 20;

/**
 * Buy intentions: a reservation of exactly the chosen listings for the partner's
 * `buyIntentionTtlSeconds`. Listings are reserved by ONE conditional statement
 * (`ACTIVE → RESERVED where state = 'ACTIVE'`) whose row count is checked: under any
 * concurrency a listing is held by at most one live intention, so it is never sold twice.
 * Expiry, failure and cancellation release the listings at once.
 */
export class IntentionsService {
  constructor(private readonly deps: Pick<AppDeps, 'db' | 'clock' | 'bus' | 'listings' | 'config'>) {
    deps.bus.on('listing.ended', (tx, e) => {
      if (e.intentionId) this.endIfPending(tx, e.intentionId, 'CANCELLED', 'listing_unavailable');
    });
  }

  /**
   * Reserves `listingIds` for a buyer (null until the buyer signs in at checkout). One
   * checkout stays within one show and ticket option; a seller cannot buy their own listing.
   * @throws 404 unknown listing, 400 mixed items, 409 not available
   */
  create(tx: Tx, partnerId: string, input: { listingIds: readonly string[]; buyerPk: string | null; returnTo?: string | null }): IntentionRow {
    const ids = [...new Set(input.listingIds)];
    // The API's schema asks for one item at least; a page's form post reaches here without it.
    if (ids.length === 0) throw ApiError.field('missing_field', 'items', 'Pick at least one ticket');
    if (ids.length !== input.listingIds.length) throw ApiError.field('invalid_value', 'items', 'A listing appears twice');
    const rows = tx.select().from(listings).where(and(eq(listings.partnerId, partnerId), inArray(listings.id, ids))).all();
    for (const id of ids) if (!rows.some((r) => r.id === id)) throw ApiError.notFound('listing', id);
    const first = rows[0]!;
    if (rows.some((r) => r.showPk !== first.showPk || r.ticketOptionPk !== first.ticketOptionPk || r.currency !== first.currency)) {
      throw ApiError.field('invalid_value', 'items', 'One checkout holds listings of one show and one ticket option');
    }
    if (input.buyerPk && rows.some((r) => r.sellerPk === input.buyerPk)) throw ApiError.conflict('You cannot buy your own listing');
    const show = tx.select().from(shows).where(eq(shows.id, first.showPk)).get()!;
    const now = this.deps.clock.now();
    if (!isResaleOpen(show) || now >= show.startsAt) throw ApiError.conflict('Resale is closed for this show');

    const id = newId('intention');
    const reserved = tx
      .update(listings)
      .set({ state: 'RESERVED', intentionId: id, updatedAt: now })
      .where(and(eq(listings.partnerId, partnerId), inArray(listings.id, ids), eq(listings.state, 'ACTIVE')))
      .run();
    if (reserved.changes !== ids.length) throw ApiError.conflict('One or more of these tickets are no longer available');

    const partner = tx.select().from(partners).where(eq(partners.id, partnerId)).get()!;
    return tx
      .insert(buyIntentions)
      .values({
        id,
        partnerId,
        showPk: first.showPk,
        buyerPk: input.buyerPk,
        state: 'PENDING',
        listingIds: ids,
        currency: first.currency,
        totalMinor: rows.reduce((sum, r) => sum + r.quantity * (r.priceMinor + r.buyerFeeMinor), 0),
        expiresAt: now + partner.settings.buyIntentionTtlSeconds * 1000,
        returnTo: input.returnTo ?? null,
        endReason: null,
        paidAt: null,
        endedAt: null,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
  }

  /** An intention of the partner; a PENDING one past its time is expired on the way. 404 otherwise. */
  get(tx: Tx, partnerId: string, id: string): IntentionRow {
    const row = tx.select().from(buyIntentions).where(and(eq(buyIntentions.partnerId, partnerId), eq(buyIntentions.id, id))).get();
    if (!row) throw ApiError.notFound('buy intention', id);
    if (row.state === 'PENDING' && row.expiresAt <= this.deps.clock.now()) return this.endIfPending(tx, row.id, 'EXPIRED', 'timeout') ?? row;
    return row;
  }

  /** Cancels a PENDING intention (the buyer left). Final states answer 409. */
  cancel(tx: Tx, partnerId: string, id: string, reason = 'buyer'): IntentionRow {
    const row = this.get(tx, partnerId, id);
    if (row.state !== 'PENDING') throw ApiError.conflict(`The buy intention is ${row.state}`);
    return this.endIfPending(tx, id, 'CANCELLED', reason)!;
  }

  /** Marks a PENDING intention FAILED (payment refused) and releases its listings. */
  fail(tx: Tx, id: string, reason: string): IntentionRow | null {
    return this.endIfPending(tx, id, 'FAILED', reason);
  }

  /** Expires every PENDING intention whose time has come. Returns how many. */
  expireDue(limit = 500): number {
    const now = this.deps.clock.now();
    const due = this.deps.db
      .select({ id: buyIntentions.id })
      .from(buyIntentions)
      .where(and(eq(buyIntentions.state, 'PENDING'), lte(buyIntentions.expiresAt, now)))
      .limit(limit)
      .all();
    let n = 0;
    for (const { id } of due) if (this.deps.db.transaction((tx) => this.endIfPending(tx, id, 'EXPIRED', 'timeout'))) n++;
    return n;
  }

  /**
   * PENDING → `state`, releasing the listings still held (RESERVED by this intention → ACTIVE),
   * both conditional: a second caller changes nothing and gets null.
   */
  endIfPending(tx: Tx, id: string, state: Exclude<IntentionState, 'PENDING' | 'PAID'>, reason: string): IntentionRow | null {
    const now = this.deps.clock.now();
    const ended = tx
      .update(buyIntentions)
      .set({ state, endReason: reason, endedAt: now, updatedAt: now })
      .where(and(eq(buyIntentions.id, id), eq(buyIntentions.state, 'PENDING')))
      .returning()
      .get();
    if (!ended) return null;
    tx.update(listings).set({ state: 'ACTIVE', intentionId: null, updatedAt: now }).where(and(eq(listings.intentionId, id), eq(listings.state, 'RESERVED'))).run();
    return ended;
  }

  /** The intention as the API answers it. */
  toApi(tx: Tx, row: IntentionRow, paymentUrl: string | null) {
    const rows = tx.select().from(listings).where(inArray(listings.id, row.listingIds)).all();
    const buyer = row.buyerPk ? tx.select().from(users).where(eq(users.id, row.buyerPk)).get() : undefined;
    const major = (m: number) => toMajor(m, row.currency);
    return {
      id: row.id,
      state: row.state,
      expiresAt: toIso(row.expiresAt),
      currency: row.currency,
      total: major(row.totalMinor),
      items: row.listingIds.map((listingId) => {
        const l = rows.find((r) => r.id === listingId)!;
        return {
          listingId,
          ticketIds: this.deps.listings.ticketsOf(tx, listingId).map((t) => t.ticketId),
          quantity: l.quantity,
          price: major(l.priceMinor),
          buyerFee: major(l.buyerFeeMinor),
          subtotal: major(l.quantity * (l.priceMinor + l.buyerFeeMinor)),
        };
      }),
      buyer: buyer ? userToApi(buyer) : null,
      paymentUrl: row.state === 'PENDING' ? paymentUrl : null,
      endReason: row.endReason,
      createdAt: toIso(row.createdAt),
      paidAt: row.paidAt === null ? null : toIso(row.paidAt),
    };
  }

  /** Where the buyer pays: the hosted checkout page of the intention. */
  checkoutUrl(row: IntentionRow, lang: string): string {
    return `${this.deps.config.publicBaseUrl}/checkout/${row.partnerId}/${row.id}?lang=${lang}`;
  }
}
