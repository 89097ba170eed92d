import { PayoutAccounts } from '../../../domain/payouts/payouts.accounts.js';
import { inOrder } from '../../../lib/in-order.js';
import { describe, expect, it } from 'vitest';
import { ownershipEndpoint } from '../../../testing/platform.js';
import { createTestApp } from '../../../testing/harness.js';
import { ticketBody, withEvent } from '../../../testing/factories.js';
import { completeCodeFlow, inputValue, TestBrowser } from '../auth/auth.testing.js';

const rec = (ticketId: string, showId = 'show-1', extra: Record<string, unknown> = {}) => ({ eventId: 'tour', showId, ticketId, ticketOptionId: 'opt-field', ...extra });

async function setup(owned: unknown[]) {
  const map = new Map<string, unknown[]>([['fan@example.com', owned]]);
  const t = createTestApp();
  const p = await t.partner('Acme', { ownershipUrl: await ownershipEndpoint(map) });
  await withEvent(t, p);
  const browser = new TestBrowser(t.app);
  /** What the partner does on every click of its Sell button, then the user's browser. */
  const smartPublish = async () => {
    const res = await t.request('GET', '/v1/marketplace/smartPublish?email=fan@example.com', { key: p.keys.private });
    expect(res.status).toBe(200);
    const url = new URL(res.body.data);
    const first = await browser.get(url.pathname + url.search);
    expect(first.status).toBe(302); // token redeemed, back to the clean URL
    return browser.get(first.location!);
  };
  return { t, p, browser, smartPublish, map };
}

describe('smart publish', () => {
  it('answers a single-use URL, creating an unknown user', async () => {
    const { t, p, browser } = await setup([]);
    const res = await t.request('GET', '/v1/marketplace/smartPublish?email=new@example.com&lang=es', { key: p.keys.private });
    const url = new URL(res.body.data);
    expect(url.origin + url.pathname).toBe(`http://resale.test/sell/${p.id}/start`);
    expect(url.searchParams.get('lang')).toBe('es');
    expect(await t.deps.users.find(t.db, p.id, 'new@example.com')).not.toBeNull();
    expect((await browser.get(url.pathname + url.search)).status).toBe(302);
    const reused = await new TestBrowser(t.app).get(url.pathname + url.search);
    expect(reused.status).not.toBe(200);
    expect((await t.request('GET', '/v1/marketplace/smartPublish?email=nope', { key: p.keys.private })).body.errors[0]).toMatchObject({ path: 'email' });
    expect((await t.request('GET', '/v1/marketplace/smartPublish?email=a@b.co', { key: p.keys.public })).status).toBe(403);
  });

  it('routes to an empty state when nothing can be sold', async () => {
    const { smartPublish } = await setup([]);
    const page = await smartPublish();
    expect(page.status).toBe(200);
    expect(page.text).toContain('Nothing to sell right now');
  });

  it('routes one sellable ticket straight to the publish wizard (synchronising it first)', async () => {
    const { t, p, smartPublish } = await setup([rec('only-1')]);
    const page = await smartPublish();
    expect(page.status).toBe(302);
    expect(page.location).toBe(`/sell/${p.id}/ticket/only-1?lang=en`);
    expect((await t.deps.tickets.get(t.db, p.id, 'only-1')).state).toBe('VALID');
  });

  it('routes several tickets of one show to its ticket hub, and several shows to a picker', async () => {
    const one = await setup([rec('h1'), rec('h2')]);
    const hub = await one.smartPublish();
    expect(hub.status).toBe(302);
    const showPk = (await one.t.deps.tickets.get(one.t.db, one.p.id, 'h1')).showPk;
    expect(hub.location).toBe(`/sell/${one.p.id}/show/${showPk}?lang=en`);
    const hubPage = await one.browser.get(hub.location!);
    expect(hubPage.text).toContain(`href="/sell/${one.p.id}/ticket/h1?lang=en"`);
    expect(hubPage.text).toContain(`href="/sell/${one.p.id}/ticket/h2?lang=en"`);

    const many = await setup([rec('m1'), rec('m2', 'show-2')]);
    const picker = await many.smartPublish();
    expect(picker.status).toBe(200);
    expect(picker.text).toContain('Choose a show');
    expect((picker.text.match(/href="\/sell\/[^"]*\/show\//g) ?? []).length).toBe(2);
  });

  it('routes a seller whose tickets are all listed to their listings', async () => {
    const { t, p, smartPublish } = await setup([rec('l1')]);
    await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [ticketBody('l1')] });
    const ticket = await t.deps.tickets.get(t.db, p.id, 'l1');
    const listing = await t.db.transact(async (tx) => await t.deps.listings.create(tx, p.id, { sellerPk: ticket.ownerPk, ticketPks: [ticket.id], priceMinor: 4000 }));
    const page = await smartPublish();
    expect(page.text).toContain('Your listings');
    expect(page.text).toContain(`href="/sell/${p.id}/listings/${listing.id}?lang=en"`);
  });
});

