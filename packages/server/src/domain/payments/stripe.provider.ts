import { LRUCache } from 'lru-cache';
import Stripe from 'stripe';
import type { ProviderBalanceTransaction } from '../ledger/ledger.reconcile.js';
import type { PayoutProvider, SellerAccountState, TransferResult } from '../payouts/payouts.provider.js';
import { EventSignatureError, type HostedPaymentStatus, type HostedProvider, type ProviderEvent, type RefundResult } from './payments.provider.js';

/** What the Stripe provider needs: the account's keys, and where its API is (tests point it at a local double). */
export interface StripeSettings {
  secretKey: string;
  publishableKey: string;
  /**
   * The endpoints' signing secrets, comma-separated: the account endpoint's and the Connect
   * endpoint's (Stripe sends connected accounts' `account.updated` to a Connect endpoint, which
   * has a secret of its own), or an old and a new one while rolling a secret.
   */
  webhookSecret: string;
  /** The API's address; absent: Stripe's own. Only tests set it (testing/stripe-double.ts). */
  api?: { host: string; port: number; protocol: 'http' | 'https' };
  /** The service's clock (ms): an event's signature is refused when older than 5 minutes by it. */
  now: () => number;
}

/**
 * Payment methods Stripe offers for a show's `crossBorderPayments.paymentMethods` and currency.
 * CARD and WALLET are `card` (Apple Pay and Google Pay come through the Payment Element's card
 * method). BANK_TRANSFER is the bank methods that confirm while the buyer waits (iDEAL,
 * Bancontact and EPS in euros, Przelewy24 in złoty): a resale hands the tickets over at once
 * and holds them for minutes, so methods that settle days later (SEPA Direct Debit, bank
 * transfers to a virtual account) are not offered. No method listed, or none that fits the
 * currency: `card`.
 */
export function stripeMethodsFor(methods: readonly string[], currency: string): Stripe.PaymentIntentCreateParams.AllowedPaymentMethodType[] {
  const out = new Set<Stripe.PaymentIntentCreateParams.AllowedPaymentMethodType>();
  if (methods.length === 0 || methods.includes('CARD') || methods.includes('WALLET')) out.add('card');
  if (methods.includes('BANK_TRANSFER')) {
    const c = currency.toUpperCase();
    if (c === 'EUR') for (const m of ['ideal', 'bancontact', 'eps'] as const) out.add(m);
    if (c === 'PLN') out.add('p24');
  }
  if (out.size === 0) out.add('card');
  return [...out];
}

const STATUS: Record<string, HostedPaymentStatus> = {
  requires_payment_method: 'open',
  requires_confirmation: 'open',
  requires_capture: 'processing',
  requires_action: 'requires_action',
  processing: 'processing',
  succeeded: 'succeeded',
  canceled: 'cancelled',
};

/** Client secrets kept per process: far more than the checkouts open at once on one process. */
const CLIENT_SECRETS_KEPT = 20_000;
/** How long one is kept: longer than any hold (10 minutes by default), shorter than a day. */
const CLIENT_SECRET_TTL_MS = 60 * 60_000;

/**
 * Stripe, with the official SDK, behind the hosted-provider interface: a PaymentIntent per buy
 * intention (its total, our ids in metadata, the transfer group of the resale, an idempotency
 * key derived from the intention), confirmed in our checkout page by Stripe's Payment Element;
 * the outcome from Stripe's signed events; refunds through the Refund API.
 *
 * Why the Payment Element and not a Checkout Session: the buyer stays on our checkout, with the
 * hold's countdown and the partner's branding, and a Checkout Session cannot expire sooner than
 * 30 minutes while a hold lasts 10 by default: a buyer could pay on Stripe's page for tickets
 * already released to someone else.
 *
 * Sellers are paid with Connect (separate charges and transfers): each seller gets an Express
 * account, onboarded on Stripe's pages, and each payout is a Transfer from the platform's
 * balance to it, `payoutDelayDays` after the show, never reversed.
 */
