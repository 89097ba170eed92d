/**
 * Reconciliation: the ledger's money movements at the payment provider against the provider's
 * own balance (Stripe's balance transactions), as a pure function of both lists.
 *
 * Each movement the provider's balance sees names its source: a charge (`ch_…`), a refund
 * (`re_…`), a transfer (`tr_…`). The ledger names the same reference on the journal that
 * records it: `sale` and `late_payment` the charge (whose `provider_fee` journal names it too),
 * `refund_paid` the refund, `payout_delivered` the transfer. They match when the amounts
 * agree: the provider's amount with the journal's `provider_balance` line (a charge in, a
 * refund or a transfer out), and a charge's fee with its `provider_fee` journal.
 */

/** One entry of the provider's balance (amounts in minor units; outgoing ones negative). */
export interface ProviderBalanceTransaction {
  id: string;
  /** The provider's kind: `charge`, `payment`, `refund`, `transfer`, `payout`, `stripe_fee` … */
  type: string;
  /** What moved the money (`ch_…`, `re_…`, `tr_…`, `dp_…`), when the provider names it. */
  sourceRef: string | null;
  /** The provider's accounting category when it says more than `type` (Stripe's `reporting_category`: `dispute`, `transfer_reversal` …). */
  category: string | null;
  amountMinor: number;
  feeMinor: number;
  currency: string;
  createdAt: number;
}

/** The ledger's side of one provider reference: what its journals moved on the provider's balance. */
export interface LedgerProviderMove {
  providerRef: string;
  currency: string;
  /** The `provider_balance` lines of its journals, but the fee's. */
  amountMinor: number;
  /** The `provider_fees` lines (a charge's fee), 0 when none was booked. */
  feeMinor: number;
  journalIds: string[];
  /** When its first journal was written. */
  createdAt: number;
}

/** Why an entry does not reconcile. */
export type MismatchReason = 'missing_in_ledger' | 'missing_at_provider' | 'amount_differs' | 'fee_differs';

export interface Mismatch {
  reason: MismatchReason;
  providerRef: string;
  currency: string;
  providerType: string | null;
  /** The provider's category of the entry (Stripe's `reporting_category`), when it has one. */
  providerCategory: string | null;
  providerAmountMinor: number | null;
  ledgerAmountMinor: number | null;
  providerFeeMinor: number | null;
  ledgerFeeMinor: number | null;
  journalIds: string[];
}

export interface Reconciliation {
  /** Provider entries compared with the ledger (charges, payments, refunds and transfers in the period). */
  checked: number;
  matched: number;
  mismatches: Mismatch[];
  /** The provider's other entries in the period (its payouts to the platform's bank, its own fees…), summed per type and currency: not the ledger's. */
  other: { type: string; currency: string; count: number; amountMinor: number }[];
}

/** Provider entry types that are money of a resale and must each have their journal. */
const RESALE_TYPES = new Set(['charge', 'payment', 'refund', 'payment_refund', 'transfer']);

/**
 * Provider categories of resale money booked from the provider's events rather than by the
 * service's own calls: a buyer's chargeback (`dispute`: its funds withdrawn) and its reversal
 * when won (`dispute_reversal`: reinstated). Both name the dispute (`dp_…`), so a dispute's
 * entries are summed and compared with its journals together.
 */
const EVENT_BOOKED_CATEGORIES = new Set(['dispute', 'dispute_reversal']);

/**
 * Provider categories of resale money the service never moves and does not book: a transfer
 * reversed in the provider's dashboard (`transfer_reversal`: the service never reverses a
 * delivered payout). Reported `missing_in_ledger`, for an operator to book and act on, rather
 * than summed away with the provider's own entries.
 */
const OUTSIDE_THE_SERVICE = new Set(['transfer_reversal']);

/**
 * Compares the provider's entries created in `[from, to)` with the ledger's moves (which the
 * caller reads over a wider window, so an entry near a boundary finds its journal); a ledger
 * move in `[from, to)` that the provider does not list is `missing_at_provider`. The
 * provider's entries naming one source (a charge and its later adjustments, a dispute withdrawn
 * then reinstated) are summed before they are compared, as the ledger sums its journals.
 */
export function reconcile(provider: readonly ProviderBalanceTransaction[], ledger: readonly LedgerProviderMove[], period: { from: number; to: number }): Reconciliation {
  const byRef = new Map(ledger.map((m) => [m.providerRef, m]));
  const seen = new Set<string>();
  const mismatches: Mismatch[] = [];
  const other = new Map<string, { type: string; currency: string; count: number; amountMinor: number }>();
  const sources = new Map<string, { ref: string; type: string; category: string | null; currency: string; amountMinor: number; feeMinor: number; count: number }>();
  let checked = 0;
  let matched = 0;
  for (const t of provider) {
    const currency = t.currency.toUpperCase();
    if (t.category !== null && OUTSIDE_THE_SERVICE.has(t.category) && t.sourceRef) {
      checked++;
      mismatches.push({
        reason: 'missing_in_ledger',
        providerRef: t.sourceRef,
        currency,
        providerType: t.type,
        providerCategory: t.category,
        providerAmountMinor: t.amountMinor,
        ledgerAmountMinor: null,
        providerFeeMinor: t.feeMinor,
        ledgerFeeMinor: null,
        journalIds: byRef.get(t.sourceRef)?.journalIds ?? [],
      });
      continue;
    }
    if (!t.sourceRef || !(RESALE_TYPES.has(t.type) || (t.category !== null && EVENT_BOOKED_CATEGORIES.has(t.category)))) {
      const key = `${t.type}:${currency}`;
      const o = other.get(key) ?? { type: t.type, currency, count: 0, amountMinor: 0 };
      o.count++;
      o.amountMinor += t.amountMinor;
      other.set(key, o);
      continue;
    }
    const s = sources.get(t.sourceRef) ?? { ref: t.sourceRef, type: t.type, category: t.category, currency, amountMinor: 0, feeMinor: 0, count: 0 };
    s.amountMinor += t.amountMinor;
    s.feeMinor += t.feeMinor;
    s.count++;
    sources.set(t.sourceRef, s);
  }
  for (const s of sources.values()) {
    checked += s.count;
    const move = byRef.get(s.ref);
    const base = { providerRef: s.ref, currency: s.currency, providerType: s.type, providerCategory: s.category, providerAmountMinor: s.amountMinor, providerFeeMinor: s.feeMinor };
    if (!move) {
      mismatches.push({ reason: 'missing_in_ledger', ...base, ledgerAmountMinor: null, ledgerFeeMinor: null, journalIds: [] });
      continue;
    }
    seen.add(s.ref);
    const ledgerSide = { ledgerAmountMinor: move.amountMinor, ledgerFeeMinor: move.feeMinor, journalIds: move.journalIds };
    if (move.amountMinor !== s.amountMinor || move.currency !== s.currency) mismatches.push({ reason: 'amount_differs', ...base, ...ledgerSide });
    else if (move.feeMinor !== s.feeMinor) mismatches.push({ reason: 'fee_differs', ...base, ...ledgerSide });
    else matched += s.count;
  }
  for (const m of ledger) {
    if (seen.has(m.providerRef) || m.createdAt < period.from || m.createdAt >= period.to) continue;
    mismatches.push({ reason: 'missing_at_provider', providerRef: m.providerRef, currency: m.currency, providerType: null, providerCategory: null, providerAmountMinor: null, ledgerAmountMinor: m.amountMinor, providerFeeMinor: null, ledgerFeeMinor: m.feeMinor, journalIds: m.journalIds });
  }
  return { checked, matched, mismatches, other: [...other.values()] };
}