describe('entry URLs', () => {
  it('answers the ticket, order and details URLs, signed when a user is named', async () => {
    const { t, p } = await setup([]);
    await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [ticketBody('d1')] });
    const plain = await t.request('GET', '/v1/marketplace/sellingflow/url/entrypoint?ticketId=d1&lang=es', { key: p.keys.private });
    expect(plain.body.data).toBe(`http://resale.test/sell/${p.id}/ticket/d1?lang=es`);
    const signed = new URL((await t.request('GET', '/v1/marketplace/sellingflow/url/entrypoint?ticketId=d1&loginTrust[user]=fan@example.com', { key: p.keys.private })).body.data);
    expect(signed.searchParams.get('oneTimeToken')).toMatch(/.{22,}/);
    const order = await t.request('GET', '/v1/marketplace/sellingflow/url/order/entrypoint?orderId=o%2F1', { key: p.keys.private });
    expect(order.body.data).toBe(`http://resale.test/sell/${p.id}/order/o%2F1?lang=en`);
    expect((await t.request('GET', '/v1/marketplace/sellingflow/details/url?ticketId=d1', { key: p.keys.private })).status).toBe(404);
    const ticket = await t.deps.tickets.get(t.db, p.id, 'd1');
    const listing = await t.db.transact(async (tx) => await t.deps.listings.create(tx, p.id, { sellerPk: ticket.ownerPk, ticketPks: [ticket.id], priceMinor: 4000 }));
    const details = new URL((await t.request('GET', '/v1/marketplace/sellingflow/details/url?ticketId=d1&sellerEmail=fan@example.com', { key: p.keys.private })).body.data);
    expect(details.pathname).toBe(`/sell/${p.id}/listings/${listing.id}`);
    expect(details.searchParams.get('oneTimeToken')).toBeTruthy();
    expect((await t.request('GET', '/v1/marketplace/sellingflow/details/url?ticketId=d1&sellerEmail=x@example.com', { key: p.keys.private })).status).toBe(404);
    expect((await t.request('GET', '/v1/marketplace/sellingflow/url/entrypoint', { key: p.keys.private })).body.errors[0]).toMatchObject({ code: 'missing_field', path: 'ticketId' });
    expect((await t.request('GET', '/v1/marketplace/sellingflow/url/entrypoint?ticketId=d1', { key: p.keys.channels })).status).toBe(403);
  });
});