export class StripeProvider implements HostedProvider, PayoutProvider {
  readonly name = 'stripe';
  readonly kind = 'hosted';
  readonly publishableKey: string;
  readonly scriptUrl: string = 'https://js.stripe.com/v3/';
  readonly onboardingOrigins = ['https://connect.stripe.com'];
  // What Stripe's security guide lists for Stripe.js and the Payment Element (3-D Secure frames included).
  readonly csp = {
    scriptSrc: ['https://js.stripe.com', 'https://*.js.stripe.com'],
    frameSrc: ['https://js.stripe.com', 'https://*.js.stripe.com', 'https://hooks.stripe.com'],
    connectSrc: ['https://api.stripe.com'],
    imgSrc: ['https://*.stripe.com'],
  } as const;
  private readonly stripe: Stripe;
  private readonly webhookSecrets: string[];
  private readonly now: () => number;
  /**
   * Client secrets of the PaymentIntents this process opened or read, by PaymentIntent, so a
   * buyer's later views of the checkout (a reload storm during an on-sale) ask Stripe nothing.
   * In memory only, bounded, for a while longer than a hold: Stripe asks that a client secret
   * never be stored. Another process reads it from Stripe once.
   */
  private readonly clientSecrets: LRUCache<string, string>;

  constructor(settings: StripeSettings) {
    this.now = settings.now;
    // Ages measured on the service's clock, read every time (no cached instant: tests move the clock).
    this.clientSecrets = new LRUCache({ max: CLIENT_SECRETS_KEPT, ttl: CLIENT_SECRET_TTL_MS, ttlResolution: 0, perf: { now: settings.now } });
    this.publishableKey = settings.publishableKey;
    this.webhookSecrets = settings.webhookSecret.split(',').filter(Boolean);
    // Two retries with the same idempotency key on network errors, 409s, 429s and 5xx (the SDK's rule).
    const { api } = settings;
    this.stripe = new Stripe(settings.secretKey, { maxNetworkRetries: 2, timeout: 20_000, ...(api ? { host: api.host, port: api.port, protocol: api.protocol } : {}) });
  }

  async openPayment(input: { intentionId: string; partnerId: string; amountMinor: number; currency: string; methods: readonly string[]; description: string; idempotencyKey: string }): Promise<{ ref: string; clientSecret: string }> {
    const pi = await this.stripe.paymentIntents.create(
      {
        amount: input.amountMinor,
        currency: input.currency.toLowerCase(),
        // `allowed_payment_method_types` since API 2026-10-28 (it was `payment_method_types`).
        allowed_payment_method_types: stripeMethodsFor(input.methods, input.currency),
        metadata: { intentionId: input.intentionId, partnerId: input.partnerId },
        // The seller's transfer later names the same group (Connect: separate charges and transfers).
        transfer_group: input.intentionId,
        description: input.description.slice(0, 1000),
      },
      { idempotencyKey: input.idempotencyKey },
    );
    return this.keep(pi);
  }

  async resumePayment(ref: string): Promise<{ ref: string; clientSecret: string }> {
    const kept = this.clientSecrets.get(ref);
    if (kept) return { ref, clientSecret: kept };
    return this.keep(await this.stripe.paymentIntents.retrieve(ref));
  }

  /** A PaymentIntent's client secret, kept in memory for the buyer's next views ({@link clientSecrets}). */
  private keep(pi: Stripe.PaymentIntent): { ref: string; clientSecret: string } {
    const clientSecret = pi.client_secret ?? '';
    if (clientSecret) this.clientSecrets.set(pi.id, clientSecret);
    return { ref: pi.id, clientSecret };
  }

  async cancelPayment(ref: string): Promise<HostedPaymentStatus> {
    this.clientSecrets.delete(ref);
    try {
      return STATUS[(await this.stripe.paymentIntents.cancel(ref, {}, { idempotencyKey: `cancel:${ref}` })).status] ?? 'open';
    } catch (err) {
      // Succeeded (or cancelled) already: nothing to stop; a succeeded one is refunded when its event is handled.
      if (err instanceof Stripe.errors.StripeInvalidRequestError && err.code === 'payment_intent_unexpected_state') return STATUS[(await this.stripe.paymentIntents.retrieve(ref)).status] ?? 'open';
      throw err;
    }
  }

