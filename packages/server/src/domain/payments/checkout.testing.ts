import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { expect } from 'vitest';
import { createTestApp } from '../../testing/harness.js';
import { ticketBody, withEvent } from '../../testing/factories.js';
import { inputValue, TestBrowser } from '../../http/pages/auth/auth.testing.js';
import type { PaymentProvider } from './payments.provider.js';
import type { PayoutProvider } from '../payouts/payouts.provider.js';

/**
 * A partner whose platform (a loopback server, pushed to `servers`) says seller@example.com
 * holds s1–s3 of show-1; `checkout(listingId)` opens a buy intention and the buyer's payment
 * URL in a browser; `pay` posts the sandbox card form.
 */
export async function checkoutSetup(servers: Server[], opts: { logger?: Logger; paymentProvider?: PaymentProvider; payoutProvider?: PayoutProvider } = {}) {
  const state = { owned: new Map<string, unknown[]>(), status: 200 };
  const server = createServer((req, res) => {
    if (state.status !== 200) return void res.writeHead(state.status).end();
    const list = state.owned.get(new URL(req.url!, 'http://x').searchParams.get('user') ?? '');
    if (!list) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(list));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  const t = createTestApp({}, { ...(opts.logger ? { logger: opts.logger } : {}), ...(opts.paymentProvider ? { paymentProvider: opts.paymentProvider } : {}), ...(opts.payoutProvider ? { payoutProvider: opts.payoutProvider } : {}) });
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

