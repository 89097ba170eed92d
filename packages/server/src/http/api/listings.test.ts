import { inOrder } from '../../lib/in-order.js';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestPartner } from '../../testing/harness.js';
import { ticketBody, withEvent } from '../../testing/factories.js';
import { tickets } from '../../domain/tickets/tickets.table.js';
import { listings } from '../../domain/listings/listings.table.js';
import { reserveListings } from '../../flows/reserve-listings.js';

/**
 * Event `tour`: show-1 (price detail: opt-field 45.50 EUR, combos field+early 39, field+standard 45.50,
 * vip+standard 120) and show-2 (standard model). Partner fees: buyer 10 %, seller 5 %.
 */
async function setup() {
  const t = createTestApp();
  const p = await t.partner();
  await withEvent(t, p);
  await t.request('POST', '/v1/sync/tickets', {
    key: p.keys.private,
    body: [
      ticketBody('a1', { orderId: 'o-1' }),
      ticketBody('a2', { orderId: 'o-1' }),
      ticketBody('a3', { orderId: 'o-2' }),
      ticketBody('e1', { priceTypeId: 'pt-early', price: 39 }),
      ticketBody('v1', { ticketOptionId: 'opt-vip', priceTypeId: 'pt-standard', price: 120 }),
      ticketBody('s2', { showId: 'show-2' }),
      ticketBody('other', { buyer: 'someone@example.com' }),
    ],
  });
  return { t, p, ...helpers(t, p) };
}

function helpers(t: TestApp, p: TestPartner) {
  const ticket = async (id: string) => await t.deps.tickets.get(t.db, p.id, id);
  const list = async (ids: string[], priceMinor: number | null) =>
    await t.db.transact(async (tx) => await t.deps.listings.create(tx, p.id, { sellerPk: (await ticket(ids[0]!)).ownerPk, ticketPks: await inOrder(ids, async (id) => (await ticket(id)).id), priceMinor }));
  const rules = (items: unknown[]) => t.request('POST', '/v1/rules', { key: p.keys.private, body: items });
  const rule = (ruleType: string, ruleBody: unknown, extra: Record<string, unknown> = {}) =>
    rules([{ externalReferenceEventId: 'tour', showId: 'show-1', ticketOptionId: 'opt-field', ruleType, rules: ruleBody, ...extra }]);
  return { ticket, list, rule, rules };
}

describe('creating a listing', () => {
  it('lists a ticket with its fee breakdown, marks it LISTED, and tells the partner', async () => {
    const { t, p, list, ticket } = await setup();
    const l = await list(['a3'], 4550);
    expect(l).toMatchObject({ state: 'ACTIVE', quantity: 1, currency: 'EUR', priceMinor: 4550, buyerFeeMinor: 455, sellerFeeMinor: 228, payoutMinor: 4322 });
    expect((await ticket('a3')).state).toBe('LISTED');
    const api = (await t.request('GET', '/v1/marketplace/listings/ticket/a3', { key: p.keys.private })).body.data;
    expect(api).toMatchObject({
      id: l.id,
      ticketIds: ['a3'],
      externalReferenceEventId: 'tour',
      showId: 'show-1',
      ticketOptionId: 'opt-field',
      priceTypeId: null,
      seller: { email: 'fan@example.com' },
      state: 'ACTIVE',
      price: 45.5,
      buyerFee: 4.55,
      buyerTotal: 50.05,
      sellerFee: 2.28,
      payout: 43.22,
      shareUrl: `http://resale.test/market/${p.id}/tour?showId=show-1&listingId=${l.id}`,
    });
    const hook = (await t.deps.webhooks.list(p.id, { action: 'listing.created' }))[0]!.message.payload;
    expect(hook).toEqual({ family: 'listing', action: 'listing.created', data: { listingId: l.id, ticketIds: ['a3'], eventId: 'tour', showId: 'show-1', ticketOptionId: 'opt-field', price: 45.5, currency: 'EUR', state: 'ACTIVE' } });
  });

  it('sells the tickets of one order as one pack, and refuses mixed packs', async () => {
    const { list } = await setup();
    await expect(list(['a1', 'a3'], 4000)).rejects.toThrow(/tickets of one order/);
    await expect(list(['a1', 's2'], 4000)).rejects.toThrow(/share show, ticket option and price type/);
    const pack = list(['a1', 'a2'], 4000);
    expect(await pack).toMatchObject({ quantity: 2, orderId: 'o-1' });
  });

  it('never lists a ticket twice, nor one that cannot be sold', async () => {
    const { t, p, list } = await setup();
    await list(['a3'], 4000);
    await expect(list(['a3'], 4100)).rejects.toThrow(/cannot be listed now/);
    await t.request('POST', '/v1/tickets/e1/eventAdmission', { key: p.keys.private });
    await expect(list(['e1'], 3000)).rejects.toThrow(/cannot be listed now/);
    await t.request('PUT', '/v1/events', { key: p.keys.private, body: { externalReferenceId: 'tour', shows: [{ showId: 'show-2', resaleEnabled: false }] } });
    await expect(list(['s2'], 3000)).rejects.toThrow(/Resale is closed/);
    t.clock.set('2026-05-01T19:00:00Z');
    await expect(list(['a1'], 3000)).rejects.toThrow(/show has started/);
    await expect(t.db.transact(async (tx) => await t.deps.listings.create(tx, p.id, { sellerPk: (await t.deps.tickets.get(t.db, p.id, 'a1')).ownerPk, ticketPks: [(await t.deps.tickets.get(t.db, p.id, 'other')).id], priceMinor: 1 }))).rejects.toThrow(/No ticket 'other'/);
  });
});

