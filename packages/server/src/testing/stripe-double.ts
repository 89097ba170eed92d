import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';

/**
 * A local HTTP double of the few Stripe API endpoints the service uses, for tests that may not
 * use the network. The REAL `stripe` SDK talks to it (`double.sdk()`, or `new Stripe(key, { host:
 * '127.0.0.1', port, protocol: 'http' })`), so what is tested is our code + the SDK + Stripe's
 * documented wire format: form-encoded bodies in bracket notation, Bearer key, `Idempotency-Key`,
 * `Stripe-Account`, JSON answers and `{ error: { type, code, … } }` errors with Stripe's statuses.
 *
 * It keeps everything in memory and plays the parts Stripe plays outside the API: the buyer's
 * browser (confirming a PaymentIntent with one of Stripe's test PaymentMethods, `completeAction`
 * for 3-D Secure), the bank (`settleProcessing`), the seller onboarding (`completeOnboarding`),
 * and the webhook sender (events POSTed to `webhookUrl`, signed with the SDK's own helper).
 *
 * Known simplifications (see also the comments at each endpoint):
 * - Funds are available at once (no pending balance, no payouts); the fee is 2.9% + 30 minor
 *   units whatever the currency; refunds return no fee.
 * - Objects are global: `Stripe-Account` is only checked to name an existing account.
 * - `expand[]` is accepted and ignored, but for `latest_charge` and `latest_charge.balance_transaction`
 *   when a PaymentIntent is read (what the provider asks for the card's last four and the fee);
 *   only the endpoints listed in `routes` exist.
 * - Webhooks: one endpoint, no automatic retries (use `redeliver`), deliveries are awaited by the
 *   call that caused them, in the order the events were created. Stripe sends events about
 *   connected accounts (`account.updated`, with `account`) to a separate Connect endpoint; here
 *   they go to the same URL, signed with the same secret.
 * - Test PaymentMethods only (see TEST_PAYMENT_METHODS); no PaymentMethod, Charge or Refund
 *   endpoints (Charges reach us through events); `ending_before` is not supported in lists.
 * - Injected failures (`failNext`) are answered before the idempotency layer and never stored,
 *   as Stripe does for requests that never started executing.
 */

/** A parsed form parameter: Stripe's bracket notation gives nested objects and arrays. */
export type Param = string | Param[] | Params;
export interface Params {
  [key: string]: Param;
}

/** One request the double received (for assertions). */
export interface StripeDoubleRequest {
  method: string;
  /** Path without the query string, e.g. `/v1/payment_intents/pi_123/confirm`. */
  path: string;
  /** Query parameters (GET), parsed like a body. */
  query: Params;
  /** Form body (POST), parsed into nested objects/arrays. */
  body: Params;
  idempotencyKey: string | null;
  stripeAccount: string | null;
  stripeVersion: string | null;
  /** HTTP status answered (0 while in flight). */
  status: number;
  /** True when the answer was an idempotent replay. */
  replayed: boolean;
}

/** A Stripe event as the double sends it (a snapshot of the object when it happened). */
export interface StripeDoubleEvent {
  id: string;
  object: 'event';
  /** Events about a connected account carry its id (Stripe sends those to Connect endpoints). */
  account?: string;
  type: string;
  created: number;
  api_version: string;
  livemode: false;
  pending_webhooks: number;
  request: { id: string | null; idempotency_key: string | null };
  data: { object: Obj; previous_attributes?: Obj };
}

/** One POST of an event to the webhook URL. */
export interface WebhookDelivery {
  eventId: string;
  type: string;
  url: string;
  /** HTTP status of our service's answer; null when the request itself failed (then `error`). */
  status: number | null;
  error?: string;
}

/** What `failNext` answers instead of the real endpoint, once. */
export interface InjectedFailure {
  status: number;
  /** Default: a Stripe error matching the status (429 `rate_limit`, 5xx `api_error`…). */
  body?: unknown;
  /** E.g. `{ 'Stripe-Should-Retry': 'true' }` (the SDK only retries a 429 when told so). */
  headers?: Record<string, string>;
}

/** `'/v1/refunds'` (any method), `'POST /v1/refunds'`, a RegExp tested on `'POST /v1/refunds'`, or a predicate. */
export type RequestMatcher = string | RegExp | ((req: { method: string; path: string }) => boolean);

export interface AccountFlags {
  charges_enabled: boolean;
  payouts_enabled: boolean;
  details_submitted: boolean;
}

export interface StripeDouble {
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** The only API key the double accepts (`Authorization: Bearer …`). */
  readonly secretKey: string;
  /** The signing secret of webhook deliveries (`whsec_double` unless given). */
  readonly webhookSecret: string;
  /** Where events are POSTed (null: nowhere; events are still recorded). */
  webhookUrl: string | null;
  deliverTo(url: string | null): void;
  /** A real SDK client pointed at the double (maxNetworkRetries 2 unless overridden). */
  sdk(config?: Stripe.StripeConfig): Stripe;
  readonly requests: StripeDoubleRequest[];
  /** Every event created, oldest first. */
  readonly events: StripeDoubleEvent[];
  readonly deliveries: WebhookDelivery[];
  /** The platform's balance in minor units for a currency (charges net of fees − refunds − transfers). */
  balance(currency: string): number;
  /** Answers the next request matching `match` with `failure` instead of running it (once). */
  failNext(match: RequestMatcher, failure: InjectedFailure): void;
  /** Sets a connected account's flags (emits `account.updated` with `previous_attributes`). */
  setAccount(id: string, flags: Partial<AccountFlags>): Promise<void>;
  /** The seller finished Stripe's hosted onboarding: all flags true, requested capabilities active. */
  completeOnboarding(accountId: string): Promise<void>;
  /** The buyer passed (or failed) 3-D Secure on a PaymentIntent in `requires_action`. */
  completeAction(paymentIntentId: string, approved: boolean): Promise<void>;
  /** The bank settled (or failed) a PaymentIntent in `processing` (SEPA / ACH debits). */
  settleProcessing(paymentIntentId: string, ok: boolean): Promise<void>;
  /** POSTs an event again (same id), as Stripe does when it retries or when asked to resend. */
  redeliver(eventId: string): Promise<WebhookDelivery>;
  /**
   * The buyer's bank disputes a paid PaymentIntent's charge (a chargeback): `charge.dispute.created`,
   * then its amount and Stripe's dispute fee leave the balance (an `adjustment`, reporting
   * category `dispute`) and `charge.dispute.funds_withdrawn` is sent. Returns the dispute's id.
   */
  openDispute(paymentIntentId: string): Promise<string>;
  /** The dispute is decided: won (the amount back, `charge.dispute.funds_reinstated`, fee kept by Stripe) or lost; then `charge.dispute.closed`. */
  closeDispute(disputeId: string, won: boolean): Promise<void>;
  close(): Promise<void>;
}

type Obj = Record<string, unknown>;

type PiStatus = 'requires_payment_method' | 'requires_confirmation' | 'requires_action' | 'processing' | 'succeeded' | 'canceled';

