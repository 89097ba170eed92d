import { inOrder } from '../../lib/in-order.js';
import { eq } from 'drizzle-orm';
import { returnToTag } from '../../domain/auth/auth.urls.js';
import { describe, expect, it, vi } from 'vitest';
import { createTestApp } from '../../testing/harness.js';
import { ticketBody, withEvent } from '../../testing/factories.js';
import { listings } from '../../domain/listings/listings.table.js';
import { buyIntentions } from '../../domain/intentions/intentions.table.js';

async function setup(n = 4) {
  const t = createTestApp();
  const p = await t.partner();
  await withEvent(t, p);
  const ids = Array.from({ length: n }, (_, i) => `s${i}`);
  await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [...ids.map((id) => ticketBody(id, { buyer: 'seller@example.com' })), ticketBody('vip', { buyer: 'seller@example.com', ticketOptionId: 'opt-vip', priceTypeId: 'pt-standard' })] });
  const ticket = async (id: string) => await t.deps.tickets.get(t.db, p.id, id);
  const list = async (id: string, price = 4000) => await t.db.transact(async (tx) => await t.deps.listings.create(tx, p.id, { sellerPk: (await ticket(id)).ownerPk, ticketPks: [(await ticket(id)).id], priceMinor: price }));
  const lst = await inOrder(ids, async (id, i) => await list(id, 4000 + i * 100));
  const buy = (items: string[], user = 'buyer@example.com', headers: Record<string, string> = {}) => t.request('POST', '/v1/marketplace/buyingflow/buyIntention', { key: p.keys.private, body: { items, user }, headers });
  const state = async (id: string) => (await t.deps.listings.get(t.db, p.id, id)).state;
  return { t, p, lst, buy, state, list };
}