describe('order flow and payout details', () => {
  it('lists the sellable tickets of an order as packs, one per ticket option, in one go', async () => {
    const { t, p, browser } = await setup([rec('o1', 'show-1', { properties: { orderId: 'ord-9' } }), rec('o2', 'show-1', { properties: { orderId: 'ord-9' } }), rec('o3', 'show-1', { ticketOptionId: 'opt-vip', ticketTypeId: 'pt-standard', properties: { orderId: 'ord-9' } })]);
    const url = new URL((await t.request('GET', '/v1/marketplace/sellingflow/url/order/entrypoint?orderId=ord-9&loginTrust[user]=fan@example.com', { key: p.keys.private })).body.data);
    const redirected = await browser.get(url.pathname + url.search);
    const page = await browser.get(redirected.location!);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Sell tickets of order ord-9');
    const csrf = inputValue(page.text, '_csrf')!;
    const bad = await browser.post(`/sell/${p.id}/order/ord-9`, { _csrf: csrf, price: 'abc' });
    expect(bad.status).toBe(400);
    // Not before the fan has said where to be paid: the page says so and links the payout form.
    expect(page.text).toContain('<div class="notice warn"><p>Add where we pay you before publishing');
    expect(page.text).toContain(`href="/sell/${p.id}/payout?lang=en"`);
    const unpaid = await browser.post(`/sell/${p.id}/order/ord-9`, { _csrf: csrf, price: '50' });
    expect(unpaid.status).toBe(400);
    expect(unpaid.text).toContain('nobody can buy a listing until we know where to send the money');
    expect((await t.deps.tickets.get(t.db, p.id, 'o1')).state).toBe('VALID');
    await t.db.transact(async (tx) => await new PayoutAccounts(t.deps).save(tx, p.id, (await t.deps.users.resolve(tx, p.id, { email: 'fan@example.com' })).id, { holderName: 'Fan', iban: 'DE89 3704 0044 0532 0130 00' }));
    expect((await browser.get(redirected.location!)).text).not.toContain('notice warn');
    const done = await browser.post(`/sell/${p.id}/order/ord-9`, { _csrf: csrf, price: '50' });
    expect(done.status).toBe(303);
    const packs = await inOrder(['o1', 'o3'], async (id) => await t.deps.listings.getByTicket(t.db, p.id, id));
    expect(packs[0]).toMatchObject({ quantity: 2, orderId: 'ord-9', state: 'ACTIVE', priceMinor: 5000 });
    expect(packs[1]).toMatchObject({ quantity: 1, state: 'ACTIVE' });
    expect((await t.deps.listings.getByTicket(t.db, p.id, 'o2')).id).toBe(packs[0]!.id);
  });

  it('saves payout details behind CSRF and shows only the last four characters', async () => {
    const { t, p, browser } = await setup([]);
    const url = new URL((await t.request('GET', '/v1/marketplace/smartPublish?email=fan@example.com', { key: p.keys.private })).body.data);
    await browser.get(url.pathname + url.search);
    // A session from a link must confirm it's you (a code to the account's e-mail) before payout details.
    const asked = await browser.get(`/sell/${p.id}/payout`);
    expect(asked.status).toBe(302);
    expect(asked.location).toContain('/auth/step-up?');
    expect((await completeCodeFlow(t, browser, asked.location!, 'fan@example.com')).location).toBe(`http://resale.test/sell/${p.id}/payout?lang=en`);
    const page = await browser.get(`/sell/${p.id}/payout`);
    expect(page.text).toContain('<label for="iban">IBAN</label>');
    const csrf = inputValue(page.text, '_csrf')!;
    expect((await browser.post(`/sell/${p.id}/payout`, { holderName: 'Ana', iban: 'ES9121000418450200051332' })).status).toBe(403);
    expect((await browser.post(`/sell/${p.id}/payout`, { _csrf: csrf, holderName: 'Ana', iban: 'ES00' })).status).toBe(400);
    const ok = await browser.post(`/sell/${p.id}/payout`, { _csrf: csrf, holderName: 'Ana García', iban: 'ES91 2100 0418 4502 0005 1332' });
    expect(ok.status).toBe(303);
    const after = await browser.get(ok.location!);
    expect(after.text).toContain('account ending in 1332');
    expect(after.text).not.toContain('2100 0418');
    // The seller is told of the change at once.
    expect((await t.deps.messages.list({ to: 'fan@example.com' }))[0]).toMatchObject({ template: 'payoutDetailsChanged' });
  });
});
