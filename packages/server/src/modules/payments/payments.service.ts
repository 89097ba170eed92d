import { and, eq, inArray, lte } from 'drizzle-orm';
import type { AppDeps } from '../../context.js';
import type { Tx } from '../../db/client.js';
import { toIso } from '../../lib/clock.js';
import { ApiError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { toMajor } from '../../lib/money.js';
import { events, priceTypes, shows, ticketOptions } from '../events/events.table.js';
import { buyIntentions } from '../intentions/intentions.table.js';
import type { IntentionRow } from '../intentions/intentions.service.js';
import { listings } from '../listings/listings.table.js';
import { partners } from '../partners/partners.table.js';
import { tickets } from '../tickets/tickets.table.js';
import { userToApi } from '../users/users.service.js';
import { users } from '../users/users.table.js';
import type { CardInput, ChargeResult, PayOutcome, PaymentProvider } from './payments.provider.js';
import { payments, payouts } from './payments.table.js';
import type { WebhookData } from '../webhooks/webhooks.catalog.js';
import { channelListingOf } from '../channels/channels.service.js';

const DAY = 86_400_000;


/**
 * Checkout and its consequences: charging through the payment provider, completing a resale
 * in ONE transaction (intention PAID, listings SOLD, tickets to the buyer, payouts
 * scheduled, the `ticket.update` webhook and the e-mails in their outboxes), refunds when a
 * show is cancelled, and payout delivery. Completion is conditional on the intention being
 * PENDING, so a repeated callback changes nothing.
 */
export class PaymentsService {
  constructor(
    private readonly deps: Pick<AppDeps, 'db' | 'clock' | 'bus' | 'intentions' | 'listings' | 'webhooks' | 'messages' | 'logger'>,
    readonly provider: PaymentProvider,
  ) {
    deps.bus.on('show.cancelled', (tx, e) => this.cancelShow(tx, e.showPk));
  }

  /** Charges the intention's total. At most one charge per intention (the provider key is its id). */
  async pay(intention: IntentionRow, card: CardInput): Promise<PayOutcome> {
    const result = await this.provider.charge({ amountMinor: intention.totalMinor, currency: intention.currency, card, idempotencyKey: intention.id });
    return this.deps.db.transaction((tx) => this.record(tx, intention, result, card.number.replace(/\D/g, '').slice(-4)));
  }

  /** The buyer answered the extra verification. Idempotent: only a payment awaiting it moves. */
  async verify(paymentId: string, approved: boolean): Promise<PayOutcome> {
    const payment = this.deps.db.select().from(payments).where(eq(payments.id, paymentId)).get();
    if (!payment) throw ApiError.notFound('payment', paymentId);
    if (payment.state !== 'requires_action') {
      const intention = this.deps.db.select().from(buyIntentions).where(eq(buyIntentions.id, payment.intentionId)).get()!;
      return intention.state === 'PAID' ? { kind: 'paid', intentionId: intention.id } : { kind: 'ended', state: payment.state };
    }
    const result = await this.provider.confirm(payment.providerRef, approved);
    return this.deps.db.transaction((tx) => {
      const intention = tx.select().from(buyIntentions).where(eq(buyIntentions.id, payment.intentionId)).get()!;
      const moved = tx
        .update(payments)
        .set({ state: result.status === 'succeeded' ? 'succeeded' : 'declined', failureCode: result.status === 'declined' ? result.code : null, updatedAt: this.deps.clock.now() })
        .where(and(eq(payments.id, payment.id), eq(payments.state, 'requires_action')))
        .run();
      if (moved.changes !== 1) return { kind: 'ended', state: 'already_answered' } as const;
      return this.settle(tx, intention, payment.id, result);
    });
  }

  private record(tx: Tx, intention: IntentionRow, result: ChargeResult, last4: string): PayOutcome {
    const now = this.deps.clock.now();
    const paymentId = newId('payment');
    tx.insert(payments)
      .values({
        id: paymentId,
        partnerId: intention.partnerId,
        intentionId: intention.id,
        provider: this.provider.name,
        providerRef: result.ref,
        state: result.status,
        amountMinor: intention.totalMinor,
        currency: intention.currency,
        cardLast4: last4,
        failureCode: result.status === 'declined' ? result.code : null,
        refundedAt: null,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing()
      .run();
    if (result.status === 'requires_action') return { kind: 'verify', paymentId };
    return this.settle(tx, intention, paymentId, result);
  }

  private settle(tx: Tx, intention: IntentionRow, paymentId: string, result: ChargeResult): PayOutcome {
    if (result.status === 'declined') {
      this.deps.intentions.fail(tx, intention.id, result.code);
      return { kind: 'declined', code: result.code };
    }
    if (!this.complete(tx, intention.id)) {
      // The money came in but the reservation had ended meanwhile (it expired during a slow
      // verification): give it back.
      tx.update(payments).set({ state: 'refund_pending', updatedAt: this.deps.clock.now() }).where(and(eq(payments.id, paymentId), eq(payments.state, 'succeeded'))).run();
      const row = tx.select().from(buyIntentions).where(eq(buyIntentions.id, intention.id)).get()!;
      return { kind: 'ended', state: row.state };
    }
    return { kind: 'paid', intentionId: intention.id };
  }

  /**
   * PENDING → PAID with everything that follows, in the caller's transaction. False when
   * the intention is no longer PENDING (already paid: nothing happens twice).
   */
  complete(tx: Tx, intentionId: string): boolean {
    const now = this.deps.clock.now();
    const paid = tx
      .update(buyIntentions)
      .set({ state: 'PAID', paidAt: now, updatedAt: now })
      .where(and(eq(buyIntentions.id, intentionId), eq(buyIntentions.state, 'PENDING')))
      .returning()
      .get();
    if (!paid || !paid.buyerPk) {
      if (paid) throw new Error('A buy intention was paid without a buyer');
      return false;
    }
    const sold = tx
      .update(listings)
      .set({ state: 'SOLD', soldAt: now, intentionId: null, updatedAt: now })
      .where(and(eq(listings.intentionId, intentionId), eq(listings.state, 'RESERVED')))
      .returning()
      .all();
    if (sold.length !== paid.listingIds.length) throw new Error('A paid intention lost a reserved listing');

    const ctx = tx
      .select({ show: shows, event: events, partner: partners })
      .from(shows)
      .innerJoin(events, eq(events.id, shows.eventPk))
      .innerJoin(partners, eq(partners.id, shows.partnerId))
      .where(eq(shows.id, paid.showPk))
      .get()!;
    const buyer = tx.select().from(users).where(eq(users.id, paid.buyerPk)).get()!;
    const lang = ctx.partner.settings.defaultLang;
    const dueAt = ctx.show.startsAt + ctx.partner.settings.payoutDelayDays * DAY;
    const resold: WebhookData<'ticket.update'>['tickets'] = [];
    for (const listing of sold) {
      const seller = tx.select().from(users).where(eq(users.id, listing.sellerPk)).get()!;
      const held = this.deps.listings.ticketsOf(tx, listing.id);
      tx.update(tickets)
        .set({ ownerPk: buyer.id, state: 'VALID', unlockNotifiedAt: null, updatedAt: now })
        .where(inArray(tickets.id, held.map((t) => t.id)))
        .run();
      const amountMinor = listing.payoutMinor * listing.quantity;
      tx.insert(payouts)
        .values({ id: newId('payout'), partnerId: paid.partnerId, sellerPk: seller.id, listingId: listing.id, amountMinor, currency: listing.currency, dueAt, state: 'SCHEDULED', deliveredAt: null, cancelledAt: null, createdAt: now, updatedAt: now })
        .run();
      const option = tx.select().from(ticketOptions).where(eq(ticketOptions.id, listing.ticketOptionPk)).get()!;
      const priceTypeId = listing.priceTypePk ? tx.select().from(priceTypes).where(eq(priceTypes.id, listing.priceTypePk)).get()?.priceTypeId : undefined;
      // A channel's listing: the partner fulfils these tickets with the channel that sold them.
      const ch = channelListingOf(tx, listing.id);
      const channel = ch ? { channel: { channelId: ch.channelId, externalListingId: ch.externalListingId, sellerReference: ch.sellerReference } } : {};
      for (const t of held) {
        resold.push({
          ticketId: t.ticketId,
          ticketOptionId: option.ticketId,
          ...(priceTypeId ? { priceTypeId } : {}),
          seating: { section: t.section, row: t.row, seat: t.seat },
          orderId: t.orderId,
          listingId: listing.id,
          pricePaid: toMajor(listing.priceMinor + listing.buyerFeeMinor, listing.currency),
          currency: listing.currency,
          previousOwner: userToApi(seller),
          ...channel,
        });
      }
      this.deps.messages.toUser(tx, paid.partnerId, seller, 'listingSold', lang, {
        eventTitle: ctx.event.title,
        showTitle: ctx.show.title,
        amount: { minor: amountMinor, currency: listing.currency },
        payoutDate: toIso(dueAt).slice(0, 10),
      });
    }
    this.deps.webhooks.enqueue(tx, paid.partnerId, {
      action: 'ticket.update',
      resourceKey: `intention:${paid.id}`,
      data: {
        resaleId: paid.id,
        eventId: ctx.event.externalReferenceId,
        showId: ctx.show.showId,
        paidAt: toIso(now),
        total: toMajor(paid.totalMinor, paid.currency),
        currency: paid.currency,
        buyer: { ...userToApi(buyer), firstName: buyer.firstName, lastName: buyer.lastName },
        tickets: resold,
      },
    });
    const timeZone = (ctx.show.location ?? ctx.event.location).timeZone;
    this.deps.messages.toUser(tx, paid.partnerId, buyer, 'purchaseConfirmed', lang, {
      eventTitle: ctx.event.title,
      showTitle: ctx.show.title,
      showDate: toIso(ctx.show.startsAt),
      amount: { minor: paid.totalMinor, currency: paid.currency },
      quantity: resold.length,
      ...(timeZone ? { timeZone } : {}),
    });
    return true;
  }

  /** A cancelled show: resale buyers are refunded (by the refund job), undelivered payouts stopped. */
  private cancelShow(tx: Tx, showPk: string): void {
    const now = this.deps.clock.now();
    const paid = tx.select({ id: buyIntentions.id }).from(buyIntentions).where(and(eq(buyIntentions.showPk, showPk), eq(buyIntentions.state, 'PAID'))).all();
    if (paid.length > 0) {
      tx.update(payments)
        .set({ state: 'refund_pending', updatedAt: now })
        .where(and(inArray(payments.intentionId, paid.map((p) => p.id)), eq(payments.state, 'succeeded')))
        .run();
    }
    const soldHere = tx.select({ id: listings.id }).from(listings).where(and(eq(listings.showPk, showPk), eq(listings.state, 'SOLD'))).all();
    if (soldHere.length > 0) {
      tx.update(payouts)
        .set({ state: 'CANCELLED', cancelledAt: now, updatedAt: now })
        .where(and(inArray(payouts.listingId, soldHere.map((l) => l.id)), eq(payouts.state, 'SCHEDULED')))
        .run();
    }
  }

  /** Performs pending refunds with the provider, then tells each buyer. */
  async runRefunds(limit = 50): Promise<number> {
    const due = this.deps.db.select().from(payments).where(eq(payments.state, 'refund_pending')).limit(limit).all();
    let n = 0;
    for (const p of due) {
      const r = await this.provider.refund({ ref: p.providerRef, amountMinor: p.amountMinor, idempotencyKey: `refund:${p.id}` });
      if (!r.ok) {
        this.deps.logger.warn({ paymentId: p.id, code: r.code }, 'refund refused by the provider; will retry');
        continue;
      }
      this.deps.db.transaction((tx) => {
        const now = this.deps.clock.now();
        const moved = tx.update(payments).set({ state: 'refunded', refundedAt: now, updatedAt: now }).where(and(eq(payments.id, p.id), eq(payments.state, 'refund_pending'))).run();
        if (moved.changes !== 1) return;
        n++;
        const row = tx
          .select({ buyer: users, eventTitle: events.title, lang: partners.settings })
          .from(buyIntentions)
          .innerJoin(users, eq(users.id, buyIntentions.buyerPk))
          .innerJoin(shows, eq(shows.id, buyIntentions.showPk))
          .innerJoin(events, eq(events.id, shows.eventPk))
          .innerJoin(partners, eq(partners.id, buyIntentions.partnerId))
          .where(eq(buyIntentions.id, p.intentionId))
          .get();
        if (row) this.deps.messages.toUser(tx, p.partnerId, row.buyer, 'refund', row.lang.defaultLang, { eventTitle: row.eventTitle, amount: { minor: p.amountMinor, currency: p.currency } });
      });
    }
    return n;
  }

  /** Distributes payouts whose date has come (final: a delivered payout is never touched). */
  runPayouts(limit = 200): number {
    const now = this.deps.clock.now();
    const due = this.deps.db.select().from(payouts).where(and(eq(payouts.state, 'SCHEDULED'), lte(payouts.dueAt, now))).limit(limit).all();
    let n = 0;
    for (const p of due) {
      this.deps.db.transaction((tx) => {
        const moved = tx.update(payouts).set({ state: 'DELIVERED', deliveredAt: now, updatedAt: now }).where(and(eq(payouts.id, p.id), eq(payouts.state, 'SCHEDULED'))).run();
        if (moved.changes !== 1) return;
        n++;
        const seller = tx.select().from(users).where(eq(users.id, p.sellerPk)).get()!;
        this.deps.webhooks.enqueue(tx, p.partnerId, {
          action: 'payouts.delivered',
          resourceKey: `payout:${p.id}`,
          data: { payoutId: p.id, sellerId: seller.externalId ?? seller.email ?? seller.phone ?? seller.id, amount: toMajor(p.amountMinor, p.currency), currency: p.currency, listingIds: [p.listingId], deliveredAt: toIso(now) },
        });
      });
    }
    return n;
  }
}