describe('price rules', () => {
  it('applies ABSOLUTE and PERCENTAGE limits of the original price, naming the allowed range', async () => {
    const { rule, list, t } = await setup();
    await rule('maxPriceSellConfig', { type: 'PERCENTAGE', value: 100 });
    await rule('minPriceSellConfig', { type: 'ABSOLUTE', value: 20 });
    await expect(list(['a3'], 4551)).rejects.toThrow('The price must be at most 45.5 EUR');
    await expect(list(['a3'], 1999)).rejects.toThrow('The price must be at least 20 EUR');
    expect((await list(['a3'], 4550)).priceMinor).toBe(4550);
    const partnerId = (await t.deps.partners.list())[0]!.id;
    const q = await t.db.transact(async (tx) => await t.deps.listings.quote(tx, await t.deps.tickets.get(t.db, partnerId, 'a1'), 3000));
    expect(q.limits).toEqual({ originalMinor: 4550, minMinor: 2000, maxMinor: 4550, fixedMinor: null, cap: null });
    expect(q.breakdown).toEqual({ priceMinor: 3000, buyerFeeMinor: 300, buyerTotalMinor: 3300, sellerFeeMinor: 150, payoutMinor: 2850 });
  });

  it('takes the combination’s price as the original price, and a combination rule over the option’s', async () => {
    const { rule, list } = await setup();
    await rule('maxPriceSellConfig', { type: 'PERCENTAGE', value: 110 });
    // e1 is field + early: its original price is the combination's 39, so 110 % is 42.90.
    await expect(list(['e1'], 4291)).rejects.toThrow('The price must be at most 42.9 EUR');
    await rule('maxPriceSellConfig', { type: 'ABSOLUTE', value: 60 }, { priceTypeId: 'pt-early' });
    expect((await list(['e1'], 5999)).priceMinor).toBe(5999);
  });

  it('fixes the price when fixedListingPrice applies', async () => {
    const { rule, list } = await setup();
    await rule('fixedListingPrice', { type: 'PERCENTAGE', value: 100 });
    await expect(list(['a3'], 5000)).rejects.toThrow('The price of this ticket is fixed at 45.5 EUR');
    expect((await list(['a3'], null)).priceMinor).toBe(4550);
    expect((await list(['a1', 'a2'], 4550)).priceMinor).toBe(4550);
  });

  it('lays platformFees over the partner’s fees, and refuses a price that leaves the seller nothing', async () => {
    const { rule, list } = await setup();
    await rule('platformFees', { sellerPercent: 0, sellerFixed: 1, buyerPercent: 7.5 });
    expect(await list(['a3'], 1999)).toMatchObject({ buyerFeeMinor: 150, sellerFeeMinor: 100, payoutMinor: 1899 });
    await expect(list(['a1'], 100)).rejects.toThrow('The price must be more than the seller fee');
  });

  it('limits how many tickets one seller lists per show (maxSell)', async () => {
    const { rule, list } = await setup();
    await rule('maxSell', { maxTickets: 2 });
    await list(['a3'], 4000);
    await expect(list(['a1', 'a2'], 4000)).rejects.toThrow('At most 2 tickets per seller may be listed or sold for this show');
    await list(['e1'], 3000);
  });
});

