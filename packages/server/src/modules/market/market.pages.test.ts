import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../testing/harness.js';
import { ticketBody, withEvent } from '../../testing/factories.js';

async function setup() {
  const t = createTestApp();
  const p = t.partner();
  await withEvent(t, p);
  await t.request('POST', '/v1/sync/tickets', {
    key: p.keys.private,
    body: [ticketBody('m1', { section: 'A', row: '2', seat: '7' }), ticketBody('m2', { orderId: 'o', ticketOptionId: 'opt-vip', priceTypeId: 'pt-standard' }), ticketBody('m3', { orderId: 'o', ticketOptionId: 'opt-vip', priceTypeId: 'pt-standard' }), ticketBody('m4')],
  });
  const ticket = (id: string) => t.deps.tickets.get(t.db, p.id, id);
  const list = (ids: string[], price: number) => t.db.transaction((tx) => t.deps.listings.create(tx, p.id, { sellerPk: ticket(ids[0]!).ownerPk, ticketPks: ids.map((i) => ticket(i).id), priceMinor: price }));
  const page = async (query = '') => {
    const res = await t.app.request(`/market/${p.id}/tour${query}`);
    return { status: res.status, html: await res.text() };
  };
  return { t, p, list, page };
}

describe('market page', () => {
  it('shows the show’s offers by category, cheapest first, with the buyer fee included', async () => {
    const { list, page } = await setup();
    list(['m4'], 5000);
    list(['m1'], 4000);
    const pack = list(['m2', 'm3'], 10000);
    const { status, html } = await page('?showId=show-1');
    expect(status).toBe(200);
    expect(html).toContain('<h1>The Big Tour 2026</h1>');
    expect(html.indexOf('€44.00')).toBeLessThan(html.indexOf('€55.00'));
    expect(html).toContain('Field · General field');
    expect(html).toContain('Lounge · VIP');
    expect(html).toContain('Section A · Row 2 · Seat 7');
    expect(html).toContain('2 tickets, sold together');
    const shared = await page(`?showId=show-1&listingId=${pack.id}`);
    expect(shared.html).toContain('aria-current="true"');
    expect(shared.html).toContain('The ticket you were sent');
  });

  it('filters by ticket option, marks a shared ticket, and links the other dates', async () => {
    const { list, page } = await setup();
    list(['m1'], 4000);
    const filtered = await page('?showId=show-1&ticketOptionId=opt-vip');
    expect(filtered.html).toContain('No tickets are for sale for this show right now.');
    const byTicket = await page('?showId=show-1&ticketId=m1&lang=es');
    expect(byTicket.html).toContain('La entrada que te han enviado');
    expect(byTicket.html).toContain('Otras fechas');
    expect(byTicket.html).toContain('showId=show-2');
  });

  it('says when a show is cancelled, and answers 404 for unknown or foreign events', async () => {
    const { t, p, list, page } = await setup();
    list(['m1'], 4000);
    await t.request('POST', '/v1/events/tour/cancellation?showId=show-1', { key: p.keys.private });
    const cancelled = await page('?showId=show-1');
    expect(cancelled.html).toContain('This show has been cancelled.');
    expect(cancelled.html).not.toContain('€44.00');
    expect((await t.app.request(`/market/${p.id}/nope`)).status).toBe(404);
    expect((await t.app.request('/market/ptr_nope/tour')).status).toBe(404);
    const other = t.partner('Other');
    expect((await t.app.request(`/market/${other.id}/tour`)).status).toBe(404);
  });
});
