import { inOrder } from '../../lib/in-order.js';
import { describe, expect, it } from 'vitest';
import { ownershipEndpoint } from '../../testing/platform.js';
import { ticketBody, withEvent } from '../../testing/factories.js';
import { createTestApp } from '../../testing/harness.js';
import { completeCodeFlow, csrfOf, inputValue, TestBrowser } from '../pages/auth/auth.testing.js';
import { returnToTag } from '../../domain/auth/auth.urls.js';
import { SANDBOX_CARDS } from '../../domain/payments/payments.provider.js';
import { buyIntentions } from '../../domain/intentions/intentions.table.js';

/**
 * Holds that cannot be hoarded (issue: anyone could hold a whole market, anonymously), the
 * own-listing rule at checkout, the organiser's delist and the channel's withdrawal ending
 * holds, and return addresses that lead only where the partner said.
 */

async function market(tickets = 24, settings: Record<string, unknown> = {}) {
  const owned = new Map<string, unknown[]>();
  const t = createTestApp();
  const p = await t.partner('Acme', { ownershipUrl: await ownershipEndpoint(owned), allowedOrigins: ['https://tickets.partner.example'], ...settings });
  await withEvent(t, p);
  const ids = Array.from({ length: tickets }, (_, i) => `s${i + 1}`);
  await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: ids.map((id) => ticketBody(id, { buyer: 'seller@example.com' })) });
  owned.set('seller@example.com', ids.map((ticketId) => ({ eventId: 'tour', showId: 'show-1', ticketId, ticketOptionId: 'opt-field' })));
  const ticket = async (id: string) => await t.deps.tickets.get(t.db, p.id, id);
  const listings = await inOrder(ids, async (id) => await t.db.transact(async (tx) => await t.deps.listings.create(tx, p.id, { sellerPk: (await ticket(id)).ownerPk, ticketPks: [(await ticket(id)).id], priceMinor: 4000 })));
  const held = async () => (await inOrder(listings, (l) => t.deps.listings.get(t.db, p.id, l.id))).filter((l) => l.state === 'RESERVED').length;
  /** A browser signed in by code as `email`. */
  const signedIn = async (email: string, ip = '198.51.100.7') => {
    const b = new TestBrowser(t.app, ip);
    const done = await completeCodeFlow(t, b, `/auth/otp?p=${p.id}`, email, email);
    expect(done.status).toBe(303);
    return b;
  };
  /** Presses Buy on the market page for these listings. */
  const buy = async (b: TestBrowser, listingIds: string[], extra: Record<string, string> = {}) => {
    const page = await b.get(`/market/${p.id}/tour?showId=show-1`);
    const form = new URLSearchParams({ _csrf: csrfOf(page.text, `/market/${p.id}/tour/buy`)!, showId: 'show-1', ...extra });
    for (const id of listingIds) form.append('listingId', id);
    return b.post(`/market/${p.id}/tour/buy`, form);
  };
  return { t, p, owned, listings, held, signedIn, buy };
}

