import type { Logger } from 'pino';
import { expect } from 'vitest';
import { inOrder } from '../../lib/in-order.js';
import { createTestApp, type TestApp, type TestPartner } from '../../testing/harness.js';
import { eventBody, showBody, ticketBody, withEvent } from '../../testing/factories.js';
import type { PartnerSettingsPatch } from '../../domain/partners/partners.settings.js';
import { buyAccessLayerRoutes } from '../../http/api/accesslayer.buy.routes.js';

/** The buy access layer's test fixture (accesslayer.buy.test.ts and its SQLite-only part). */

/**
 * Event `tour`, show-1 with four ticket options in this order:
 * - opt-field  45.50 EUR, area Field
 * - opt-vip   120.00 EUR, area Lounge
 * - opt-box   200.00 EUR, area Lounge, webVisibility false
 * - opt-stand  30.00 EUR, no area
 * and show-2 (opt-field, opt-vip). Partner fees: buyer 10 %, so a listing at 40.00 costs the buyer 44.00 per ticket.
 */
const SHOW_1 = showBody('show-1', {
  ticketOptions: [
    { ticketId: 'opt-field', title: 'General field', description: 'Standing', currency: 'EUR', price: 45.5, area: 'Field' },
    { ticketId: 'opt-vip', title: 'VIP', description: 'Lounge access', currency: 'EUR', price: 120, area: 'Lounge' },
    { ticketId: 'opt-box', title: 'Box', description: 'Private box', currency: 'EUR', price: 200, area: 'Lounge', webVisibility: false },
    { ticketId: 'opt-stand', title: 'Standing', description: 'Back', currency: 'EUR', price: 30 },
  ],
});

export async function setup(opts: { seating?: boolean; settings?: PartnerSettingsPatch; logger?: Logger } = {}) {
  const t = createTestApp({}, opts.logger ? { logger: opts.logger } : {});
  mountBuy(t);
  const p = await t.partner('Acme Tickets', opts.settings ?? {});
  await withEvent(t, p, eventBody('tour', { shows: [SHOW_1, showBody('show-2')], ...(opts.seating ? { seating: { svgCode: '<svg viewBox="0 0 10 10"/>' } } : {}) }));
  const sync = await t.request('POST', '/v1/sync/tickets', {
    key: p.keys.private,
    body: [
      ticketBody('f1', { orderId: 'o-1', section: 'A', row: '1', seat: '2' }),
      ticketBody('f2', { orderId: 'o-1', section: 'A', row: '1', seat: '1' }),
      ticketBody('f3'),
      ticketBody('f4'),
      ticketBody('v1', { ticketOptionId: 'opt-vip', price: 120 }),
      ticketBody('v2', { ticketOptionId: 'opt-vip', price: 120 }),
      ticketBody('b1', { ticketOptionId: 'opt-box', price: 200 }),
      ticketBody('s1', { ticketOptionId: 'opt-stand', price: 30 }),
      ticketBody('x1', { showId: 'show-2' }),
    ],
  });
  expect(sync.status).toBe(200);
  return { t, p, ...helpers(t, p) };
}

/** Mounts the router unless app.ts already does (the wiring is added there separately). */
function mountBuy(t: TestApp) {
  if (!t.app.routes.some((r) => r.method === 'POST' && r.path === '/v1/wrapper/accesslayer/bulk')) t.app.route('/', buyAccessLayerRoutes(t.deps));
}

function helpers(t: TestApp, p: TestPartner) {
  const ticket = async (id: string) => await t.deps.tickets.get(t.db, p.id, id);
  const list = async (ids: string[], priceMinor: number) => await t.db.transact(async (tx) => await t.deps.listings.create(tx, p.id, { sellerPk: (await ticket(ids[0]!)).ownerPk, ticketPks: await inOrder(ids, async (id) => (await ticket(id)).id), priceMinor }));
  const reprice = async (listingId: string, priceMinor: number) => await t.db.transact(async (tx) => await t.deps.listings.updatePrice(tx, p.id, listingId, (await t.deps.listings.get(tx, p.id, listingId)).sellerPk, priceMinor));
  const terminate = async (ticketId: string) => await t.db.transact(async (tx) => await t.deps.listings.terminateByTicket(tx, p.id, ticketId));
  const buy = (query: Record<string, string> = {}, key: string | null = p.keys.public, headers: Record<string, string> = {}) =>
    t.request('GET', `/v1/wrapper/accesslayer?${new URLSearchParams({ type: 'buy', eventId: 'tour', showId: 'show-1', ...query })}`, { key, headers });
  const bulk = (body: unknown, query: Record<string, string> = {}, key: string = p.keys.public) =>
    t.request('POST', `/v1/wrapper/accesslayer/bulk?${new URLSearchParams({ type: 'buy', ...query })}`, { key, body });
  const settings = (buyAccessLayer: unknown) => t.request('PATCH', `/admin/v1/partners/${p.id}`, { operator: true, body: { settings: { buyAccessLayer } } });
  return { ticket, list, reprice, terminate, buy, bulk, settings };
}
