import { inOrder } from '../../lib/in-order.js';
import { and, eq, gt, isNull, lte } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import type { DomainEventMap } from '../../lib/domain-events.js';
import { toIso } from '../../lib/clock.js';
import { ApiError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { toMajor } from '../../lib/money.js';
import { listingsByIds, type ListingRow } from '../listings/listings.queries.js';
import type { PartnerRow } from '../partners/partners.queries.js';
import { DEFAULT_HOLD_LIMITS, type HoldLimits } from '../partners/partners.settings.js';
import { userToApi } from '../users/users.service.js';
import { userByPk } from '../users/users.queries.js';
import type { IntentionRow } from './intentions.queries.js';
import { buyIntentions, type IntentionKind, type IntentionState } from './intentions.table.js';
import type { IntentionOutcome } from '../metrics/metrics.service.js';
import type { Kernel } from '../../lib/kernel.js';
import type { ListingsService } from '../listings/listings.service.js';
import type { Metrics } from '../metrics/metrics.service.js';
import { serviceUrl, servicePaths } from '../../lib/urls.js';

export type { IntentionRow };

/** The `resale_buy_intentions_total` outcome of each final state but PAID (counted when the transaction commits). */
const ENDED_OUTCOME = { FAILED: 'failed', EXPIRED: 'expired', CANCELLED: 'cancelled' } as const satisfies Record<Exclude<IntentionState, 'PENDING' | 'PAID'>, IntentionOutcome>;

/** Listings one checkout may hold. */
export const MAX_INTENTION_ITEMS = 20;

/** Which hold limit a new hold would break (see `HoldLimits`). */
export type HoldLimit = 'perBuyer' | 'ticketsPerBuyerPerShow' | 'perClientAddress';

/**
 * A hold refused by a hold limit: 429 `rate_limited` with `Retry-After` for the API; pages read
 * `limit`, `max` and `pendingIntentionId` (the buyer's checkout to continue) to say it their way.
 */
export class HoldLimitError extends ApiError {
  constructor(
    readonly limit: HoldLimit,
    readonly max: number,
    readonly retryAfterSeconds: number,
    readonly pendingIntentionId: string | null,
  ) {
    const message =
      limit === 'perBuyer'
        ? `This buyer already has ${max} checkouts waiting for payment; finish or cancel one first`
        : limit === 'ticketsPerBuyerPerShow'
          ? `A buyer may hold at most ${max} tickets of one show at once`
          : 'Too many checkouts are waiting for payment from this client address; try again later';
    super(429, 'rate_limited', message, { headers: { 'Retry-After': String(retryAfterSeconds) }, reason: 'hold_limit' });
  }
}

/**
 * Buy intentions: a reservation of exactly the chosen listings for the partner's
 * `buyIntentionTtlSeconds`. Listings are reserved by ONE conditional statement
 * (`ACTIVE → RESERVED where state = 'ACTIVE'`) whose row count is checked: under any
 * concurrency a listing is held by at most one live intention, so it is never sold twice.
 * Expiry, failure and cancellation release the listings at once.
 */
export class IntentionsService {
  constructor(private readonly deps: Pick<Kernel, 'db' | 'clock' | 'config' | 'bus'> & { listings: ListingsService; metrics: Metrics }) {
  }

  /**
   * A listing ended (`listing.ended`, flows/reactions.ts): the checkout that held it ends,
   * CANCELLED with the reason the buyer is shown (the organiser delisted it, a channel withdrew
   * it, or it became unavailable).
   */
  async endForListing(tx: Tx, ended: DomainEventMap['listing.ended']): Promise<void> {
    if (!ended.intentionId) return;
    const reason = ended.reason === 'organiser' ? 'delisted' : ended.reason === 'channel_withdrawn' ? 'withdrawn' : 'listing_unavailable';
    await this.endIfPending(tx, ended.intentionId, 'CANCELLED', reason);
  }

  /**
   * Opens a PENDING intention over `listings` (already checked by the caller: one show and
   * option, on sale, not the buyer's own) for the partner's `buyIntentionTtlSeconds`, after the
   * hold limits. The listings are reserved by the caller in the same transaction
   * (flows/reserve-listings.ts).
   * @throws HoldLimitError (429)
   */
  async open(tx: Tx, partner: PartnerRow, input: { listings: readonly ListingRow[]; buyerPk: string | null; returnTo?: string | null; clientKey?: string | null }): Promise<IntentionRow> {
    const first = input.listings[0]!;
    await this.checkHoldLimits(tx, partner.settings.holdLimits ?? DEFAULT_HOLD_LIMITS, {
      partnerId: partner.id,
      buyerPk: input.buyerPk,
      clientKey: input.clientKey ?? null,
      showPk: first.showPk,
      tickets: input.listings.reduce((n, r) => n + r.quantity, 0),
    });
    return await this.insert(tx, { partnerId: partner.id, listings: input.listings, buyerPk: input.buyerPk, kind: 'checkout', expiresAt: this.deps.clock.now() + partner.settings.buyIntentionTtlSeconds * 1000, returnTo: input.returnTo ?? null, clientKey: input.clientKey ?? null });
  }

  /**
   * Opens a PENDING `waitinglist` intention: the listings held for a named fan until
   * `expiresAt` (the offer's end), for the waiting-list offers (flows/waiting-list-offers.ts).
   * No hold limits: the fan asked for exactly this many tickets when they joined, and was
   * checked then; the partner's limits are about a buyer picking, and an offer is not a pick.
   * The caller reserves the listings in the same transaction (`ListingsService.reserve`).
   *
   * @throws Error on a caller's mistake (no listings, listings of several shows or currencies, an end not after now)
   * @example const offer = await intentions.openOffer(tx, { partnerId, listings: fit, buyerPk: entry.userPk, expiresAt: now + 15 * 60_000 })
   */
  async openOffer(tx: Tx, input: { partnerId: string; listings: readonly ListingRow[]; buyerPk: string; expiresAt: number }): Promise<IntentionRow> {
    const first = input.listings[0];
    const now = this.deps.clock.now();
    if (!first) throw new Error('intentions.openOffer: an offer holds at least one listing');
    if (input.listings.some((l) => l.showPk !== first.showPk || l.currency !== first.currency)) throw new Error('intentions.openOffer: one offer holds listings of one show and currency');
    if (!(input.expiresAt > now)) throw new Error(`intentions.openOffer: an offer ends after now (now ${now}, expiresAt ${input.expiresAt})`);
    return await this.insert(tx, { partnerId: input.partnerId, listings: input.listings, buyerPk: input.buyerPk, kind: 'waitinglist', expiresAt: input.expiresAt, returnTo: null, clientKey: null });
  }

  /** The PENDING row of a new intention holding `listings` (one show and currency), counted in the metrics. */
  private async insert(tx: Tx, input: { partnerId: string; listings: readonly ListingRow[]; buyerPk: string | null; kind: IntentionRow['kind']; expiresAt: number; returnTo: string | null; clientKey: string | null }): Promise<IntentionRow> {
    const first = input.listings[0]!;
    const now = this.deps.clock.now();
    this.deps.metrics.intention(tx, 'created');
    return (await tx
      .insert(buyIntentions)
      .values({
        id: newId('intention'),
        partnerId: input.partnerId,
        showPk: first.showPk,
        buyerPk: input.buyerPk,
        state: 'PENDING',
        kind: input.kind,
        listingIds: input.listings.map((l) => l.id),
        currency: first.currency,
        totalMinor: input.listings.reduce((sum, r) => sum + r.quantity * (r.priceMinor + r.buyerFeeMinor), 0),
        expiresAt: input.expiresAt,
        returnTo: input.returnTo,
        clientKey: input.clientKey,
        endReason: null,
        paidAt: null,
        endedAt: null,
        createdAt: now,
        updatedAt: now,
      })
      .returning())[0]!;
  }

  /**
   * Names the buyer of an intention reserved without one (the checkout's sign-in), with one
   * conditional update: a buyer already named stays. The own-listing rule of `create` holds
   * here too: a seller who reserved their own listing signed out and signs in at checkout gets
   * `own_listing`, and the intention is cancelled so the listings go back on sale.
   */
  async claim(tx: Tx, partnerId: string, id: string, buyerPk: string): Promise<{ ok: true; row: IntentionRow } | { ok: false; reason: 'own_listing' | 'not_yours'; row: IntentionRow }> {
    let row = await this.get(tx, partnerId, id);
    // Ended before anyone signed in: nothing to claim; the page says how it ended.
    if (row.buyerPk === null && row.state !== 'PENDING') return { ok: true, row };
    if (row.buyerPk === null) {
      if ((await listingsByIds(tx, partnerId, row.listingIds)).some((l) => l.sellerPk === buyerPk)) return { ok: false, reason: 'own_listing', row: (await this.endIfPending(tx, id, 'CANCELLED', 'own_listing')) ?? row };
      await tx.update(buyIntentions).set({ buyerPk, updatedAt: this.deps.clock.now() }).where(and(eq(buyIntentions.id, id), isNull(buyIntentions.buyerPk)));
      row = await this.get(tx, partnerId, id);
    }
    return row.buyerPk === buyerPk ? { ok: true, row } : { ok: false, reason: 'not_yours', row };
  }

  /**
   * Refuses a hold that would break a limit (see `HoldLimits`), counting live holds (PENDING,
   * not yet expired). Counted inside the reserving transaction, which holds the write lock on
   * SQLite, so two requests cannot both slip under a limit.
   *
   * @throws HoldLimitError
   */
  private async checkHoldLimits(tx: Tx, limits: HoldLimits, hold: { partnerId: string; buyerPk: string | null; clientKey: string | null; showPk: string; tickets: number }): Promise<void> {
    const now = this.deps.clock.now();
    const live = and(eq(buyIntentions.state, 'PENDING'), gt(buyIntentions.expiresAt, now));
    const wait = (rows: readonly { expiresAt: number }[]) => Math.max(1, Math.ceil((Math.min(...rows.map((r) => r.expiresAt)) - now) / 1000));
    if (hold.buyerPk) {
      const mine = await tx
        .select({ id: buyIntentions.id, showPk: buyIntentions.showPk, listingIds: buyIntentions.listingIds, expiresAt: buyIntentions.expiresAt })
        .from(buyIntentions)
        .where(and(eq(buyIntentions.buyerPk, hold.buyerPk), live));
      const newest = mine.reduce<(typeof mine)[number] | null>((a, b) => (a === null || b.expiresAt > a.expiresAt ? b : a), null);
      if (mine.length >= limits.perBuyer) throw new HoldLimitError('perBuyer', limits.perBuyer, wait(mine), newest?.id ?? null);
      const sameShow = mine.filter((r) => r.showPk === hold.showPk);
      if (sameShow.length > 0 || hold.tickets > limits.ticketsPerBuyerPerShow) {
        const held = (await listingsByIds(tx, hold.partnerId, sameShow.flatMap((r) => r.listingIds))).reduce((n, l) => n + l.quantity, 0);
        if (held + hold.tickets > limits.ticketsPerBuyerPerShow) {
          throw new HoldLimitError('ticketsPerBuyerPerShow', limits.ticketsPerBuyerPerShow, sameShow.length ? wait(sameShow) : 1, sameShow.at(-1)?.id ?? null);
        }
      }
    }
    if (hold.clientKey) {
      const fromAddress = await tx
        .select({ expiresAt: buyIntentions.expiresAt })
        .from(buyIntentions)
        .where(and(eq(buyIntentions.clientKey, hold.clientKey), live))
        .limit(limits.perClientAddress);
      if (fromAddress.length >= limits.perClientAddress) throw new HoldLimitError('perClientAddress', limits.perClientAddress, wait(fromAddress), null);
    }
  }

  /** An intention of the partner; a PENDING one past its time is expired on the way. 404 otherwise. */
  async get(tx: Tx, partnerId: string, id: string): Promise<IntentionRow> {
    const row = (await tx.select().from(buyIntentions).where(and(eq(buyIntentions.partnerId, partnerId), eq(buyIntentions.id, id))).limit(1))[0];
    if (!row) throw ApiError.notFound('buy intention', id);
    if (row.state === 'PENDING' && row.expiresAt <= this.deps.clock.now()) return (await this.endIfPending(tx, row.id, 'EXPIRED', 'timeout')) ?? row;
    return row;
  }

  /** Cancels a PENDING intention (the buyer left). Final states answer 409. */
  async cancel(tx: Tx, partnerId: string, id: string, reason = 'buyer'): Promise<IntentionRow> {
    const row = await this.get(tx, partnerId, id);
    if (row.state !== 'PENDING') throw ApiError.conflict(`The buy intention is ${row.state}`, undefined, 'intention_ended');
    return (await this.endIfPending(tx, id, 'CANCELLED', reason))!;
  }

  /** Marks a PENDING intention FAILED (payment refused) and releases its listings. */
  async fail(tx: Tx, id: string, reason: string): Promise<IntentionRow | null> {
    return await this.endIfPending(tx, id, 'FAILED', reason);
  }

  /** Expires every PENDING intention whose time has come, each in its own transaction. Returns how many. */
  async expireDue(limit = 500): Promise<number> {
    const now = this.deps.clock.now();
    const due = await this.deps.db.read(async (tx) =>
      await tx
        .select({ id: buyIntentions.id })
        .from(buyIntentions)
        .where(and(eq(buyIntentions.state, 'PENDING'), lte(buyIntentions.expiresAt, now)))
        .limit(limit),
    );
    let n = 0;
    for (const { id } of due) if (await this.deps.db.transact(async (tx) => await this.endIfPending(tx, id, 'EXPIRED', 'timeout'))) n++;
    return n;
  }

  /**
   * PENDING → `state`, releasing the listings still held (RESERVED by this intention → ACTIVE),
   * both conditional: a second caller changes nothing and gets null. `intention.ended` is raised
   * between the two: a waiting-list offer is ended (its fan moved on) before its listings are
   * released and offered to the next fan, in this transaction.
   */
  async endIfPending(tx: Tx, id: string, state: Exclude<IntentionState, 'PENDING' | 'PAID'>, reason: string): Promise<IntentionRow | null> {
    const now = this.deps.clock.now();
    const ended = (await tx
      .update(buyIntentions)
      .set({ state, endReason: reason, endedAt: now, updatedAt: now })
      .where(and(eq(buyIntentions.id, id), eq(buyIntentions.state, 'PENDING')))
      .returning())[0]!;
    if (!ended) return null;
    this.deps.metrics.intention(tx, ENDED_OUTCOME[state]);
    await this.emitEnded(tx, ended);
    await this.deps.listings.release(tx, id);
    return ended;
  }

  /**
   * PENDING → PAID, conditional: null when the intention is no longer PENDING (already paid,
   * or ended meanwhile), so a repeated payment callback completes nothing twice.
   */
  async markPaid(tx: Tx, id: string): Promise<IntentionRow | null> {
    const now = this.deps.clock.now();
    const paid = (await tx
      .update(buyIntentions)
      .set({ state: 'PAID', paidAt: now, updatedAt: now })
      .where(and(eq(buyIntentions.id, id), eq(buyIntentions.state, 'PENDING')))
      .returning())[0];
    if (!paid) return null;
    this.deps.metrics.intention(tx, 'paid');
    await this.emitEnded(tx, paid);
    return paid;
  }

  /** `intention.ended` for a row that just left PENDING. */
  private async emitEnded(tx: Tx, row: IntentionRow): Promise<void> {
    if (row.state === 'PENDING') return;
    await this.deps.bus.emit(tx, 'intention.ended', { partnerId: row.partnerId, intentionId: row.id, showPk: row.showPk, kind: row.kind satisfies IntentionKind, state: row.state, reason: row.state === 'PAID' ? 'paid' : (row.endReason ?? '') });
  }

  /** The intention as the API answers it. */
  async toApi(tx: Tx, row: IntentionRow, paymentUrl: string | null) {
    const rows = await listingsByIds(tx, row.partnerId, row.listingIds);
    const buyer = row.buyerPk ? await userByPk(tx, row.buyerPk) : undefined;
    const major = (m: number) => toMajor(m, row.currency);
    return {
      id: row.id,
      state: row.state,
      expiresAt: toIso(row.expiresAt),
      currency: row.currency,
      total: major(row.totalMinor),
      items: await inOrder(row.listingIds, async (listingId) => {
        const l = rows.find((r) => r.id === listingId)!;
        return {
          listingId,
          ticketIds: (await this.deps.listings.ticketsOf(tx, listingId)).map((t) => t.ticketId),
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
    return serviceUrl(this.deps.config.publicBaseUrl, servicePaths.checkout(row.partnerId, row.id, { lang }));
  }
}