describe('ending listings', () => {
  it('terminates through the API; the ticket is unlisted again and the partner told', async () => {
    const { t, p, list, ticket } = await setup();
    const l = await list(['a3'], 4000);
    const res = await t.request('DELETE', '/v1/marketplace/items/ticket/a3', { key: p.keys.private });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: l.id, state: 'TERMINATED', endReason: 'seller' });
    expect((await ticket('a3')).state).toBe('VALID');
    expect(await t.deps.webhooks.list(p.id, { action: 'listing.deleted' })).toHaveLength(1);
    expect((await t.request('DELETE', '/v1/marketplace/items/ticket/a3', { key: p.keys.private })).status).toBe(404);
    // The latest listing still reads back.
    expect((await t.request('GET', '/v1/marketplace/listings/ticket/a3', { key: p.keys.private })).body.data.state).toBe('TERMINATED');
    await list(['a3'], 4100);
  });

  it('refuses to pull a listing from under a buyer in checkout (409)', async () => {
    const { t, p, list } = await setup();
    const l = await list(['a3'], 4000);
    // What the buy side's reservation does: ACTIVE -> RESERVED.
    await t.db.update(listings).set({ state: 'RESERVED', intentionId: 'bi_test' }).where(eq(listings.id, l.id));
    const res = await t.request('DELETE', '/v1/marketplace/items/ticket/a3', { key: p.keys.private });
    expect(res.status).toBe(409);
    expect((await t.deps.listings.get(t.db, p.id, l.id)).state).toBe('RESERVED');
  });

  it('ends the listing when a ticket stops being sellable, freeing the rest of its pack', async () => {
    const { t, p, list, ticket } = await setup();
    const pack = await list(['a1', 'a2'], 4000);
    await t.request('DELETE', '/v1/tickets/a2', { key: p.keys.private });
    expect(await t.deps.listings.get(t.db, p.id, pack.id)).toMatchObject({ state: 'TERMINATED', endReason: 'ticket_deleted' });
    expect([(await ticket('a1')).state, (await ticket('a2')).state]).toEqual(['VALID', 'DELETED']);

    const single = await list(['a3'], 4000);
    await t.request('PUT', '/v1/tickets/a3', { key: p.keys.private, body: { buyer: 'new@example.com' } });
    expect(await t.deps.listings.get(t.db, p.id, single.id)).toMatchObject({ state: 'TERMINATED', endReason: 'ticket_owner_changed' });
    expect((await ticket('a3')).state).toBe('VALID');

    const e = await list(['e1'], 3000);
    await t.request('POST', '/v1/events/tour/cancellation?showId=show-1', { key: p.keys.private });
    expect(await t.deps.listings.get(t.db, p.id, e.id)).toMatchObject({ state: 'TERMINATED', endReason: 'ticket_cancelled' });
    expect((await ticket('e1')).state).toBe('CANCELLED');
  });

  it('answers 404 for unknown, foreign, unlisted tickets and for another seller by e-mail', async () => {
    const { t, p, list } = await setup();
    await list(['a3'], 4000);
    const other = await t.partner('Other');
    expect((await t.request('GET', '/v1/marketplace/listings/ticket/a3', { key: other.keys.private })).status).toBe(404);
    expect((await t.request('DELETE', '/v1/marketplace/items/ticket/a3', { key: other.keys.private })).status).toBe(404);
    expect((await t.request('GET', '/v1/marketplace/listings/ticket/a1', { key: p.keys.private })).status).toBe(404);
    expect((await t.request('GET', '/v1/marketplace/listings/ticket/a3?sellerEmail=FAN@example.com', { key: p.keys.private })).status).toBe(200);
    expect((await t.request('GET', '/v1/marketplace/listings/ticket/a3?sellerEmail=x@example.com', { key: p.keys.private })).status).toBe(404);
    expect((await t.request('GET', '/v1/marketplace/listings/ticket/a3?sellerEmail=nope', { key: p.keys.private })).status).toBe(400);
    expect((await t.request('GET', '/v1/marketplace/listings/ticket/a3', { key: p.keys.public })).status).toBe(403);
  });
});

