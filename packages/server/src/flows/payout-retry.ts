import type { AuditContext, AuditService } from '../domain/audit/audit.service.js';
import type { PayoutAttempt, PayoutsService } from '../domain/payouts/payouts.service.js';

/** The audit action of an overdue payout delivered now, on an operator's request. */
export const PAYOUT_RETRY_ACTION = 'payout.retry';

/** What retrying a payout needs: the payouts module and the audit log. */
export type PayoutRetryDeps = { payouts: PayoutsService; audit: AuditService };

/**
 * Delivers one overdue payout now, through the payout job's own path
 * (`PayoutsService.deliverNow`: the job's claim, the same idempotency key, so never two
 * transfers), and records `payout.retry` (the payout as target, its state and `lastError`
 * before → after the claim) in the transaction that claims it, or that notes why it cannot be
 * sent (the seller's account not ready). The transfer itself happens after that transaction,
 * as in the job: its answer is the outcome (`delivered`, or `refused` with the provider's
 * code). Nothing is recorded when nothing was attempted (`not_overdue`, `busy`). Only this
 * partner's payout with `partnerId`.
 *
 * @throws ApiError 404 for an unknown payout, or another partner's (nothing recorded)
 * @example const r = await retryPayout(deps, ctx, 'po_…'); // { outcome: 'delivered' }
 */
export async function retryPayout(deps: PayoutRetryDeps, ctx: AuditContext, payoutId: string, partnerId?: string): Promise<PayoutAttempt> {
  return await deps.payouts.deliverNow(payoutId, {
    partnerId,
    onAttempt: async (tx, before, after) => {
      await deps.audit.record(tx, ctx, {
        action: PAYOUT_RETRY_ACTION,
        partnerId: before.partnerId,
        target: before.id,
        before: { state: before.state, lastError: before.lastError },
        after,
      });
    },
  });
}