  async refund(input: { ref: string; amountMinor: number; currency: string; idempotencyKey: string }): Promise<RefundResult> {
    try {
      const refund = await this.stripe.refunds.create({ payment_intent: input.ref, amount: input.amountMinor, metadata: { reason: 'resale' } }, { idempotencyKey: input.idempotencyKey });
      if (refund.status === 'failed' || refund.status === 'canceled') return { ok: false, code: refund.failure_reason ?? `refund_${refund.status}`, retryable: false };
      return { ok: true, ref: refund.id };
    } catch (err) {
      // Refunded already (by an operator in Stripe's dashboard, or a call whose answer was lost): done.
      if (err instanceof Stripe.errors.StripeInvalidRequestError && err.code === 'charge_already_refunded') return { ok: true, ref: null };
      if (err instanceof Stripe.errors.StripeError) return { ok: false, code: err.code ?? err.type, retryable: !(err instanceof Stripe.errors.StripeInvalidRequestError) };
      throw err;
    }
  }

  verifyEvent(rawBody: string, signature: string | undefined): ProviderEvent {
    let event: Stripe.Event | undefined;
    let reason = 'The signature does not verify';
    for (const secret of this.webhookSecrets) {
      try {
        // Stripe's default tolerance (300 s), measured on the service's clock.
        event = this.stripe.webhooks.constructEvent(rawBody, signature ?? '', secret, 300, undefined, this.now());
        break;
      } catch (err) {
        if (err instanceof Error) reason = err.message;
      }
    }
    if (!event) throw new EventSignatureError(reason);
    const base = { id: event.id, providerType: event.type };
    switch (event.type) {
      case 'payment_intent.succeeded':
      case 'payment_intent.processing':
      case 'payment_intent.requires_action':
      case 'payment_intent.canceled':
      case 'payment_intent.payment_failed': {
        const pi = event.data.object;
        const ids = { ref: pi.id, intentionId: pi.metadata?.intentionId ?? null };
        if (event.type === 'payment_intent.succeeded') return { ...base, type: 'payment.succeeded', ...ids };
        if (event.type === 'payment_intent.processing') return { ...base, type: 'payment.processing', ...ids };
        if (event.type === 'payment_intent.requires_action') return { ...base, type: 'payment.requires_action', ...ids };
        if (event.type === 'payment_intent.canceled') return { ...base, type: 'payment.cancelled', ...ids };
        const error = pi.last_payment_error;
        return { ...base, type: 'payment.failed', ...ids, code: error?.decline_code ?? error?.code ?? 'declined' };
      }
      case 'account.updated':
        return { ...base, type: 'account.updated', account: accountState(event.data.object) };
      case 'refund.created':
      case 'refund.updated': {
        // A refund names its PaymentIntent; one still pending (some bank methods) settles with its refund.updated.
        const refund = event.data.object;
        const pi = typeof refund.payment_intent === 'string' ? refund.payment_intent : refund.payment_intent?.id;
        if (!pi || refund.status !== 'succeeded') return { ...base, type: 'ignored' };
        return { ...base, type: 'refund.succeeded', ref: pi, refundRef: refund.id };
      }
      case 'charge.dispute.created': {
        const dispute = event.data.object;
        const pi = typeof dispute.payment_intent === 'string' ? dispute.payment_intent : (dispute.payment_intent?.id ?? null);
        return { ...base, type: 'attention', what: 'dispute', ref: dispute.id, paymentRef: pi, amountMinor: dispute.amount, currency: dispute.currency.toUpperCase() };
      }
      case 'charge.dispute.funds_withdrawn':
      case 'charge.dispute.funds_reinstated': {
        const dispute = event.data.object;
        const pi = typeof dispute.payment_intent === 'string' ? dispute.payment_intent : (dispute.payment_intent?.id ?? null);
        const direction = event.type === 'charge.dispute.funds_withdrawn' ? 'withdrawn' : 'reinstated';
        // The balance movement this event is about: the dispute's entry of that direction (the latest, should there be more).
        const moved = [...(dispute.balance_transactions ?? [])].reverse().find((t) => (direction === 'withdrawn' ? t.amount < 0 : t.amount > 0));
        if (!moved) return { ...base, type: 'ignored' };
        return { ...base, type: 'dispute.funds', direction, ref: dispute.id, paymentRef: pi, amountMinor: Math.abs(moved.amount), feeMinor: moved.fee, currency: moved.currency.toUpperCase() };
      }
      case 'transfer.reversed': {
        const transfer = event.data.object;
        return { ...base, type: 'attention', what: 'transfer_reversed', ref: transfer.id, paymentRef: null, amountMinor: transfer.amount_reversed, currency: transfer.currency.toUpperCase() };
      }
      default:
        return { ...base, type: 'ignored' };
    }
  }

