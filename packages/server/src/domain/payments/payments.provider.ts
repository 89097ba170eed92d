import type { ProviderBalanceTransaction } from '../ledger/ledger.reconcile.js';
import type { SellerAccountState } from '../payouts/payouts.provider.js';
import { randomToken } from '../../lib/crypto.js';

/** A card as typed at checkout. It is never stored (nor logged): only its last four digits are. */
export interface CardInput {
  number: string;
  expMonth: number;
  expYear: number;
  cvc: string;
  /** The name on the card, when the buyer gave it (the risk evaluation compares it with the buyer's). */
  name?: string;
}

/** What a checkout step came to, for the page to show. */
export type PayOutcome =
  | { kind: 'paid'; intentionId: string }
  /**
   * The charge was refused; nothing was charged. While `attemptsLeft` > 0 the checkout stays
   * PENDING (its listings held) for another card; at 0 it failed and released them.
   */
  | { kind: 'declined'; code: string; paymentId: string; attemptsLeft: number }
  | { kind: 'verify'; paymentId: string }
  | { kind: 'ended'; state: string };

export type ChargeResult =
  | { status: 'succeeded'; ref: string }
  | { status: 'declined'; ref: string; code: string }
  | { status: 'requires_action'; ref: string };

/** What a refund came to. `retryable` false: asking again will not help (an operator must look). */
export type RefundResult = { ok: true; ref: string | null } | { ok: false; code: string; retryable: boolean };

/**
 * What every payment provider does. Every call carries an idempotency key so a retried call
 * never moves money twice.
 */
interface ProviderBase {
  /** Stored with each payment (`payments.provider`): `sandbox`, `stripe`. */
  readonly name: string;
  refund(input: { ref: string; amountMinor: number; currency: string; idempotencyKey: string }): Promise<RefundResult>;
}

/**
 * A provider whose card form is ours (the sandbox): the card is posted to the checkout page
 * and charged from the server.
 */
export interface CardFormProvider extends ProviderBase {
  readonly kind: 'card_form';
  charge(input: { amountMinor: number; currency: string; card: CardInput; idempotencyKey: string }): Promise<ChargeResult>;
  /** Finishes a charge that needed extra verification (3-D Secure style). */
  confirm(ref: string, approved: boolean): Promise<ChargeResult>;
}

/** Where a hosted payment stands at the provider. */
export type HostedPaymentStatus = 'open' | 'requires_action' | 'processing' | 'succeeded' | 'cancelled';

/**
 * A provider whose payment form is its own, embedded in our checkout page (Stripe's Payment
 * Element): the server opens a payment for the intention's total, the buyer confirms it in the
 * browser with the provider, and the outcome arrives as the provider's signed events
 * (`verifyEvent`), never from the browser. The card number never reaches the service.
 */
export interface HostedProvider extends ProviderBase {
  readonly kind: 'hosted';
  /** The browser's key for the provider's script. */
  readonly publishableKey: string;
  /** What the checkout page's Content-Security-Policy must allow for the provider's script, frames and calls. */
  readonly csp: { scriptSrc: readonly string[]; frameSrc: readonly string[]; connectSrc: readonly string[]; imgSrc: readonly string[] };
  /** The provider's script, loaded from the provider itself (never bundled nor self-hosted). */
  readonly scriptUrl: string;
  /**
   * Opens (or, with the same idempotency key, finds again) the payment of an intention's total.
   * `methods` are the show's `crossBorderPayments.paymentMethods` (CARD, WALLET, BANK_TRANSFER).
   */
  openPayment(input: { intentionId: string; partnerId: string; amountMinor: number; currency: string; methods: readonly string[]; description: string; idempotencyKey: string }): Promise<{ ref: string; clientSecret: string }>;
  /**
   * A payment opened before, found again for the buyer's next view of the checkout (its client
   * secret). Not opened again: what it was opened with (the show's title and payment methods)
   * may have changed since, and a provider refuses an idempotency key reused with other
   * parameters. A provider may answer from memory (Stripe keeps the secrets it saw a while).
   */
  resumePayment(ref: string): Promise<{ ref: string; clientSecret: string }>;
  /**
   * Stops a payment that may no longer be paid (its checkout ended), and answers where it
   * stands now: `cancelled`, or, when the buyer paid first, `succeeded` (or `processing`), whose
   * event then settles it. Harmless on one already cancelled.
   */
  cancelPayment(ref: string): Promise<HostedPaymentStatus>;
  /**
   * The provider's event, verified against its signature; throws {@link EventSignatureError}
   * when it does not verify (or is too old).
   */
  verifyEvent(rawBody: string, signature: string | undefined): ProviderEvent;
  /** The provider's balance entries created in `[from, to)` (ms), for reconciliation with the ledger. */
  balanceTransactions(from: number, to: number): Promise<ProviderBalanceTransaction[]>;
  /**
   * What the provider tells of a succeeded payment's charge: how it was paid (`method`, see
   * the payments table), the card's last four, its fee. Null fields when unknown.
   */
  chargeDetails(ref: string): Promise<{ method: string | null; last4: string | null; feeMinor: number | null; chargeRef: string | null }>;
}