interface PaymentIntent extends Obj {
  id: string;
  amount: number;
  currency: string;
  status: PiStatus;
  metadata: Record<string, string>;
  latest_charge: string | null;
  payment_method: string | null;
  payment_method_types: string[];
  allowed_payment_method_types: string[] | null;
  excluded_payment_method_types: string[] | null;
  transfer_group: string | null;
  automatic_payment_methods: { enabled: boolean; allow_redirects?: string } | null;
}

interface Charge extends Obj {
  id: string;
  amount: number;
  amount_refunded: number;
  currency: string;
  refunded: boolean;
  status: 'succeeded' | 'failed';
  payment_intent: string;
}

interface Account extends Obj {
  id: string;
  charges_enabled: boolean;
  payouts_enabled: boolean;
  details_submitted: boolean;
  capabilities: Record<string, 'active' | 'inactive' | 'pending'>;
  requirements: { currently_due: string[]; eventually_due: string[]; disabled_reason: string | null } & Obj;
}

interface BalanceTransaction extends Obj {
  id: string;
  amount: number;
  currency: string;
  created: number;
}

/** An error answered as `{ error }` with `status`. `store: false` for validation errors (never saved for idempotency). */
class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: Obj,
    readonly store = true,
  ) {
    super(String(error.message));
  }
}

/** What Stripe charges for a dispute, in minor units (its fee varies by country; 15.00 here). */
const DISPUTE_FEE = 1500;

const invalid = (message: string, extra: Obj = {}, status = 400): ApiError =>
  new ApiError(status, { type: 'invalid_request_error', message, ...extra });
const missing = (param: string): ApiError =>
  new ApiError(400, { type: 'invalid_request_error', code: 'parameter_missing', param, message: `Missing required param: ${param}.` }, false);
const noSuch = (kind: string, id: string, param: string, status = 404): ApiError =>
  invalid(`No such ${kind}: '${id}'`, { code: 'resource_missing', param }, status);
const unexpectedState = (verb: string, pi: PaymentIntent, allowed: string[]): ApiError =>
  invalid(
    `You cannot ${verb} this PaymentIntent because it has a status of ${pi.status}. ` +
      `Only a PaymentIntent with one of the following statuses may be ${verb === 'cancel' ? 'canceled' : `${verb}ed`}: ${allowed.join(', ')}.`,
    { code: 'payment_intent_unexpected_state', payment_intent: pi },
  );

// ---------------------------------------------------------------------------------------------
// Form parsing: `a[b][0]=x&a[b][1]=y&c=z` → { a: { b: ['x', 'y'] }, c: 'z' }

/** Parses Stripe's bracket notation (the SDK's `qs`-style encoding) into nested objects and arrays. */
export function parseForm(text: string): Params {
  const root: Params = {};
  for (const [key, value] of new URLSearchParams(text)) {
    // `metadata[order][id]` → ['metadata', 'order', 'id']; `a[]` gives an empty segment (append).
    const path = key.replace(/\]/g, '').split('[');
    let node: Params = root;
    path.forEach((seg, i) => {
      const k = seg === '' ? String(Object.keys(node).length) : seg;
      if (i === path.length - 1) node[k] = value;
      else {
        const child = node[k];
        node = child !== undefined && typeof child === 'object' && !Array.isArray(child) ? child : (node[k] = {});
      }
    });
  }
  return toArrays(root, false) as Params;
}

/** Objects whose keys are all 0..n-1 become arrays (`payment_method_types[0]=card`), except under metadata. */
function toArrays(p: Param, inMetadata: boolean): Param {
  if (typeof p === 'string' || Array.isArray(p)) return p;
  const keys = Object.keys(p);
  for (const k of keys) p[k] = toArrays(p[k]!, k === 'metadata');
  const isList = !inMetadata && keys.length > 0 && keys.every((k, i) => k === String(i));
  return isList ? keys.map((k) => p[k]!) : p;
}

// ---------------------------------------------------------------------------------------------
// Parameter readers (Stripe's wording for invalid values).

function str(p: Params, name: string): string | undefined {
  const v = p[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw invalid(`Invalid string: ${JSON.stringify(v)}`, { param: name }, 400);
  return v;
}
function reqStr(p: Params, name: string): string {
  const v = str(p, name);
  if (v === undefined || v === '') throw missing(name);
  return v;
}
function int(p: Params, name: string): number | undefined {
  const v = str(p, name);
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v)) {
    throw new ApiError(400, { type: 'invalid_request_error', code: 'parameter_invalid_integer', param: name, message: `Invalid integer: ${v}` }, false);
  }
  return Number(v);
}
/** A positive integer amount in minor units. */
function amountParam(p: Params, name = 'amount'): number | undefined {
  const v = int(p, name);
  if (v !== undefined && v < 1) {
    throw new ApiError(400, { type: 'invalid_request_error', code: 'parameter_invalid_integer', param: name, message: 'This value must be greater than or equal to 1.' }, false);
  }
  return v;
}
function currencyParam(p: Params): string {
  const v = reqStr(p, 'currency').toLowerCase();
  if (!/^[a-z]{3}$/.test(v)) throw new ApiError(400, { type: 'invalid_request_error', param: 'currency', message: `Invalid currency: ${v}.` }, false);
  return v;
}
function metadataParam(p: Params): Record<string, string> {
  const v = p.metadata;
  if (v === undefined || v === '') return {};
  if (typeof v !== 'object' || Array.isArray(v) || Object.values(v).some((x) => typeof x !== 'string')) {
    throw invalid('Invalid object', { param: 'metadata' });
  }
  return v as Record<string, string>;
}
/** Stripe merges metadata on update; an empty value unsets a key, `metadata=` clears all. */
function mergeMetadata(current: Record<string, string>, p: Params): Record<string, string> {
  if (p.metadata === '') return {};
  const next = { ...current };
  for (const [k, v] of Object.entries(metadataParam(p))) {
    if (v === '') delete next[k];
    else next[k] = v;
  }
  return next;
}
/** Rejects parameters the endpoint does not know, as Stripe does (`expand` is always allowed). */
function only(p: Params, allowed: string[]): void {
  for (const k of Object.keys(p)) {
    if (k !== 'expand' && !allowed.includes(k)) {
      throw new ApiError(400, { type: 'invalid_request_error', code: 'parameter_unknown', param: k, message: `Received unknown parameter: ${k}` }, false);
    }
  }
}

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
function randomId(length = 24): string {
  return [...randomBytes(length)].map((b) => BASE62[b % 62]).join('');
}
const newId = (prefix: string): string => `${prefix}_${randomId()}`;

/** Stripe's money wording, e.g. `€10.00` (minor units → major with the currency's decimals). */
function money(amount: number, currency: string): string {
  const f = new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() });
  return f.format(amount / 10 ** (f.resolvedOptions().maximumFractionDigits ?? 2));
}

