import { asc } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../testing/harness.js';
import { ticketBody, withEvent } from '../../testing/factories.js';
import { completePurchase } from '../../flows/complete-purchase.js';
import { WEBHOOK_DATA_SCHEMAS } from '../../domain/webhooks/webhooks.catalog.js';
import { webhookMessages } from '../../domain/webhooks/webhooks.table.js';
import { webhookBodyOf } from '../../domain/webhooks/webhooks.service.js';

/**
 * Every state change of a listing reaches the partner as `listing.updated` with the state
 * after it (as the webhook catalog documents), whichever module asked for the change:
 * the seller, a buyer's checkout (reserve, release, sale), the organiser or a ticket's fate.
 */
async function setup() {
  const t = createTestApp();
  const p = await t.partner();
  await withEvent(t, p);
  await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: ['a1', 'a2', 'a3', 'a4', 'a5'].map((id) => ticketBody(id)) });
  const ticket = async (id: string) => await t.deps.tickets.get(t.db, p.id, id);
  const list = async (id: string) => await t.db.transact(async (tx) => await t.deps.listings.create(tx, p.id, { sellerPk: (await ticket(id)).ownerPk, ticketPks: [(await ticket(id)).id], priceMinor: 4000 }));
  /** The listing.* webhooks of one listing, in the order they were put in the outbox. */
  const hooks = async (listingId: string) =>
    (await t.db
      .select()
      .from(webhookMessages)
      .orderBy(asc(webhookMessages.id)))
      .filter((m) => m.action.startsWith('listing.') && (webhookBodyOf(m).data as { listingId: string }).listingId === listingId)
      .map((m) => {
        const data = webhookBodyOf(m).data as { state: string; endReason?: string };
        // Each payload is what the catalog promises.
        expect(WEBHOOK_DATA_SCHEMAS[m.action as 'listing.updated'].safeParse(data).success).toBe(true);
        return `${m.action}:${data.state}${data.endReason ? `:${data.endReason}` : ''}`;
      });
  const buy = async (listingId: string) => (await t.request('POST', '/v1/marketplace/buyingflow/buyIntention', { key: p.keys.private, body: { items: [listingId], user: 'buyer@example.com' } })).body.data as { id: string };
  return { t, p, list, hooks, buy };
}

describe('listing.* webhooks', () => {
  it('say RESERVED when a checkout holds the listing, ACTIVE when it lets go, SOLD when paid', async () => {
    const { t, p, list, hooks, buy } = await setup();
    const l = await list('a1');
    const first = await buy(l.id);
    expect((await t.request('DELETE', `/v1/marketplace/buyingflow/buyIntention/${first.id}`, { key: p.keys.private })).status).toBe(200);
    const second = await buy(l.id);
    expect(await t.db.transact(async (tx) => await completePurchase(t.deps, tx, second.id, { provider: 'sandbox', providerRef: 'sbx_test' }))).toBe(true);
    expect(await hooks(l.id)).toEqual(['listing.created:ACTIVE', 'listing.updated:RESERVED', 'listing.updated:ACTIVE', 'listing.updated:RESERVED', 'listing.updated:SOLD']);
  });

  it('say ACTIVE again when a checkout expires or its payment fails', async () => {
    const { t, p, list, hooks, buy } = await setup();
    const l = await list('a2');
    const held = await buy(l.id);
    t.clock.advance(60 * 60 * 1000);
    expect(await t.deps.intentions.expireDue()).toBe(1);
    const again = await buy(l.id);
    await t.db.transact(async (tx) => await t.deps.intentions.fail(tx, again.id, 'card_declined'));
    expect((await t.deps.intentions.get(t.db, p.id, held.id)).state).toBe('EXPIRED');
    expect(await hooks(l.id)).toEqual(['listing.created:ACTIVE', 'listing.updated:RESERVED', 'listing.updated:ACTIVE', 'listing.updated:RESERVED', 'listing.updated:ACTIVE']);
  });

  it('say TERMINATED or DELISTED, with why, and then listing.deleted, when a listing ends unsold', async () => {
    const { t, p, list, hooks, buy } = await setup();
    const bySeller = await list('a3');
    const byTicket = await list('a4');
    const byOrganiser = await list('a5');
    const reserved = await buy(byOrganiser.id);
    expect((await t.request('DELETE', '/v1/marketplace/items/ticket/a3', { key: p.keys.private })).status).toBe(200);
    expect((await t.request('DELETE', '/v1/tickets/a4', { key: p.keys.private })).status).toBe(200);
    expect((await t.request('POST', '/v1/delist', { key: p.keys.private, body: { externalReferenceEventId: 'tour', showId: 'show-1' } })).status).toBe(200);
    expect(await hooks(bySeller.id)).toEqual(['listing.created:ACTIVE', 'listing.updated:TERMINATED:seller', 'listing.deleted:TERMINATED:seller']);
    expect(await hooks(byTicket.id)).toEqual(['listing.created:ACTIVE', 'listing.updated:TERMINATED:ticket_deleted', 'listing.deleted:TERMINATED:ticket_deleted']);
    // Delisted while a buyer held it: RESERVED, then DELISTED; the checkout ended with it.
    expect(await hooks(byOrganiser.id)).toEqual(['listing.created:ACTIVE', 'listing.updated:RESERVED', 'listing.updated:DELISTED:organiser', 'listing.deleted:DELISTED:organiser']);
    expect(await t.deps.intentions.get(t.db, p.id, reserved.id)).toMatchObject({ state: 'CANCELLED', endReason: 'delisted' });
  });

  it('say the new price, state unchanged, on a reprice', async () => {
    const { t, p, list, hooks } = await setup();
    const l = await list('a1');
    await t.db.transact(async (tx) => await t.deps.listings.updatePrice(tx, p.id, l.id, l.sellerPk, 4200));
    expect(await hooks(l.id)).toEqual(['listing.created:ACTIVE', 'listing.updated:ACTIVE']);
    const last = (await t.db.select().from(webhookMessages).orderBy(asc(webhookMessages.id))).at(-1)!;
    expect(webhookBodyOf(last).data).toMatchObject({ listingId: l.id, price: 42, state: 'ACTIVE' });
  });
});
