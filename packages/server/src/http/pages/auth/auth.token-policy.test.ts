import { describe, expect, it } from 'vitest';
import { ownershipEndpoint } from '../../../testing/platform.js';
import { channelListingBody, ticketBody, withEvent } from '../../../testing/factories.js';
import { createTestApp } from '../../../testing/harness.js';
import { SANDBOX_CARDS } from '../../../domain/payments/payments.provider.js';
import { webhookMessages } from '../../../domain/webhooks/webhooks.table.js';
import { webhookBodyOf } from '../../../domain/webhooks/webhooks.service.js';
import { csrfOf, TestBrowser } from './auth.testing.js';
import { isTokenDestination, ONE_TIME_TOKEN_PARAM } from '../../../domain/auth/auth.urls.js';

/**
 * "Where sign-in tokens go" (auth.urls.ts), walked: every URL the service generates in a whole
 * resale (API answers, calls to action, pages, e-mails, webhooks) is collected with where it
 * came from, and a sign-in token may appear only on the entry URLs the partner's server asks
 * for on behalf of its signed-in user. Share links, listing and market links, e-mails and
 * webhooks travel: a token there would sign a stranger in as the seller (issue: takeover
 * through Share).
 */

/** Every http(s) URL inside a JSON value or a text, decoded from HTML attributes. */
function urlsIn(value: unknown): string[] {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return [...text.replace(/&amp;/g, '&').matchAll(/(?:https?:\/\/[^\s"'<>)]+|(?:href|action)="(\/[^"]*)")/g)].map((m) => m[1] ?? m[0]);
}

const hasToken = (url: string) => new URL(url, 'http://resale.test').searchParams.has(ONE_TIME_TOKEN_PARAM) || url.includes(ONE_TIME_TOKEN_PARAM);

async function resale() {
  const owned = new Map<string, unknown[]>();
  const t = createTestApp();
  const p = await t.partner('Acme', {
    ownershipUrl: await ownershipEndpoint(owned),
    sellBanner: {
      title: { en: 'Can’t go?', es: '¿No puedes ir?' },
      description: { en: 'Sell it here', es: 'Véndela aquí' },
      ctaText: { en: 'Sell', es: 'Vender' },
      visible: true,
      colors: { background: '#0b4fb3', text: '#ffffff' },
    },
  });
  await withEvent(t, p);
  const ids = ['s1', 's2', 's3', 's4'];
  await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: ids.map((id) => ticketBody(id, { buyer: 'seller@example.com', orderId: 'ord-1', section: 'A', row: '1', seat: id })) });
  owned.set('seller@example.com', ids.map((ticketId) => ({ eventId: 'tour', showId: 'show-1', ticketId, ticketOptionId: 'opt-field' })));
  const ticket = async (id: string) => await t.deps.tickets.get(t.db, p.id, id);
  const list = async (id: string) => await t.db.transact(async (tx) => await t.deps.listings.create(tx, p.id, { sellerPk: (await ticket(id)).ownerPk, ticketPks: [(await ticket(id)).id], priceMinor: 4000 }));
  return { t, p, list };
}

describe('where sign-in tokens go', () => {
  it('puts a token only on entry URLs made for the signed-in user: never on Share, listing, market, page, e-mail or webhook links', async () => {
    const { t, p, list } = await resale();
    const key = { key: p.keys.private };
    /** [where, url] of every URL generated, and the places where a token is the point. */
    const seen: [string, string][] = [];
    /** Every place scanned, and those whose text mentions a token at all (in a URL or not). */
    const scanned = new Set<string>();
    const mentions = new Set<string>();
    const collect = (where: string, value: unknown) => {
      scanned.add(where);
      if ((typeof value === 'string' ? value : JSON.stringify(value)).includes(ONE_TIME_TOKEN_PARAM)) mentions.add(where);
      urlsIn(value).forEach((u) => seen.push([where, u]));
    };
    const entry = new Set<string>();
    const collectEntry = (where: string, value: unknown) => {
      entry.add(where);
      collect(where, value);
    };

    // A listing on sale (Share), a sale (DETAILS, e-mails, ticket.update), a delisted one (e-mail).
    const forSale = await list('s1');
    const sold = await list('s2');
    const bi = (await t.request('POST', '/v1/marketplace/buyingflow/buyIntention', { ...key, body: { items: [sold.id], user: 'buyer@example.com' } })).body.data;
    collectEntry('buyIntention.paymentUrl (user)', bi.paymentUrl);
    const buyer = new TestBrowser(t.app);
    const payUrl = new URL(bi.paymentUrl);
    const checkout = await buyer.get((await buyer.get(payUrl.pathname + payUrl.search)).location!);
    collect('checkout page', checkout.text);
    const paid = await buyer.post(payUrl.pathname, { _csrf: csrfOf(checkout.text, payUrl.pathname)!, cardNumber: SANDBOX_CARDS.success, expiry: '12/30', cvc: '123' });
    expect(paid.status).toBe(303);
    collect('purchase done page', (await buyer.get(paid.location!)).text);
    await t.request('POST', '/v1/sync/tickets', { ...key, body: [ticketBody('d1', { buyer: 'seller@example.com', showId: 'show-2' })] });
    await list('d1');
    expect((await t.request('POST', '/v1/delist', { ...key, body: { externalReferenceEventId: 'tour', showId: 'show-2' } })).body.data.delisted).toBe(1);

    // What the partner's server asks for on behalf of its signed-in seller and buyer.
    const refs = ['s1', 's2', 's4'].map((ticketId) => ({ eventId: 'tour', showId: 'show-1', ticketId, ticketOptionId: 'opt-field' }));
    const sellLayer = (await t.request('POST', '/v1/wrapper/accesslayer', { ...key, body: { user: 'seller@example.com', autologin: true, tickets: refs } })).body.data;
    const ctas = sellLayer.tickets.flatMap((r: { callToActions: { key: string; url: string }[] }) => r.callToActions);
    for (const cta of ctas) (cta.key === 'P2P' ? collect : collectEntry)(`sell access layer ${cta.key}`, cta.url);
    collectEntry('sell banner', sellLayer.components);
    const orders = (await t.request('POST', '/v1/wrapper/accesslayer', { ...key, body: { user: 'seller@example.com', autologin: true, orders: [{ orderId: 'ord-1', eventId: 'tour', showId: 'show-1', combinations: [] }] } })).body.data;
    collectEntry('sell access layer orders', orders.orders);
    const q = 'loginTrust[user]=buyer@example.com';
    collectEntry('buy access layer (loginTrust)', (await t.request('GET', `/v1/wrapper/accesslayer?type=buy&eventId=tour&showId=show-1&${q}`, key)).body.data);
    collectEntry('buying-flow entry URL', (await t.request('GET', `/v1/marketplace/buyingflow/url/entrypoint?externalReferenceEventId=tour&showId=show-1&returnTo=https://partner.example/ev&${q}`, key)).body.data);
    collectEntry('selling-flow entry URL', (await t.request('GET', `/v1/marketplace/sellingflow/url/entrypoint?ticketId=s4&loginTrust[user]=seller@example.com`, key)).body.data);
    collectEntry('selling-flow order entry URL', (await t.request('GET', `/v1/marketplace/sellingflow/url/order/entrypoint?orderId=ord-1&loginTrust[user]=seller@example.com`, key)).body.data);
    collectEntry('listing details URL', (await t.request('GET', `/v1/marketplace/sellingflow/details/url?ticketId=s1&sellerEmail=seller@example.com`, key)).body.data);
    collectEntry('smart publish', (await t.request('GET', '/v1/marketplace/smartPublish?email=seller@example.com', key)).body.data);

    // Links meant to travel, and what pages and the outbox carry.
    collect('listing API shareUrl', (await t.request('GET', '/v1/marketplace/listings/ticket/s1', key)).body.data);
    collect('salePublicUrl', (await t.request('GET', '/v1/events/tickets/salePublicUrl?ticketId=s1&lang=en', key)).body.data);
    collect('buy access layer (public)', (await t.request('GET', '/v1/wrapper/accesslayer?type=buy&eventId=tour&showId=show-1', { key: p.keys.public })).body.data);
    collect('channel listing', (await t.request('POST', '/v1/channels/listings', { key: p.keys.channels, body: channelListingBody() })).body.data);
    collect('ticket secure view URL', (await t.request('GET', '/v1/tickets/s4/url', key)).body.data);
    const seller = new TestBrowser(t.app);
    const detailsUrl = new URL((await t.request('GET', `/v1/marketplace/sellingflow/details/url?ticketId=s1&sellerEmail=seller@example.com`, key)).body.data);
    const listingPage = await seller.get((await seller.get(detailsUrl.pathname + detailsUrl.search)).location!);
    expect(listingPage.status).toBe(200);
    collect('listing page', listingPage.text);
    collect('market page', (await new TestBrowser(t.app).get(`/market/${p.id}/tour?showId=show-1&listingId=${forSale.id}`)).text);
    for (const m of await t.deps.messages.list()) collect(`e-mail ${m.template}`, `${m.text}\n${m.html ?? ''}`);
    for (const w of await t.db.select().from(webhookMessages)) collect(`webhook ${w.action}`, { ...w, payload: webhookBodyOf(w) });

    // Enough was walked to mean something: each kind of place was reached.
    const places = new Set([...scanned].map((where) => where.replace(/ [A-Z_2]+$/, '')));
    for (const place of ['sell access layer', 'listing API shareUrl', 'salePublicUrl', 'listing page', 'market page', 'purchase done page', 'e-mail listingSold', 'e-mail purchaseConfirmed', 'e-mail delistNotice', 'webhook ticket.update', 'webhook listing.created']) {
      expect(places, place).toContain(place);
    }
    expect(seen.some(([where]) => where === 'sell access layer P2P')).toBe(true);

    const misplaced = seen.filter(([where, url]) => hasToken(url) && !entry.has(where));
    expect(misplaced).toEqual([]);
    expect([...mentions].filter((where) => !entry.has(where))).toEqual([]);
    // Where a token is the point, it is there, and only on the user's own kinds of page.
    for (const where of ['sell access layer SELL', 'sell access layer EDIT', 'sell access layer DETAILS', 'smart publish', 'buyIntention.paymentUrl (user)', 'buy access layer (loginTrust)']) {
      expect(seen.some(([w, url]) => w === where && hasToken(url)), where).toBe(true);
    }
    for (const [where, url] of seen.filter(([, url]) => hasToken(url))) expect(isTokenDestination(url), `${where}: ${url}`).toBe(true);
  });

  it('signs nobody in through Share: a stranger opening it is not the seller and cannot reach their payout page', async () => {
    const { t, p, list } = await resale();
    await list('s1');
    const layer = (await t.request('POST', '/v1/wrapper/accesslayer', { key: p.keys.private, body: { user: 'seller@example.com', autologin: true, tickets: [{ eventId: 'tour', showId: 'show-1', ticketId: 's1', ticketOptionId: 'opt-field' }] } })).body.data;
    const share = layer.tickets[0].callToActions.find((c: { key: string }) => c.key === 'P2P').url as string;
    const stranger = new TestBrowser(t.app);
    const opened = await stranger.get(new URL(share).pathname + new URL(share).search);
    expect(opened.status).toBe(200);
    expect(stranger.cookies.has('resale_session')).toBe(false);
    const payout = await stranger.get(`/sell/${p.id}/payout`);
    expect(payout.status).toBe(302);
    expect(payout.location).toContain('/auth/otp?');
  });

  it('refuses to put a token on a page that is not the user’s own', () => {
    expect(isTokenDestination('http://resale.test/sell/ptr_1/start')).toBe(true);
    expect(isTokenDestination('http://resale.test/checkout/ptr_1/bi_1')).toBe(true);
    expect(isTokenDestination('http://resale.test/market/ptr_1/tour?showId=s')).toBe(true);
    for (const url of ['http://resale.test/tickets/view/x', 'http://resale.test/auth/session', 'http://resale.test/docs', 'http://resale.test/', 'not a url']) expect(isTokenDestination(url), url).toBe(false);
  });
});
