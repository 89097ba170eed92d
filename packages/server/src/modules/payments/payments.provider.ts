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

/**
 * What the service needs from a payment provider. A real provider plugs in behind this
 * interface; `SandboxProvider` is the one for development and tests. Every call carries an
 * idempotency key so a retried call never charges twice.
 */
export interface PaymentProvider {
  readonly name: string;
  charge(input: { amountMinor: number; currency: string; card: CardInput; idempotencyKey: string }): Promise<ChargeResult>;
  /** Finishes a charge that needed extra verification (3-D Secure style). */
  confirm(ref: string, approved: boolean): Promise<ChargeResult>;
  refund(input: { ref: string; amountMinor: number; idempotencyKey: string }): Promise<{ ok: true } | { ok: false; code: string }>;
}

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

export class SandboxProvider implements PaymentProvider {
  readonly name = 'sandbox';
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

  async refund(_input: { ref: string; amountMinor: number; idempotencyKey: string }): Promise<{ ok: true }> {
    return { ok: true };
  }
}
