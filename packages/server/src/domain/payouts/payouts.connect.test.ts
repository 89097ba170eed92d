import type { Server } from 'node:http';
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { closeServers } from '../../testing/servers.js';
import { authService, STEP_UP_TTL_MS } from '../auth/auth.service.js';
import { completeCodeFlow, inputValue, TestBrowser } from '../../http/pages/auth/auth.testing.js';
import { onboardSeller, stripeWorld } from '../payments/stripe.testing.js';
import { journalsOfIntention } from '../ledger/ledger.queries.js';
import { ledgerJournals } from '../ledger/ledger.table.js';
import { connectAccounts, payouts } from './payouts.table.js';

const servers: Server[] = [];
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await closeServers(servers);
  await Promise.all(open.splice(0).map((o) => o.close()));
});

/** Stripe's world, and the seller (seller@example.com, holding s1–s3) signed in to the sell pages in a browser of their own. */
async function sellerWorld() {
  const w = await stripeWorld(servers, open);
  const seller = (await w.t.deps.users.find(w.t.db, w.p.id, 'seller@example.com'))!;
  const sellerBrowser = new TestBrowser(w.t.app);
  const token = await w.t.db.transact(async (tx) => await authService(w.t.deps).mintOneTimeToken(tx, w.p.id, seller.id, 'test'));
  expect((await sellerBrowser.get(`/sell/${w.p.id}/ticket/s1?oneTimeToken=${token}`)).status).toBe(302);
  const page = `/sell/${w.p.id}/ticket/s1`;
  const account = async () => (await w.t.db.select().from(connectAccounts).where(eq(connectAccounts.userPk, seller.id)))[0];
  /** The seller's Stripe account, opened and onboarded as if through the pages (a stepped-up session). */
  const onboarded = async () => {
    await onboardSeller(w, 'seller@example.com');
    expect((await account())!).toMatchObject({ detailsSubmitted: true, transfersActive: true });
  };
  return { ...w, seller, sellerBrowser, page, account, onboarded };
}

