import { inOrder } from '../lib/in-order.js';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../testing/harness.js';
import { eventBody, showBody, ticketBody, withEvent } from '../testing/factories.js';

const SVG = '<svg viewBox="0 0 100 100"><rect data-area="Field" x="0" y="0" width="50" height="50"/><script>alert(1)</script></svg>';

async function setup(settings = {}) {
  const t = createTestApp();
  const p = await t.partner('Acme', { allowedOrigins: ['https://acme.example'], ...settings });
  await withEvent(t, p, eventBody('tour', { seating: { svgCode: SVG }, shows: [showBody('show-1'), showBody('show-2', { date: '2026-05-02T21:00:00+02:00' })] }));
  await t.request('POST', '/v1/sync/tickets', {
    key: p.keys.private,
    body: [
      ticketBody('f1', { orderId: 'o-1', section: 'A', row: '1', seat: '1' }),
      ticketBody('f2', { orderId: 'o-1', section: 'A', row: '1', seat: '2' }),
      ticketBody('f3', { section: 'A', row: '2', seat: '5' }),
      ticketBody('v1', { ticketOptionId: 'opt-vip', price: 120 }),
    ],
  });
  const ticket = async (id: string) => await t.deps.tickets.get(t.db, p.id, id);
  const list = async (ids: string[], priceMinor: number) => await t.db.transact(async (tx) => await t.deps.listings.create(tx, p.id, { sellerPk: (await ticket(ids[0]!)).ownerPk, ticketPks: await inOrder(ids, async (i) => (await ticket(i)).id), priceMinor }));
  const get = (query: Record<string, string>, key: string | null = p.keys.public) => t.request('GET', `/v1/wrapper/seatmap?${new URLSearchParams(query)}`, { key });
  return { t, p, list, get };
}

describe('GET /v1/wrapper/seatmap', () => {
  it('answers the chart as stored (sanitised when received), areas with floor prices, listings cheapest first with seats, and the select URL', async () => {
    const { p, list, get } = await setup({ fees: { buyerPercent: 10 } });
    const pair = await list(['f1', 'f2'], 4000);
    const single = await list(['f3'], 3000);
    await list(['v1'], 10000);
    const res = await get({ eventId: 'tour', showId: 'show-1', lang: 'es' });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d.chart).toEqual({ svgCode: '<svg viewBox="0 0 100 100"><rect data-area="Field" x="0" y="0" width="50" height="50"></rect></svg>', image: null });
    expect(d.config).toEqual({ allowOrphanTicketSelection: false });
    expect(d.areas).toEqual([
      { area: 'Field', quantityForSale: 3, floorPrice: 33, currency: 'EUR', ticketOptionIds: ['opt-field'] },
      { area: 'Lounge', quantityForSale: 1, floorPrice: 110, currency: 'EUR', ticketOptionIds: ['opt-vip'] },
    ]);
    expect(d.listings.map((l: { listingId: string }) => l.listingId)).toEqual([single.id, pair.id, expect.any(String)]);
    expect(d.listings[1]).toEqual({
      listingId: pair.id,
      ticketOptionId: 'opt-field',
      area: 'Field',
      quantity: 2,
      price: 44,
      currency: 'EUR',
      seats: [
        { section: 'A', row: '1', seat: '1' },
        { section: 'A', row: '1', seat: '2' },
      ],
    });
    expect(d.selectUrl).toBe(`http://resale.test/market/${p.id}/tour/buy/pick?showId=show-1&lang=es`);
  });

  it('reflects the partner’s orphan-seat setting and an empty show', async () => {
    const { get } = await setup({ buyAccessLayer: { integratedMap: { allowOrphanTicketSelection: true } } });
    const res = await get({ eventId: 'tour', showId: 'show-2' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ config: { allowOrphanTicketSelection: true }, areas: [], listings: [] });
  });

  it('answers 404 for an unknown event or show and for another partner’s event; 400 without ids; 401 without a key', async () => {
    const { t, p, get } = await setup();
    expect((await get({ eventId: 'nope', showId: 'show-1' })).status).toBe(404);
    expect((await get({ eventId: 'tour', showId: 'show-9' })).status).toBe(404);
    const other = await t.partner('Other');
    expect((await get({ eventId: 'tour', showId: 'show-1' }, other.keys.public)).status).toBe(404);
    const missing = await get({ eventId: 'tour' });
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0]).toMatchObject({ code: 'missing_field', path: 'showId', in: 'query' });
    expect((await get({ eventId: 'tour', showId: 'show-1' }, null)).status).toBe(401);
    expect((await get({ eventId: 'tour', showId: 'show-1' }, p.keys.channels)).status).toBe(403);
  });

  it('answers CORS to the partner’s pages with the public key', async () => {
    const { t, p } = await setup();
    const res = await t.request('GET', '/v1/wrapper/seatmap?eventId=tour&showId=show-1', { key: p.keys.public, headers: { origin: 'https://acme.example' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://acme.example');
  });

  it('applies the map’s orphan-seat rule to the API’s buy intention: A6 alone would strand A5 (A4 is not for sale)', async () => {
    const t = createTestApp();
    const p = await t.partner('Acme');
    const svgCode = '<svg viewBox="0 0 40 10"><g data-area="Field"><g data-section="A" data-row="1"><circle data-seat="4"/><circle data-seat="5"/><circle data-seat="6"/></g></g></svg>';
    await withEvent(t, p, eventBody('tour', { seating: { svgCode } }));
    await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: ['5', '6'].map((seat) => ticketBody(`a${seat}`, { buyer: 'seller@example.com', section: 'A', row: '1', seat })) });
    const list = async (id: string) => {
      const ticket = await t.deps.tickets.get(t.db, p.id, id);
      return await t.db.transact(async (tx) => await t.deps.listings.create(tx, p.id, { sellerPk: ticket.ownerPk, ticketPks: [ticket.id], priceMinor: 4000 }));
    };
    const a5 = await list('a5');
    const a6 = await list('a6');
    const buy = (items: string[]) => t.request('POST', '/v1/marketplace/buyingflow/buyIntention', { key: p.keys.private, body: { items, user: 'buyer@example.com' } });
    const refused = await buy([a6.id]);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({ code: 'invalid_value', path: 'items', in: 'body' });
    expect(refused.body.errors[0].message).toContain('single empty seat');
    expect((await t.deps.listings.get(t.db, p.id, a6.id)).state).toBe('ACTIVE');
    expect((await buy([a5.id, a6.id])).status).toBe(200);
  });
});
