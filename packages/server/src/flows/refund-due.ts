import type { Tx } from '../db/client.js';
import { intentionById } from '../domain/intentions/intentions.queries.js';
import { refundDueLines } from '../domain/ledger/ledger.accounts.js';
import type { LedgerService } from '../domain/ledger/ledger.service.js';
import { listingsByIds } from '../domain/listings/listings.queries.js';
import type { PaymentRow } from '../domain/payments/payments.service.js';
import { payoutStatesOfListings } from '../domain/payouts/payouts.queries.js';

/**
 * Books a refund decided for a paid resale (`payment` now `refund_pending`) as its `refund_due`
 * journal, once (the key is the payment's): the buyer is owed the total, the fees are given
 * back, and each seller's part is no longer owed, or is a loss when the payout had been
 * delivered (a distributed payout is never recovered). Call after the sellers' payouts not yet
 * delivered were stopped (payouts `cancelForListings`), in the same transaction: what a
 * cancelled show and an operator's refund both do.
 */
export async function bookRefundDue(deps: { ledger: LedgerService }, tx: Tx, payment: PaymentRow): Promise<void> {
  const intention = (await intentionById(tx, payment.intentionId))!;
  const sold = await listingsByIds(tx, intention.partnerId, intention.listingIds);
  const payoutStates = await payoutStatesOfListings(tx, sold.map((l) => l.id));
  await deps.ledger.post(tx, {
    partnerId: payment.partnerId,
    kind: 'refund_due',
    key: `refund_due:${payment.id}`,
    currency: payment.currency,
    intentionId: intention.id,
    provider: payment.provider,
    providerRef: payment.providerRef,
    // A payout SENDING is money in flight: it was not stopped, so it counts as delivered.
    lines: refundDueLines(sold.map((l) => ({ ...l, payoutDelivered: payoutStates.get(l.id) === 'DELIVERED' || payoutStates.get(l.id) === 'SENDING' }))),
  });
}