describe('buy intentions', () => {
  it('reserves exactly the listings, totals the fees, and answers a signed payment URL', async () => {
    const { t, p, lst, buy, state } = await setup();
    const res = await buy([lst[0]!.id, lst[1]!.id]);
    expect(res.status).toBe(200);
    const bi = res.body.data;
    expect(bi).toMatchObject({ state: 'PENDING', currency: 'EUR', total: 44 + 45.1, expiresAt: '2026-03-01T12:10:00.000Z', buyer: { email: 'buyer@example.com' } });
    expect(bi.items).toEqual([
      { listingId: lst[0]!.id, ticketIds: ['s0'], quantity: 1, price: 40, buyerFee: 4, subtotal: 44 },
      { listingId: lst[1]!.id, ticketIds: ['s1'], quantity: 1, price: 41, buyerFee: 4.1, subtotal: 45.1 },
    ]);
    const url = new URL(bi.paymentUrl);
    expect(url.pathname).toBe(`/checkout/${p.id}/${bi.id}`);
    expect(url.searchParams.get('oneTimeToken')).toBeTruthy();
    expect(await Promise.all([state(lst[0]!.id), state(lst[1]!.id), state(lst[2]!.id)])).toEqual(['RESERVED', 'RESERVED', 'ACTIVE']);
    // The seller cannot pull a reserved listing.
    expect((await t.request('DELETE', '/v1/marketplace/items/ticket/s0', { key: p.keys.private })).status).toBe(409);
    const read = await t.request('GET', `/v1/marketplace/buyingflow/buyIntention/${bi.id}`, { key: p.keys.private });
    expect(read.body.data.state).toBe('PENDING');
  });

  it('never reserves a listing twice: an overlapping intention fails whole', async () => {
    const { lst, buy, state } = await setup();
    expect((await buy([lst[0]!.id])).status).toBe(200);
    const second = await buy([lst[1]!.id, lst[0]!.id]);
    expect(second.status).toBe(409);
    expect(second.body.errors[0].message).toMatch(/no longer available/);
    expect(await state(lst[1]!.id)).toBe('ACTIVE');
  });

  it('refuses a pick already taken from a read, opening no write transaction, and counts the refusal', async () => {
    const { t, lst, buy, state } = await setup();
    expect((await buy([lst[0]!.id])).status).toBe(200);
    const writes = vi.spyOn(t.db, 'transact');
    const refused = await buy([lst[1]!.id, lst[0]!.id], 'late@example.com');
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0]).toMatchObject({ message: 'One or more of these tickets are no longer available' });
    expect(writes).not.toHaveBeenCalled();
    const checkoutUrl = await t.request('POST', '/v1/marketplace/checkout/url', { key: (await t.partner('Other')).keys.private, body: { listingIds: [lst[0]!.id] } });
    expect(checkoutUrl.status).toBe(404);
    writes.mockRestore();
    expect(await state(lst[1]!.id)).toBe('ACTIVE');
    const metrics = await (await t.app.request('/metrics', { headers: { authorization: `Bearer ${t.deps.config.operatorToken}` } })).text();
    expect(metrics).toMatch(/resale_buy_intentions_total\{[^}]*reason="listing_unavailable"[^}]*\} 1/);
  });

  it('holds under many concurrent requests over overlapping listings', async () => {
    const { t, lst, buy } = await setup(10);
    const ids = lst.map((l) => l.id);
    const picks = Array.from({ length: 60 }, (_, i) => [ids[i % 10]!, ids[(i * 7 + 3) % 10]!].filter((v, j, a) => a.indexOf(v) === j));
    const results = await Promise.all(picks.map((items, i) => buy(items, `buyer${i}@example.com`)));
    const won = results.filter((r) => r.status === 200).map((r) => r.body.data);
    expect(results.every((r) => r.status === 200 || r.status === 409)).toBe(true);
    const held = won.flatMap((bi) => bi.items.map((it: { listingId: string }) => it.listingId));
    expect(new Set(held).size).toBe(held.length);
    const reserved = await t.db.select().from(listings).where(eq(listings.state, 'RESERVED'));
    expect(reserved.map((l) => l.id).sort()).toEqual([...held].sort());
    for (const l of reserved) expect(won.find((bi) => bi.id === l.intentionId)).toBeDefined();
  });

  it('expires after the partner’s TTL and releases its listings at once', async () => {
    const { t, p, lst, buy, state } = await setup();
    const bi = (await buy([lst[0]!.id])).body.data;
    t.clock.advance(599_000);
    expect(await t.deps.intentions.expireDue()).toBe(0);
    t.clock.advance(1_000);
    expect(await t.deps.intentions.expireDue()).toBe(1);
    expect(await state(lst[0]!.id)).toBe('ACTIVE');
    const read = await t.request('GET', `/v1/marketplace/buyingflow/buyIntention/${bi.id}`, { key: p.keys.private });
    expect(read.body.data).toMatchObject({ state: 'EXPIRED', endReason: 'timeout', paymentUrl: null });
    // Lazily too: a read past the deadline expires it.
    const bi2 = (await buy([lst[1]!.id])).body.data;
    t.clock.advance(600_000);
    expect((await t.request('GET', `/v1/marketplace/buyingflow/buyIntention/${bi2.id}`, { key: p.keys.private })).body.data.state).toBe('EXPIRED');
    expect(await state(lst[1]!.id)).toBe('ACTIVE');
    expect((await buy([lst[0]!.id, lst[1]!.id])).status).toBe(200);
  });

  it('is cancelled by the buyer, or when a listing of it stops being sellable', async () => {
    const { t, p, lst, buy, state } = await setup();
    const bi = (await buy([lst[0]!.id])).body.data;
    const cancel = await t.request('DELETE', `/v1/marketplace/buyingflow/buyIntention/${bi.id}`, { key: p.keys.private });
    expect(cancel.body.data).toMatchObject({ state: 'CANCELLED', endReason: 'buyer' });
    expect(await state(lst[0]!.id)).toBe('ACTIVE');
    expect((await t.request('DELETE', `/v1/marketplace/buyingflow/buyIntention/${bi.id}`, { key: p.keys.private })).status).toBe(409);

    const bi2 = (await buy([lst[1]!.id, lst[2]!.id])).body.data;
    await t.request('DELETE', '/v1/tickets/s1', { key: p.keys.private });
    expect((await t.db.select().from(buyIntentions).where(eq(buyIntentions.id, bi2.id)).limit(1))[0]).toMatchObject({ state: 'CANCELLED', endReason: 'listing_unavailable' });
    expect(await Promise.all([state(lst[1]!.id), state(lst[2]!.id)])).toEqual(['TERMINATED', 'ACTIVE']);
  });

  it('refuses mixed, unknown, foreign, own and too many listings, and the wrong keys', async () => {
    const { t, p, lst, buy, list } = await setup();
    const vip = await list('vip', 10000);
    expect((await buy([lst[0]!.id, vip.id])).body.errors[0]).toMatchObject({ code: 'invalid_value', path: 'items' });
    expect((await buy(['lst_nope'])).status).toBe(404);
    expect((await buy([lst[0]!.id, lst[0]!.id])).status).toBe(400);
    expect((await buy([lst[0]!.id], 'seller@example.com')).status).toBe(409);
    // A user that is no e-mail, phone or id is named where it was sent: in the body.
    expect((await buy([lst[0]!.id], 'ana@')).body.errors[0]).toMatchObject({ code: 'invalid_format', path: 'user', in: 'body' });
    expect((await buy(Array.from({ length: 21 }, (_, i) => `lst_${i}`))).body.errors[0]).toMatchObject({ code: 'out_of_range' });
    expect((await t.request('POST', '/v1/marketplace/buyingflow/buyIntention', { key: p.keys.private, body: { items: [lst[0]!.id] } })).body.errors[0]).toMatchObject({ code: 'missing_field', path: 'user' });
    const other = await t.partner('Other');
    expect((await t.request('POST', '/v1/marketplace/buyingflow/buyIntention', { key: other.keys.private, body: { items: [lst[0]!.id], user: 'b@example.com' } })).status).toBe(404);
    expect((await t.request('GET', `/v1/marketplace/buyingflow/buyIntention/bi_nope`, { key: p.keys.private })).status).toBe(404);
    expect((await t.request('POST', '/v1/marketplace/buyingflow/buyIntention', { key: p.keys.public, body: { items: [lst[0]!.id], user: 'b@example.com' } })).status).toBe(403);
    await t.request('PUT', '/v1/events', { key: p.keys.private, body: { externalReferenceId: 'tour', shows: [{ showId: 'show-1', resaleEnabled: false }] } });
    expect((await buy([lst[0]!.id])).body.errors[0].message).toMatch(/Resale is closed/);
  });

  it('replays a repeated Idempotency-Key instead of reserving again', async () => {
    const { lst, buy } = await setup();
    const first = await buy([lst[0]!.id], 'buyer@example.com', { 'idempotency-key': 'k-1' });
    const again = await buy([lst[0]!.id], 'buyer@example.com', { 'idempotency-key': 'k-1' });
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });
});

