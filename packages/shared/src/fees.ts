/**
 * Fee arithmetic, written down once. Everything is integer minor units.
 *
 * Rounding: a percentage fee is `amount × percent / 100` rounded half up to the minor unit,
 * computed exactly in integers (percent is taken to 1/100 of a percent, so 7.5 % is 750
 * basis points), then the fixed part is added. For a listing priced P per ticket:
 * - the buyer pays P + buyerFee;
 * - the seller receives P − sellerFee (the payout);
 * - the platform keeps buyerFee + sellerFee.
 *
 * @example priceBreakdown(4550, { buyerPercent: 10, buyerFixedMinor: 0, sellerPercent: 5, sellerFixedMinor: 0 })
 *   // { priceMinor: 4550, buyerFeeMinor: 455, buyerTotalMinor: 5005, sellerFeeMinor: 228, payoutMinor: 4322 }
 */
export interface FeeSchedule {
  buyerPercent: number;
  buyerFixedMinor: number;
  sellerPercent: number;
  sellerFixedMinor: number;
}

export interface PriceBreakdown {
  priceMinor: number;
  buyerFeeMinor: number;
  buyerTotalMinor: number;
  sellerFeeMinor: number;
  payoutMinor: number;
}

/** `percent` % of `amountMinor`, rounded half up, exactly. */
export function percentOf(amountMinor: number, percent: number): number {
  const basisPoints = BigInt(Math.round(percent * 100));
  return Number((BigInt(amountMinor) * basisPoints + 5000n) / 10000n);
}

export function priceBreakdown(priceMinor: number, fees: FeeSchedule): PriceBreakdown {
  const buyerFeeMinor = percentOf(priceMinor, fees.buyerPercent) + fees.buyerFixedMinor;
  const sellerFeeMinor = percentOf(priceMinor, fees.sellerPercent) + fees.sellerFixedMinor;
  return { priceMinor, buyerFeeMinor, buyerTotalMinor: priceMinor + buyerFeeMinor, sellerFeeMinor, payoutMinor: priceMinor - sellerFeeMinor };
}

/** The partner's fees with a `platformFees` rule's fields laid over them. */
export function feesWithOverride(partner: FeeSchedule, override: Partial<FeeSchedule> | undefined): FeeSchedule {
  if (!override) return partner;
  return {
    buyerPercent: override.buyerPercent ?? partner.buyerPercent,
    buyerFixedMinor: override.buyerFixedMinor ?? partner.buyerFixedMinor,
    sellerPercent: override.sellerPercent ?? partner.sellerPercent,
    sellerFixedMinor: override.sellerFixedMinor ?? partner.sellerFixedMinor,
  };
}
