import { describe, expect, it } from 'vitest';
import { balancedLines, disputeLines, latePaymentLines, payoutDeliveredLines, providerFeeLines, refundDueLines, refundPaidLines, resaleSums, saleLines, type JournalLine } from './ledger.accounts.js';

const sum = (lines: JournalLine[]) => lines.reduce((s, l) => s + l.amountMinor, 0);
/** Two listings of one resale: 2 × €40 (fee €4, seller fee €2) and 1 × €25.55 (fee €2.56, seller fee €1.28). */
const LISTINGS = [
  { quantity: 2, priceMinor: 4000, buyerFeeMinor: 400, payoutMinor: 3800 },
  { quantity: 1, priceMinor: 2555, buyerFeeMinor: 256, payoutMinor: 2427 },
];

describe('the journal of each money movement', () => {
  it('adds a resale up: total = what sellers are owed + both fees', () => {
    expect(resaleSums(LISTINGS)).toEqual({ totalMinor: 2 * 4400 + 2811, payableMinor: 2 * 3800 + 2427, buyerFeeMinor: 2 * 400 + 256, sellerFeeMinor: 2 * 200 + 128 });
  });

  it('balances every kind of journal', () => {
    const journals = [saleLines(LISTINGS), latePaymentLines(11611), refundDueLines(LISTINGS.map((l, i) => ({ ...l, payoutDelivered: i === 0 }))), refundPaidLines(11611), payoutDeliveredLines(3800), providerFeeLines(367)];
    for (const lines of journals) expect(sum(lines)).toBe(0);
  });

  it('gives the fees back on a cancelled show, and books a delivered payout as lost', () => {
    const before = refundDueLines(LISTINGS.map((l) => ({ ...l, payoutDelivered: false })));
    expect(Object.fromEntries(before.map((l) => [l.account, l.amountMinor]))).toEqual({ refunds_payable: -11611, buyer_fee_revenue: 1056, seller_fee_revenue: 528, seller_payable: 10027, payout_losses: 0 });
    const after = refundDueLines(LISTINGS.map((l, i) => ({ ...l, payoutDelivered: i === 0 })));
    expect(Object.fromEntries(after.map((l) => [l.account, l.amountMinor]))).toMatchObject({ seller_payable: 2427, payout_losses: 7600 });
  });

  it('books a chargeback as a loss until the dispute is won, which takes it back', () => {
    const withdrawn = disputeLines('withdrawn', 4400);
    expect(Object.fromEntries(withdrawn.map((l) => [l.account, l.amountMinor]))).toEqual({ dispute_losses: 4400, provider_balance: -4400 });
    const reinstated = disputeLines('reinstated', 4400);
    expect(Object.fromEntries(reinstated.map((l) => [l.account, l.amountMinor]))).toEqual({ dispute_losses: -4400, provider_balance: 4400 });
    expect(balancedLines([...withdrawn, ...reinstated]).reduce((a, l) => a + l.amountMinor, 0)).toBe(0);
  });

  it('refuses lines that do not balance or are not whole minor units, and drops zero lines', () => {
    expect(() => balancedLines([{ account: 'provider_balance', amountMinor: 100 }, { account: 'seller_payable', amountMinor: -99 }])).toThrow(/does not balance \(off by 1\)/);
    expect(() => balancedLines([{ account: 'provider_balance', amountMinor: 0.5 }, { account: 'seller_payable', amountMinor: -0.5 }])).toThrow(/not an integer/);
    expect(balancedLines(refundDueLines(LISTINGS.map((l) => ({ ...l, payoutDelivered: false }))))).not.toContainEqual(expect.objectContaining({ account: 'payout_losses' }));
  });
});