describe('POST /v1/delist', () => {
  it('delists by show, ticket option or combination, e-mails each seller, with the public key too', async () => {
    const { t, p, list } = await setup();
    const field = await list(['a3'], 4000);
    const early = await list(['e1'], 3000);
    const vip = await list(['v1'], 10000);
    const s2 = await list(['s2'], 4000);
    const combo = await t.request('POST', '/v1/delist', { key: p.keys.public, body: { externalReferenceEventId: 'tour', showId: 'show-1', ticketOptionId: 'opt-field', priceTypeId: 'pt-early' } });
    expect(combo.body.data).toEqual({ delisted: 1, listingIds: [early.id] });
    const option = await t.request('POST', '/v1/delist', { key: p.keys.private, body: { externalReferenceEventId: 'tour', showId: 'show-1', ticketOptionId: 'opt-field' } });
    expect(option.body.data).toEqual({ delisted: 1, listingIds: [field.id] });
    const show = await t.request('POST', '/v1/delist', { key: p.keys.private, body: { externalReferenceEventId: 'tour', showId: 'show-1' } });
    expect(show.body.data).toEqual({ delisted: 1, listingIds: [vip.id] });
    expect((await t.deps.listings.get(t.db, p.id, s2.id)).state).toBe('ACTIVE');
    expect(await t.deps.listings.get(t.db, p.id, vip.id)).toMatchObject({ state: 'DELISTED', endReason: 'organiser' });
    expect((await t.deps.messages.list()).filter((m) => m.template === 'delistNotice')).toHaveLength(3);
    expect((await t.db.select().from(tickets).where(eq(tickets.state, 'LISTED'))).map((x) => x.ticketId)).toEqual(['s2']);
  });

  it('delists a listing in a buyer’s checkout too, ending that checkout (the organiser never waits on a hold)', async () => {
    const { t, p, list } = await setup();
    const a = await list(['a3'], 4000);
    const b = await list(['e1'], 3000);
    const partner = await t.deps.partners.get(p.id);
    const held = await t.db.transact(async (tx) => await reserveListings(t.deps, tx, { partner, listingIds: [b.id], buyerPk: null }));
    expect((await t.deps.listings.get(t.db, p.id, b.id)).state).toBe('RESERVED');
    const res = await t.request('POST', '/v1/delist', { key: p.keys.private, body: { externalReferenceEventId: 'tour', showId: 'show-1' } });
    expect(res.status).toBe(200);
    expect(res.body.data.delisted).toBe(2);
    expect((await t.deps.listings.get(t.db, p.id, a.id)).state).toBe('DELISTED');
    expect(await t.deps.listings.get(t.db, p.id, b.id)).toMatchObject({ state: 'DELISTED', intentionId: null });
    expect(await t.deps.intentions.get(t.db, p.id, held.id)).toMatchObject({ state: 'CANCELLED', endReason: 'delisted' });
    expect((await t.deps.messages.list()).filter((msg) => msg.template === 'delistNotice')).toHaveLength(2);
  });

  it('refuses unknown or foreign scopes, bad bodies and the channels key', async () => {
    const { t, p } = await setup();
    const other = await t.partner('Other');
    const body = { externalReferenceEventId: 'tour', showId: 'show-1' };
    expect((await t.request('POST', '/v1/delist', { key: other.keys.private, body })).status).toBe(404);
    expect((await t.request('POST', '/v1/delist', { key: p.keys.private, body: { ...body, showId: 'x' } })).status).toBe(404);
    expect((await t.request('POST', '/v1/delist', { key: p.keys.private, body: { ...body, ticketOptionId: 'x' } })).status).toBe(404);
    expect((await t.request('POST', '/v1/delist', { key: p.keys.private, body: { ...body, priceTypeId: 'pt-early' } })).body.errors[0]).toMatchObject({ code: 'missing_field', path: 'ticketOptionId' });
    expect((await t.request('POST', '/v1/delist', { key: p.keys.private, body: { externalReferenceEventId: 'tour' } })).body.errors[0]).toMatchObject({ code: 'missing_field', path: 'showId' });
    expect((await t.request('POST', '/v1/delist', { key: p.keys.channels, body })).status).toBe(403);
    expect((await t.request('POST', '/v1/delist', { key: p.keys.private, body: { ...body, extra: 1 } })).status).toBe(400);
  });
});