describe('holds on the market page', () => {
  it('holds nothing for a signed-out visitor: 120 anonymous Buy posts reserve none of the listings', async () => {
    const { t, p, listings, held, buy } = await market(24);
    const anon = new TestBrowser(t.app);
    for (let i = 0; i < 5; i++) {
      const res = await buy(anon, listings.slice(0, 20).map((l) => l.id));
      expect(res.status).toBe(302);
      expect(res.location).toContain('/auth/otp?');
      // …coming back to continue the Buy with the pick (held only then, once signed in).
      const back = new URL(new URL(res.location!).searchParams.get('returnTo')!);
      expect(back.pathname).toBe(`/market/${p.id}/tour/buy/continue`);
      expect(back.searchParams.get('l')).toBe(listings.slice(0, 20).map((l) => l.id).join(','));
    }
    for (const l of listings) await buy(anon, [l.id]);
    expect(await held()).toBe(0);
    expect(await t.db.select().from(buyIntentions)).toHaveLength(0);
  });

  it('limits live holds per buyer (count and tickets per show) and per client address, with 429, Retry-After and a clear page', async () => {
    const { t, p, listings, held, signedIn, buy } = await market(24);
    const ana = await signedIn('ana@example.com');
    // Tickets per buyer and show (default 10): eleven in one pick is refused whole.
    const tooMany = await buy(ana, listings.slice(0, 11).map((l) => l.id));
    expect(tooMany.status).toBe(429);
    expect(tooMany.text).toContain('You can hold at most 10 tickets for this show at once.');
    expect(await held()).toBe(0);
    // Three checkouts (default perBuyer 3), then the fourth is refused with a way to the newest.
    for (const l of listings.slice(0, 3)) expect((await buy(ana, [l.id])).status).toBe(303);
    const fourth = await buy(ana, [listings[3]!.id]);
    expect(fourth.status).toBe(429);
    expect(Number(fourth.headers.get('retry-after'))).toBe(600);
    expect(fourth.text).toContain('You have 3 reservations waiting for payment.');
    expect(fourth.text).toMatch(new RegExp(`href="/checkout/${p.id}/bi_[^"]+">Continue your checkout`));
    expect(await held()).toBe(3);
    // The API refuses the same buyer the same way, in the envelope.
    const api = await t.request('POST', '/v1/marketplace/buyingflow/buyIntention', { key: p.keys.private, body: { items: [listings[4]!.id], user: 'ana@example.com' } });
    expect(api.status).toBe(429);
    expect(api.body.errors[0]).toMatchObject({ code: 'rate_limited' });
    expect(api.headers.get('retry-after')).toBe('600');
    // When a hold ends, there is room again.
    t.clock.advance(600_000);
    expect((await buy(ana, [listings[4]!.id])).status).toBe(303);

    // Per client address (here 20 by default): many accounts from one address cannot hoard.
    await t.request('PATCH', `/admin/v1/partners/${p.id}`, { operator: true, body: { settings: { holdLimits: { perClientAddress: 4 } } } });
    const from = '203.0.113.9';
    const accounts = await Promise.all(['b1', 'b2', 'b3', 'b4', 'b5'].map((n) => signedIn(`${n}@example.com`, from)));
    const statuses = [];
    for (const [i, b] of accounts.entries()) statuses.push((await buy(b, [listings[10 + i]!.id])).status);
    expect(statuses).toEqual([303, 303, 303, 303, 429]);
    expect((await t.deps.partners.get(p.id)).settings.holdLimits).toEqual({ perBuyer: 3, ticketsPerBuyerPerShow: 10, perClientAddress: 4 });
    // Another address is not affected.
    expect((await buy(await signedIn('b6@example.com', '203.0.113.10'), [listings[20]!.id])).status).toBe(303);
  });

  it('operator settings for hold limits are validated and merged', async () => {
    const { t, p } = await market(1);
    const bad = await t.request('PATCH', `/admin/v1/partners/${p.id}`, { operator: true, body: { settings: { holdLimits: { perBuyer: 0, extra: 1 } } } });
    expect(bad.status).toBe(400);
    const ok = await t.request('PATCH', `/admin/v1/partners/${p.id}`, { operator: true, body: { settings: { holdLimits: { perBuyer: 5 } } } });
    expect(ok.body.data.settings.holdLimits).toEqual({ perBuyer: 5, ticketsPerBuyerPerShow: 10, perClientAddress: 20 });
  });
});

describe('checkout rules', () => {
  it('refuses a seller their own listing when they reserved it signed out (API checkout URL) and sign in at checkout', async () => {
    const { t, p, listings } = await market(2);
    const url = new URL((await t.request('POST', '/v1/marketplace/checkout/url', { key: p.keys.private, body: { listingIds: [listings[0]!.id] } })).body.data);
    const seller = new TestBrowser(t.app);
    const login = await seller.get(url.pathname + url.search);
    expect(login.location).toContain('/auth/otp?');
    const back = await completeCodeFlow(t, seller, login.location!, 'seller@example.com', 'seller@example.com');
    const page = await seller.get(back.location!);
    expect(page.status).toBe(409);
    expect(page.text).toContain('You cannot buy your own tickets');
    expect((await t.deps.listings.get(t.db, p.id, listings[0]!.id)).state).toBe('ACTIVE');
    expect((await t.db.select().from(buyIntentions))[0]).toMatchObject({ state: 'CANCELLED', endReason: 'own_listing', buyerPk: null });
    // Nothing can be paid on it afterwards.
    const pay = await seller.post(url.pathname, { _csrf: inputValue(page.text, '_csrf') ?? 'x', cardNumber: SANDBOX_CARDS.success, expiry: '12/30', cvc: '123' });
    expect(pay.status).not.toBe(303);
    expect((await t.deps.listings.get(t.db, p.id, listings[0]!.id)).state).toBe('ACTIVE');
  });

  it('tells a buyer at checkout that the organiser delisted the tickets (the delist ended the hold), and charges nothing', async () => {
    const { t, p, listings, signedIn, buy } = await market(2);
    const ben = await signedIn('ben@example.com');
    const reserved = await buy(ben, [listings[0]!.id]);
    const checkout = await ben.get(reserved.location!);
    expect(checkout.status).toBe(200);
    const delist = await t.request('POST', '/v1/delist', { key: p.keys.public, body: { externalReferenceEventId: 'tour', showId: 'show-1' } });
    expect(delist.status).toBe(200);
    const path = new URL(reserved.location!, 'http://x').pathname;
    const pay = await ben.post(path, { _csrf: csrfOf(checkout.text, path)!, cardNumber: SANDBOX_CARDS.success, expiry: '12/30', cvc: '123' });
    expect(pay.status).toBe(409);
    expect(pay.text).toContain('The organiser took these tickets off sale');
    expect((await ben.get(reserved.location!)).text).toContain('Nothing was charged.');
    expect((await t.deps.listings.get(t.db, p.id, listings[0]!.id)).state).toBe('DELISTED');
  });

  it('delists every listing of a checkout holding two, none put back on sale on the way', async () => {
    const { t, p, listings, signedIn, buy } = await market(3);
    const ben = await signedIn('ben@example.com');
    const reserved = await buy(ben, [listings[0]!.id, listings[1]!.id]);
    expect(reserved.status).toBe(303);
    const delist = await t.request('POST', '/v1/delist', { key: p.keys.public, body: { externalReferenceEventId: 'tour', showId: 'show-1' } });
    expect(delist.status).toBe(200);
    expect(delist.body.data.delisted).toBe(3);
    for (const l of listings) expect((await t.deps.listings.get(t.db, p.id, l.id)).state).toBe('DELISTED');
    expect((await t.db.select().from(buyIntentions))[0]).toMatchObject({ state: 'CANCELLED', endReason: 'delisted' });
  });
});

