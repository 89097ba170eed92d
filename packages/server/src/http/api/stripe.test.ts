import type { Server } from 'node:http';
import { eq } from 'drizzle-orm';
import Stripe from 'stripe';
import { afterEach, describe, expect, it } from 'vitest';
import { closeServers } from '../../testing/servers.js';
import { MAX_DECLINED_ATTEMPTS } from '../../flows/checkout.js';
import { cancelAbandonedPayments } from '../../flows/hosted-payment.js';
import { PAGE_SCRIPT_PATH } from '../pages/page-script.js';
import { ledgerEntries } from '../../domain/ledger/ledger.table.js';
import { journalsOfIntention } from '../../domain/ledger/ledger.queries.js';
import { payouts } from '../../domain/payouts/payouts.table.js';
import { checkoutSetup } from '../../domain/payments/checkout.testing.js';
import { stripeWorld } from '../../domain/payments/stripe.testing.js';
import { payments, providerEvents } from '../../domain/payments/payments.table.js';
import { StripeProvider, stripeMethodsFor } from '../../domain/payments/stripe.provider.js';
import { EventSignatureError } from '../../domain/payments/payments.provider.js';

const servers: Server[] = [];
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await closeServers(servers);
  await Promise.all(open.splice(0).map((o) => o.close()));
});

const stripeSetup = () => stripeWorld(servers, open);

