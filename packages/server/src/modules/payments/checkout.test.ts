import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp } from '../../testing/harness.js';
import { ticketBody, withEvent } from '../../testing/factories.js';
import { authService } from '../auth/auth.service.js';
import { completeCodeFlow, csrfOf, inputValue, TestBrowser } from '../auth/auth.testing.js';
import { buyIntentions } from '../intentions/intentions.table.js';
import { payments } from './payments.table.js';
import { payouts } from '../payouts/payouts.table.js';
import { completePurchase } from '../../flows/complete-purchase.js';
import { SANDBOX_CARDS } from './payments.provider.js';

const servers: Server[] = [];
afterEach(() => servers.splice(0).forEach((s) => s.close()));

async function setup() {
  const state = { owned: new Map<string, unknown[]>(), status: 200 };
  const server = createServer((req, res) => {
    if (state.status !== 200) return void res.writeHead(state.status).end();
    const list = state.owned.get(new URL(req.url!, 'http://x').searchParams.get('user') ?? '');
    if (!list) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(list));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  const t = createTestApp();
  const p = await t.partner('Acme', { ownershipUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/owned` });
  await withEvent(t, p);
  await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: ['s1', 's2', 's3'].map((id) => ticketBody(id, { buyer: 'seller@example.com', section: 'A', row: '1', seat: id })) });
  state.owned.set('seller@example.com', ['s1', 's2', 's3'].map((ticketId) => ({ eventId: 'tour', showId: 'show-1', ticketId, ticketOptionId: 'opt-field' })));
  const ticket = async (id: string) => await t.deps.tickets.get(t.db, p.id, id);
  const list = async (id: string) => await t.db.transact(async (tx) => await t.deps.listings.create(tx, p.id, { sellerPk: (await ticket(id)).ownerPk, ticketPks: [(await ticket(id)).id], priceMinor: 4000 }));
  const browser = new TestBrowser(t.app);
  /** The partner creates the intention for its signed-in buyer; the buyer's browser opens the payment URL. */
  const checkout = async (listingId: string, user = 'buyer@example.com', b = browser) => {
    const bi = (await t.request('POST', '/v1/marketplace/buyingflow/buyIntention', { key: p.keys.private, body: { items: [listingId], user } })).body.data;
    const url = new URL(bi.paymentUrl);
    const redeemed = await b.get(url.pathname + url.search);
    expect(redeemed.status).toBe(302);
    const page = await b.get(redeemed.location!);
    return { bi, page, path: new URL(redeemed.location!, 'http://x').pathname };
  };
  const pay = (path: string, html: string, cardNumber: string, b = browser) => b.post(path, { _csrf: inputValue(html, '_csrf')!, cardNumber, expiry: '12/30', cvc: '123' });
  return { t, p, state, list, ticket, browser, checkout, pay };
}

describe('checkout', () => {
  it('pays with the success card: listing SOLD, ticket to the buyer, payout scheduled, webhook and e-mails', async () => {
    const { t, p, list, ticket, checkout, pay, browser } = await setup();
    const l = await list('s1');
    const { bi, page, path } = await checkout(l.id);
    expect(page.status).toBe(200);
    expect(page.text).toContain('€44.00');
    expect(page.text).toContain('<label for="cardNumber">Card number</label>');
    const res = await pay(path, page.text, SANDBOX_CARDS.success);
    expect(res.status).toBe(303);
    expect(res.location).toBe(`/checkout/${p.id}/${bi.id}/done?lang=en`);
    expect((await browser.get(res.location!)).text).toContain('Thank you: the tickets are yours');

    expect((await t.db.select().from(buyIntentions).where(eq(buyIntentions.id, bi.id)).limit(1))[0]).toMatchObject({ state: 'PAID', paidAt: t.clock.now() });
    expect((await t.deps.listings.get(t.db, p.id, l.id)).state).toBe('SOLD');
    const buyer = (await t.deps.users.find(t.db, p.id, 'buyer@example.com'))!;
    expect(await ticket('s1')).toMatchObject({ ownerPk: buyer.id, state: 'VALID' });
    expect(await t.db.select().from(payments)).toMatchObject([{ state: 'succeeded', amountMinor: 4400, cardLast4: '4242' }]);
    expect(await t.db.select().from(payouts)).toMatchObject([{ state: 'SCHEDULED', amountMinor: 3800, dueAt: Date.parse('2026-05-01T19:00:00Z') + 7 * 86_400_000 }]);
    const hook = (await t.deps.webhooks.list(p.id, { action: 'ticket.update' }))[0]!.message.payload as { data: Record<string, any> };
    expect(hook.data).toMatchObject({
      resaleId: bi.id,
      eventId: 'tour',
      showId: 'show-1',
      total: 44,
      currency: 'EUR',
      buyer: { email: 'buyer@example.com' },
      tickets: [{ ticketId: 's1', ticketOptionId: 'opt-field', seating: { section: 'A', row: '1', seat: 's1' }, pricePaid: 44, previousOwner: { email: 'seller@example.com' } }],
    });
    const mails = await t.deps.messages.list();
    expect(mails.map((m) => `${m.template}:${m.to}`).sort()).toEqual(['listingSold:seller@example.com', 'purchaseConfirmed:buyer@example.com']);
    // A repeated completion changes nothing.
    expect(await t.db.transact(async (tx) => await completePurchase(t.deps, tx, bi.id))).toBe(false);
    expect(await t.db.select().from(payouts)).toHaveLength(1);
    // The sold listing shows as SOLD to its seller in the access layer.
    const layer = await t.request('POST', '/v1/wrapper/accesslayer', {
      key: p.keys.private,
      body: { user: 'seller@example.com', includeTicketSales: true, tickets: [{ eventId: 'tour', showId: 'show-1', ticketId: 's1', ticketOptionId: 'opt-field' }] },
    });
    expect(layer.body.data.soldTickets.map((s: { ticketId: string }) => s.ticketId)).toEqual(['s1']);
    expect(layer.body.data.tickets[0]).toMatchObject({ status: 'SOLD', callToActions: [{ key: 'DETAILS' }, { key: 'PENDING_PAYOUT_INFO' }] });
    // To its buyer, the ticket is theirs to resell.
    const mine = await t.request('POST', '/v1/wrapper/accesslayer', { key: p.keys.private, body: { user: 'buyer@example.com', tickets: [{ eventId: 'tour', showId: 'show-1', ticketId: 's1', ticketOptionId: 'opt-field' }] } });
    expect(mine.body.data.tickets[0]).toMatchObject({ status: 'SELLABLE', sync: true });
  });

  it('the declined card fails the reservation and leaves the listing available again', async () => {
    const { t, p, list, checkout, pay } = await setup();
    const l = await list('s1');
    const { bi, page, path } = await checkout(l.id);
    const res = await pay(path, page.text, SANDBOX_CARDS.declined);
    expect(res.status).toBe(402);
    expect(res.text).toContain('Your card was declined');
    // In the buyer's words, never the provider's code.
    expect(res.text).toContain('Nothing was charged: the bank declined the card.');
    expect(res.text).not.toContain('card_declined');
    expect((await t.db.select().from(buyIntentions).where(eq(buyIntentions.id, bi.id)).limit(1))[0]!.state).toBe('FAILED');
    expect((await t.deps.listings.get(t.db, p.id, l.id)).state).toBe('ACTIVE');
  });

  it('the verification card asks the buyer, then pays on approval or fails on refusal', async () => {
    const { t, p, list, checkout, pay, browser } = await setup();
    const l1 = await list('s1');
    const first = await checkout(l1.id);
    const asked = await pay(first.path, first.page.text, SANDBOX_CARDS.verification);
    expect(asked.status).toBe(303);
    expect(asked.location).toMatch(new RegExp(`^/checkout/${p.id}/verify/pmt_`));
    const verify = await browser.get(asked.location!);
    expect(verify.text).toContain('Confirm the payment');
    const path = asked.location!.split('?')[0]!;
    const ok = await browser.post(path, { _csrf: inputValue(verify.text, '_csrf')!, answer: 'approve' });
    expect(ok.status).toBe(303);
    expect((await t.deps.listings.get(t.db, p.id, l1.id)).state).toBe('SOLD');
    // Answering twice changes nothing.
    const again = await browser.post(path, { _csrf: inputValue(verify.text, '_csrf')!, answer: 'reject' });
    expect(again.status).toBe(303);
    expect((await t.deps.listings.get(t.db, p.id, l1.id)).state).toBe('SOLD');

    const l2 = await list('s2');
    const second = await checkout(l2.id);
    const asked2 = await pay(second.path, second.page.text, SANDBOX_CARDS.verification);
    const verify2 = await browser.get(asked2.location!);
    const no = await browser.post(asked2.location!.split('?')[0]!, { _csrf: inputValue(verify2.text, '_csrf')!, answer: 'reject' });
    expect(no.status).toBe(402);
    expect(no.text).toContain('Nothing was charged: the card’s verification was not completed.');
    expect(no.text).not.toContain('authentication_failed');
    expect((await t.deps.listings.get(t.db, p.id, l2.id)).state).toBe('ACTIVE');
  });

  it('re-checks the seller’s ownership live: a ticket that moved cancels the reservation, a platform down fails safely', async () => {
    const { t, p, state, list, checkout, pay } = await setup();
    const l = await list('s1');
    const { bi, page, path } = await checkout(l.id);
    state.status = 503;
    const down = await pay(path, page.text, SANDBOX_CARDS.success);
    expect(down.status).toBe(503);
    expect(await t.db.select().from(payments)).toHaveLength(0);
    state.status = 200;
    state.owned.set('seller@example.com', [{ eventId: 'tour', showId: 'show-1', ticketId: 's2', ticketOptionId: 'opt-field' }]);
    const moved = await pay(path, page.text, SANDBOX_CARDS.success);
    expect(moved.status).toBe(409);
    expect(moved.text).toContain('These tickets are no longer available');
    expect((await t.db.select().from(buyIntentions).where(eq(buyIntentions.id, bi.id)).limit(1))[0]).toMatchObject({ state: 'CANCELLED', endReason: 'ticket_moved' });
    expect((await t.deps.listings.get(t.db, p.id, l.id)).state).toBe('TERMINATED');
    expect(await t.db.select().from(payments)).toHaveLength(0);
  });

  it('refuses bad card fields, a missing CSRF token, and another buyer', async () => {
    const { t, p, list, checkout, browser } = await setup();
    const l = await list('s1');
    const { bi, page, path } = await checkout(l.id);
    const bad = await browser.post(path, { _csrf: inputValue(page.text, '_csrf')!, cardNumber: '12', expiry: '13/30', cvc: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Enter a valid card number.');
    expect(bad.text).toContain('Enter the expiry date as MM/YY.');
    expect((await browser.post(path, { cardNumber: SANDBOX_CARDS.success, expiry: '12/30', cvc: '123' })).status).toBe(403);
    const other = new TestBrowser(t.app);
    const user = await t.db.transact(async (tx) => await t.deps.users.resolve(tx, p.id, { email: 'other@example.com' }));
    const token = await t.db.transact(async (tx) => await authService(t.deps).mintOneTimeToken(tx, p.id, user.id, 'test'));
    await other.get(`${path}?oneTimeToken=${token}`);
    expect((await other.get(path)).status).toBe(403);
    expect((await t.db.select().from(buyIntentions).where(eq(buyIntentions.id, bi.id)).limit(1))[0]!.state).toBe('PENDING');
  });

  it('buys from the market page: Buy sends a signed-out buyer to sign in first, holding nothing, then reserves the pick', async () => {
    const { t, p, list } = await setup();
    const l = await list('s1');
    const anon = new TestBrowser(t.app);
    const market = await anon.get(`/market/${p.id}/tour?showId=show-1`);
    expect(market.text).toContain('>Buy</button>');
    const res = await anon.post(`/market/${p.id}/tour/buy`, { _csrf: inputValue(market.text, '_csrf')!, listingId: l.id, showId: 'show-1' });
    expect(res.status).toBe(302);
    expect(res.location).toContain(`/auth/otp?p=${p.id}`);
    expect((await t.deps.listings.get(t.db, p.id, l.id)).state).toBe('ACTIVE');
    expect(await t.db.select().from(buyIntentions)).toHaveLength(0);
    // Signed in, the buyer is back on the market with the pick as the selection.
    const back = await completeCodeFlow(t, anon, res.location!, 'buyer@example.com', 'buyer@example.com');
    expect(back.status).toBe(303);
    const selection = await anon.get(back.location!);
    expect(selection.text).toContain('Your selection');
    const form = new URLSearchParams({ _csrf: csrfOf(selection.text, `/market/${p.id}/tour/buy`)!, listingId: l.id });
    const reserved = await anon.post(`/market/${p.id}/tour/buy`, form);
    expect(reserved.status).toBe(303);
    expect(reserved.location).toMatch(new RegExp(`^/checkout/${p.id}/bi_`));
    expect((await t.deps.listings.get(t.db, p.id, l.id)).state).toBe('RESERVED');
    expect((await anon.get(reserved.location!)).status).toBe(200);
    const taken = await anon.post(`/market/${p.id}/tour/buy`, form);
    expect(taken.status).toBe(409);
  });
});

describe('risk at checkout', () => {
  it('stops a purchase whose card had a chargeback, charging nothing and releasing the tickets', async () => {
    const { t, p, list, checkout, pay } = await setup();
    const first = await checkout((await list('s1')).id);
    await pay(first.path, first.page.text, SANDBOX_CARDS.success);
    await t.request('POST', '/v1/risk/feedback', { key: p.keys.private, body: { transactionId: first.bi.id, userId: 'buyer@example.com', result: 'chargeback' } });
    const l2 = await list('s2');
    const second = await checkout(l2.id);
    const res = await pay(second.path, second.page.text, SANDBOX_CARDS.success);
    expect(res.status).toBe(402);
    expect(res.text).toContain('We could not accept this payment');
    expect((await t.deps.listings.get(t.db, p.id, l2.id)).state).toBe('ACTIVE');
    expect(await t.db.select().from(payments)).toHaveLength(1);
  });
});

describe('cancellation after resale', () => {
  it('refunds resale buyers, stops undelivered payouts, and never touches a delivered one', async () => {
    const { t, p, state, list, checkout, pay } = await setup();
    await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [ticketBody('o1', { buyer: 'seller@example.com', showId: 'show-2' })] });
    state.owned.get('seller@example.com')!.push({ eventId: 'tour', showId: 'show-2', ticketId: 'o1', ticketOptionId: 'opt-field' });
    // show-1 a month after show-2, so that only show-2's payout is due first.
    await t.request('PUT', '/v1/events', { key: p.keys.private, body: { externalReferenceId: 'tour', shows: [{ showId: 'show-1', date: '2026-06-01T21:00:00+02:00' }] } });
    const sold1 = await list('s1');
    const first = await checkout(sold1.id);
    await pay(first.path, first.page.text, SANDBOX_CARDS.success);
    const other = await list('o1');
    const second = await checkout(other.id);
    expect((await pay(second.path, second.page.text, SANDBOX_CARDS.success)).status).toBe(303);

    // show-2's payout falls due and is delivered; then both shows are cancelled.
    const o1Payout = (await t.db.select().from(payouts).where(eq(payouts.listingId, other.id)).limit(1))[0]!;
    t.clock.set(o1Payout.dueAt);
    expect(await t.deps.payouts.deliverDue()).toBe(1);
    expect((await t.deps.webhooks.list(p.id, { action: 'payouts.delivered' }))[0]!.message.payload).toMatchObject({ data: { listingIds: [other.id], amount: 38, currency: 'EUR', sellerId: 'seller@example.com' } });
    t.clock.set('2026-03-02T12:00:00Z');
    await t.request('POST', '/v1/events/tour/cancellation', { key: p.keys.private });

    const rows = await t.db.select().from(payouts);
    expect(rows.find((r) => r.listingId === sold1.id)!.state).toBe('CANCELLED');
    expect(rows.find((r) => r.listingId === other.id)!.state).toBe('DELIVERED');
    expect((await t.db.select().from(payments)).map((x) => x.state)).toEqual(['refund_pending', 'refund_pending']);
    expect(await t.deps.payments.runRefunds()).toBe(2);
    expect(await t.deps.payments.runRefunds()).toBe(0);
    expect((await t.db.select().from(payments)).map((x) => x.state)).toEqual(['refunded', 'refunded']);
    expect((await t.deps.messages.list()).filter((m) => m.template === 'refund').map((m) => m.to)).toEqual(['buyer@example.com', 'buyer@example.com']);
    expect(await t.deps.payouts.deliverDue()).toBe(0);
  });
});