describe('Stripe Connect: sellers set up payouts from the sell flow', () => {
  it('sends the seller, stepped up, to Stripe’s onboarding, publishes only once the account is ready, and brings them back', async () => {
    const { t, p, double, sellerBrowser: browser, page, seller, account } = await sellerWorld();
    const form = await browser.get(page);
    expect(form.status).toBe(200);
    expect(form.text).toContain('Set up payouts with Stripe');
    expect(form.text).not.toContain('name="iban"');
    expect(form.headers.get('content-security-policy')).toContain("form-action 'self' https://connect.stripe.com");

    // No account yet: nothing is published (the listing is rolled back).
    const refused = await browser.post(page, { _csrf: inputValue(form.text, '_csrf')!, price: '41', intent: 'publish' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('Set up payouts with Stripe before publishing');
    expect(await t.deps.listings.liveListingOf(t.db, (await t.deps.tickets.get(t.db, p.id, 's1')).id)).toBeUndefined();

    // To Stripe: a step-up first (where money goes changes), the price and country kept on the way.
    expect(form.text).toContain('<select id="payout-country" name="country"');
    const asked = await browser.post(page, { _csrf: inputValue(form.text, '_csrf')!, price: '41', intent: 'stripe', country: 'ES' });
    expect(asked.location).toContain('/auth/step-up?');
    const proven = await completeCodeFlow(t, browser, asked.location!, 'seller@example.com');
    expect(proven.location).toBe(`http://resale.test${page}?lang=en&price=41&country=ES`);
    const again = await browser.get(proven.location!);
    expect(again.text).toContain('<option value="ES" selected="">Spain</option>');
    // The country is asked before an account is opened (it cannot change afterwards): none, or one payouts cannot reach, is refused and nothing is asked of Stripe.
    const none = await browser.post(page, { _csrf: inputValue(again.text, '_csrf')!, price: '41', intent: 'stripe', country: '' });
    expect(none.status).toBe(400);
    expect(none.text).toContain('Choose the country you live in: your Stripe account is opened there.');
    const far = await browser.post(page, { _csrf: inputValue(again.text, '_csrf')!, price: '41', intent: 'stripe', country: 'KP' });
    expect(far.status).toBe(400);
    expect(far.text).toContain('We cannot pay out to this country yet.');
    expect(far.text).toContain('value="41"');
    expect(double.requests.filter((r) => r.path === '/v1/accounts')).toEqual([]);
    const toStripe = await browser.post(page, { _csrf: inputValue(again.text, '_csrf')!, price: '41', intent: 'stripe', country: 'es' });
    expect(toStripe.status).toBe(303);
    expect(toStripe.location).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${double.port}/connect/onboarding/acct_`));
    const created = double.requests.find((r) => r.path === '/v1/accounts' && r.method === 'POST')!;
    expect(created).toMatchObject({ idempotencyKey: `acct:${seller.id}`, body: { type: 'express', country: 'ES', email: 'seller@example.com', capabilities: { transfers: { requested: 'true' } }, metadata: { userPk: seller.id, partnerId: p.id } } });
    const link = double.requests.find((r) => r.path === '/v1/account_links')!;
    const back = encodeURIComponent(`${page}?lang=en&price=41&country=ES`);
    expect(link.body).toMatchObject({ type: 'account_onboarding', return_url: `http://resale.test/sell/${p.id}/payout/stripe/return?lang=en&back=${back}`, refresh_url: `http://resale.test/sell/${p.id}/payout/stripe/refresh?lang=en&back=${back}` });
    expect(await account()).toMatchObject({ provider: 'stripe', detailsSubmitted: false, transfersActive: false });
    // The seller is told where their payouts go changed.
    expect((await t.deps.messages.list()).filter((m) => m.template === 'payoutDetailsChanged').map((m) => m.to)).toEqual(['seller@example.com']);

    // Back before finishing: still pending, the button says continue.
    const early = await browser.get(`/sell/${p.id}/payout/stripe/return?lang=en&back=${back}`);
    expect(early.location).toBe(`${page}?lang=en&price=41&country=ES`);
    expect((await browser.get(early.location!)).text).toContain('Continue setting up with Stripe');

    // Stripe's account.updated (signed, to our endpoint) makes it ready; the page says where payouts go.
    await double.completeOnboarding((await account())!.accountId);
    expect(await account()).toMatchObject({ detailsSubmitted: true, transfersActive: true, payoutsEnabled: true });
    const ready = await browser.get(`${page}?lang=en&price=41&country=ES`);
    expect(ready.text).toContain(`Payouts go to your Stripe account ending in ${(await account())!.accountId.slice(-4).toUpperCase()}.`);
    const published = await browser.post(page, { _csrf: inputValue(ready.text, '_csrf')!, price: '41', intent: 'publish' });
    expect(published.status).toBe(303);
    expect(published.location).toMatch(new RegExp(`^/sell/${p.id}/listings/lst_`));
  });

  it('never sends a seller back anywhere but this partner’s sell pages', async () => {
    const { p, sellerBrowser: browser } = await sellerWorld();
    for (const back of ['https://evil.example/x', '//evil.example/x', `/sell/${p.id}//evil.example`, `/sell/${p.id}/\\evil.example`, '/sell/ptr_other/payout', '/checkout/x', `/sell/${p.id}/x\r\nSet-Cookie: a=b`, `/sell/${p.id}/x y`, 'x'.repeat(600)]) {
      const res = await browser.get(`/sell/${p.id}/payout/stripe/return?lang=en&back=${encodeURIComponent(back)}`);
      // A control character is refused before the page (400); anything else goes to the payout page.
      if (/[\r\n]/.test(back)) expect(res.status, back).toBe(400);
      else expect(res.location, back).toBe(`/sell/${p.id}/payout?lang=en`);
    }
  });

  it('shows the payout page with the account’s state, and asks for a step-up before going to Stripe', async () => {
    const { t, p, sellerBrowser: browser, onboarded } = await sellerWorld();
    const unproven = await browser.get(`/sell/${p.id}/payout?lang=en`);
    expect(unproven.location).toContain('/auth/step-up?');
    const proven = await completeCodeFlow(t, browser, unproven.location!, 'seller@example.com');
    const pageNow = await browser.get(proven.location!);
    expect(pageNow.text).toContain('Set up payouts with Stripe');
    // The venue is in Spain, but the seller is not asked to be: nothing preselected here, and a country is required.
    expect(pageNow.text).not.toContain('selected=""');
    const missing = await browser.post(`/sell/${p.id}/payout`, { _csrf: inputValue(pageNow.text, '_csrf')!, intent: 'stripe' });
    expect(missing.status).toBe(400);
    expect(missing.text).toContain('aria-invalid="true"');
    expect(missing.text).toContain('Choose the country you live in');
    // A step-up that lapsed while the form was open: a code again, the country kept.
    t.clock.advance(STEP_UP_TTL_MS + 60_000);
    const lapsed = await browser.post(`/sell/${p.id}/payout`, { _csrf: inputValue(pageNow.text, '_csrf')!, intent: 'stripe', country: 'FR' });
    expect(lapsed.location).toContain('/auth/step-up?');
    const again = await completeCodeFlow(t, browser, lapsed.location!, 'seller@example.com');
    expect(again.location).toBe(`http://resale.test/sell/${p.id}/payout?lang=en&country=FR`);
    const kept = await browser.get(again.location!);
    expect(kept.text).toContain('<option value="FR" selected="">France</option>');
    const toStripe = await browser.post(`/sell/${p.id}/payout`, { _csrf: inputValue(kept.text, '_csrf')!, intent: 'stripe', country: 'FR' });
    expect(toStripe.status).toBe(303);
    expect((await t.deps.payouts.connect!.view(t.db, (await t.deps.users.find(t.db, p.id, 'seller@example.com'))!.id))!.status).toBe('pending');
    await onboarded();
    expect((await browser.get(`/sell/${p.id}/payout?lang=es`)).text).toContain('Los pagos van a tu cuenta de Stripe terminada en');
  });

  it('signs a seller with a finished account in to Stripe’s Express dashboard to change their bank account, stepped up, and nobody else', async () => {
    const { t, p, double, sellerBrowser: browser, onboarded, account } = await sellerWorld();
    const payoutPage = `/sell/${p.id}/payout?lang=en`;
    const proven = await completeCodeFlow(t, browser, (await browser.get(payoutPage)).location!, 'seller@example.com');
    const logins = () => double.requests.filter((r) => r.method === 'POST' && /^\/v1\/accounts\/[^/]+\/login_links$/.test(r.path));
    const manage = async () => {
      const page = await browser.get(payoutPage);
      return await browser.post(`/sell/${p.id}/payout`, { _csrf: inputValue(page.text, '_csrf')!, intent: 'dashboard' });
    };

    // No account yet: no dashboard to go to; the page offers onboarding and nothing is asked of Stripe.
    expect((await browser.get(proven.location!)).text).not.toContain('Manage payouts on Stripe');
    const none = await manage();
    expect(none.status).toBe(303);
    expect(none.location).toBe(payoutPage);
    expect(logins()).toEqual([]);

    await onboarded();
    const ready = await browser.get(payoutPage);
    expect(ready.text).toContain('Manage payouts on Stripe');
    const toStripe = await manage();
    expect(toStripe.status).toBe(303);
    expect(toStripe.location).toBe(`http://127.0.0.1:${double.port}/connect/express/${(await account())!.accountId}`);
    expect(logins()).toHaveLength(1);

    // Stripe does not answer: a page that says so, nothing else.
    double.failNext(/^POST \/v1\/accounts\/[^/]+\/login_links$/, { status: 429 });
    const down = await manage();
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('30');

    // The step-up lapsed: a one-time code again before Stripe is asked.
    t.clock.advance(STEP_UP_TTL_MS + 60_000);
    const form = await browser.post(`/sell/${p.id}/payout`, { _csrf: inputValue(ready.text, '_csrf')!, intent: 'dashboard' });
    expect(form.location).toContain('/auth/step-up?');
    expect(logins()).toHaveLength(2);

    // Without a session (or with a forged form) nothing reaches Stripe.
    const stranger = new TestBrowser(t.app);
    const anonymous = await stranger.post(`/sell/${p.id}/payout`, { _csrf: 'x', intent: 'dashboard' });
    expect(anonymous.status).toBe(403);
    expect(logins()).toHaveLength(2);
  });

  it('says PENDING_PAYOUT_INFO in the sell access layer while a seller with a listing has not finished onboarding', async () => {
    const { t, p, list, onboarded } = await sellerWorld();
    await list('s1');
    const layer = async () =>
      (await t.request('POST', '/v1/wrapper/accesslayer', { key: p.keys.private, body: { user: 'seller@example.com', tickets: [{ eventId: 'tour', showId: 'show-1', ticketId: 's1', ticketOptionId: 'opt-field' }] } })).body.data.tickets[0].callToActions.map(
        (x: { key: string }) => x.key,
      );
    expect(await layer()).toContain('PENDING_PAYOUT_INFO');
    await onboarded();
    expect(await layer()).not.toContain('PENDING_PAYOUT_INFO');
  });
});

describe('Stripe Connect: payouts as transfers, after the show, never reversed', () => {
  /** A resale of s1 paid through Stripe; the seller onboarded unless told otherwise. */
  async function sold(opts: { onboard?: boolean } = { onboard: true }) {
    const w = await sellerWorld();
    if (opts.onboard) await w.onboarded();
    const l = await w.list('s1');
    const { bi, page } = await w.checkout(l.id);
    await w.confirm(w.piOf(page.text)!, 'pm_card_visa');
    const payout = (await w.t.db.select().from(payouts).where(eq(payouts.listingId, l.id)))[0]!;
    return { ...w, l, bi, payout };
  }
  const transfers = (double: { requests: { method: string; path: string }[] }) => double.requests.filter((r) => r.method === 'POST' && r.path === '/v1/transfers');

  it('transfers the seller’s part to their Stripe account when the payout is due, not before, once', async () => {
    const { t, p, double, payout, bi, account, balances } = await sold();
    t.clock.set(payout.dueAt - 1000);
    expect(await t.deps.payouts.deliverDue()).toBe(0);
    expect(transfers(double)).toEqual([]);
    t.clock.set(payout.dueAt);
    expect(await t.deps.payouts.deliverDue()).toBe(1);
    expect(transfers(double)).toMatchObject([{ idempotencyKey: `payout:${payout.id}`, body: { amount: '3800', currency: 'eur', destination: (await account())!.accountId, metadata: { payoutId: payout.id } } }]);
    const delivered = (await t.db.select().from(payouts))[0]!;
    expect(delivered).toMatchObject({ state: 'DELIVERED', transferRef: expect.stringMatching(/^tr_/), lastError: null });
    expect(await t.deps.payouts.deliverDue()).toBe(0);
    expect(transfers(double)).toHaveLength(1);
    expect((await t.deps.webhooks.list(p.id, { action: 'payouts.delivered' }))[0]!.message.payload).toMatchObject({ data: { payoutId: payout.id, amount: 38, currency: 'EUR' } });
    const journal = (await t.db.select().from(ledgerJournals).where(eq(ledgerJournals.kind, 'payout_delivered')))[0]!;
    expect(journal).toMatchObject({ provider: 'stripe', providerRef: delivered.transferRef, payoutId: payout.id });
    const fee = Math.round(4400 * 0.029) + 30;
    // What is left at Stripe is the fees earned, less Stripe's.
    expect(await balances()).toEqual({ provider_balance: 600 - fee, provider_fees: fee, buyer_fee_revenue: -400, seller_fee_revenue: -200 });
    expect(double.balance('eur')).toBe(600 - fee);
    expect((await t.db.read(async (tx) => await journalsOfIntention(tx, bi.id))).map((j) => j.kind).sort()).toEqual(['provider_fee', 'sale']);
  });

  it('waits for a seller whose account is not ready, then pays them once it is', async () => {
    const { t, double, payout, onboarded } = await sold({ onboard: false });
    t.clock.set(payout.dueAt);
    expect(await t.deps.payouts.deliverDue()).toBe(0);
    expect((await t.db.select().from(payouts))[0]).toMatchObject({ state: 'SCHEDULED', lastError: 'seller_account_not_ready' });
    expect(transfers(double)).toEqual([]);
    // The operator sees it stuck, and why.
    const overdue = async () => (await t.request('GET', '/admin/v1/payouts?overdue=true', { operator: true })).body.data.items;
    expect(await overdue()).toMatchObject([{ id: payout.id, state: 'SCHEDULED', sellerId: 'seller@example.com', lastError: 'seller_account_not_ready' }]);
    await onboarded();
    expect(await t.deps.payouts.deliverDue()).toBe(1);
    expect((await t.db.select().from(payouts))[0]!.state).toBe('DELIVERED');
    expect(await overdue()).toEqual([]);
  });

  it('keeps a payout Stripe refused for the next run, and a crashed run’s transfer is one transfer', async () => {
    const { t, double, payout } = await sold();
    t.clock.set(payout.dueAt);
    double.failNext('POST /v1/transfers', { status: 400, body: { error: { type: 'invalid_request_error', code: 'balance_insufficient', message: 'Insufficient funds in Stripe account.' } } });
    expect(await t.deps.payouts.deliverDue()).toBe(0);
    expect((await t.db.select().from(payouts))[0]).toMatchObject({ state: 'SCHEDULED', lastError: 'balance_insufficient' });
    expect((await t.request('GET', '/admin/v1/payouts?state=SCHEDULED', { operator: true })).body.data.items).toMatchObject([{ id: payout.id, lastError: 'balance_insufficient' }]);
    // A process claimed it (SENDING) and died before the answer: five minutes on, the next run
    // asks again with the same idempotency key, and Stripe answers the first transfer.
    await t.db.update(payouts).set({ state: 'SENDING', sendingAt: t.clock.now() }).where(eq(payouts.id, payout.id));
    expect(await t.deps.payouts.deliverDue()).toBe(0);
    t.clock.set(payout.dueAt + 5 * 60_000);
    expect(await t.deps.payouts.deliverDue()).toBe(1);
    expect((await t.db.select().from(payouts))[0]!.state).toBe('DELIVERED');
    expect(new Set(transfers(double).map((r) => (r as { idempotencyKey?: string }).idempotencyKey))).toEqual(new Set([`payout:${payout.id}`]));
    expect(double.events.filter((e) => e.type === 'transfer.created')).toHaveLength(1);
  });

  it('stops the payout of a show cancelled before it, and never reverses one already delivered', async () => {
    const before = await sold();
    expect((await before.t.request('POST', '/v1/events/tour/cancellation?showId=show-1', { key: before.p.keys.private })).status).toBe(200);
    before.t.clock.set(before.payout.dueAt);
    expect(await before.t.deps.payouts.deliverDue()).toBe(0);
    expect(transfers(before.double)).toEqual([]);
    expect(await before.t.deps.payments.runRefunds()).toBe(1);
    const fee = Math.round(4400 * 0.029) + 30;
    expect(await before.balances()).toEqual({ provider_balance: -fee, provider_fees: fee });

    const after = await sold();
    after.t.clock.set(after.payout.dueAt);
    expect(await after.t.deps.payouts.deliverDue()).toBe(1);
    expect((await after.t.request('POST', '/v1/events/tour/cancellation?showId=show-1', { key: after.p.keys.private })).status).toBe(200);
    expect(await after.t.deps.payments.runRefunds()).toBe(1);
    expect((await after.t.db.select().from(payouts))[0]!.state).toBe('DELIVERED');
    expect(after.double.requests.some((r) => r.path.includes('/reversals'))).toBe(false);
    // The buyer got everything back; the seller's part, delivered, is the service's loss.
    expect(await after.balances()).toEqual({ provider_balance: -fee - 3800, provider_fees: fee, payout_losses: 3800 });
  });
});
