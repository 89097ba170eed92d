import { describe, expect, it } from 'vitest';
import { feesWithOverride, percentOf, priceBreakdown } from './fees.js';

describe('fees', () => {
  it('rounds a percentage half up to the minor unit, exactly', () => {
    expect(percentOf(4550, 5)).toBe(228); // 227.5 -> 228
    expect(percentOf(4549, 5)).toBe(227); // 227.45 -> 227
    expect(percentOf(1, 50)).toBe(1); // 0.5 -> 1
    expect(percentOf(3, 10)).toBe(0); // 0.3 -> 0
    expect(percentOf(1999, 7.5)).toBe(150); // 149.925 -> 150
    expect(percentOf(0, 10)).toBe(0);
    expect(percentOf(9_007_199_254_740, 10)).toBe(900_719_925_474); // no float drift on large sums
    expect(percentOf(1000, 0.01)).toBe(0); // 0.1 -> 0
    expect(percentOf(100_000, 0.01)).toBe(10);
  });

  it('breaks a price into what the buyer pays and what the seller receives', () => {
    expect(priceBreakdown(4550, { buyerPercent: 10, buyerFixedMinor: 0, sellerPercent: 5, sellerFixedMinor: 0 })).toEqual({
      priceMinor: 4550,
      buyerFeeMinor: 455,
      buyerTotalMinor: 5005,
      sellerFeeMinor: 228,
      payoutMinor: 4322,
    });
    expect(priceBreakdown(1000, { buyerPercent: 0, buyerFixedMinor: 150, sellerPercent: 2.5, sellerFixedMinor: 25 })).toEqual({
      priceMinor: 1000,
      buyerFeeMinor: 150,
      buyerTotalMinor: 1150,
      sellerFeeMinor: 50,
      payoutMinor: 950,
    });
  });

  it('lays a platformFees rule over the partner’s fees field by field', () => {
    const partner = { buyerPercent: 10, buyerFixedMinor: 0, sellerPercent: 5, sellerFixedMinor: 0 };
    expect(feesWithOverride(partner, undefined)).toBe(partner);
    expect(feesWithOverride(partner, { sellerPercent: 0, buyerFixedMinor: 99 })).toEqual({ buyerPercent: 10, buyerFixedMinor: 99, sellerPercent: 0, sellerFixedMinor: 0 });
  });
});
