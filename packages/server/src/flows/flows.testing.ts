import { createTestApp } from '../testing/harness.js';
import { ticketBody, withEvent } from '../testing/factories.js';
import { ownershipEndpoint } from '../testing/platform.js';
import { closedPort } from '../domain/webhooks/webhooks.testing.js';
import { SANDBOX_CARDS } from '../domain/payments/payments.provider.js';
import { checkout } from './checkout.js';
import { reserveListings } from './reserve-listings.js';

/** A sandbox card of this number, valid until 2030. */
export const card = (number: string) => ({ number, expMonth: 12, expYear: 2030, cvc: '123' });

/**
 * The use cases that span modules, driven as a JSON checkout or a worker would drive them:
 * no page, no HTTP route in between. Seller `seller@example.com` holds s1–s4 of show-1 and
 * the partner's platform (a loopback server) says so.
 */
export async function setup(opts: { platformDown?: boolean; partnerName?: string } = {}) {
  const t = createTestApp();
  const owned = new Map<string, unknown[]>();
  const ownershipUrl = opts.platformDown ? `http://127.0.0.1:${await closedPort()}/owned` : await ownershipEndpoint(owned);
  const p = await t.partner(opts.partnerName ?? 'Acme', { ownershipUrl });
  await withEvent(t, p);
  const ids = ['s1', 's2', 's3', 's4'];
  await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: ids.map((id) => ticketBody(id, { buyer: 'seller@example.com' })) });
  owned.set('seller@example.com', ids.map((ticketId) => ({ eventId: 'tour', showId: 'show-1', ticketId, ticketOptionId: 'opt-field' })));
  const partner = await t.deps.partners.get(p.id);
  const buyer = await t.db.transact(async (tx) => await t.deps.users.resolve(tx, p.id, { email: 'buyer@example.com' }));
  const ticket = async (id: string) => await t.deps.tickets.get(t.db, p.id, id);
  const list = async (id: string) => await t.db.transact(async (tx) => await t.deps.listings.create(tx, p.id, { sellerPk: (await ticket(id)).ownerPk, ticketPks: [(await ticket(id)).id], priceMinor: 4000 }));
  const reserve = async (listingId: string) => await t.db.transact(async (tx) => await reserveListings(t.deps, tx, { partner, listingIds: [listingId], buyerPk: buyer.id }));
  const pay = (intention: Awaited<ReturnType<typeof reserve>>, number: string = SANDBOX_CARDS.success) => checkout(t.deps, { partner, intention, buyerPk: buyer.id, card: card(number) });
  return { t, p, owned, partner, buyer, ticket, list, reserve, pay };
}

