import { inOrder } from '../../lib/in-order.js';
import { eq, inArray } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../testing/harness.js';
import { ticketBody, withEvent } from '../../testing/factories.js';
import { listings } from '../../domain/listings/listings.table.js';
import { tickets } from '../../domain/tickets/tickets.table.js';
import { aggregate, type Evaluated } from '../../flows/accesslayer/accesslayer.sell.js';
import { PayoutAccounts } from '../../domain/payouts/payouts.accounts.js';

async function setup() {
  const t = createTestApp();
  const p = await t.partner();
  await withEvent(t, p);
  await t.request('POST', '/v1/sync/tickets', {
    key: p.keys.private,
    body: ['a1', 'a2', 'a3', 'b1', 'b2', 'c1', 'c2', 'd1', 'd2', 'x1'].map((id) => ticketBody(id, { orderId: `order-${id[0]}` })),
  });
  const ticket = async (id: string) => await t.deps.tickets.get(t.db, p.id, id);
  const list = async (ids: string[], priceMinor = 4000) => await t.db.transact(async (tx) => await t.deps.listings.create(tx, p.id, { sellerPk: (await ticket(ids[0]!)).ownerPk, ticketPks: await inOrder(ids, async (id) => (await ticket(id)).id), priceMinor }));
  /** What the buy side does on payment: the listing is SOLD and its tickets too. */
  const markSold = async (listingId: string) => {
    await t.db.update(listings).set({ state: 'SOLD', soldAt: t.clock.now() }).where(eq(listings.id, listingId));
    const ids = (await t.deps.listings.ticketsOf(t.db, listingId)).map((x) => x.id);
    await t.db.update(tickets).set({ state: 'SOLD' }).where(inArray(tickets.id, ids));
  };
  const layer = (body: unknown, query = '') => t.request('POST', `/v1/wrapper/accesslayer${query}`, { key: p.keys.private, body });
  const ref = (ticketId: string) => ({ eventId: 'tour', showId: 'show-1', ticketId, ticketOptionId: 'opt-field' });
  return { t, p, ticket, list, markSold, layer, ref };
}