/** The test PaymentMethods the double understands (`pm_card_*` are Stripe's; the debit ones are the double's). */
const TEST_PAYMENT_METHODS: Record<string, { type: string; outcome: 'succeed' | 'decline' | 'action' | 'processing'; code?: string; decline?: string; message?: string }> = {
  pm_card_visa: { type: 'card', outcome: 'succeed' },
  pm_card_mastercard: { type: 'card', outcome: 'succeed' },
  pm_card_chargeDeclined: { type: 'card', outcome: 'decline', code: 'card_declined', decline: 'generic_decline', message: 'Your card was declined.' },
  pm_card_chargeDeclinedInsufficientFunds: { type: 'card', outcome: 'decline', code: 'card_declined', decline: 'insufficient_funds', message: 'Your card has insufficient funds.' },
  pm_card_chargeDeclinedExpiredCard: { type: 'card', outcome: 'decline', code: 'expired_card', decline: 'expired_card', message: 'Your card has expired.' },
  pm_card_authenticationRequired: { type: 'card', outcome: 'action' },
  pm_card_threeDSecure2Required: { type: 'card', outcome: 'action' },
  pm_sepaDebit: { type: 'sepa_debit', outcome: 'processing' },
  /** A bank redirect: `requires_action` until the buyer approves at their bank (`completeAction`). */
  pm_ideal: { type: 'ideal', outcome: 'action' },
  pm_bancontact: { type: 'bancontact', outcome: 'action' },
  pm_usBankAccount: { type: 'us_bank_account', outcome: 'processing' },
};

const DEFAULT_CURRENCY: Record<string, string> = { US: 'usd', GB: 'gbp', CA: 'cad', AU: 'aud', CH: 'chf', JP: 'jpy' };
const ONBOARDING_DUE = ['business_type', 'external_account', 'tos_acceptance.date', 'tos_acceptance.ip'];

/** What caused an event: the API request (its id and idempotency key) or a double control (nulls). */
interface Cause {
  requestId: string | null;
  idempotencyKey: string | null;
  /** The request's `Stripe-Version` (null: the SDK's pinned version). */
  stripeVersion: string | null;
}
const CONTROL: Cause = { requestId: null, idempotencyKey: null, stripeVersion: null };

/**
 * API 2026-09-30.endive (stripe-node v23's pinned version is later) replaced the PaymentIntent
 * parameter `payment_method_types` with `allowed_payment_method_types` (+ `excluded_…`); the
 * object still has `payment_method_types` (what is usable). Older versions may send the old name.
 */
const legacyTypes = (cause: Cause): boolean => cause.stripeVersion !== null && cause.stripeVersion < '2026-09-30';

function typesParam(p: Params, name: string): string[] | null {
  const v = p[name];
  if (v === undefined || v === '') return null;
  if (!Array.isArray(v) || v.some((t) => typeof t !== 'string')) throw invalid('Invalid array', { param: name });
  return v as string[];
}

export interface StripeDoubleOptions {
  /**
   * The clock in ms (default Date.now): `created` fields (seconds) and the webhook signature
   * timestamp. With a fake clock, verify signatures with `receivedAt` from the same clock (or
   * `tolerance: 0`), or the SDK refuses them as too old.
   */
  now?: () => number;
  /** Signing secret of webhook deliveries (default `whsec_double`). */
  webhookSecret?: string;
}

/**
 * Starts the double on 127.0.0.1 (a free port).
 *
 * @example
 * const stripeDouble = await startStripeDouble();
 * stripeDouble.deliverTo(`${serviceUrl}/webhooks/stripe`);
 * const stripe = stripeDouble.sdk();
 */