  async balanceTransactions(from: number, to: number): Promise<ProviderBalanceTransaction[]> {
    const out: ProviderBalanceTransaction[] = [];
    // Stripe counts in seconds: the period is widened to whole seconds, the caller's window is wider still.
    for await (const t of this.stripe.balanceTransactions.list({ created: { gte: Math.floor(from / 1000), lt: Math.ceil(to / 1000) }, limit: 100 })) {
      const source = typeof t.source === 'string' ? t.source : (t.source?.id ?? null);
      out.push({ id: t.id, type: t.type, category: t.reporting_category ?? null, sourceRef: source, amountMinor: t.amount, feeMinor: t.fee, currency: t.currency, createdAt: t.created * 1000 });
    }
    return out;
  }

  async chargeDetails(ref: string): Promise<{ method: string | null; last4: string | null; feeMinor: number | null; chargeRef: string | null }> {
    const pi = await this.stripe.paymentIntents.retrieve(ref, { expand: ['latest_charge.balance_transaction'] });
    const charge = pi.latest_charge && typeof pi.latest_charge === 'object' ? pi.latest_charge : null;
    const balance = charge && typeof charge.balance_transaction === 'object' ? charge.balance_transaction : null;
    const details = charge?.payment_method_details;
    // A wallet pays with a card: the buyer knows it by the wallet (Apple Pay), the card's last four still said.
    const method = details?.card?.wallet?.type ?? details?.type ?? null;
    return { method, last4: details?.card?.last4 ?? null, feeMinor: balance?.fee ?? null, chargeRef: charge?.id ?? (typeof pi.latest_charge === 'string' ? pi.latest_charge : null) };
  }

  async createSellerAccount(input: { partnerId: string; userPk: string; email: string | null; country: string | null; idempotencyKey: string }): Promise<SellerAccountState> {
    const account = await this.stripe.accounts.create(
      {
        type: 'express',
        ...(input.email ? { email: input.email } : {}),
        ...(input.country ? { country: input.country } : {}),
        capabilities: { transfers: { requested: true } },
        metadata: { userPk: input.userPk, partnerId: input.partnerId },
      },
      { idempotencyKey: input.idempotencyKey },
    );
    return accountState(account);
  }

  async onboardingLink(input: { accountId: string; returnUrl: string; refreshUrl: string }): Promise<string> {
    const link = await this.stripe.accountLinks.create({ account: input.accountId, type: 'account_onboarding', return_url: input.returnUrl, refresh_url: input.refreshUrl });
    return link.url;
  }

  async dashboardLink(accountId: string): Promise<string> {
    return (await this.stripe.accounts.createLoginLink(accountId)).url;
  }

  async sellerAccount(accountId: string): Promise<SellerAccountState> {
    return accountState(await this.stripe.accounts.retrieve(accountId));
  }

  async transfer(input: { accountId: string; amountMinor: number; currency: string; idempotencyKey: string; group: string | null; metadata: Record<string, string> }): Promise<TransferResult> {
    try {
      const transfer = await this.stripe.transfers.create(
        { amount: input.amountMinor, currency: input.currency.toLowerCase(), destination: input.accountId, ...(input.group ? { transfer_group: input.group } : {}), metadata: input.metadata },
        { idempotencyKey: input.idempotencyKey },
      );
      return { ok: true, ref: transfer.id };
    } catch (err) {
      if (!(err instanceof Stripe.errors.StripeError)) throw err;
      // Waiting helps when the platform's balance is not available yet or the account is not
      // cleared for transfers yet; any other refusal of the request needs someone to look.
      const waitable = ['balance_insufficient', 'insufficient_capabilities_for_transfer'].includes(err.code ?? '');
      return { ok: false, code: err.code ?? err.type, retryable: waitable || !(err instanceof Stripe.errors.StripeInvalidRequestError) };
    }
  }
}

/** A connected account's state in the service's terms. */
function accountState(account: Stripe.Account): SellerAccountState {
  return { accountId: account.id, detailsSubmitted: account.details_submitted ?? false, transfersActive: account.capabilities?.transfers === 'active', payoutsEnabled: account.payouts_enabled ?? false };
}
