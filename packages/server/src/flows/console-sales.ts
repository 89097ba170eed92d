import type { Tx } from '../db/client.js';
import { ApiError } from '../lib/errors.js';
import type { Kernel } from '../lib/kernel.js';
import type { AuditContext, AuditService } from '../domain/audit/audit.service.js';
import { intentionById, type IntentionRow } from '../domain/intentions/intentions.queries.js';
import { bookRefundDue } from './refund-due.js';
import type { LedgerService } from '../domain/ledger/ledger.service.js';
import { listingsByIds } from '../domain/listings/listings.queries.js';
import type { PaymentRow, PaymentsService } from '../domain/payments/payments.service.js';
import type { PayoutsService } from '../domain/payouts/payouts.service.js';
import type { ListingsService } from '../domain/listings/listings.service.js';
import type { WebhooksService } from '../domain/webhooks/webhooks.service.js';
import type { WebhookData } from '../domain/webhooks/webhooks.catalog.js';
import { showWithEvent } from '../domain/events/events.queries.js';
import { userToApi } from '../domain/users/users.service.js';
import { usersByPks } from '../domain/users/users.queries.js';
import { toIso } from '../lib/clock.js';
import { toMajor } from '../lib/money.js';

/**
 * The console's sales tab (http/pages/console/console.sales.tsx): an operator refunds one paid
 * resale. The same steps, in the same order, as a cancelled show's refunds
 * (flows/cancel-show.ts), for one buy intention, and its audit entry, in ONE transaction:
 * 1. payments: the paying payment `succeeded` → `refund_pending` (`refundIntentions`,
 *    conditional, so two refunds racing refund once); the refunds job then asks the provider
 *    (idempotency key `refund:<payment>`), books `refund_paid` and e-mails the buyer, as for
 *    every refund;
 * 2. payouts: the sellers' payouts not yet delivered are stopped (`cancelForListings`);
 * 3. ledger: a `refund_due` journal (`refundDueLines`): the buyer is owed the total, the fees
 *    are given back, each seller's part is no longer owed or, when the payout had been
 *    delivered (or was in flight), a loss;
 * 4. webhooks: `resale.refunded` to the partner, who holds the tickets' record: the sale is
 *    reversed, so the partner voids the buyer's tickets (or gives them back to the seller) and
 *    leaves them out of the buyer's tickets at its ownership endpoint. The service does not
 *    move the tickets itself: who holds a ticket is the platform's record (it was told by
 *    `ticket.update` who bought them, and is told now that the purchase is undone);
 * 5. audit: `sale.refund`.
 */

/** The audit action of a resale refunded from the console. */
export const SALE_REFUND_ACTION = 'sale.refund';

/** What refunding a resale needs from the modules it composes. */
export type ConsoleSalesDeps = Pick<Kernel, 'db' | 'clock'> & { payments: PaymentsService; payouts: PayoutsService; ledger: LedgerService; listings: ListingsService; webhooks: WebhooksService; audit: AuditService };

/** Why a resale cannot be refunded: it was never paid (a hold, or a checkout that ended), or it is refunded (or being refunded) already. */
export type RefundRefusal = 'not_paid' | 'already_refunded';

/** What {@link refundSale} did. */
export type RefundOutcome = { ok: true; payment: PaymentRow; payoutsStopped: number } | { ok: false; reason: RefundRefusal };

/** Whether an intention's refund would be refused, and why, from its state and its paying payment (null: it can be refunded). */
export function refundRefusal(intention: Pick<IntentionRow, 'state'>, paying: Pick<PaymentRow, 'state'> | undefined): RefundRefusal | null {
  if (intention.state !== 'PAID' || !paying) return 'not_paid';
  return paying.state === 'succeeded' ? null : 'already_refunded';
}