describe('sell access layer: tickets mode', () => {
  it('answers each ticket’s status and calls to action', async () => {
    const { t, p, list, markSold, layer, ref } = await setup();
    const forSale = await list(['a2']);
    const sold = await list(['a3']);
    await markSold(sold.id);
    await t.request('POST', '/v1/tickets/b1/eventAdmission', { key: p.keys.private });
    const res = await layer({ user: 'fan@example.com', tickets: [ref('a1'), ref('a2'), ref('a3'), ref('b1'), ref('unknown-1'), { ...ref('unknown-2'), showId: 'show-9' }] });
    expect(res.status).toBe(200);
    expect(res.body.data.user).toBe('fan@example.com');
    expect(res.body.data.components).toEqual([]);
    const rows = res.body.data.tickets;
    expect(rows.map((r: { ticketId: string; status: string; sync: boolean }) => [r.ticketId, r.status, r.sync])).toEqual([
      ['a1', 'SELLABLE', true],
      ['a2', 'FOR_SALE', true],
      ['a3', 'SOLD', true],
      ['b1', 'NOT_SELLABLE', true],
      ['unknown-1', 'SELLABLE', false],
      ['unknown-2', 'NOT_SELLABLE', false],
    ]);
    expect(rows[0].callToActions).toEqual([{ key: 'SELL', text: 'Sell', url: `http://resale.test/sell/${p.id}/ticket/a1?lang=en`, enabled: true }]);
    expect(rows[1].callToActions.map((c: { key: string }) => c.key)).toEqual(['EDIT', 'P2P', 'PENDING_PAYOUT_INFO']);
    expect(rows[1].callToActions[2].url).toBe(`http://resale.test/sell/${p.id}/payout?lang=en`);
    expect(rows[1].callToActions[0].url).toBe(`http://resale.test/sell/${p.id}/listings/${forSale.id}?lang=en`);
    expect(rows[1].callToActions[1].url).toContain(`listingId=${forSale.id}`);
    expect(rows[2].callToActions.map((c: { key: string }) => c.key)).toEqual(['DETAILS', 'PENDING_PAYOUT_INFO']);
    expect(rows[2].callToActions[0]).toEqual({ key: 'DETAILS', text: 'View sale', url: `http://resale.test/sell/${p.id}/listings/${sold.id}?lang=en`, enabled: true });
    // Once the seller has a payout account, the prompt goes away.
    await new PayoutAccounts(t.deps).save(t.db, p.id, (await t.deps.tickets.get(t.db, p.id, 'a2')).ownerPk, { holderName: 'Ana García', iban: 'ES9121000418450200051332' });
    const after = await layer({ user: 'fan@example.com', tickets: [ref('a2')] });
    expect(after.body.data.tickets[0].callToActions.map((c: { key: string }) => c.key)).toEqual(['EDIT', 'P2P']);
    expect(rows[3].callToActions).toEqual([]);
    expect(rows[4].callToActions[0].url).toBe(`http://resale.test/sell/${p.id}/ticket/unknown-1?lang=en&sync=1&eventId=tour&showId=show-1`);
    expect(rows[5].callToActions).toEqual([]);
  });

  it('asks to synchronise a ticket our records give to someone else, and speaks Spanish', async () => {
    const { p, list, layer, ref } = await setup();
    const res = await layer({ user: 'stranger@example.com', tickets: [ref('a1')] }, '?lang=es');
    expect(res.body.data.tickets[0]).toMatchObject({ status: 'SELLABLE', sync: false });
    expect(res.body.data.tickets[0].callToActions[0].url).toBe(`http://resale.test/sell/${p.id}/ticket/a1?lang=es&sync=1&eventId=tour&showId=show-1`);
    // Listed by its recorded owner: nothing to offer anyone else.
    await list(['a2']);
    expect((await layer({ user: 'stranger@example.com', tickets: [ref('a2')] })).body.data.tickets[0]).toMatchObject({ status: 'NOT_SELLABLE', callToActions: [] });
    const es = await layer({ user: 'fan@example.com', tickets: [ref('a1')] }, '?lang=es');
    expect(es.body.data.tickets[0].callToActions[0]).toMatchObject({ key: 'SELL', text: 'Vender', url: `http://resale.test/sell/${p.id}/ticket/a1?lang=es` });
  });

  it('signs every URL with its own single-use token when autologin is true', async () => {
    const { layer, ref } = await setup();
    const res = await layer({ user: 'fan@example.com', autologin: true, tickets: [ref('a1'), ref('b1')] });
    const urls = res.body.data.tickets.flatMap((r: { callToActions: { url: string }[] }) => r.callToActions.map((c) => new URL(c.url)));
    const tokens = urls.map((u: URL) => u.searchParams.get('oneTimeToken'));
    expect(tokens.every((tok: string | null) => tok && tok.length >= 22)).toBe(true);
    expect(new Set(tokens).size).toBe(tokens.length);
  });
});