export async function startStripeDouble(opts: StripeDoubleOptions = {}): Promise<StripeDouble> {
  const now = opts.now ?? Date.now;
  const seconds = (): number => Math.floor(now() / 1000);
  const secretKey = 'sk_test_double';
  const webhookSecret = opts.webhookSecret ?? 'whsec_double';

  const paymentIntents = new Map<string, PaymentIntent>();
  const charges = new Map<string, Charge>();
  const accounts = new Map<string, Account>();
  const transfers = new Map<string, Obj & { id: string; amount: number; amount_reversed: number; currency: string }>();
  const disputes = new Map<string, Obj & { id: string; amount: number; currency: string; status: string; balance_transactions: Obj[] }>();
  const balanceTransactions: BalanceTransaction[] = []; // oldest first
  const available = new Map<string, number>();
  const events: StripeDoubleEvent[] = [];
  const deliveries: WebhookDelivery[] = [];
  const requests: StripeDoubleRequest[] = [];
  const failures: Array<{ match: RequestMatcher; failure: InjectedFailure }> = [];
  /** Idempotency: `<api key>\0<Idempotency-Key>` → the first request and its answer (undefined answer: in flight). */
  const idempotency = new Map<string, { endpoint: string; params: string; answer?: { status: number; body: unknown } }>();
  let webhookUrl: string | null = null;
  let port = 0;

  // -------------------------------------------------------------------------------------------
  // Events and webhook delivery

  async function deliver(event: StripeDoubleEvent): Promise<WebhookDelivery> {
    const url = webhookUrl;
    const delivery: WebhookDelivery = { eventId: event.id, type: event.type, url: url ?? '', status: null };
    if (url === null) return { ...delivery, error: 'no webhook URL' };
    const payload = JSON.stringify(event, null, 2);
    // Signed at delivery time (on the double's clock), as Stripe signs each attempt.
    const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret, timestamp: seconds() });
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signature, 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)' },
        body: payload,
        signal: AbortSignal.timeout(10_000),
      });
      await res.arrayBuffer();
      delivery.status = res.status;
    } catch (err) {
      delivery.error = err instanceof Error ? err.message : String(err);
    }
    deliveries.push(delivery);
    return delivery;
  }

  /** Records an event (a snapshot of `object`) and, when a webhook URL is set, awaits its delivery. */
  async function emit(cause: Cause, type: string, object: Obj, previous?: Obj, connectedAccount?: string): Promise<void> {
    const event: StripeDoubleEvent = {
      id: newId('evt'),
      object: 'event',
      ...(connectedAccount ? { account: connectedAccount } : {}),
      type,
      created: seconds(),
      api_version: Stripe.API_VERSION,
      livemode: false,
      pending_webhooks: webhookUrl === null ? 0 : 1,
      request: { id: cause.requestId, idempotency_key: cause.idempotencyKey },
      data: { object: structuredClone(object), ...(previous ? { previous_attributes: previous } : {}) },
    };
    events.push(event);
    if (webhookUrl !== null) await deliver(event);
  }

  // -------------------------------------------------------------------------------------------
  // Money: balance transactions and the platform's available balance

  /** A movement of the platform's balance; `category` is Stripe's `reporting_category` when it differs from the type. */
  function addBalanceTransaction(type: 'charge' | 'refund' | 'transfer' | 'transfer_refund' | 'adjustment', source: string, amount: number, currency: string, fee = 0, category: string = type): string {
    const created = seconds();
    const txn: BalanceTransaction = {
      id: newId('txn'),
      object: 'balance_transaction',
      amount,
      available_on: created,
      created,
      currency,
      description: null,
      exchange_rate: null,
      fee,
      fee_details: fee ? [{ amount: fee, application: null, currency, description: 'Stripe processing fees', type: 'stripe_fee' }] : [],
      net: amount - fee,
      reporting_category: category,
      source,
      status: 'available',
      type,
    };
    balanceTransactions.push(txn);
    available.set(currency, (available.get(currency) ?? 0) + amount - fee);
    return txn.id;
  }

  // -------------------------------------------------------------------------------------------
  // PaymentIntents

  function getPi(id: string): PaymentIntent {
    const pi = paymentIntents.get(id);
    if (!pi) throw noSuch('payment_intent', id, 'intent');
    return pi;
  }

  /** A PaymentIntent as read with `expand[]`: its latest charge (and that charge's balance transaction) as objects. */
  function withExpanded(pi: PaymentIntent, expand: Param | undefined): Obj {
    const paths = Array.isArray(expand) ? expand.filter((e): e is string => typeof e === 'string') : typeof expand === 'string' ? [expand] : [];
    const charge = pi.latest_charge ? charges.get(pi.latest_charge) : undefined;
    if (!charge || !paths.some((p) => p === 'latest_charge' || p.startsWith('latest_charge.'))) return pi as unknown as Obj;
    const txn = paths.includes('latest_charge.balance_transaction') ? balanceTransactions.find((t) => t.id === charge.balance_transaction) : undefined;
    return { ...pi, latest_charge: { ...charge, ...(txn ? { balance_transaction: txn } : {}) } } as unknown as Obj;
  }

  /** A Charge for a payment attempt; a succeeded one adds to the balance (2.9% + 30 fee). */
  function createCharge(pi: PaymentIntent, pmId: string, pmType: string, failure?: { code: string; message: string }): Charge {
    const id = newId('ch');
    const fee = Math.round(pi.amount * 0.029) + 30;
    const charge: Charge = {
      id,
      object: 'charge',
      amount: pi.amount,
      amount_captured: failure ? 0 : pi.amount,
      amount_refunded: 0,
      balance_transaction: failure ? null : addBalanceTransaction('charge', id, pi.amount, pi.currency, fee),
      captured: !failure,
      created: seconds(),
      currency: pi.currency,
      description: pi.description ?? null,
      failure_code: failure?.code ?? null,
      failure_message: failure?.message ?? null,
      livemode: false,
      metadata: { ...pi.metadata },
      outcome: failure
        ? { type: 'issuer_declined', network_status: 'declined_by_network', reason: failure.code, seller_message: 'The bank did not return any further details with this decline.' }
        : { type: 'authorized', network_status: 'approved_by_network', reason: null, seller_message: 'Payment complete.', risk_level: 'normal' },
      paid: !failure,
      payment_intent: pi.id,
      payment_method: pmId,
      payment_method_details: pmType === 'card' ? { type: 'card', card: { brand: 'visa', last4: '4242', country: 'US', exp_month: 12, exp_year: 2034 } } : { type: pmType, [pmType]: {} },
      refunded: false,
      status: failure ? 'failed' : 'succeeded',
      transfer_group: pi.transfer_group,
    };
    charges.set(id, charge);
    pi.latest_charge = id;
    return charge;
  }

  async function succeed(cause: Cause, pi: PaymentIntent, pmId: string, pmType: string): Promise<void> {
    const charge = createCharge(pi, pmId, pmType);
    Object.assign(pi, { status: 'succeeded', amount_received: pi.amount, next_action: null, last_payment_error: null, payment_method: pmId });
    await emit(cause, 'charge.succeeded', charge);
    await emit(cause, 'payment_intent.succeeded', pi);
  }

  async function fail(cause: Cause, pi: PaymentIntent, error: Obj): Promise<void> {
    Object.assign(pi, { status: 'requires_payment_method', next_action: null, payment_method: null, last_payment_error: error });
    await emit(cause, 'payment_intent.payment_failed', pi);
  }

  async function createPaymentIntent(p: Params, cause: Cause): Promise<Obj> {
    const typesName = legacyTypes(cause) ? 'payment_method_types' : 'allowed_payment_method_types';
    only(p, ['amount', 'currency', 'metadata', typesName, 'excluded_payment_method_types', 'automatic_payment_methods', 'transfer_group', 'description', 'receipt_email', 'statement_descriptor_suffix', 'capture_method']);
    const amount = amountParam(p);
    if (amount === undefined) throw missing('amount');
    const currency = currencyParam(p);
    const allowed = typesParam(p, typesName);
    const excluded = typesParam(p, 'excluded_payment_method_types');
    const id = newId('pi');
    // Since API 2023-08-16, automatic payment methods are on unless a list of types is given.
    const automatic = allowed === null;
    const pi: PaymentIntent = {
      id,
      object: 'payment_intent',
      amount,
      amount_capturable: 0,
      amount_received: 0,
      automatic_payment_methods: automatic ? { enabled: true, allow_redirects: 'always' } : null,
      canceled_at: null,
      cancellation_reason: null,
      capture_method: 'automatic',
      client_secret: `${id}_secret_${randomId(25)}`,
      confirmation_method: 'automatic',
      created: seconds(),
      currency,
      description: str(p, 'description') ?? null,
      last_payment_error: null,
      latest_charge: null,
      livemode: false,
      metadata: metadataParam(p),
      next_action: null,
      payment_method: null,
      allowed_payment_method_types: allowed,
      excluded_payment_method_types: excluded,
      payment_method_types: (allowed ?? ['card', 'sepa_debit', 'us_bank_account']).filter((t) => !excluded?.includes(t)),
      processing: null,
      status: 'requires_payment_method',
      transfer_group: str(p, 'transfer_group') ?? null,
    };
    paymentIntents.set(id, pi);
    await emit(cause, 'payment_intent.created', pi);
    return pi;
  }

  function updatePaymentIntent(id: string, p: Params): Obj {
    only(p, ['amount', 'metadata', 'description', 'transfer_group']);
    const pi = getPi(id);
    const amount = amountParam(p);
    // Amount only changes before a payment went through; metadata and description always may.
    if (amount !== undefined) {
      const open = ['requires_payment_method', 'requires_confirmation', 'requires_action'];
      if (!open.includes(pi.status)) throw unexpectedState('update', pi, open);
      pi.amount = amount;
    }
    if (p.metadata !== undefined) pi.metadata = mergeMetadata(pi.metadata, p);
    const description = str(p, 'description');
    if (description !== undefined) pi.description = description || null;
    const group = str(p, 'transfer_group');
    if (group !== undefined) pi.transfer_group = group || null;
    return pi;
  }

  async function cancelPaymentIntent(id: string, p: Params, cause: Cause): Promise<Obj> {
    only(p, ['cancellation_reason']);
    const pi = getPi(id);
    const cancelable = ['requires_payment_method', 'requires_capture', 'requires_confirmation', 'requires_action'];
    if (!cancelable.includes(pi.status)) throw unexpectedState('cancel', pi, cancelable);
    const reason = str(p, 'cancellation_reason');
    if (reason !== undefined && !['duplicate', 'fraudulent', 'requested_by_customer', 'abandoned'].includes(reason)) {
      throw invalid(`Invalid cancellation_reason: must be one of duplicate, fraudulent, requested_by_customer, or abandoned`, { param: 'cancellation_reason' });
    }
    Object.assign(pi, { status: 'canceled', canceled_at: seconds(), cancellation_reason: reason ?? null, next_action: null });
    await emit(cause, 'payment_intent.canceled', pi);
    return pi;
  }

  /**
   * What Stripe.js does in the buyer's browser: confirm with a test PaymentMethod. A decline
   * answers 402 (and is stored for idempotency, as Stripe stores it), after the PI went back to
   * `requires_payment_method` with `last_payment_error` and a failed Charge.
   */
  async function confirmPaymentIntent(id: string, p: Params, cause: Cause): Promise<Obj> {
    only(p, ['payment_method', 'return_url', 'mandate_data', 'receipt_email', 'off_session', 'setup_future_usage']);
    const pi = getPi(id);
    const confirmable = ['requires_payment_method', 'requires_confirmation'];
    if (!confirmable.includes(pi.status)) throw unexpectedState('confirm', pi, confirmable);
    const pmId = str(p, 'payment_method') ?? pi.payment_method;
    if (!pmId) throw missing('payment_method');
    const pm = TEST_PAYMENT_METHODS[pmId];
    if (!pm) throw noSuch('PaymentMethod', pmId, 'payment_method', 400);
    if (!pi.payment_method_types.includes(pm.type)) {
      throw invalid(
        `The PaymentMethod provided (${pm.type}) is not allowed for this PaymentIntent. Please attach a PaymentMethod of one of the following types: ${pi.payment_method_types.join(', ')}.`,
        { code: 'payment_intent_incompatible_payment_method', param: 'payment_method', payment_intent: pi },
      );
    }
    const paymentMethod = { id: pmId, object: 'payment_method', type: pm.type };
    switch (pm.outcome) {
      case 'succeed':
        await succeed(cause, pi, pmId, pm.type);
        return pi;
      case 'action': {
        const returnUrl = str(p, 'return_url') ?? null;
        Object.assign(pi, {
          status: 'requires_action',
          payment_method: pmId,
          next_action: { type: 'redirect_to_url', redirect_to_url: { url: `http://127.0.0.1:${port}/authenticate/${pi.id}`, return_url: returnUrl } },
        });
        await emit(cause, 'payment_intent.requires_action', pi);
        return pi;
      }
      case 'processing':
        Object.assign(pi, { status: 'processing', payment_method: pmId, processing: { type: pm.type } });
        await emit(cause, 'payment_intent.processing', pi);
        return pi;
      case 'decline': {
        const charge = createCharge(pi, pmId, pm.type, { code: pm.decline ?? pm.code ?? 'card_declined', message: pm.message ?? '' });
        const error = { type: 'card_error', code: pm.code, decline_code: pm.decline, message: pm.message, charge: charge.id, payment_method: paymentMethod, doc_url: `https://stripe.com/docs/error-codes/${pm.code}` };
        await emit(cause, 'charge.failed', charge);
        await fail(cause, pi, error);
        throw new ApiError(402, { ...error, payment_intent: pi });
      }
    }
  }

  /** Double control: finishes a PI left in a given status by the buyer or the bank. */
  function piIn(id: string, status: PiStatus): PaymentIntent {
    const pi = paymentIntents.get(id);
    if (!pi) throw new Error(`stripe double: no PaymentIntent ${id}`);
    if (pi.status !== status) throw new Error(`stripe double: ${id} is ${pi.status}, not ${status}`);
    return pi;
  }

  // -------------------------------------------------------------------------------------------
  // Refunds

  async function createRefund(p: Params, cause: Cause): Promise<Obj> {
    only(p, ['payment_intent', 'charge', 'amount', 'reason', 'metadata']);
    const piId = str(p, 'payment_intent');
    const chargeId = str(p, 'charge');
    let charge: Charge | undefined;
    if (chargeId !== undefined) {
      charge = charges.get(chargeId);
      if (!charge) throw noSuch('charge', chargeId, 'charge', 400);
    } else if (piId !== undefined) {
      const pi = paymentIntents.get(piId);
      if (!pi) throw noSuch('payment_intent', piId, 'payment_intent', 400);
      charge = pi.status === 'succeeded' && pi.latest_charge ? charges.get(pi.latest_charge) : undefined;
      if (!charge) throw invalid(`This PaymentIntent (${piId}) does not have a successful charge to refund.`, { code: 'charge_not_refundable', param: 'payment_intent' });
    } else {
      throw new ApiError(400, { type: 'invalid_request_error', code: 'parameter_missing', message: 'One of the following params should be provided for this request: payment_intent or charge.' }, false);
    }
    if (charge.status !== 'succeeded') throw invalid(`Charge ${charge.id} has not succeeded.`, { code: 'charge_not_refundable', param: 'charge' });
    const remaining = charge.amount - charge.amount_refunded;
    if (remaining === 0) throw invalid(`Charge ${charge.id} has already been refunded.`, { code: 'charge_already_refunded', charge: charge.id });
    const amount = amountParam(p) ?? remaining;
    if (amount > remaining) {
      throw invalid(`Refund amount (${money(amount, charge.currency)}) is greater than unrefunded amount on charge (${money(remaining, charge.currency)})`, { code: 'amount_too_large', param: 'amount' });
    }
    const id = newId('re');
    const refund: Obj = {
      id,
      object: 'refund',
      amount,
      balance_transaction: addBalanceTransaction('refund', id, -amount, charge.currency),
      charge: charge.id,
      created: seconds(),
      currency: charge.currency,
      metadata: metadataParam(p),
      payment_intent: charge.payment_intent,
      reason: str(p, 'reason') ?? null,
      status: 'succeeded',
    };
    const previous = { amount_refunded: charge.amount_refunded, refunded: charge.refunded };
    charge.amount_refunded += amount;
    charge.refunded = charge.amount_refunded === charge.amount;
    await emit(cause, 'charge.refunded', charge, previous);
    await emit(cause, 'refund.created', refund);
    return refund;
  }

  // -------------------------------------------------------------------------------------------
  // Connect: accounts, onboarding links, transfers

  /** Stripe answers an unknown (or not connected) account as a permission problem. */
  const noAccess = (id: string, param: string): ApiError =>
    invalid(`The provided key 'sk_test_***${secretKey.slice(-4)}' does not have access to account '${id}' (or that account does not exist). Application access may have been revoked.`, { code: 'account_invalid', param }, 403);

  function getAccount(id: string, param: string): Account {
    const account = accounts.get(id);
    if (!account) throw noAccess(id, param);
    return account;
  }

  function createAccount(p: Params): Obj {
    only(p, ['type', 'country', 'email', 'capabilities', 'metadata', 'business_type', 'business_profile', 'default_currency']);
    const type = str(p, 'type') ?? 'standard';
    if (!['express', 'standard', 'custom'].includes(type)) throw invalid(`Invalid type: must be one of custom, express, or standard`, { param: 'type' });
    const country = (str(p, 'country') ?? 'US').toUpperCase();
    // Only requested capabilities appear, inactive until onboarding is complete.
    const requested = p.capabilities;
    const capabilities: Account['capabilities'] = {};
    if (requested !== undefined && typeof requested === 'object' && !Array.isArray(requested)) {
      for (const [name, spec] of Object.entries(requested)) {
        if (typeof spec === 'object' && !Array.isArray(spec) && spec.requested === 'true') capabilities[name] = 'inactive';
      }
    }
    const account: Account = {
      id: newId('acct'),
      object: 'account',
      type,
      country,
      email: str(p, 'email') ?? null,
      business_type: str(p, 'business_type') ?? null,
      capabilities,
      charges_enabled: false,
      payouts_enabled: false,
      details_submitted: false,
      default_currency: str(p, 'default_currency') ?? DEFAULT_CURRENCY[country] ?? 'eur',
      metadata: metadataParam(p),
      requirements: { currently_due: [...ONBOARDING_DUE], eventually_due: [...ONBOARDING_DUE], past_due: [...ONBOARDING_DUE], pending_verification: [], errors: [], alternatives: [], current_deadline: null, disabled_reason: 'requirements.past_due' },
      created: seconds(),
    };
    accounts.set(account.id, account);
    return account;
  }

  /** Changes an account's flags and emits `account.updated` with what changed. */
  async function updateAccount(account: Account, flags: Partial<AccountFlags>): Promise<void> {
    const previous: Obj = {};
    for (const key of ['charges_enabled', 'payouts_enabled', 'details_submitted'] as const) {
      const value = flags[key];
      if (value !== undefined && value !== account[key]) {
        previous[key] = account[key];
        account[key] = value;
      }
    }
    // The transfers capability (and any other requested) follows charges_enabled.
    const capabilities = Object.fromEntries(Object.keys(account.capabilities).map((c) => [c, account.charges_enabled ? 'active' : 'inactive'] as const));
    if (JSON.stringify(capabilities) !== JSON.stringify(account.capabilities)) previous.capabilities = account.capabilities;
    account.capabilities = capabilities;
    const done = account.charges_enabled && account.payouts_enabled && account.details_submitted;
    const due = done ? [] : [...ONBOARDING_DUE];
    if (JSON.stringify(due) !== JSON.stringify(account.requirements.currently_due)) previous.requirements = structuredClone(account.requirements);
    Object.assign(account.requirements, { currently_due: due, eventually_due: due, past_due: due, disabled_reason: done ? null : 'requirements.past_due' });
    await emit(CONTROL, 'account.updated', account, previous, account.id);
  }

  function createAccountLink(p: Params): Obj {
    only(p, ['account', 'refresh_url', 'return_url', 'type', 'collect', 'collection_options']);
    const account = getAccount(reqStr(p, 'account'), 'account');
    reqStr(p, 'refresh_url');
    reqStr(p, 'return_url');
    const type = reqStr(p, 'type');
    if (!['account_onboarding', 'account_update'].includes(type)) throw invalid(`Invalid type: must be one of account_onboarding or account_update`, { param: 'type' });
    const created = seconds();
    return { object: 'account_link', created, expires_at: created + 300, url: `http://127.0.0.1:${port}/connect/onboarding/${account.id}` };
  }

  /** An Express Dashboard login link: Stripe refuses one for an account that has not finished onboarding. */
  function createLoginLink(id: string, p: Params): Obj {
    only(p, ['expand']);
    const account = getAccount(id, 'account');
    if (!account.details_submitted) throw invalid('Cannot create a login link for an account that has not completed onboarding.', { param: 'account' });
    return { object: 'login_link', created: seconds(), url: `http://127.0.0.1:${port}/connect/express/${account.id}` };
  }

  async function createTransfer(p: Params, cause: Cause): Promise<Obj> {
    only(p, ['amount', 'currency', 'destination', 'transfer_group', 'source_transaction', 'metadata', 'description']);
    const amount = amountParam(p);
    if (amount === undefined) throw missing('amount');
    const currency = currencyParam(p);
    const destinationId = reqStr(p, 'destination');
    const destination = accounts.get(destinationId);
    if (!destination) throw noSuch('destination', destinationId, 'destination', 400);
    if (destination.capabilities.transfers !== 'active') {
      throw invalid(
        'Your destination account needs to have at least one of the following capabilities enabled: transfers, crypto_transfers, legacy_payments',
        { code: 'insufficient_capabilities_for_transfer', param: 'destination' },
      );
    }
    const sourceId = str(p, 'source_transaction');
    if (sourceId !== undefined) {
      const source = charges.get(sourceId);
      if (!source) throw noSuch('charge', sourceId, 'source_transaction', 400);
      if (source.currency !== currency) throw invalid(`The currency of source_transaction's balance transaction (${source.currency}) must be the same as the transfer currency (${currency})`, { param: 'currency' });
    }
    if ((available.get(currency) ?? 0) < amount) {
      throw invalid(
        'You have insufficient available funds in your Stripe account. Try adding funds directly to your available balance by creating Charges using the 4000000000000077 test card. For details, see https://stripe.com/docs/testing#available-balance.',
        { code: 'balance_insufficient' },
      );
    }
    const id = newId('tr');
    const transfer = {
      id,
      object: 'transfer',
      amount,
      amount_reversed: 0,
      balance_transaction: addBalanceTransaction('transfer', id, -amount, currency),
      created: seconds(),
      currency,
      description: str(p, 'description') ?? null,
      destination: destination.id,
      destination_payment: newId('py'),
      livemode: false,
      metadata: metadataParam(p),
      reversals: { object: 'list', data: [], has_more: false, total_count: 0, url: `/v1/transfers/${id}/reversals` },
      reversed: false,
      source_transaction: sourceId ?? null,
      source_type: 'card',
      transfer_group: str(p, 'transfer_group') ?? null,
    };
    transfers.set(id, transfer);
    await emit(cause, 'transfer.created', transfer);
    return transfer;
  }

  /** Reverses (part of) a transfer: the money comes back to the platform's balance (`transfer_refund`), `transfer.reversed` is sent. */
  async function createTransferReversal(id: string, p: Params, cause: Cause): Promise<Obj> {
    only(p, ['amount', 'metadata', 'description', 'refund_application_fee']);
    const transfer = transfers.get(id);
    if (!transfer) throw noSuch('transfer', id, 'id');
    const left = transfer.amount - transfer.amount_reversed;
    const amount = amountParam(p) ?? left;
    if (amount > left) throw invalid(`Amount (${amount}) is greater than the amount left to reverse on the transfer (${left})`, { param: 'amount' });
    const reversalId = newId('trr');
    const reversal = {
      id: reversalId,
      object: 'transfer_reversal',
      amount,
      balance_transaction: addBalanceTransaction('transfer_refund', reversalId, amount, transfer.currency, 0, 'transfer_reversal'),
      created: seconds(),
      currency: transfer.currency,
      metadata: metadataParam(p),
      transfer: id,
    };
    transfer.amount_reversed += amount;
    transfer.reversed = transfer.amount_reversed === transfer.amount;
    const list = transfer.reversals as { data: Obj[]; total_count: number };
    list.data.unshift(reversal);
    list.total_count++;
    await emit(cause, 'transfer.reversed', transfer);
    return reversal;
  }

  // -------------------------------------------------------------------------------------------
  // Balance transactions: a Stripe list, newest first, cursor `starting_after`

  function listBalanceTransactions(q: Params): Obj {
    only(q, ['created', 'limit', 'starting_after', 'type', 'currency']);
    const limit = int(q, 'limit') ?? 10;
    if (limit < 1 || limit > 100) throw invalid('This value must be between 1 and 100.', { param: 'limit' });
    const created = q.created;
    const range = typeof created === 'object' && !Array.isArray(created) ? created : {};
    const bound = (k: string): number | undefined => int(range, k);
    const exact = typeof created === 'string' ? int(q, 'created') : undefined;
    const [gte, gt, lt, lte] = [bound('gte'), bound('gt'), bound('lt'), bound('lte')];
    const type = str(q, 'type');
    const currency = str(q, 'currency');
    let rows = balanceTransactions
      .filter((t) => (exact === undefined || t.created === exact) && (gte === undefined || t.created >= gte) && (gt === undefined || t.created > gt))
      .filter((t) => (lt === undefined || t.created < lt) && (lte === undefined || t.created <= lte))
      .filter((t) => (type === undefined || t.type === type) && (currency === undefined || t.currency === currency))
      .reverse(); // newest first (creation order breaks ties within a second)
    const after = str(q, 'starting_after');
    if (after !== undefined) {
      const i = rows.findIndex((t) => t.id === after);
      if (i < 0) throw noSuch('balance transaction', after, 'starting_after', 400);
      rows = rows.slice(i + 1);
    }
    return { object: 'list', data: rows.slice(0, limit), has_more: rows.length > limit, url: '/v1/balance_transactions' };
  }

  // -------------------------------------------------------------------------------------------
  // Routing

  type Handler = (match: string[], params: Params, cause: Cause) => Obj | Promise<Obj>;
  const routes: Array<[string, RegExp, Handler]> = [
    ['POST', /^\/v1\/payment_intents$/, (_, p, c) => createPaymentIntent(p, c)],
    [
      'GET',
      /^\/v1\/payment_intents\/([^/]+)$/,
      ([id], q) => {
        only(q, ['client_secret']);
        return withExpanded(getPi(id!), q.expand);
      },
    ],
    ['POST', /^\/v1\/payment_intents\/([^/]+)$/, ([id], p) => updatePaymentIntent(id!, p)],
    ['POST', /^\/v1\/payment_intents\/([^/]+)\/cancel$/, ([id], p, c) => cancelPaymentIntent(id!, p, c)],
    ['POST', /^\/v1\/payment_intents\/([^/]+)\/confirm$/, ([id], p, c) => confirmPaymentIntent(id!, p, c)],
    ['POST', /^\/v1\/refunds$/, (_, p, c) => createRefund(p, c)],
    ['POST', /^\/v1\/accounts$/, (_, p) => createAccount(p)],
    ['GET', /^\/v1\/accounts\/([^/]+)$/, ([id]) => getAccount(id!, 'account')],
    ['POST', /^\/v1\/account_links$/, (_, p) => createAccountLink(p)],
    ['POST', /^\/v1\/accounts\/([^/]+)\/login_links$/, ([id], p) => createLoginLink(id!, p)],
    ['POST', /^\/v1\/transfers$/, (_, p, c) => createTransfer(p, c)],
    ['POST', /^\/v1\/transfers\/([^/]+)\/reversals$/, ([id], p, c) => createTransferReversal(id!, p, c)],
    ['GET', /^\/v1\/balance_transactions$/, (_, q) => listBalanceTransactions(q)],
    [
      'GET',
      /^\/v1\/events\/([^/]+)$/,
      ([id]) => {
        const event = events.find((e) => e.id === id);
        if (!event) throw noSuch('event', id!, 'id');
        return event as unknown as Obj;
      },
    ],
  ];

  function takeFailure(method: string, path: string): InjectedFailure | undefined {
    const i = failures.findIndex(({ match }) =>
      typeof match === 'string' ? match === path || match === `${method} ${path}` : match instanceof RegExp ? match.test(`${method} ${path}`) : match({ method, path }),
    );
    return i < 0 ? undefined : failures.splice(i, 1)[0]!.failure;
  }

  function defaultFailureBody(status: number): unknown {
    if (status === 429) return { error: { type: 'invalid_request_error', code: 'rate_limit', message: 'Too many requests hit the API too quickly. We recommend an exponential backoff of your requests.' } };
    if (status >= 500) return { error: { type: 'api_error', message: 'An unknown error occurred' } };
    return { error: { type: 'invalid_request_error', message: 'Injected failure' } };
  }

  /** Everything but the HTTP plumbing: auth, injected failures, idempotency, routing. */
  async function handle(req: IncomingMessage, log: StripeDoubleRequest, requestId: string): Promise<{ status: number; body: unknown; headers?: Record<string, string> }> {
    const { method, path } = log;
    if (method === 'GET' && /^\/(connect\/onboarding|authenticate)\//.test(path)) {
      // Where an account link or a 3-D Secure redirect leads: the double plays those pages with controls.
      return { status: 200, body: { message: 'Stripe double: use double.completeOnboarding(accountId) or double.completeAction(paymentIntentId, approved).' } };
    }
    const auth = req.headers.authorization ?? '';
    const key = /^Bearer (.+)$/.exec(auth)?.[1];
    if (!key) {
      return { status: 401, body: { error: { type: 'invalid_request_error', message: "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY')." } } };
    }
    if (key !== secretKey) {
      // Like Stripe: only the start and the last 4 characters of a wrong key are echoed.
      const masked = key.length > 12 ? `${key.slice(0, 8)}${'*'.repeat(key.length - 12)}${key.slice(-4)}` : '*'.repeat(key.length);
      return { status: 401, body: { error: { type: 'invalid_request_error', message: `Invalid API Key provided: ${masked}` } } };
    }
    const failure = takeFailure(method, path);
    if (failure) return { status: failure.status, body: failure.body ?? defaultFailureBody(failure.status), headers: failure.headers ?? {} };

    const route = routes.find(([m, re]) => m === method && re.test(path));
    if (!route) {
      return { status: 404, body: { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.` } } };
    }
    if (log.stripeAccount !== null && !accounts.has(log.stripeAccount)) {
      const err = noAccess(log.stripeAccount, 'Stripe-Account');
      return { status: err.status, body: { error: err.error } };
    }

    // Idempotency (POST only): same key + same endpoint + same parameters → the first answer again.
    const params = method === 'POST' ? log.body : log.query;
    const slot = method === 'POST' && log.idempotencyKey !== null ? `${key}\0${log.idempotencyKey}` : null;
    const fingerprint = JSON.stringify(params);
    if (slot !== null) {
      const seen = idempotency.get(slot);
      if (seen) {
        const idem = (message: string, status = 400): { status: number; body: unknown } => ({ status, body: { error: { type: 'idempotency_error', message } } });
        if (seen.endpoint !== `${method} ${path}`) {
          return idem(`Keys for idempotent requests can only be used for the same endpoint they were first used for ('${seen.endpoint.split(' ')[1]}' vs '${path}'). Try using a key other than '${log.idempotencyKey}' if you meant to execute a different request.`);
        }
        if (seen.params !== fingerprint) {
          return idem(`Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${log.idempotencyKey}' if you meant to execute a different request.`);
        }
        if (!seen.answer) {
          // Stripe answers 409 while the first request runs (the SDK retries 409s).
          return { status: 409, body: { error: { type: 'invalid_request_error', code: 'idempotency_key_in_use', message: 'There is currently another in-progress request using this Idempotent Key (that probably means you submitted twice, and the other request is still going through): ' + log.idempotencyKey + '. Please try again later.' } } };
        }
        log.replayed = true;
        return { ...seen.answer, headers: { 'Idempotent-Replayed': 'true' } };
      }
      idempotency.set(slot, { endpoint: `${method} ${path}`, params: fingerprint });
    }

    let answer: { status: number; body: unknown };
    let store = true;
    try {
      const match = route[1].exec(path)!.slice(1).map(decodeURIComponent);
      answer = { status: 200, body: await route[2](match, params, { requestId, idempotencyKey: log.idempotencyKey, stripeVersion: log.stripeVersion }) };
    } catch (err) {
      if (!(err instanceof ApiError)) {
        if (slot !== null) idempotency.delete(slot);
        throw err;
      }
      answer = { status: err.status, body: { error: { ...err.error, request_log_url: `https://dashboard.stripe.com/test/logs/${requestId}` } } };
      store = err.store;
    }
    if (slot !== null) {
      if (store) idempotency.get(slot)!.answer = structuredClone(answer);
      else idempotency.delete(slot); // validation failures are not saved (Stripe: the request never started executing)
    }
    return answer;
  }

  const server = createServer((req, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const header = (name: string): string | null => {
        const v = req.headers[name];
        return typeof v === 'string' ? v : null;
      };
      const log: StripeDoubleRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: parseForm(url.search.slice(1)),
        body: parseForm(raw),
        idempotencyKey: header('idempotency-key'),
        stripeAccount: header('stripe-account'),
        stripeVersion: header('stripe-version'),
        status: 0,
        replayed: false,
      };
      requests.push(log);
      const requestId = newId('req');
      handle(req, log, requestId).then(
        ({ status, body, headers }) => {
          log.status = status;
          res.writeHead(status, {
            'content-type': 'application/json',
            'request-id': requestId,
            'stripe-version': log.stripeVersion ?? Stripe.API_VERSION,
            ...(log.idempotencyKey ? { 'idempotency-key': log.idempotencyKey } : {}),
            ...headers,
          });
          res.end(JSON.stringify(body, null, 2));
        },
        (err: unknown) => {
          // A bug in the double: answer 500 like Stripe's api_error, with the message to debug it.
          log.status = 500;
          res.writeHead(500, { 'content-type': 'application/json', 'request-id': requestId, 'stripe-should-retry': 'false' });
          res.end(JSON.stringify({ error: { type: 'api_error', message: `stripe double: ${err instanceof Error ? err.stack : String(err)}` } }));
        },
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;

  const double: StripeDouble = {
    port,
    url: `http://127.0.0.1:${port}`,
    secretKey,
    webhookSecret,
    get webhookUrl() {
      return webhookUrl;
    },
    set webhookUrl(url: string | null) {
      webhookUrl = url;
    },
    deliverTo(url) {
      webhookUrl = url;
    },
    sdk(config = {}) {
      return new Stripe(secretKey, { host: '127.0.0.1', port, protocol: 'http', maxNetworkRetries: 2, telemetry: false, ...config });
    },
    requests,
    events,
    deliveries,
    balance: (currency) => available.get(currency.toLowerCase()) ?? 0,
    failNext(match, failure) {
      failures.push({ match, failure });
    },
    async setAccount(id, flags) {
      const account = accounts.get(id);
      if (!account) throw new Error(`stripe double: no account ${id}`);
      await updateAccount(account, flags);
    },
    async completeOnboarding(id) {
      await double.setAccount(id, { charges_enabled: true, payouts_enabled: true, details_submitted: true });
    },
    async completeAction(id, approved) {
      const pi = piIn(id, 'requires_action');
      const pmId = pi.payment_method ?? 'pm_card_authenticationRequired';
      if (approved) return succeed(CONTROL, pi, pmId, TEST_PAYMENT_METHODS[pmId]?.type ?? 'card');
      await fail(CONTROL, pi, {
        type: 'invalid_request_error',
        code: 'payment_intent_authentication_failure',
        message: 'The provided PaymentMethod has failed authentication. You can provide payment_method_data or a new PaymentMethod to attempt to fulfill this PaymentIntent again.',
        payment_method: { id: pmId, object: 'payment_method', type: 'card' },
      });
    },
    async settleProcessing(id, ok) {
      const pi = piIn(id, 'processing');
      const pmId = pi.payment_method ?? 'pm_sepaDebit';
      const type = TEST_PAYMENT_METHODS[pmId]?.type ?? 'sepa_debit';
      pi.processing = null;
      if (ok) return succeed(CONTROL, pi, pmId, type);
      await fail(CONTROL, pi, { type: 'card_error', code: 'payment_method_provider_decline', message: 'The payment was declined by the bank.', payment_method: { id: pmId, object: 'payment_method', type } });
    },
    async openDispute(id) {
      const pi = piIn(id, 'succeeded');
      const charge = charges.get(pi.latest_charge!)!;
      const disputeId = newId('dp');
      const dispute = {
        id: disputeId,
        object: 'dispute',
        amount: charge.amount,
        balance_transactions: [] as Obj[],
        charge: charge.id,
        created: seconds(),
        currency: charge.currency,
        livemode: false,
        metadata: {},
        payment_intent: pi.id,
        reason: 'fraudulent',
        status: 'needs_response',
      };
      disputes.set(disputeId, dispute);
      await emit(CONTROL, 'charge.dispute.created', dispute);
      // Stripe takes the amount and its fee at once, and says so in an event of its own.
      const txnId = addBalanceTransaction('adjustment', disputeId, -charge.amount, charge.currency, DISPUTE_FEE, 'dispute');
      dispute.balance_transactions.push(balanceTransactions.find((t) => t.id === txnId)!);
      await emit(CONTROL, 'charge.dispute.funds_withdrawn', dispute);
      return disputeId;
    },
    async closeDispute(id, won) {
      const dispute = disputes.get(id);
      if (!dispute) throw new Error(`stripe double: no dispute ${id}`);
      dispute.status = won ? 'won' : 'lost';
      if (won) {
        // The amount comes back; the dispute fee does not (as in most countries).
        const txnId = addBalanceTransaction('adjustment', id, dispute.amount, dispute.currency, 0, 'dispute_reversal');
        dispute.balance_transactions.push(balanceTransactions.find((t) => t.id === txnId)!);
        await emit(CONTROL, 'charge.dispute.funds_reinstated', dispute);
      }
      await emit(CONTROL, 'charge.dispute.closed', dispute);
    },
    async redeliver(eventId) {
      const event = events.find((e) => e.id === eventId);
      if (!event) throw new Error(`stripe double: no event ${eventId}`);
      return deliver(event);
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
  return double;
}
