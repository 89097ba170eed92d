import { describe, expect, it } from 'vitest';
import { reconcile, type LedgerProviderMove, type ProviderBalanceTransaction } from './ledger.reconcile.js';

const at = Date.parse('2026-03-10T12:00:00Z');
const period = { from: Date.parse('2026-03-01T00:00:00Z'), to: Date.parse('2026-04-01T00:00:00Z') };
const txn = (over: Partial<ProviderBalanceTransaction>): ProviderBalanceTransaction => ({ id: 'txn_1', type: 'charge', category: 'charge', sourceRef: 'ch_1', amountMinor: 4400, feeMinor: 158, currency: 'eur', createdAt: at, ...over });
const move = (over: Partial<LedgerProviderMove>): LedgerProviderMove => ({ providerRef: 'ch_1', currency: 'EUR', amountMinor: 4400, feeMinor: 158, journalIds: ['jnl_1'], createdAt: at, ...over });

describe('reconciling the ledger with the provider’s balance', () => {
  it('matches a charge with its fee, a refund and a transfer by their references', () => {
    const r = reconcile(
      [txn({}), txn({ id: 'txn_2', type: 'refund', sourceRef: 're_1', amountMinor: -4400, feeMinor: 0 }), txn({ id: 'txn_3', type: 'transfer', sourceRef: 'tr_1', amountMinor: -3800, feeMinor: 0 })],
      [move({}), move({ providerRef: 're_1', amountMinor: -4400, feeMinor: 0 }), move({ providerRef: 'tr_1', amountMinor: -3800, feeMinor: 0 })],
      period,
    );
    expect(r).toEqual({ checked: 3, matched: 3, mismatches: [], other: [] });
  });

  it('names what only one side has, and amounts or fees that differ', () => {
    const r = reconcile(
      [txn({}), txn({ id: 'txn_2', sourceRef: 'ch_2', amountMinor: 5000 }), txn({ id: 'txn_3', type: 'refund', sourceRef: 're_9', amountMinor: -100, feeMinor: 0 })],
      [move({ feeMinor: 0 }), move({ providerRef: 'ch_2', amountMinor: 4400 }), move({ providerRef: 'tr_7', amountMinor: -3800, feeMinor: 0 }), move({ providerRef: 'tr_8', amountMinor: -1, createdAt: period.to + 1000 })],
      period,
    );
    expect(r.checked).toBe(3);
    expect(r.matched).toBe(0);
    expect(r.mismatches.map((m) => [m.reason, m.providerRef])).toEqual([
      ['fee_differs', 'ch_1'],
      ['amount_differs', 'ch_2'],
      ['missing_in_ledger', 're_9'],
      // tr_8 was written after the period: the provider lists it in the next one.
      ['missing_at_provider', 'tr_7'],
    ]);
    expect(r.mismatches[1]).toMatchObject({ providerAmountMinor: 5000, ledgerAmountMinor: 4400, currency: 'EUR', providerType: 'charge', journalIds: ['jnl_1'] });
  });

  it('sums the provider’s other entries (its payouts to the platform’s bank, its own fees) apart', () => {
    const r = reconcile([txn({ type: 'payout', sourceRef: 'po_1', amountMinor: -10_000, feeMinor: 0 }), txn({ type: 'payout', sourceRef: 'po_2', amountMinor: -500, feeMinor: 0 }), txn({ type: 'stripe_fee', sourceRef: null, amountMinor: -200, feeMinor: 0 })], [], period);
    expect(r).toEqual({ checked: 0, matched: 0, mismatches: [], other: [{ type: 'payout', currency: 'EUR', count: 2, amountMinor: -10_500 }, { type: 'stripe_fee', currency: 'EUR', count: 1, amountMinor: -200 }] });
  });

  it('compares a dispute’s entries together with its journals, and reports a payout reversed in the dashboard, which the service never books', () => {
    const r = reconcile(
      [
        txn({}),
        // Dispute 1: withdrawn (with Stripe's fee), then reinstated; booked from its events.
        txn({ id: 'txn_2', type: 'adjustment', category: 'dispute', sourceRef: 'dp_1', amountMinor: -4400, feeMinor: 1500 }),
        txn({ id: 'txn_3', type: 'adjustment', category: 'dispute_reversal', sourceRef: 'dp_1', amountMinor: 4400, feeMinor: 0 }),
        // Dispute 2: no journal (its event never came).
        txn({ id: 'txn_4', type: 'adjustment', category: 'dispute', sourceRef: 'dp_2', amountMinor: -1000, feeMinor: 1500 }),
        txn({ id: 'txn_5', type: 'transfer_refund', category: 'transfer_reversal', sourceRef: 'trr_1', amountMinor: 3800, feeMinor: 0 }),
        // An adjustment of the provider's own (not a dispute) stays among the others.
        txn({ id: 'txn_6', type: 'adjustment', category: 'other_adjustment', sourceRef: 'adj_1', amountMinor: -5, feeMinor: 0 }),
      ],
      [move({}), move({ providerRef: 'dp_1', amountMinor: 0, feeMinor: 1500, journalIds: ['jnl_2', 'jnl_3', 'jnl_4'] })],
      period,
    );
    expect(r.checked).toBe(5);
    expect(r.matched).toBe(3);
    expect(r.mismatches).toEqual([
      { reason: 'missing_in_ledger', providerRef: 'trr_1', currency: 'EUR', providerType: 'transfer_refund', providerCategory: 'transfer_reversal', providerAmountMinor: 3800, ledgerAmountMinor: null, providerFeeMinor: 0, ledgerFeeMinor: null, journalIds: [] },
      { reason: 'missing_in_ledger', providerRef: 'dp_2', currency: 'EUR', providerType: 'adjustment', providerCategory: 'dispute', providerAmountMinor: -1000, ledgerAmountMinor: null, providerFeeMinor: 1500, ledgerFeeMinor: null, journalIds: [] },
    ]);
    expect(r.other).toEqual([{ type: 'adjustment', currency: 'EUR', count: 1, amountMinor: -5 }]);
  });
});