describe('sell access layer: orders mode', () => {
  const order = (orderId: string) => ({ orderId, eventId: 'tour', showId: 'show-1', combinations: [{ ticketOptionId: 'opt-field' }] });

  it('aggregates each order by the spec’s table', async () => {
    const { t, p, list, markSold, layer } = await setup();
    // order-a: a1, a2, a3 all sellable                       -> row 3: SELLABLE, SELL
    // order-b: b1 listed, b2 sellable                        -> row 2: SELLABLE, MANAGE
    // order-c: c1 + c2 listed together                        -> row 4: FOR_SALE, EDIT
    // order-d: d1 + d2 sold together                          -> row 5: SOLD, DETAILS
    // order-x: x1 admitted                                    -> row 1: NOT_SELLABLE
    await list(['b1']);
    const pack = await list(['c1', 'c2']);
    await markSold((await list(['d1', 'd2'])).id);
    await t.request('POST', '/v1/tickets/x1/eventAdmission', { key: p.keys.private });
    const res = await layer({ user: 'fan@example.com', orders: ['order-a', 'order-b', 'order-c', 'order-d', 'order-x', 'order-new'].map(order) });
    const rows = res.body.data.orders;
    expect(rows.map((r: { orderId: string; status: string; callToActions: { key: string }[] }) => [r.orderId, r.status, r.callToActions.map((c) => c.key).join()])).toEqual([
      ['order-a', 'SELLABLE', 'SELL'],
      ['order-b', 'SELLABLE', 'MANAGE'],
      ['order-c', 'FOR_SALE', 'EDIT,PENDING_PAYOUT_INFO'],
      ['order-d', 'SOLD', 'DETAILS,PENDING_PAYOUT_INFO'],
      ['order-x', 'NOT_SELLABLE', ''],
      ['order-new', 'SELLABLE', 'SELL'],
    ]);
    expect(rows[0].callToActions[0].url).toBe(`http://resale.test/sell/${p.id}/order/order-a?lang=en`);
    expect(rows[2].callToActions[0].url).toBe(`http://resale.test/sell/${p.id}/listings/${pack.id}?lang=en`);
    expect(rows[5].callToActions[0].url).toBe(`http://resale.test/sell/${p.id}/order/order-new?lang=en&sync=1&eventId=tour&showId=show-1`);
  });

  it('row 6: listed or sold tickets in different listings give FOR_SALE with MANAGE', async () => {
    const { list, markSold, layer } = await setup();
    await list(['a1']);
    await markSold((await list(['a2'])).id);
    await list(['a3']);
    const res = await layer({ user: 'fan@example.com', orders: [order('order-a')] });
    expect(res.body.data.orders[0]).toMatchObject({ status: 'FOR_SALE', callToActions: [{ key: 'MANAGE' }, { key: 'PENDING_PAYOUT_INFO' }] });
  });

  it('the table itself, row by row and in order', () => {
    const l = (id: string) => ({ id }) as Evaluated['listing'];
    const e = (status: Evaluated['status'], listing: string | null = null): Evaluated => ({ status, sync: true, listing: listing ? l(listing) : null });
    expect(aggregate([e('NOT_SELLABLE'), e('NOT_SELLABLE')])).toEqual({ status: 'NOT_SELLABLE', cta: null });
    expect(aggregate([e('SELLABLE'), e('SOLD', 'x')])).toEqual({ status: 'SELLABLE', cta: 'MANAGE' });
    expect(aggregate([e('SELLABLE'), e('SELLABLE')])).toEqual({ status: 'SELLABLE', cta: 'SELL' });
    expect(aggregate([e('FOR_SALE', 'x'), e('SOLD', 'x')])).toEqual({ status: 'FOR_SALE', cta: 'EDIT' });
    expect(aggregate([e('SOLD', 'x'), e('SOLD', 'x'), e('NOT_SELLABLE')])).toEqual({ status: 'SOLD', cta: 'DETAILS' });
    expect(aggregate([e('SOLD', 'x'), e('SOLD', 'y')])).toEqual({ status: 'FOR_SALE', cta: 'MANAGE' });
  });
});