describe('return addresses', () => {
  it('shows and carries a returnTo only on the partner’s allowed origins or vouched for by its server', async () => {
    const { t, p, listings, signedIn } = await market(3);
    const ben = await signedIn('ben@example.com');
    const page = (q: string) => ben.get(`/market/${p.id}/tour?showId=show-1&${q}`);

    /** A link or a form field leading to the phishing page (the page's own URL may still quote it, encoded). */
    const leadsToEvil = (html: string) => /(href|value)="https:\/\/evil\.example/.test(html);
    /** The returnTo the Buy forms carry (the sign-out form has a returnTo of its own, on the service). */
    const carried = (html: string) => inputValue(html.slice(html.indexOf(`action="/market/${p.id}/tour/buy"`)), 'returnTo');
    const evil = await page(`returnTo=${encodeURIComponent('https://evil.example/phish')}`);
    expect(leadsToEvil(evil.text)).toBe(false);
    expect(carried(evil.text)).toBeNull();
    const allowed = await page(`returnTo=${encodeURIComponent('https://tickets.partner.example/ev?x=1')}`);
    expect(allowed.text).toContain('href="https://tickets.partner.example/ev?x=1"');
    // A tag made by the buying-flow URL API vouches for another host; a tag for another URL does not.
    const vouched = 'https://other.partner.example/back';
    const tag = returnToTag(t.deps.box, p.id, vouched);
    expect((await page(`returnTo=${encodeURIComponent(vouched)}&returnToTag=${tag}`)).text).toContain(`href="${vouched}"`);
    expect(leadsToEvil((await page(`returnTo=${encodeURIComponent('https://evil.example/phish')}&returnToTag=${tag}`)).text)).toBe(false);
    for (const bad of ['javascript:alert(1)', '//evil.example', 'https://user:pw@tickets.partner.example/', 'http://tickets.partner.example/']) {
      expect(carried((await page(`returnTo=${encodeURIComponent(bad)}`)).text), bad).toBeNull();
    }

    // A forged form field is dropped too: the purchase-complete page never links to it.
    const form = new URLSearchParams({ _csrf: csrfOf(evil.text, `/market/${p.id}/tour/buy`)!, listingId: listings[0]!.id, returnTo: 'https://evil.example/phish' });
    const reserved = await ben.post(`/market/${p.id}/tour/buy`, form);
    expect(reserved.status).toBe(303);
    expect((await t.db.select().from(buyIntentions))[0]!.returnTo).toBeNull();
    const checkout = await ben.get(reserved.location!);
    const path = new URL(reserved.location!, 'http://x').pathname;
    const paid = await ben.post(path, { _csrf: csrfOf(checkout.text, path)!, cardNumber: SANDBOX_CARDS.success, expiry: '12/30', cvc: '123' });
    expect(paid.status).toBe(303);
    const done = await ben.get(paid.location!);
    expect(done.text).toContain('Thank you');
    expect(leadsToEvil(done.text)).toBe(false);

    // An allowed one travels through the hold to the purchase-complete page.
    const good = await page(`returnTo=${encodeURIComponent('https://tickets.partner.example/ev')}`);
    const form2 = new URLSearchParams({ _csrf: csrfOf(good.text, `/market/${p.id}/tour/buy`)!, listingId: listings[1]!.id, returnTo: carried(good.text)! });
    const second = await ben.post(`/market/${p.id}/tour/buy`, form2);
    expect((await t.db.select().from(buyIntentions)).find((i) => i.listingIds.includes(listings[1]!.id))!.returnTo).toBe('https://tickets.partner.example/ev');
    expect(second.status).toBe(303);
  });
});
