import type { Tx } from '../db/client.js';
import type { DomainEventMap } from '../lib/domain-events.js';
import { paidIntentionIdsOfShow } from '../domain/intentions/intentions.queries.js';
import { soldListingIdsOfShow } from '../domain/listings/listings.queries.js';
import { bookRefundDue } from './refund-due.js';
import type { LedgerService } from '../domain/ledger/ledger.service.js';
import type { PaymentsService } from '../domain/payments/payments.service.js';
import type { PayoutsService } from '../domain/payouts/payouts.service.js';
import type { TicketsService } from '../domain/tickets/tickets.service.js';

/** What cancelling a show needs from the modules it composes. */
export type CancelShowDeps = { tickets: TicketsService; payments: PaymentsService; payouts: PayoutsService; ledger: LedgerService };

/**
 * Cancel a show: what follows once the events module has marked it CANCELLED (by the API, a
 * feed or the cancellation endpoint; `show.cancelled`, whose one subscriber is this flow,
 * wired in deps.ts). In the same transaction, in this order:
 * 1. tickets: every live ticket of the show becomes CANCELLED (tickets). Each raises
 *    `ticket.invalidated`, on which its live listing ends (listings: TERMINATED, endReason
 *    `ticket_cancelled`, `listing.updated` + `listing.deleted`), which ends a checkout holding
 *    it (intentions, via `listing.ended`: CANCELLED) and drops a channel's unsold tickets;
 * 2. refunds: every buyer who paid for a resale of the show is refunded (payments:
 *    `refund_pending`; the refunds job pays it back and e-mails the buyer);
 * 3. payouts: sellers' payouts not yet delivered are stopped (payouts: CANCELLED);
 * 4. ledger: each refund decided is a `refund_due` journal: the buyer is owed the total, the
 *    fees are given back, and each seller's part is no longer owed, or is a loss when the
 *    payout had been delivered (a distributed payout is never recovered).
 * A step that throws rolls the cancellation back whole.
 */
export async function cancelShow(deps: CancelShowDeps, tx: Tx, e: DomainEventMap['show.cancelled']): Promise<void> {
  await deps.tickets.cancelForShow(tx, e.partnerId, e.showPk, e.cancelledAt);
  const refunds = await deps.payments.refundIntentions(tx, await paidIntentionIdsOfShow(tx, e.showPk));
  await deps.payouts.cancelForListings(tx, await soldListingIdsOfShow(tx, e.showPk));
  for (const payment of refunds) await bookRefundDue(deps, tx, payment);
}
