/**
 * The ledger's accounts and the journals of each money movement, as pure functions (no
 * database): what a movement means in money lives here and is tested here.
 *
 * Signs: a debit is positive, a credit negative; the lines of every journal sum to zero, so
 * the whole ledger sums to zero in each currency. The accounts, from the service's side:
 *
 * | account              | kind      | moves when                                                             |
 * |----------------------|-----------|------------------------------------------------------------------------|
 * | `provider_balance`   | asset     | + a buyer's charge comes in; − a refund or a seller's transfer goes out; − the provider's fee |
 * | `seller_payable`     | liability | − a resale is sold (what the seller is owed); + the payout is delivered, or stopped by a cancelled show |
 * | `buyer_fee_revenue`  | revenue   | − a resale is sold (the buyer's fee); + given back on a cancelled show's refund |
 * | `seller_fee_revenue` | revenue   | − a resale is sold (the seller's fee); + given back on a cancelled show's refund |
 * | `refunds_payable`    | liability | − a refund is decided (cancelled show, a payment that came too late); + the provider refunded it |
 * | `payout_losses`      | expense   | + a show cancelled after its seller was paid: the buyer is refunded in full, and a delivered payout is never recovered |
 * | `dispute_losses`     | expense   | + a buyer's bank took a charge back (a dispute's funds withdrawn); − it gave them back (the dispute won) |
 * | `provider_fees`      | expense   | + the provider's fee on a charge or a dispute, where the provider reports it |
 */
export const LEDGER_ACCOUNTS = ['provider_balance', 'seller_payable', 'buyer_fee_revenue', 'seller_fee_revenue', 'refunds_payable', 'payout_losses', 'dispute_losses', 'provider_fees'] as const;
export type LedgerAccount = (typeof LEDGER_ACCOUNTS)[number];

/** The movements the ledger records, one journal each. */
export const JOURNAL_KINDS = ['sale', 'late_payment', 'refund_due', 'refund_paid', 'payout_delivered', 'provider_fee', 'dispute_withdrawn', 'dispute_reinstated'] as const;
export type JournalKind = (typeof JOURNAL_KINDS)[number];

/** One line of a journal: a debit (positive) or a credit (negative) on an account, in minor units. */
export interface JournalLine {
  account: LedgerAccount;
  amountMinor: number;
}

/** A sold listing as the ledger needs it: per-ticket amounts fixed when it was priced, and how many tickets. */
export interface SoldListing {
  quantity: number;
  /** What the buyer pays per ticket before the buyer fee. */
  priceMinor: number;
  buyerFeeMinor: number;
  /** What the seller receives per ticket (price − seller fee). */
  payoutMinor: number;
}

/**
 * The sums of a resale: what the buyer paid (`totalMinor`), what the sellers are owed, and
 * the two fees. The seller fee is taken as price − payout, so the four add up by
 * construction: total = payable + buyer fee + seller fee.
 */
export function resaleSums(listings: readonly SoldListing[]): { totalMinor: number; payableMinor: number; buyerFeeMinor: number; sellerFeeMinor: number } {
  let totalMinor = 0;
  let payableMinor = 0;
  let buyerFeeMinor = 0;
  let sellerFeeMinor = 0;
  for (const l of listings) {
    totalMinor += l.quantity * (l.priceMinor + l.buyerFeeMinor);
    payableMinor += l.quantity * l.payoutMinor;
    buyerFeeMinor += l.quantity * l.buyerFeeMinor;
    sellerFeeMinor += l.quantity * (l.priceMinor - l.payoutMinor);
  }
  return { totalMinor, payableMinor, buyerFeeMinor, sellerFeeMinor };
}

/** A resale was paid: the charge comes in, the sellers are owed their part, the fees are earned. */
export function saleLines(listings: readonly SoldListing[]): JournalLine[] {
  const s = resaleSums(listings);
  return [
    { account: 'provider_balance', amountMinor: s.totalMinor },
    { account: 'seller_payable', amountMinor: -s.payableMinor },
    { account: 'buyer_fee_revenue', amountMinor: -s.buyerFeeMinor },
    { account: 'seller_fee_revenue', amountMinor: -s.sellerFeeMinor },
  ];
}

/** A charge came in for a checkout that had ended meanwhile: the money is owed back at once. */
export function latePaymentLines(amountMinor: number): JournalLine[] {
  return [
    { account: 'provider_balance', amountMinor },
    { account: 'refunds_payable', amountMinor: -amountMinor },
  ];
}

/**
 * A paid resale's show was cancelled: the buyer is owed the whole total, the fees are given
 * back, and each seller's part is either no longer owed (payout stopped) or, when it had been
 * delivered already, a loss (a distributed payout cannot be recovered).
 */
export function refundDueLines(listings: readonly (SoldListing & { payoutDelivered: boolean })[]): JournalLine[] {
  const s = resaleSums(listings);
  const lost = resaleSums(listings.filter((l) => l.payoutDelivered)).payableMinor;
  return [
    { account: 'refunds_payable', amountMinor: -s.totalMinor },
    { account: 'buyer_fee_revenue', amountMinor: s.buyerFeeMinor },
    { account: 'seller_fee_revenue', amountMinor: s.sellerFeeMinor },
    { account: 'seller_payable', amountMinor: s.payableMinor - lost },
    { account: 'payout_losses', amountMinor: lost },
  ];
}

/** The provider refunded a buyer what was owed. */
export function refundPaidLines(amountMinor: number): JournalLine[] {
  return [
    { account: 'refunds_payable', amountMinor },
    { account: 'provider_balance', amountMinor: -amountMinor },
  ];
}

/** A seller's payout left the provider balance. */
export function payoutDeliveredLines(amountMinor: number): JournalLine[] {
  return [
    { account: 'seller_payable', amountMinor },
    { account: 'provider_balance', amountMinor: -amountMinor },
  ];
}

/** The provider kept its fee on a charge. */
/**
 * A buyer's bank disputed a charge and the provider took its amount from the balance
 * (`withdrawn`), or gave it back when the dispute was won (`reinstated`). Booked as a loss
 * until then: who bears it (the seller, the partner, the service) is an operator's decision,
 * made outside the ledger's automatic journals. The provider's dispute fee is a
 * `provider_fee` journal of its own.
 */
export function disputeLines(direction: 'withdrawn' | 'reinstated', amountMinor: number): JournalLine[] {
  const sign = direction === 'withdrawn' ? 1 : -1;
  return [
    { account: 'dispute_losses', amountMinor: sign * amountMinor },
    { account: 'provider_balance', amountMinor: -sign * amountMinor },
  ];
}

export function providerFeeLines(feeMinor: number): JournalLine[] {
  return [
    { account: 'provider_fees', amountMinor: feeMinor },
    { account: 'provider_balance', amountMinor: -feeMinor },
  ];
}

/**
 * The lines to store: zero lines dropped. Throws when they do not balance or an amount is not
 * a safe integer: a journal that does not sum to zero is a bug, and it must roll its whole
 * transaction back rather than be written.
 */
export function balancedLines(lines: readonly JournalLine[]): JournalLine[] {
  let sum = 0;
  for (const l of lines) {
    if (!Number.isSafeInteger(l.amountMinor)) throw new Error(`ledger: ${l.account} amount ${l.amountMinor} is not an integer of minor units`);
    sum += l.amountMinor;
  }
  if (sum !== 0) throw new Error(`ledger: a journal does not balance (off by ${sum}): ${JSON.stringify(lines)}`);
  return lines.filter((l) => l.amountMinor !== 0);
}
