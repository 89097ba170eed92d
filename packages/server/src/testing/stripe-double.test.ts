import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { parseForm, startStripeDouble, type StripeDouble } from './stripe-double.js';

/** Everything a test started, closed after it. */
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of cleanups.splice(0).reverse()) await close();
});

async function double(opts?: Parameters<typeof startStripeDouble>[0]): Promise<StripeDouble> {
  const d = await startStripeDouble(opts);
  cleanups.push(() => d.close());
  return d;
}

/** Our side of the webhooks: an HTTP server that verifies each signature with the SDK, as the service will. */
async function receiver(secret: string, status = 200): Promise<{ url: string; received: Stripe.Event[] }> {
  const received: Stripe.Event[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        received.push(Stripe.webhooks.constructEvent(Buffer.concat(chunks).toString('utf8'), req.headers['stripe-signature'] ?? '', secret));
        res.writeHead(status).end();
      } catch {
        res.writeHead(400).end('bad signature');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/stripe`, received };
}

/** A PaymentIntent the buyer paid by card. */
async function paid(stripe: Stripe, amount = 10_000, currency = 'eur'): Promise<Stripe.PaymentIntent> {
  const pi = await stripe.paymentIntents.create({ amount, currency });
  return stripe.paymentIntents.confirm(pi.id, { payment_method: 'pm_card_visa' });
}

async function rejection(promise: Promise<unknown>): Promise<Stripe.errors.StripeError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Stripe.errors.StripeError);
  return err as Stripe.errors.StripeError;
}

describe('parseForm', () => {
  it('reads Stripe bracket notation into objects and arrays', () => {
    expect(parseForm('amount=100&metadata[intentionId]=x&payment_method_types[0]=card&payment_method_types[1]=sepa_debit&capabilities[transfers][requested]=true&metadata[0]=zero')).toEqual({
      amount: '100',
      metadata: { intentionId: 'x', 0: 'zero' },
      payment_method_types: ['card', 'sepa_debit'],
      capabilities: { transfers: { requested: 'true' } },
    });
  });
});

describe('stripe double, driven by the real SDK', () => {
  it('takes a card payment: PI created, confirmed with pm_card_visa, charge and signed events delivered', async () => {
    const d = await double();
    const hook = await receiver(d.webhookSecret);
    d.deliverTo(hook.url);
    const stripe = d.sdk();

    const pi = await stripe.paymentIntents.create({ amount: 2500, currency: 'EUR', metadata: { intentionId: 'int_1' }, automatic_payment_methods: { enabled: true }, transfer_group: 'order_1', description: 'Resale' });
    expect(pi).toMatchObject({ object: 'payment_intent', amount: 2500, currency: 'eur', status: 'requires_payment_method', metadata: { intentionId: 'int_1' }, latest_charge: null, livemode: false, last_payment_error: null, transfer_group: 'order_1' });
    expect(pi.id).toMatch(/^pi_/);
    expect(pi.client_secret).toMatch(new RegExp(`^${pi.id}_secret_`));
    expect(Math.abs(pi.created - Date.now() / 1000)).toBeLessThan(5);

    // What the SDK sent: form body in bracket notation, an idempotency key, the API version.
    const sent = d.requests.find((r) => r.method === 'POST' && r.path === '/v1/payment_intents')!;
    expect(sent.body).toMatchObject({ amount: '2500', metadata: { intentionId: 'int_1' }, automatic_payment_methods: { enabled: 'true' } });
    expect(sent.idempotencyKey).toMatch(/^stripe-node-retry-/);
    expect(sent.stripeVersion).toBe(Stripe.API_VERSION);

    const done = await stripe.paymentIntents.confirm(pi.id, { payment_method: 'pm_card_visa' });
    expect(done.status).toBe('succeeded');
    expect(done.latest_charge).toMatch(/^ch_/);
    expect((await stripe.paymentIntents.retrieve(pi.id)).status).toBe('succeeded');

    expect(hook.received.map((e) => e.type)).toEqual(['payment_intent.created', 'charge.succeeded', 'payment_intent.succeeded']);
    expect(d.deliveries.map((x) => x.status)).toEqual([200, 200, 200]);
    const charge = hook.received[1]!.data.object as Stripe.Charge;
    expect(charge).toMatchObject({ object: 'charge', id: done.latest_charge, amount: 2500, status: 'succeeded', payment_intent: pi.id });
    expect(charge.balance_transaction).toMatch(/^txn_/);
    const event = hook.received[2]!;
    expect(event).toMatchObject({ object: 'event', livemode: false, api_version: Stripe.API_VERSION, data: { object: { id: pi.id, status: 'succeeded' } } });
    expect(event.id).toMatch(/^evt_/);
    expect(event.request?.idempotency_key).toMatch(/^stripe-node-retry-/);
    // 2.9% + 30 of 2500 = 73 + 30.
    expect(d.balance('eur')).toBe(2500 - 103);

    expect((await stripe.events.retrieve(event.id)).type).toBe('payment_intent.succeeded');
  });

  it('declines pm_card_chargeDeclined with a StripeCardError; the PI can be paid again', async () => {
    const d = await double();
    const hook = await receiver(d.webhookSecret);
    d.deliverTo(hook.url);
    const stripe = d.sdk();
    const pi = await stripe.paymentIntents.create({ amount: 1000, currency: 'eur', allowed_payment_method_types: ['card'] });

    const err = await rejection(stripe.paymentIntents.confirm(pi.id, { payment_method: 'pm_card_chargeDeclined' }));
    expect(err).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(err).toMatchObject({ statusCode: 402, code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' });
    expect(err.payment_intent?.id).toBe(pi.id);
    const after = await stripe.paymentIntents.retrieve(pi.id);
    expect(after.status).toBe('requires_payment_method');
    expect(after.last_payment_error).toMatchObject({ type: 'card_error', code: 'card_declined', decline_code: 'generic_decline' });
    expect(hook.received.map((e) => e.type)).toContain('payment_intent.payment_failed');
    expect(d.balance('eur')).toBe(0);

    expect((await stripe.paymentIntents.confirm(pi.id, { payment_method: 'pm_card_visa' })).status).toBe('succeeded');
  });

  it('asks for 3-D Secure (requires_action) until completeAction, approved or not', async () => {
    const d = await double();
    const hook = await receiver(d.webhookSecret);
    d.deliverTo(hook.url);
    const stripe = d.sdk();

    const ok = await stripe.paymentIntents.create({ amount: 1000, currency: 'eur' });
    const pending = await stripe.paymentIntents.confirm(ok.id, { payment_method: 'pm_card_authenticationRequired', return_url: 'https://resale.test/return' });
    expect(pending.status).toBe('requires_action');
    expect(pending.next_action).toMatchObject({ type: 'redirect_to_url', redirect_to_url: { return_url: 'https://resale.test/return' } });
    await d.completeAction(ok.id, true);
    expect((await stripe.paymentIntents.retrieve(ok.id)).status).toBe('succeeded');
    expect(hook.received.at(-1)).toMatchObject({ type: 'payment_intent.succeeded', request: { id: null, idempotency_key: null } });

    const ko = await stripe.paymentIntents.create({ amount: 1000, currency: 'eur' });
    await stripe.paymentIntents.confirm(ko.id, { payment_method: 'pm_card_threeDSecure2Required' });
    await d.completeAction(ko.id, false);
    const failed = await stripe.paymentIntents.retrieve(ko.id);
    expect(failed.status).toBe('requires_payment_method');
    expect(failed.last_payment_error?.code).toBe('payment_intent_authentication_failure');
    expect(hook.received.at(-1)?.type).toBe('payment_intent.payment_failed');
    await expect(d.completeAction(ko.id, true)).rejects.toThrow(/not requires_action/);
  });

  it('leaves a debit in processing until settleProcessing', async () => {
    const d = await double();
    const stripe = d.sdk();
    const pi = await stripe.paymentIntents.create({ amount: 1000, currency: 'eur', allowed_payment_method_types: ['sepa_debit'] });
    expect((await stripe.paymentIntents.confirm(pi.id, { payment_method: 'pm_sepaDebit' })).status).toBe('processing');
    await d.settleProcessing(pi.id, true);
    expect((await stripe.paymentIntents.retrieve(pi.id)).status).toBe('succeeded');

    const bad = await stripe.paymentIntents.create({ amount: 1000, currency: 'usd', allowed_payment_method_types: ['us_bank_account'] });
    await stripe.paymentIntents.confirm(bad.id, { payment_method: 'pm_usBankAccount' });
    await d.settleProcessing(bad.id, false);
    expect((await stripe.paymentIntents.retrieve(bad.id)).status).toBe('requires_payment_method');
    expect(d.events.map((e) => e.type).filter((t) => t.startsWith('payment_intent.'))).toEqual([
      'payment_intent.created',
      'payment_intent.processing',
      'payment_intent.succeeded',
      'payment_intent.created',
      'payment_intent.processing',
      'payment_intent.payment_failed',
    ]);
  });

  it('updates and cancels a PaymentIntent; a succeeded one cannot be canceled', async () => {
    const d = await double();
    const stripe = d.sdk();
    const pi = await stripe.paymentIntents.create({ amount: 1000, currency: 'eur', metadata: { a: '1', b: '2' } });
    const updated = await stripe.paymentIntents.update(pi.id, { amount: 1200, metadata: { b: '', c: '3' } });
    expect(updated).toMatchObject({ amount: 1200, metadata: { a: '1', c: '3' } });
    expect(updated.metadata).not.toHaveProperty('b');
    const canceled = await stripe.paymentIntents.cancel(pi.id, { cancellation_reason: 'abandoned' });
    expect(canceled).toMatchObject({ status: 'canceled', cancellation_reason: 'abandoned' });

    const done = await paid(stripe);
    const err = await rejection(stripe.paymentIntents.cancel(done.id));
    expect(err).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(err).toMatchObject({ statusCode: 400, code: 'payment_intent_unexpected_state' });
    expect(err.message).toContain('status of succeeded');
  });

  it('validates parameters as Stripe does, naming the param', async () => {
    const stripe = (await double()).sdk();
    const noAmount = await rejection(stripe.paymentIntents.create({ currency: 'eur' } as Stripe.PaymentIntentCreateParams));
    expect(noAmount).toMatchObject({ statusCode: 400, code: 'parameter_missing', param: 'amount' });
    const decimal = await rejection(stripe.paymentIntents.create({ amount: 10.5, currency: 'eur' }));
    expect(decimal).toMatchObject({ code: 'parameter_invalid_integer', param: 'amount' });
    const currency = await rejection(stripe.paymentIntents.create({ amount: 100, currency: 'euro' }));
    expect(currency).toMatchObject({ param: 'currency' });
    const unknown = await rejection(stripe.paymentIntents.create({ amount: 100, currency: 'eur', customer: 'cus_1' }));
    expect(unknown).toMatchObject({ code: 'parameter_unknown', param: 'customer' });
    // API 2026-09-30.endive renamed payment_method_types (the parameter) to allowed_payment_method_types.
    const legacy = await rejection(stripe.rawRequest('POST', '/v1/payment_intents', { amount: 100, currency: 'eur', payment_method_types: ['card'] }));
    expect(legacy).toMatchObject({ code: 'parameter_unknown', param: 'payment_method_types' });
    const old = (await stripe.rawRequest('POST', '/v1/payment_intents', { amount: 100, currency: 'eur', payment_method_types: ['card'] }, { apiVersion: '2025-03-31.basil' })) as Stripe.PaymentIntent;
    expect(old.payment_method_types).toEqual(['card']);
    const cardOnly = await stripe.paymentIntents.create({ amount: 100, currency: 'eur', allowed_payment_method_types: ['card'] });
    expect(cardOnly).toMatchObject({ allowed_payment_method_types: ['card'], payment_method_types: ['card'], automatic_payment_methods: null });
    const wrongType = await rejection(stripe.paymentIntents.confirm(cardOnly.id, { payment_method: 'pm_sepaDebit' }));
    expect(wrongType).toMatchObject({ code: 'payment_intent_incompatible_payment_method', param: 'payment_method' });
    const missing = await rejection(stripe.paymentIntents.retrieve('pi_missing'));
    expect(missing).toMatchObject({ statusCode: 404, code: 'resource_missing' });
  });

  it('replays an idempotent request and refuses the same key with other parameters', async () => {
    const d = await double();
    const stripe = d.sdk();
    const first = await stripe.paymentIntents.create({ amount: 1000, currency: 'eur' }, { idempotencyKey: 'order-1' });
    const again = await stripe.paymentIntents.create({ amount: 1000, currency: 'eur' }, { idempotencyKey: 'order-1' });
    expect(again.id).toBe(first.id);
    expect(again.lastResponse.headers['idempotent-replayed']).toBe('true');
    expect(first.lastResponse.headers['idempotent-replayed']).toBeUndefined();
    expect(d.events.filter((e) => e.type === 'payment_intent.created')).toHaveLength(1);

    const err = await rejection(stripe.paymentIntents.create({ amount: 2000, currency: 'eur' }, { idempotencyKey: 'order-1' }));
    expect(err).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);

    // A declined confirmation is replayed too (same status and error).
    const pi = await stripe.paymentIntents.create({ amount: 1000, currency: 'eur' });
    const confirm = (): Promise<unknown> => stripe.paymentIntents.confirm(pi.id, { payment_method: 'pm_card_chargeDeclined' }, { idempotencyKey: 'confirm-1' });
    const e1 = await rejection(confirm());
    const e2 = await rejection(confirm());
    expect([e1.statusCode, e2.statusCode, e2.code]).toEqual([402, 402, 'card_declined']);
    expect(d.requests.filter((r) => r.idempotencyKey === 'confirm-1').map((r) => r.replayed)).toEqual([false, true]);
  });

  it('retries injected failures with the same idempotency key: 429 with Stripe-Should-Retry, 500; a bare 429 is not retried', async () => {
    const d = await double();
    const stripe = d.sdk();

    d.failNext('POST /v1/payment_intents', { status: 429, headers: { 'Stripe-Should-Retry': 'true' } });
    const pi = await stripe.paymentIntents.create({ amount: 1000, currency: 'eur' });
    const attempts = d.requests.filter((r) => r.path === '/v1/payment_intents');
    expect(attempts.map((r) => r.status)).toEqual([429, 200]);
    expect(attempts[1]!.idempotencyKey).toBe(attempts[0]!.idempotencyKey);
    expect(d.events.filter((e) => e.type === 'payment_intent.created').map((e) => e.data.object.id)).toEqual([pi.id]);

    d.failNext(/^POST \/v1\/payment_intents\/.*\/confirm$/, { status: 500 });
    expect((await stripe.paymentIntents.confirm(pi.id, { payment_method: 'pm_card_visa' })).status).toBe('succeeded');
    expect(d.requests.filter((r) => r.path.endsWith('/confirm')).map((r) => r.status)).toEqual([500, 200]);

    // stripe-node v23 only retries 409, 5xx and answers carrying `Stripe-Should-Retry: true`.
    d.failNext('/v1/refunds', { status: 429 });
    const err = await rejection(stripe.refunds.create({ payment_intent: pi.id }));
    expect(err).toBeInstanceOf(Stripe.errors.StripeRateLimitError);
    expect(err).toMatchObject({ code: 'rate_limit', rawType: 'invalid_request_error' });
    expect(d.requests.filter((r) => r.path === '/v1/refunds')).toHaveLength(1);
  });

  it('refunds in parts, emitting charge.refunded, and refuses to refund more than remains', async () => {
    const d = await double();
    const hook = await receiver(d.webhookSecret);
    d.deliverTo(hook.url);
    const stripe = d.sdk();
    const pi = await paid(stripe, 10_000);

    const part = await stripe.refunds.create({ payment_intent: pi.id, amount: 4000 });
    expect(part).toMatchObject({ object: 'refund', amount: 4000, currency: 'eur', payment_intent: pi.id, charge: pi.latest_charge, status: 'succeeded' });
    expect(part.id).toMatch(/^re_/);
    expect(part.balance_transaction).toMatch(/^txn_/);
    const refunded = hook.received.filter((e) => e.type === 'charge.refunded').map((e) => e.data.object as Stripe.Charge);
    expect(refunded.map((c) => [c.amount_refunded, c.refunded])).toEqual([[4000, false]]);
    expect(hook.received.at(-1)?.type).toBe('refund.created');

    const tooMuch = await rejection(stripe.refunds.create({ charge: pi.latest_charge as string, amount: 6001 }));
    expect(tooMuch).toMatchObject({ statusCode: 400, code: 'amount_too_large', param: 'amount' });
    expect(tooMuch.message).toContain('€60.00');

    await stripe.refunds.create({ payment_intent: pi.id });
    const last = hook.received.filter((e) => e.type === 'charge.refunded').at(-1)!.data.object as Stripe.Charge;
    expect([last.amount_refunded, last.refunded]).toEqual([10_000, true]);
    const again = await rejection(stripe.refunds.create({ payment_intent: pi.id }));
    expect(again).toMatchObject({ code: 'charge_already_refunded' });
    expect(d.balance('eur')).toBe(10_000 - 320 - 10_000);
  });

  it('onboards a connected account and pays it out with a transfer', async () => {
    const d = await double();
    const hook = await receiver(d.webhookSecret);
    d.deliverTo(hook.url);
    const stripe = d.sdk();

    const account = await stripe.accounts.create({ type: 'express', country: 'FR', email: 'seller@example.test', capabilities: { transfers: { requested: true } }, metadata: { sellerId: 's1' } });
    expect(account).toMatchObject({ object: 'account', charges_enabled: false, payouts_enabled: false, details_submitted: false, capabilities: { transfers: 'inactive' }, metadata: { sellerId: 's1' } });
    expect(account.id).toMatch(/^acct_/);
    expect(account.requirements?.currently_due?.length).toBeGreaterThan(0);

    const link = await stripe.accountLinks.create({ account: account.id, refresh_url: 'https://resale.test/refresh', return_url: 'https://resale.test/return', type: 'account_onboarding' });
    expect(link).toMatchObject({ object: 'account_link', url: `${d.url}/connect/onboarding/${account.id}` });
    expect(link.expires_at).toBeGreaterThan(link.created);

    const pi = await paid(stripe, 10_000);
    const early = await rejection(stripe.transfers.create({ amount: 5000, currency: 'eur', destination: account.id }));
    expect(early).toMatchObject({ statusCode: 400, code: 'insufficient_capabilities_for_transfer', param: 'destination' });

    // The Express Dashboard only opens for an account that finished onboarding.
    expect(await rejection(stripe.accounts.createLoginLink(account.id))).toMatchObject({ statusCode: 400, type: 'StripeInvalidRequestError' });
    await d.completeOnboarding(account.id);
    expect(await stripe.accounts.createLoginLink(account.id)).toMatchObject({ object: 'login_link', url: `${d.url}/connect/express/${account.id}` });
    const updated = hook.received.filter((e) => e.type === 'account.updated').at(-1)!;
    expect(updated.data.object).toMatchObject({ id: account.id, charges_enabled: true, payouts_enabled: true, details_submitted: true, capabilities: { transfers: 'active' } });
    expect(updated.data.previous_attributes).toMatchObject({ charges_enabled: false });
    expect(updated.account).toBe(account.id);
    expect((await stripe.accounts.retrieve(account.id)).requirements?.currently_due).toEqual([]);

    const transfer = await stripe.transfers.create({ amount: 8000, currency: 'eur', destination: account.id, transfer_group: 'order_1', source_transaction: pi.latest_charge as string, metadata: { orderId: 'o1' } });
    expect(transfer).toMatchObject({ object: 'transfer', amount: 8000, destination: account.id, reversed: false, transfer_group: 'order_1', metadata: { orderId: 'o1' } });
    expect(transfer.balance_transaction).toMatch(/^txn_/);
    expect(hook.received.at(-1)?.type).toBe('transfer.created');
    expect(d.balance('eur')).toBe(10_000 - 320 - 8000);

    const broke = await rejection(stripe.transfers.create({ amount: 5000, currency: 'eur', destination: account.id }));
    expect(broke).toMatchObject({ code: 'balance_insufficient' });

    // A reversal (made in the dashboard) brings part of it back, as a transfer_refund; never more than is left.
    const reversal = await stripe.transfers.createReversal(transfer.id, { amount: 3000 });
    expect(reversal).toMatchObject({ object: 'transfer_reversal', amount: 3000, transfer: transfer.id });
    expect(hook.received.at(-1)).toMatchObject({ type: 'transfer.reversed', data: { object: { id: transfer.id, amount_reversed: 3000, reversed: false } } });
    expect(d.balance('eur')).toBe(10_000 - 320 - 8000 + 3000);
    expect(await rejection(stripe.transfers.createReversal(transfer.id, { amount: 5001 }))).toMatchObject({ statusCode: 400, param: 'amount' });
    expect(await rejection(stripe.transfers.createReversal('tr_nobody'))).toMatchObject({ statusCode: 404, code: 'resource_missing' });
    const [reversalTxn] = (await stripe.balanceTransactions.list({ limit: 1 })).data;
    expect(reversalTxn).toMatchObject({ type: 'transfer_refund', reporting_category: 'transfer_reversal', source: reversal.id, amount: 3000 });

    // The buyer's bank disputes the charge: its amount and the dispute fee leave the balance.
    const disputeId = await d.openDispute(pi.id);
    expect(hook.received.slice(-2).map((e) => e.type)).toEqual(['charge.dispute.created', 'charge.dispute.funds_withdrawn']);
    expect(hook.received.at(-1)).toMatchObject({ data: { object: { id: disputeId, object: 'dispute', amount: 10_000, payment_intent: pi.id, charge: pi.latest_charge, balance_transactions: [{ amount: -10_000, fee: 1500 }] } } });
    const [disputeTxn] = (await stripe.balanceTransactions.list({ limit: 1 })).data;
    expect(disputeTxn).toMatchObject({ type: 'adjustment', reporting_category: 'dispute', source: disputeId, amount: -10_000, fee: 1500 });
    expect(d.balance('eur')).toBe(10_000 - 320 - 8000 + 3000 - 10_000 - 1500);
    // Won: the amount comes back (not the fee).
    await d.closeDispute(disputeId, true);
    expect(hook.received.slice(-2).map((e) => e.type)).toEqual(['charge.dispute.funds_reinstated', 'charge.dispute.closed']);
    expect(hook.received.at(-1)).toMatchObject({ data: { object: { id: disputeId, status: 'won' } } });
    expect((await stripe.balanceTransactions.list({ limit: 1 })).data[0]).toMatchObject({ type: 'adjustment', reporting_category: 'dispute_reversal', source: disputeId, amount: 10_000, fee: 0 });
    expect(d.balance('eur')).toBe(10_000 - 320 - 8000 + 3000 - 1500);
    const nobody = await rejection(stripe.transfers.create({ amount: 100, currency: 'eur', destination: 'acct_nobody' }));
    expect(nobody).toMatchObject({ code: 'resource_missing', param: 'destination' });

    // A Stripe-Account header must name a connected account.
    const foreign = await rejection(stripe.paymentIntents.create({ amount: 100, currency: 'eur' }, { stripeAccount: 'acct_unknown' }));
    expect(foreign).toMatchObject({ statusCode: 403, code: 'account_invalid' });
  });

  it('setAccount emits account.updated with what changed', async () => {
    const d = await double();
    const stripe = d.sdk();
    const account = await stripe.accounts.create({ type: 'express', capabilities: { transfers: { requested: true } } });
    await d.setAccount(account.id, { details_submitted: true });
    expect(d.events.at(-1)).toMatchObject({ type: 'account.updated', data: { object: { details_submitted: true, charges_enabled: false }, previous_attributes: { details_submitted: false } } });
  });

  it('lists balance transactions newest first, filtered by created, across pages with auto-pagination', async () => {
    let clock = Date.UTC(2026, 0, 1);
    const d = await double({ now: () => clock });
    const stripe = d.sdk();
    const tick = (): void => void (clock += 60_000);
    const a = await paid(stripe, 1000);
    tick();
    const b = await paid(stripe, 2000);
    tick();
    await stripe.refunds.create({ payment_intent: a.id, amount: 500 });
    tick();
    await paid(stripe, 3000);
    tick();
    await paid(stripe, 4000);
    const start = Date.UTC(2026, 0, 1) / 1000;

    const all: Stripe.BalanceTransaction[] = [];
    for await (const t of stripe.balanceTransactions.list({ limit: 2 })) all.push(t);
    expect(all.map((t) => [t.type, t.amount])).toEqual([
      ['charge', 4000],
      ['charge', 3000],
      ['refund', -500],
      ['charge', 2000],
      ['charge', 1000],
    ]);
    expect(all[4]).toMatchObject({ object: 'balance_transaction', fee: 59, net: 941, currency: 'eur', created: start });
    expect(all[4]!.source).toBe(a.latest_charge);
    expect(all[3]!.source).toBe(b.latest_charge);
    expect(all[2]!.source).toMatch(/^re_/);
    const pages = d.requests.filter((r) => r.path === '/v1/balance_transactions');
    expect(pages).toHaveLength(3);
    expect(pages[1]!.query).toEqual({ limit: '2', starting_after: all[1]!.id });

    const window: number[] = [];
    for await (const t of stripe.balanceTransactions.list({ created: { gte: start + 60, lt: start + 180 }, limit: 1 })) window.push(t.amount);
    expect(window).toEqual([-500, 2000]);
    const page = await stripe.balanceTransactions.list({ limit: 100 });
    expect(page).toMatchObject({ object: 'list', has_more: false, url: '/v1/balance_transactions' });
  });

  it('redelivers an event (same id) and records what our endpoint answered', async () => {
    const d = await double();
    const hook = await receiver(d.webhookSecret, 500);
    d.webhookUrl = hook.url;
    const stripe = d.sdk();
    await stripe.paymentIntents.create({ amount: 100, currency: 'eur' });
    expect(d.deliveries.at(-1)).toMatchObject({ type: 'payment_intent.created', status: 500 });
    const event = d.events.at(-1)!;
    const again = await d.redeliver(event.id);
    expect(again.status).toBe(500);
    expect(hook.received.map((e) => e.id)).toEqual([event.id, event.id]);

    // A wrong secret on our side: the signature does not verify.
    const wrong = await receiver('whsec_other');
    d.deliverTo(wrong.url);
    expect((await d.redeliver(event.id)).status).toBe(400);
  });

  it('answers an unknown route 404 and a wrong key 401 without echoing the key', async () => {
    const d = await double();
    const notFound = await rejection(d.sdk().customers.list());
    expect(notFound).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(notFound.statusCode).toBe(404);
    expect(notFound.message).toContain('Unrecognized request URL (GET: /v1/customers)');

    const key = 'sk_test_wrong_secret_key_0123456789';
    const bad = await rejection(new Stripe(key, { host: '127.0.0.1', port: d.port, protocol: 'http' }).paymentIntents.retrieve('pi_1'));
    expect(bad).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
    expect(bad.message).toMatch(/^Invalid API Key provided: sk_test_\**6789$/);
    expect(bad.message).not.toContain(key);
  });
});