describe('sell banner', () => {
  it('is returned, localised, with its call to action to smart publish, when configured', async () => {
    const { t, p, layer, ref } = await setup();
    const banner = {
      visible: true,
      title: { en: 'Can’t go?', es: '¿No puedes ir?' },
      description: { en: 'Resell safely at a fair price.', es: 'Revende con seguridad a un precio justo.' },
      ctaText: { en: 'Sell my ticket', es: 'Vender mi entrada' },
      colors: { background: '#0b4fb3', text: '#ffffff' },
    };
    const bad = await t.request('PATCH', `/admin/v1/partners/${p.id}`, { operator: true, body: { settings: { sellBanner: { ...banner, colors: { background: 'red', text: '#fff' }, image: 'http://x.example/i.png' } } } });
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['settings.sellBanner.colors.background', 'settings.sellBanner.colors.text', 'settings.sellBanner.image']);
    await t.request('PATCH', `/admin/v1/partners/${p.id}`, { operator: true, body: { settings: { sellBanner: banner } } });
    const res = await layer({ user: 'fan@example.com', tickets: [ref('a1')], autologin: true }, '?lang=es');
    const c = res.body.data.components[0];
    expect(c).toMatchObject({ type: 'banner', class: 'sellBanner', sellBanner: { title: '¿No puedes ir?', visible: true, image: null, colors: banner.colors, callToAction: { text: 'Vender mi entrada', enabled: true } } });
    const url = new URL(c.sellBanner.callToAction.url);
    expect(url.pathname).toBe(`/sell/${p.id}/start`);
    expect(url.searchParams.get('oneTimeToken')).toBeTruthy();
  });
});

describe('sell access layer: e-mail-only mode and bad input', () => {
  it('answers the seller’s sales flat and by order, or nothing without a flag', async () => {
    const { list, markSold, layer } = await setup();
    await markSold((await list(['d1', 'd2'], 5000)).id);
    await markSold((await list(['a1'], 4000)).id);
    expect((await layer({ user: 'fan@example.com' })).body.data).toEqual({});
    const res = await layer({ user: 'fan@example.com', includeTicketSales: true, includeOrderSales: true });
    expect(res.body.data.soldTickets.map((s: { ticketId: string; payout: number }) => [s.ticketId, s.payout]).sort()).toEqual([
      ['a1', 38],
      ['d1', 47.5],
      ['d2', 47.5],
    ]);
    const orders = res.body.data.soldOrders;
    expect(orders.map((o: { orderId: string; payout: number; tickets: unknown[] }) => [o.orderId, o.payout, o.tickets.length]).sort()).toEqual([
      ['order-a', 38, 1],
      ['order-d', 95, 2],
    ]);
    expect((await layer({ user: 'nobody@example.com', includeTicketSales: true })).body.data).toEqual({ soldTickets: [] });
  });

  it('refuses both tickets and orders, a missing or bad user, and the wrong keys', async () => {
    const { t, p, layer, ref } = await setup();
    const both = await layer({ user: 'fan@example.com', tickets: [ref('a1')], orders: [{ orderId: 'o', eventId: 'tour', showId: 'show-1', combinations: [] }] });
    expect(both.status).toBe(400);
    expect(both.body.errors[0]).toMatchObject({ path: 'orders', message: expect.stringMatching(/either tickets or orders/) });
    expect((await layer({ tickets: [ref('a1')] })).body.errors[0]).toMatchObject({ code: 'missing_field', path: 'user' });
    expect((await layer({ user: 'not-an-email', tickets: [ref('a1')] })).body.errors[0]).toMatchObject({ path: 'user' });
    expect((await layer({ user: 'fan@example.com', tickets: [{ eventId: 'tour' }] })).status).toBe(400);
    expect((await t.request('POST', '/v1/wrapper/accesslayer', { key: p.keys.public, body: { user: 'fan@example.com' } })).status).toBe(403);
    // Another partner's tickets are unknown here: evaluated as unsynchronised, never leaked.
    const other = await t.partner('Other');
    const foreign = await t.request('POST', '/v1/wrapper/accesslayer', { key: other.keys.private, body: { user: 'fan@example.com', tickets: [ref('a1')] } });
    expect(foreign.body.data.tickets[0]).toMatchObject({ status: 'NOT_SELLABLE', sync: false, callToActions: [] });
  });
});