describe('checkout URL, listed tickets and the buying-flow URL', () => {
  it('reserves for a checkout without a named buyer', async () => {
    const { t, p, lst, state } = await setup();
    const res = await t.request('POST', '/v1/marketplace/checkout/url?lang=es', { key: p.keys.private, body: { listingIds: [lst[0]!.id] } });
    expect(res.body.data).toMatch(new RegExp(`^http://resale\\.test/checkout/${p.id}/bi_[0-9a-z]+\\?lang=es$`));
    expect(await state(lst[0]!.id)).toBe('RESERVED');
    expect((await t.request('POST', '/v1/marketplace/checkout/url', { key: p.keys.private, body: { listingIds: [] } })).status).toBe(400);
  });

  it('lists the tickets for sale, cheapest first, per show', async () => {
    const { t, p, lst, buy } = await setup();
    await buy([lst[0]!.id]);
    const res = await t.request('GET', '/v1/marketplace/items/events/tour/listedTickets?showId=show-1', { key: p.keys.private });
    expect(res.body.data.map((x: { listingId: string }) => x.listingId)).toEqual([lst[1]!.id, lst[2]!.id, lst[3]!.id]);
    expect(res.body.data[0]).toMatchObject({ showId: 'show-1', ticketOptionId: 'opt-field', ticketOptionTitle: 'General field', area: 'Field', quantity: 1, currency: 'EUR', price: 41, buyerTotal: 45.1, tickets: [{ ticketId: 's1', section: null, row: null, seat: null }] });
    expect((await t.request('GET', '/v1/marketplace/items/events/tour/listedTickets', { key: p.keys.private })).body.data).toHaveLength(3);
    expect((await t.request('GET', '/v1/marketplace/items/events/tour/listedTickets?showId=x', { key: p.keys.private })).status).toBe(404);
    expect((await t.request('GET', '/v1/marketplace/items/events/nope/listedTickets', { key: p.keys.private })).status).toBe(404);
  });

  it('answers the market URL with returnTo, signed for a trusted user', async () => {
    const { t, p } = await setup();
    const base = '/v1/marketplace/buyingflow/url/entrypoint?externalReferenceEventId=tour&showId=show-1&returnTo=https%3A%2F%2Fpartner.example%2Fev';
    const res = await t.request('GET', `${base}&ticketOptionId=opt-vip&lang=es`, { key: p.keys.private });
    const url = new URL(res.body.data);
    expect(url.pathname).toBe(`/market/${p.id}/tour`);
    expect(Object.fromEntries(url.searchParams)).toEqual({ showId: 'show-1', lang: 'es', returnTo: 'https://partner.example/ev', returnToTag: expect.any(String), ticketOptionId: 'opt-vip' });
    // The tag vouches for exactly this returnTo of this partner.
    expect(url.searchParams.get('returnToTag')).toBe(returnToTag(t.deps.box, p.id, 'https://partner.example/ev'));
    const signed = new URL((await t.request('GET', `${base}&loginTrust[user]=buyer@example.com`, { key: p.keys.private })).body.data);
    expect(signed.searchParams.get('oneTimeToken')).toBeTruthy();
    expect((await t.request('GET', `${base.replace('https%3A', 'javascript%3A')}`, { key: p.keys.private })).status).toBe(400);
    expect((await t.request('GET', base.replace('show-1', 'show-9'), { key: p.keys.private })).status).toBe(404);
  });
});