describe('the Stripe provider: paying on our checkout with the Payment Element', () => {
  it('opens one PaymentIntent per checkout and shows Stripe’s form under a policy that allows exactly Stripe.js', async () => {
    const { t, p, double, list, checkout, browser, piOf } = await stripeSetup();
    const { bi, page, path } = await checkout((await list('s1')).id);
    expect(page.status).toBe(200);
    const pi = piOf(page.text)!;
    expect(pi).toMatch(/^pi_/);
    expect(page.text).toContain('data-key="pk_test_double"');
    expect(page.text).toContain(`data-return-url="http://resale.test/checkout/${p.id}/${bi.id}/return?lang=en"`);
    expect(page.text).toContain('<script src="https://js.stripe.com/v3/"></script>');
    expect(page.text).toContain(PAGE_SCRIPT_PATH);
    // No card field of ours: the card never reaches the service.
    expect(page.text).not.toContain('name="cardNumber"');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self' https://js.stripe.com https://*.js.stripe.com;");
    expect(csp).toContain('frame-src https://js.stripe.com https://*.js.stripe.com https://hooks.stripe.com;');
    expect(csp).toContain('connect-src https://api.stripe.com;');
    expect(csp).not.toContain('unsafe-inline');
    const created = double.requests.filter((r) => r.method === 'POST' && r.path === '/v1/payment_intents');
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ idempotencyKey: `open:${bi.id}`, body: { amount: '4400', currency: 'eur', metadata: { intentionId: bi.id, partnerId: p.id }, transfer_group: bi.id, allowed_payment_method_types: ['card'] } });
    // A reload reads the same PaymentIntent again, never opens another, even when the event's
    // title changed meanwhile (Stripe refuses an idempotency key reused with another description).
    const renamed = await t.request('PUT', '/v1/events', { key: p.keys.private, body: { externalReferenceId: 'tour', title: 'The Big Tour 2026 (new date)' } });
    expect(renamed.status).toBe(200);
    const again = await browser.get(path + '?lang=en');
    expect(again.status).toBe(200);
    expect(piOf(again.text)).toBe(pi);
    expect(double.requests.filter((r) => r.method === 'POST' && r.path === '/v1/payment_intents')).toHaveLength(1);
    // This process kept the client secret it was given: a reload asks Stripe nothing.
    expect(double.requests.filter((r) => r.method === 'GET' && r.path === `/v1/payment_intents/${pi}`)).toHaveLength(0);
  });

  it('keeps a checkout’s client secret in memory only, a while: another process reads it from Stripe once', async () => {
    const { t, double, list, checkout, piOf } = await stripeSetup();
    const { page } = await checkout((await list('s1')).id);
    const pi = piOf(page.text)!;
    const secret = /data-client-secret="([^"]+)"/.exec(page.text)![1]!;
    const reads = () => double.requests.filter((r) => r.method === 'GET' && r.path === `/v1/payment_intents/${pi}`).length;
    // Another process of the deployment: its own provider, nothing kept yet.
    const other = new StripeProvider({ secretKey: double.secretKey, publishableKey: 'pk_test_double', webhookSecret: double.webhookSecret, api: { host: '127.0.0.1', port: double.port, protocol: 'http' }, now: () => t.clock.now() });
    expect(await other.resumePayment(pi)).toEqual({ ref: pi, clientSecret: secret });
    expect(await other.resumePayment(pi)).toEqual({ ref: pi, clientSecret: secret });
    expect(reads()).toBe(1);
    // Not stored: the database holds no client secret.
    expect(JSON.stringify(await t.db.select().from(payments))).not.toContain(secret);
    // An hour on, forgotten: read again.
    t.clock.advance(61 * 60_000);
    expect(await other.resumePayment(pi)).toEqual({ ref: pi, clientSecret: secret });
    expect(reads()).toBe(2);
  });

  it('offers the payment methods the show allows: cards, and the bank methods that confirm at once', async () => {
    const { p, t, double, list, checkout } = await stripeSetup();
    const updated = await t.request('PUT', '/v1/events', { key: p.keys.private, body: { externalReferenceId: 'tour', configuration: { crossBorderPayments: { enabled: true, paymentMethods: ['CARD', 'BANK_TRANSFER'] } } } });
    expect(updated.status).toBe(200);
    await checkout((await list('s1')).id);
    expect(double.requests.find((r) => r.method === 'POST' && r.path === '/v1/payment_intents')!.body).toMatchObject({ allowed_payment_method_types: ['card', 'ideal', 'bancontact', 'eps'] });
  });

  it('completes the purchase from Stripe’s payment_intent.succeeded: tickets to the buyer, receipt with the card’s last four, ledger with Stripe’s fee', async () => {
    const { t, p, list, checkout, browser, piOf, confirm, balances, ticket } = await stripeSetup();
    const l = await list('s1');
    const { bi, page } = await checkout(l.id);
    const pi = piOf(page.text)!;
    await confirm(pi, 'pm_card_visa');
    expect((await t.deps.intentions.get(t.db, p.id, bi.id)).state).toBe('PAID');
    expect((await t.deps.listings.get(t.db, p.id, l.id)).state).toBe('SOLD');
    const buyer = (await t.deps.users.find(t.db, p.id, 'buyer@example.com'))!;
    expect((await ticket('s1')).ownerPk).toBe(buyer.id);
    expect(await t.db.select().from(payments)).toMatchObject([{ provider: 'stripe', providerRef: pi, state: 'succeeded', amountMinor: 4400, cardLast4: '4242', method: 'card' }]);
    expect(await t.db.select().from(payouts)).toMatchObject([{ state: 'SCHEDULED', amountMinor: 3800 }]);
    // Stripe brings the buyer back: the state is shown, nothing is decided by the redirect.
    const back = await browser.get(`/checkout/${p.id}/${bi.id}/return?lang=en&payment_intent=${pi}&redirect_status=succeeded`);
    expect(back.location).toBe(`/checkout/${p.id}/${bi.id}/done?lang=en`);
    expect((await browser.get(back.location!)).text).toContain('Card ending in 4242');
    // 2.9% + 30 of 44.00 = 1.58 (rounded as the double does): a provider_fee journal.
    const fee = Math.round(4400 * 0.029) + 30;
    expect(await balances()).toEqual({ provider_balance: 4400 - fee, provider_fees: fee, seller_payable: -3800, buyer_fee_revenue: -400, seller_fee_revenue: -200 });
    expect((await t.db.read(async (tx) => await journalsOfIntention(tx, bi.id))).map((j) => j.kind).sort()).toEqual(['provider_fee', 'sale']);
  });

  it('processes each event once: a redelivered payment_intent.succeeded changes nothing', async () => {
    const { t, p, double, list, checkout, piOf, confirm } = await stripeSetup();
    const { bi, page } = await checkout((await list('s1')).id);
    await confirm(piOf(page.text)!, 'pm_card_visa');
    const succeeded = double.events.find((e) => e.type === 'payment_intent.succeeded')!;
    expect((await double.redeliver(succeeded.id)).status).toBe(200);
    expect(await t.db.select().from(ledgerEntries)).toHaveLength(6);
    expect((await t.deps.webhooks.list(p.id, { action: 'ticket.update' })).length).toBe(1);
    expect((await t.db.select().from(providerEvents).where(eq(providerEvents.eventId, succeeded.id))).length).toBe(1);
    expect((await t.deps.intentions.get(t.db, p.id, bi.id)).state).toBe('PAID');
  });

  it('keeps the checkout after a decline (Stripe’s form says why), and fails it at the last allowed decline, cancelling the PaymentIntent', async () => {
    const { t, p, double, list, checkout, browser, piOf, confirm, balances } = await stripeSetup();
    const l = await list('s1');
    const { bi, page, path } = await checkout(l.id);
    const pi = piOf(page.text)!;
    const declined = await confirm(pi, 'pm_card_chargeDeclined');
    expect(declined).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect((await t.deps.intentions.get(t.db, p.id, bi.id)).state).toBe('PENDING');
    expect(await t.db.select().from(payments)).toMatchObject([{ state: 'open', declines: 1, failureCode: 'generic_decline' }]);
    // Back on the checkout (a reload): the decline is said above Stripe's form, the same PaymentIntent.
    const again = await browser.get(path + '?lang=en');
    expect(again.text).toContain('Your card was declined');
    // In words: Stripe's decline code is never shown.
    expect(again.text).toContain('Nothing was charged: the bank declined the card.');
    expect(again.text).not.toContain('generic_decline');
    expect(piOf(again.text)).toBe(pi);
    for (let i = 1; i < MAX_DECLINED_ATTEMPTS; i++) await confirm(pi, 'pm_card_chargeDeclined');
    expect(await t.deps.intentions.get(t.db, p.id, bi.id)).toMatchObject({ state: 'FAILED', endReason: 'too_many_declines' });
    expect((await t.deps.listings.get(t.db, p.id, l.id)).state).toBe('ACTIVE');
    expect(double.requests.some((r) => r.path === `/v1/payment_intents/${pi}/cancel`)).toBe(true);
    expect(await balances()).toEqual({});
  });

  it('waits for 3-D Secure: the return page looks again until Stripe’s event, then the receipt', async () => {
    const { t, p, double, list, checkout, browser, piOf, confirm } = await stripeSetup();
    const { bi, page } = await checkout((await list('s1')).id);
    const pi = piOf(page.text)!;
    await confirm(pi, 'pm_card_authenticationRequired');
    const waiting = await browser.get(`/checkout/${p.id}/${bi.id}/return?lang=en`);
    expect(waiting.status).toBe(200);
    expect(waiting.text).toContain('Confirming your payment');
    expect(waiting.text).toMatch(/<meta http-equiv="refresh" content="3;url=\/checkout\//);
    await double.completeAction(pi, true);
    expect((await t.deps.intentions.get(t.db, p.id, bi.id)).state).toBe('PAID');
    expect((await browser.get(`/checkout/${p.id}/${bi.id}/return?lang=en`)).location).toBe(`/checkout/${p.id}/${bi.id}/done?lang=en`);
  });

  it('pays with iDEAL through the bank’s redirect, and the receipt says so', async () => {
    const { t, p, double, list, checkout, browser, piOf, confirm } = await stripeSetup();
    const updated = await t.request('PUT', '/v1/events', { key: p.keys.private, body: { externalReferenceId: 'tour', configuration: { crossBorderPayments: { enabled: true, paymentMethods: ['CARD', 'BANK_TRANSFER'] } } } });
    expect(updated.status).toBe(200);
    const { bi, page } = await checkout((await list('s1')).id);
    const pi = piOf(page.text)!;
    await confirm(pi, 'pm_ideal');
    expect((await browser.get(`/checkout/${p.id}/${bi.id}/return?lang=en`)).text).toContain('Confirming your payment');
    await double.completeAction(pi, true);
    expect(await t.db.select().from(payments)).toMatchObject([{ state: 'succeeded', method: 'ideal', cardLast4: null }]);
    const receipt = await browser.get(`/checkout/${p.id}/${bi.id}/done?lang=es`);
    expect(receipt.text).toContain('<dt>Pagado con</dt><dd>iDEAL</dd>');
  });

  it('refunds a payment that succeeded after the hold ran out, through Stripe’s Refund API, once', async () => {
    const { t, p, double, list, checkout, piOf, confirm, balances } = await stripeSetup();
    const l = await list('s1');
    const { bi, page } = await checkout(l.id);
    const pi = piOf(page.text)!;
    t.clock.set((await t.deps.intentions.get(t.db, p.id, bi.id)).expiresAt + 1000);
    await confirm(pi, 'pm_card_visa');
    expect((await t.deps.intentions.get(t.db, p.id, bi.id)).state).toBe('EXPIRED');
    expect((await t.db.select().from(payments))[0]!.state).toBe('refund_pending');
    expect(await t.deps.payments.runRefunds()).toBe(1);
    const refunds = double.requests.filter((r) => r.path === '/v1/refunds');
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({ idempotencyKey: expect.stringMatching(/^refund:pmt_/), body: { payment_intent: pi, amount: '4400' } });
    expect((await t.db.select().from(payments))[0]!.state).toBe('refunded');
    expect(await t.deps.payments.runRefunds()).toBe(0);
    const fee = Math.round(4400 * 0.029) + 30;
    // The fee Stripe kept is the service's cost; every other account is back at zero.
    expect(await balances()).toEqual({ provider_balance: -fee, provider_fees: fee });
  });

  it('refunds the buyers of a cancelled show through Stripe, retrying when Stripe is unavailable', async () => {
    const { t, p, double, list, checkout, piOf, confirm, balances } = await stripeSetup();
    const { page } = await checkout((await list('s1')).id);
    await confirm(piOf(page.text)!, 'pm_card_visa');
    expect((await t.request('POST', '/v1/events/tour/cancellation?showId=show-1', { key: p.keys.private })).status).toBe(200);
    double.failNext('POST /v1/refunds', { status: 429 });
    expect(await t.deps.payments.runRefunds()).toBe(0);
    expect((await t.db.select().from(payments))[0]!.state).toBe('refund_pending');
    expect(await t.deps.payments.runRefunds()).toBe(1);
    expect((await t.db.select().from(payments))[0]!.state).toBe('refunded');
    expect((await t.deps.messages.list()).filter((m) => m.template === 'refund').map((m) => m.to)).toEqual(['buyer@example.com']);
    expect((await t.db.select().from(payouts))[0]!.state).toBe('CANCELLED');
    const fee = Math.round(4400 * 0.029) + 30;
    expect(await balances()).toEqual({ provider_balance: -fee, provider_fees: fee });
  });

  it('refuses an event whose signature does not verify, and answers 404 where Stripe is not configured', async () => {
    const { http } = await stripeSetup();
    const body = JSON.stringify({ id: 'evt_forged', object: 'event', type: 'payment_intent.succeeded', data: { object: { id: 'pi_x', object: 'payment_intent', metadata: {} } } });
    const forged = await fetch(`${http.base}/v1/payments/stripe/events`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload: body, secret: 'whsec_wrongsecret' }) }, body });
    expect(forged.status).toBe(400);
    expect(((await forged.json()) as { errors: unknown[] }).errors[0]).toMatchObject({ code: 'invalid_signature', path: 'Stripe-Signature', in: 'header' });
    const unsigned = await fetch(`${http.base}/v1/payments/stripe/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(unsigned.status).toBe(400);
    const wrongType = await fetch(`${http.base}/v1/payments/stripe/events`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body });
    expect(wrongType.status).toBe(415);
    const sandbox = await checkoutSetup(servers);
    expect((await sandbox.t.request('POST', '/v1/payments/stripe/events', { body: JSON.parse(body) })).status).toBe(404);
  });

  it('is unavailable, not broken, when Stripe does not answer: a 503 page, nothing charged, the hold kept', async () => {
    const { t, p, double, list, checkout } = await stripeSetup();
    const l = await list('s1');
    double.failNext('POST /v1/payment_intents', { status: 429 });
    const { bi, page } = await checkout(l.id);
    expect(page.status).toBe(503);
    expect(page.text).toContain('Payments are unavailable for a moment');
    expect((await t.deps.intentions.get(t.db, p.id, bi.id)).state).toBe('PENDING');
    expect(await t.db.select().from(payments)).toEqual([]);
  });
});

describe('the Stripe provider: checkouts that end unpaid, and events that race', () => {
  it('cancels the PaymentIntent of a checkout whose hold ran out, so the buyer can no longer pay for released tickets', async () => {
    const { t, p, double, provider, list, checkout, piOf, confirm } = await stripeSetup();
    const { bi, page } = await checkout((await list('s1')).id);
    const pi = piOf(page.text)!;
    // Still held: nothing to cancel.
    expect(await cancelAbandonedPayments(t.deps, provider)).toBe(0);
    t.clock.set((await t.deps.intentions.get(t.db, p.id, bi.id)).expiresAt + 60_000);
    expect((await t.deps.intentions.get(t.db, p.id, bi.id)).state).toBe('EXPIRED');
    expect(await cancelAbandonedPayments(t.deps, provider)).toBe(1);
    expect(double.requests.filter((r) => r.path === `/v1/payment_intents/${pi}/cancel`)).toHaveLength(1);
    expect((await t.db.select().from(payments))[0]!.state).toBe('cancelled');
    await expect(confirm(pi, 'pm_card_visa')).rejects.toThrow(/status of canceled/);
    expect(await cancelAbandonedPayments(t.deps, provider)).toBe(0);
  });

  it('leaves a payment the buyer completed first to its event, which refunds it as late', async () => {
    const { t, p, double, http, provider, list, checkout, piOf, confirm } = await stripeSetup();
    const { bi, page } = await checkout((await list('s1')).id);
    const pi = piOf(page.text)!;
    double.deliverTo(null);
    await confirm(pi, 'pm_card_visa');
    t.clock.set((await t.deps.intentions.get(t.db, p.id, bi.id)).expiresAt + 60_000);
    expect((await t.deps.intentions.get(t.db, p.id, bi.id)).state).toBe('EXPIRED');
    expect(await cancelAbandonedPayments(t.deps, provider)).toBe(0);
    expect((await t.db.select().from(payments))[0]!.state).toBe('open');
    double.deliverTo(`${http.base}/v1/payments/stripe/events`);
    await double.redeliver(double.events.find((e) => e.type === 'payment_intent.succeeded')!.id);
    expect((await t.db.select().from(payments))[0]!.state).toBe('refund_pending');
  });

  it('processes an event delivered twice at the same moment once', async () => {
    const { t, p, double, http, list, checkout, piOf, confirm } = await stripeSetup();
    const { bi, page } = await checkout((await list('s1')).id);
    double.deliverTo(null);
    await confirm(piOf(page.text)!, 'pm_card_visa');
    double.deliverTo(`${http.base}/v1/payments/stripe/events`);
    const id = double.events.find((e) => e.type === 'payment_intent.succeeded')!.id;
    const answers = await Promise.all([double.redeliver(id), double.redeliver(id), double.redeliver(id)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect((await t.deps.intentions.get(t.db, p.id, bi.id)).state).toBe('PAID');
    expect((await t.deps.webhooks.list(p.id, { action: 'ticket.update' })).length).toBe(1);
    expect(await t.db.select().from(providerEvents).where(eq(providerEvents.eventId, id))).toHaveLength(1);
  });
});

describe('Stripe event signatures', () => {
  it('verifies with any of the endpoints’ secrets (the account’s and the Connect one’s), on the service’s clock', () => {
    const now = Date.parse('2026-03-01T12:00:00Z');
    const provider = new StripeProvider({ secretKey: 'sk_test_x', publishableKey: 'pk_test_x', webhookSecret: 'whsec_accountendpoint,whsec_connectendpoint', now: () => now });
    const payload = JSON.stringify({ id: 'evt_1', object: 'event', type: 'account.updated', data: { object: { id: 'acct_1', object: 'account', details_submitted: true, payouts_enabled: true, capabilities: { transfers: 'active' } } } });
    const signed = (secret: string, at = now) => Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp: Math.floor(at / 1000) });
    expect(provider.verifyEvent(payload, signed('whsec_connectendpoint'))).toMatchObject({ id: 'evt_1', type: 'account.updated', account: { accountId: 'acct_1', detailsSubmitted: true, transfersActive: true, payoutsEnabled: true } });
    expect(provider.verifyEvent(payload, signed('whsec_accountendpoint'))).toMatchObject({ type: 'account.updated' });
    expect(() => provider.verifyEvent(payload, signed('whsec_someoneelse'))).toThrow(EventSignatureError);
    // Older than 5 minutes by the service's clock: refused (a replay).
    expect(() => provider.verifyEvent(payload, signed('whsec_accountendpoint', now - 301_000))).toThrow(EventSignatureError);
    expect(() => provider.verifyEvent(payload, undefined)).toThrow(EventSignatureError);
  });
});

describe('Stripe payment methods of a show', () => {
  it('maps CARD and WALLET to cards, BANK_TRANSFER to the bank methods that confirm at once in the currency', () => {
    expect(stripeMethodsFor([], 'EUR')).toEqual(['card']);
    expect(stripeMethodsFor(['WALLET'], 'GBP')).toEqual(['card']);
    expect(stripeMethodsFor(['CARD', 'BANK_TRANSFER'], 'eur')).toEqual(['card', 'ideal', 'bancontact', 'eps']);
    expect(stripeMethodsFor(['BANK_TRANSFER'], 'PLN')).toEqual(['p24']);
    expect(stripeMethodsFor(['BANK_TRANSFER'], 'USD')).toEqual(['card']);
  });
});