/**
 * Refunds the paid resale `intentionId` of the partner in full (see the module's comment), or
 * refuses with why, writing nothing.
 *
 * @throws ApiError 404 for an unknown intention or another partner's (nothing written)
 * @example await refundSale(deps, ctx, 'ptr_…', 'bi_…'); // { ok: true, payment: { state: 'refund_pending', … }, payoutsStopped: 1 }
 */
export async function refundSale(deps: ConsoleSalesDeps, ctx: AuditContext, partnerId: string, intentionId: string): Promise<RefundOutcome> {
  return deps.db.transact(async (tx) => {
    const intention = await intentionById(tx, intentionId);
    if (!intention || intention.partnerId !== partnerId) throw ApiError.notFound('resale', intentionId);
    const paying = intention.state === 'PAID' ? await deps.payments.paymentOfPaid(tx, intention.id) : undefined;
    const refused = refundRefusal(intention, paying);
    if (refused) return { ok: false, reason: refused };
    const refunds = await deps.payments.refundIntentions(tx, [intention.id]);
    // Another refund (or a cancelled show) moved it first.
    if (refunds.length === 0) return { ok: false, reason: 'already_refunded' };
    const payoutsStopped = await bookRefunds(deps, tx, intention, refunds);
    const payment = refunds.find((p) => p.id === paying!.id) ?? refunds[0]!;
    await tellPartner(deps, tx, intention);
    await deps.audit.record(tx, ctx, {
      action: SALE_REFUND_ACTION,
      partnerId,
      target: intention.id,
      before: { payment: paying!.state },
      after: { payment: payment.state, paymentId: payment.id, amountMinor: refunds.reduce((sum, p) => sum + p.amountMinor, 0), currency: payment.currency, payoutsStopped },
    });
    return { ok: true, payment, payoutsStopped };
  });
}

/** The `resale.refunded` webhook of a refunded intention: its event and show, its buyer, each ticket with its seller. */
async function tellPartner(deps: ConsoleSalesDeps, tx: Tx, intention: IntentionRow): Promise<void> {
  const { show, event } = (await showWithEvent(tx, intention.showPk))!;
  const sold = await listingsByIds(tx, intention.partnerId, intention.listingIds);
  const people = await usersByPks(tx, [...sold.map((l) => l.sellerPk), ...(intention.buyerPk ? [intention.buyerPk] : [])]);
  const tickets: WebhookData<'resale.refunded'>['tickets'] = [];
  for (const listing of sold) {
    const seller = people.get(listing.sellerPk)!;
    for (const t of await deps.listings.ticketsOf(tx, listing.id)) tickets.push({ ticketId: t.ticketId, listingId: listing.id, previousOwner: userToApi(seller) });
  }
  const buyer = intention.buyerPk ? people.get(intention.buyerPk) : undefined;
  await deps.webhooks.enqueue(tx, intention.partnerId, {
    action: 'resale.refunded',
    // The same resource as the sale's ticket.update: delivered after it, never before.
    resourceKey: `intention:${intention.id}`,
    data: {
      resaleId: intention.id,
      eventId: event.externalReferenceId,
      showId: show.showId,
      refundedAt: toIso(deps.clock.now()),
      amount: toMajor(intention.totalMinor, intention.currency),
      currency: intention.currency,
      reason: 'operator',
      buyer: buyer ? userToApi(buyer) : { id: null, email: null, phone: null },
      tickets,
    },
  });
}

/** The sellers' payouts of the intention stopped, then each refund's `refund_due` journal (as a cancelled show books them); how many payouts were stopped. */
async function bookRefunds(deps: ConsoleSalesDeps, tx: Tx, intention: IntentionRow, refunds: readonly PaymentRow[]): Promise<number> {
  const sold = await listingsByIds(tx, intention.partnerId, intention.listingIds);
  const stopped = await deps.payouts.cancelForListings(tx, sold.map((l) => l.id));
  for (const payment of refunds) await bookRefundDue(deps, tx, payment);
  return stopped;
}
