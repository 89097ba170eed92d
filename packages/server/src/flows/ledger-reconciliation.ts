import type { Kernel } from '../lib/kernel.js';
import { toIso } from '../lib/clock.js';
import { ApiError } from '../lib/errors.js';
import { providerMoves } from '../domain/ledger/ledger.queries.js';
import { reconcile, type Reconciliation } from '../domain/ledger/ledger.reconcile.js';
import type { PaymentsService } from '../domain/payments/payments.service.js';

/** What reconciling needs: the ledger's database, the payment provider, a logger. */
export type ReconciliationDeps = Pick<Kernel, 'db' | 'logger'> & { payments: PaymentsService };

/** A reconciliation of a period: the provider, whether it has a balance to compare (`available`), the period, and what matched. */
export type PeriodReconciliation = Reconciliation & { provider: string; available: boolean; from: string; to: string };

const DAY = 86_400_000;

/**
 * The ledger of `[from, to)` against the payment provider's balance (its balance transactions
 * created in the period, see `reconcile`). With the sandbox (no hosted provider) nothing moves
 * at a provider: `available: false` and nothing checked. The ledger is read a day wider on each
 * side, so a movement near a boundary finds its journal. What `GET /admin/v1/ledger/reconciliation`
 * answers and the console shows and exports.
 *
 * @throws ApiError 503 `upstream_unavailable` (Retry-After 60) when the provider does not list its balance
 */
export async function reconcilePeriod(deps: ReconciliationDeps, period: { from: number; to: number }): Promise<PeriodReconciliation> {
  const provider = deps.payments.hosted;
  const head = { from: toIso(period.from), to: toIso(period.to) };
  if (!provider) return { provider: deps.payments.provider.name, available: false, ...head, checked: 0, matched: 0, mismatches: [], other: [] };
  let balance;
  try {
    balance = await provider.balanceTransactions(period.from, period.to);
  } catch (err) {
    deps.logger.warn({ err }, 'the payment provider did not list its balance');
    throw new ApiError(503, 'upstream_unavailable', 'The payment provider did not answer; try again in a minute', { headers: { 'Retry-After': '60' } });
  }
  const moves = await deps.db.read(async (tx) => await providerMoves(tx, provider.name, period.from - DAY, period.to + DAY));
  return { provider: provider.name, available: true, ...head, ...reconcile(balance, moves, period) };
}