/** A provider's event, in the service's terms (see {@link HostedProvider.verifyEvent}). */
export type ProviderEvent = { id: string; providerType: string } & (
  | { type: 'payment.succeeded'; ref: string; intentionId: string | null }
  | { type: 'payment.failed'; ref: string; intentionId: string | null; code: string }
  | { type: 'payment.processing'; ref: string; intentionId: string | null }
  | { type: 'payment.requires_action'; ref: string; intentionId: string | null }
  | { type: 'payment.cancelled'; ref: string; intentionId: string | null }
  /** A refund of the payment `ref` succeeded at the provider (`refundRef`: the provider's refund). */
  | { type: 'refund.succeeded'; ref: string; refundRef: string }
  /** A seller's connected account changed at the provider (onboarding finished, transfers enabled or stopped). */
  | { type: 'account.updated'; account: SellerAccountState }
  /**
   * Money moved at the provider by someone else, which an operator must act on: a buyer's
   * chargeback opened (`dispute`, `ref` the dispute, `paymentRef` its payment; its money is
   * booked from `dispute.funds`) or a payout reversed in the provider's dashboard
   * (`transfer_reversed`, `ref` the transfer; never booked: the reconciliation names it).
   */
  | { type: 'attention'; what: 'dispute' | 'transfer_reversed'; ref: string; paymentRef: string | null; amountMinor: number; currency: string }
  /**
   * A dispute's money moved at the provider: taken from the balance (`withdrawn`, with the
   * provider's dispute fee) or given back when the dispute was won (`reinstated`). `ref` is the
   * dispute, `paymentRef` its payment; amounts in minor units, the fee as the provider charged it.
   */
  | { type: 'dispute.funds'; direction: 'withdrawn' | 'reinstated'; ref: string; paymentRef: string | null; amountMinor: number; feeMinor: number; currency: string }
  | { type: 'ignored' }
);

/** An event whose signature does not verify: answered 400, never processed. */
export class EventSignatureError extends Error {}

/** A payment provider: the sandbox's card form, or a hosted one (Stripe). */
export type PaymentProvider = CardFormProvider | HostedProvider;

/**
 * Test cards, in the style of well-known providers:
 * - 4242 4242 4242 4242: succeeds;
 * - 4000 0000 0000 0002: declined (`card_declined`);
 * - 4000 0025 0000 3155: needs extra verification, then succeeds or fails by the buyer's answer;
 * - any other valid-looking number succeeds; a number failing the Luhn check is declined
 *   (`incorrect_number`); an expired date is declined (`expired_card`).
 */
export const SANDBOX_CARDS = { success: '4242424242424242', declined: '4000000000000002', verification: '4000002500003155' } as const;

/** The Luhn check digit of a card number holds (digits only). */
export function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

export class SandboxProvider implements CardFormProvider {
  readonly name = 'sandbox';
  readonly kind = 'card_form';
  /** Answers by idempotency key, so a retried charge never charges twice. */
  private readonly byKey = new Map<string, ChargeResult>();

  constructor(private readonly now: () => number) {}

  async charge(input: { amountMinor: number; currency: string; card: CardInput; idempotencyKey: string }): Promise<ChargeResult> {
    const seen = this.byKey.get(input.idempotencyKey);
    if (seen) return seen;
    const number = input.card.number.replace(/\D/g, '');
    const ref = 'sbx_' + randomToken(96);
    const today = new Date(this.now());
    const expired = input.card.expYear < today.getUTCFullYear() || (input.card.expYear === today.getUTCFullYear() && input.card.expMonth < today.getUTCMonth() + 1);
    let result: ChargeResult;
    if (number.length < 12 || !luhn(number)) result = { status: 'declined', ref, code: 'incorrect_number' };
    else if (expired) result = { status: 'declined', ref, code: 'expired_card' };
    else if (number === SANDBOX_CARDS.declined) result = { status: 'declined', ref, code: 'card_declined' };
    else if (number === SANDBOX_CARDS.verification) result = { status: 'requires_action', ref };
    else result = { status: 'succeeded', ref };
    this.byKey.set(input.idempotencyKey, result);
    return result;
  }

  /** The caller guarantees the charge is awaiting verification (its payment row says so). */
  async confirm(ref: string, approved: boolean): Promise<ChargeResult> {
    return approved ? { status: 'succeeded', ref } : { status: 'declined', ref, code: 'authentication_failed' };
  }

  async refund(_input: { ref: string; amountMinor: number; currency: string; idempotencyKey: string }): Promise<RefundResult> {
    return { ok: true, ref: null };
  }
}
