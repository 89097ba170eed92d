import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { count, eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestPartner } from '../../testing/harness.js';
import { channelListingBody, ticketBody, withEvent } from '../../testing/factories.js';
import { inputValue, TestBrowser } from '../pages/auth/auth.testing.js';
import { shows } from '../../domain/events/events.table.js';
import { buyIntentions } from '../../domain/intentions/intentions.table.js';
import { listings } from '../../domain/listings/listings.table.js';
import { payouts } from '../../domain/payouts/payouts.table.js';
import { SANDBOX_CARDS } from '../../domain/payments/payments.provider.js';
import { tickets } from '../../domain/tickets/tickets.table.js';
import { channelListings } from '../../domain/channels/channels.table.js';

/**
 * Event `tour` (from withEvent): show-1 on 2026-05-01 19:00 UTC with opt-field (45.50 EUR)
 * and opt-vip, price types pt-early / pt-standard and combinations opt-field+pt-early (39),
 * opt-field+pt-standard, opt-vip+pt-standard; show-2 standard. The clock starts on
 * 2026-03-01. Partner fees: buyer 10 %, seller 5 %, so 40.00 per ticket costs a buyer 44.00
 * and pays the channel 38.00.
 */

const servers: Server[] = [];
afterEach(() => servers.splice(0).forEach((s) => s.close()));

/** The partner's ownership endpoint: answers the tickets set per user and records who was asked. */
async function ownershipServer() {
  const state = { owned: new Map<string, unknown[]>(), asked: [] as string[] };
  const server = createServer((req, res) => {
    const user = new URL(req.url!, 'http://x').searchParams.get('user') ?? '';
    state.asked.push(user);
    const list = state.owned.get(user);
    if (!list) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(list));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return { state, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/owned` };
}

async function setup(settings: Record<string, unknown> = {}) {
  const t = createTestApp();
  const p = await t.partner('Acme', settings);
  await withEvent(t, p);
  return { t, p, ...helpers(t, p) };
}

function helpers(t: TestApp, p: TestPartner) {
  const create = (overrides: Record<string, unknown> = {}, key: string | null = p.keys.channels, headers: Record<string, string> = {}) =>
    t.request('POST', '/v1/channels/listings', { key, body: channelListingBody(overrides), headers });
  const created = async (overrides: Record<string, unknown> = {}) => {
    const res = await create(overrides);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as Record<string, any>;
  };
  const get = (id: string, key: string = p.keys.channels) => t.request('GET', `/v1/channels/listings/${id}`, { key });
  const patch = (id: string, body: unknown, key: string = p.keys.channels) => t.request('PATCH', `/v1/channels/listings/${id}`, { key, body });
  const withdraw = (id: string, key: string = p.keys.channels) => t.request('DELETE', `/v1/channels/listings/${id}`, { key });
  const list = (query = '', key: string = p.keys.channels) => t.request('GET', `/v1/channels/listings${query ? `?${query}` : ''}`, { key });
  /** Rows written by the channels group, to prove a refusal wrote nothing. */
  const rowCounts = async () => ({
    listings: (await t.db.select({ n: count() }).from(listings).limit(1))[0]!.n,
    tickets: (await t.db.select({ n: count() }).from(tickets).limit(1))[0]!.n,
    channelListings: (await t.db.select({ n: count() }).from(channelListings).limit(1))[0]!.n,
    webhooks: (await t.deps.webhooks.list(p.id, {})).length,
  });
  const intend = (items: string[], user = 'buyer@example.com') => t.request('POST', '/v1/marketplace/buyingflow/buyIntention', { key: p.keys.private, body: { items, user } });
  return { create, created, get, patch, withdraw, list, rowCounts, intend };
}

describe('channels: authentication', () => {
  it('takes the channels key bare or as Bearer, refuses the other kinds (403), no key and unknown keys (401)', async () => {
    const { t, p, create, created } = await setup();
    expect((await create({ externalListingId: 'bare' })).status).toBe(200);
    expect((await create({ externalListingId: 'bearer' }, `Bearer ${p.keys.channels}`)).status).toBe(200);
    const { id } = await created({ externalListingId: 'rs-auth' });
    const calls: [string, string, unknown?][] = [
      ['POST', '/v1/channels/listings', channelListingBody({ externalListingId: 'other' })],
      ['GET', '/v1/channels/listings'],
      ['GET', `/v1/channels/listings/${id}`],
      ['PATCH', `/v1/channels/listings/${id}`, { price: 41 }],
      ['DELETE', `/v1/channels/listings/${id}`],
    ];
    for (const [method, path, body] of calls) {
      for (const key of [p.keys.private, p.keys.public, `Bearer ${p.keys.private}`]) {
        const res = await t.request(method, path, { key, body });
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(res.body).toMatchObject({ status: 403, data: null, errors: [{ code: 'forbidden_key_kind' }] });
        expect(res.body.errors[0].message).toContain('channels key');
      }
      expect((await t.request(method, path, { body })).body.errors[0].code).toBe('unauthorized');
      expect((await t.request(method, path, { key: 'sk_ch_unknown', body })).status).toBe(401);
    }
    // Nothing was changed by the refused calls.
    expect((await t.request('GET', `/v1/channels/listings/${id}`, { key: p.keys.channels })).body.data).toMatchObject({ state: 'ACTIVE', price: 40 });
  });

  it('the channels key is refused by every operation of the other groups', async () => {
    const { t, p } = await setup();
    const doc = (await (await t.app.request('/v1/openapi.json')).json()) as { paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>> };
    let checked = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
        // The operations probes (/healthz, /readyz) take no key at all.
        if (op.security !== undefined && schemes.length === 0) continue;
        if (schemes.includes('channelsKey')) {
          expect(path.startsWith('/v1/channels/'), path).toBe(true);
          continue;
        }
        const url = path.replace(/\{[^}]+\}/g, 'x') + '?type=buy&eventId=tour&showId=show-1';
        const res = await t.request(method.toUpperCase(), url, { key: p.keys.channels, ...(method === 'get' ? {} : { body: {} }) });
        // A bearer token of its own (the operator's, a door's) is no key kind: any key is not it (401).
        const expected = schemes.includes('operatorToken') || schemes.includes('doorToken') ? 401 : 403;
        expect(res.status, `${method} ${path}`).toBe(expected);
        if (expected === 403) expect(res.body.errors[0].code, `${method} ${path}`).toBe('forbidden_key_kind');
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(30);
  });

  it('documents the five operations under the Channels tag with the channels key', async () => {
    const { t } = await setup();
    const doc = (await (await t.app.request('/v1/openapi.json')).json()) as { paths: Record<string, Record<string, { operationId: string; tags: string[]; security: unknown[] }>> };
    const ops = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/v1/channels/'))
      .flatMap(([path, o]) => Object.entries(o).map(([method, op]) => ({ path, method, ...op })));
    expect(ops.map((o) => `${o.method} ${o.path} ${o.operationId}`).sort()).toEqual([
      'delete /v1/channels/listings/{listingId} withdrawChannelListing',
      'get /v1/channels/listings listChannelListings',
      'get /v1/channels/listings/{listingId} getChannelListing',
      'patch /v1/channels/listings/{listingId} updateChannelListing',
      'post /v1/channels/listings createChannelListing',
    ]);
    for (const op of ops) {
      expect(op.tags).toEqual(['Channels']);
      expect(op.security).toEqual([{ channelsKey: [] }]);
    }
  });
});

describe('POST /v1/channels/listings', () => {
  it('puts the listing on the market: answer, tickets, fees, webhook, market, listed tickets and access layer', async () => {
    const { t, p, created, get } = await setup();
    const l = await created();
    expect(l).toMatchObject({
      channelId: 'resellr',
      externalListingId: 'rs-1',
      sellerReference: 'seller-9',
      externalReferenceEventId: 'tour',
      showId: 'show-2',
      ticketOptionId: 'opt-field',
      priceTypeId: null,
      quantity: 2,
      state: 'ACTIVE',
      endReason: null,
      currency: 'EUR',
      price: 40,
      buyerFee: 4,
      buyerTotal: 44,
      sellerFee: 2,
      payout: 38,
      createdAt: '2026-03-01T12:00:00.000Z',
      soldAt: null,
      endedAt: null,
    });
    expect(l.id).toMatch(/^lst_/);
    expect(l.tickets).toEqual([
      { ticketId: `${l.id}-1`, section: 'A', row: '1', seat: '1' },
      { ticketId: `${l.id}-2`, section: 'A', row: '1', seat: '2' },
    ]);
    expect(l.shareUrl).toBe(`http://resale.test/market/${p.id}/tour?showId=show-2&listingId=${l.id}`);
    expect((await get(l.id)).body.data).toEqual(l);

    // The partner hears of it as of its own listings.
    const hook = (await t.deps.webhooks.list(p.id, { action: 'listing.created' }))[0]!.message.payload as { data: Record<string, unknown> };
    expect(hook.data).toEqual({ listingId: l.id, ticketIds: [`${l.id}-1`, `${l.id}-2`], eventId: 'tour', showId: 'show-2', ticketOptionId: 'opt-field', price: 40, currency: 'EUR', state: 'ACTIVE' });

    // Listed tickets (build your own buying flow), the hosted market and the buy access layer.
    const listed = await t.request('GET', '/v1/marketplace/items/events/tour/listedTickets?showId=show-2', { key: p.keys.private });
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body.data)).toContain(l.id);
    const market = await t.app.request(`/market/${p.id}/tour?showId=show-2`);
    const html = await market.text();
    expect(html).toContain('€44.00');
    expect(html).toContain('2 tickets, sold together');
    const layer = await t.request('GET', '/v1/wrapper/accesslayer?type=buy&eventId=tour&showId=show-2', { key: p.keys.public });
    const cats = layer.body.data.find((c: { class: string }) => c.class === 'categoriesList').categoriesList.categories as { ticketOptionId: string; quantityForSale: number; floorPrice: number }[];
    expect(cats.find((c) => c.ticketOptionId === 'opt-field')).toMatchObject({ quantityForSale: 2, floorPrice: 44 });
  });

  it('defaults channelId, takes a combination, unnumbered tickets and a decimal string price', async () => {
    const { created } = await setup();
    const l = await created({ channelId: undefined, showId: 'show-1', priceTypeId: 'pt-early', quantity: 1, seats: undefined, sellerReference: undefined, price: '35.50' });
    expect(l).toMatchObject({ channelId: 'default', showId: 'show-1', priceTypeId: 'pt-early', quantity: 1, price: 35.5, sellerReference: null, tickets: [{ ticketId: `${l.id}-1`, section: null, row: null, seat: null }] });
  });

  it('refuses bad bodies with every offending field, and writes nothing', async () => {
    const { t, p, create, rowCounts } = await setup();
    const before = await rowCounts();
    const missing = await t.request('POST', '/v1/channels/listings', { key: p.keys.channels, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.errors.map((e: { path: string; code: string }) => `${e.path}:${e.code}`).sort()).toEqual(
      ['currency', 'externalListingId', 'externalReferenceEventId', 'price', 'quantity', 'showId', 'ticketOptionId'].map((f) => `${f}:missing_field`),
    );
    const cases: [Record<string, unknown>, string, string][] = [
      [{ quantity: 0 }, 'quantity', 'out_of_range'],
      [{ quantity: 21, seats: undefined }, 'quantity', 'out_of_range'],
      [{ quantity: 1.5 }, 'quantity', 'invalid_type'],
      [{ price: -1 }, 'price', 'out_of_range'],
      [{ price: 0 }, 'price', 'out_of_range'],
      [{ price: 'abc' }, 'price', 'invalid_format'],
      [{ price: 40.123 }, 'price', 'invalid_value'],
      [{ currency: 'EURO' }, 'currency', 'invalid_format'],
      [{ currency: 'USD' }, 'currency', 'invalid_value'],
      [{ channelId: 'bad channel!' }, 'channelId', 'invalid_format'],
      [{ externalListingId: '' }, 'externalListingId', 'out_of_range'],
      [{ externalListingId: 'x'.repeat(129) }, 'externalListingId', 'out_of_range'],
      [{ seats: [{ section: 'A' }] }, 'seats', 'invalid_value'],
      [{ seats: [{}, {}] }, 'seats.0', 'invalid_value'],
      [{ seats: [{ gate: 'N' }, { seat: '1' }] }, 'seats.0.gate', 'unknown_field'],
      [{ extra: true }, 'extra', 'unknown_field'],
      [{ showId: 'show-1', priceTypeId: 'pt-nope' }, 'priceTypeId', 'invalid_value'],
      [{ showId: 'show-1', ticketOptionId: 'opt-vip', priceTypeId: 'pt-early', currency: 'EUR' }, 'priceTypeId', 'invalid_value'],
    ];
    for (const [overrides, path, code] of cases) {
      const res = await create(overrides);
      expect(res.status, JSON.stringify(overrides)).toBe(400);
      expect(res.body.data).toBeNull();
      expect(res.body.errors.map((e: { path: string; code: string }) => `${e.path}:${e.code}`), JSON.stringify(overrides)).toContain(`${path}:${code}`);
    }
    const json = await t.request('POST', '/v1/channels/listings', { key: p.keys.channels, raw: '{"quantity": ' });
    expect(json.body.errors[0].code).toBe('invalid_json');
    const big = await t.request('POST', '/v1/channels/listings', { key: p.keys.channels, body: channelListingBody({ sellerReference: 'x'.repeat(300_000) }) });
    expect(big.status).toBe(413);
    expect(big.body.errors[0].code).toBe('payload_too_large');
    expect(await rowCounts()).toEqual(before);
  });

  it('applies the partner’s price rules and fees', async () => {
    const { t, p, create, created } = await setup();
    const rules = await t.request('POST', '/v1/rules', {
      key: p.keys.private,
      body: [
        { externalReferenceEventId: 'tour', showId: 'show-2', ticketOptionId: 'opt-field', ruleType: 'minPriceSellConfig', rules: { type: 'ABSOLUTE', value: 30 } },
        { externalReferenceEventId: 'tour', showId: 'show-2', ticketOptionId: 'opt-field', ruleType: 'maxPriceSellConfig', rules: { type: 'PERCENTAGE', value: 100 } },
        { externalReferenceEventId: 'tour', showId: 'show-2', ticketOptionId: 'opt-field', ruleType: 'platformFees', rules: { buyerPercent: 20 } },
        { externalReferenceEventId: 'tour', showId: 'show-2', ticketOptionId: 'opt-field', ruleType: 'maxSell', rules: { maxTickets: 1 } },
      ],
    });
    expect(rules.status).toBe(200);
    const low = await create({ price: 29.99 });
    expect(low.status).toBe(400);
    expect(low.body.errors[0]).toMatchObject({ code: 'out_of_range', path: 'price', message: 'The price must be at least 30 EUR' });
    const high = await create({ price: 45.51 });
    expect(high.body.errors[0]).toMatchObject({ code: 'out_of_range', path: 'price', message: 'The price must be at most 45.5 EUR' });
    // maxSell is per seller; a channel is a platform of many sellers, so it does not apply.
    const ok = await created({ price: 45.5 });
    expect(ok).toMatchObject({ price: 45.5, buyerFee: 9.1, buyerTotal: 54.6 });
    expect((await created({ externalListingId: 'rs-2', price: 30 })).state).toBe('ACTIVE');
  });

  it('409 when the externalListingId was used (per channel), when resale is closed or the show started; 404 for unknown or foreign ids', async () => {
    const { t, create, created, rowCounts } = await setup();
    const first = await created();
    let before = await rowCounts();
    const again = await create({ price: 41 });
    expect(again.status).toBe(409);
    expect(again.body.errors[0]).toMatchObject({ code: 'conflict', path: 'externalListingId' });
    expect(again.body.errors[0].message).toContain(first.id);
    expect(await rowCounts()).toEqual(before);
    // Another channel sharing the key may use the same id of its own.
    expect((await create({ channelId: 'other-platform' })).status).toBe(200);

    const other = await t.partner('Other');
    before = await rowCounts();
    for (const [overrides, what] of [
      [{ externalReferenceEventId: 'nope' }, "event 'nope'"],
      [{ showId: 'show-9' }, "show 'show-9'"],
      [{ ticketOptionId: 'opt-nope' }, "ticket option 'opt-nope'"],
    ] as const) {
      const res = await create({ externalListingId: 'rs-404', ...overrides });
      expect(res.status).toBe(404);
      expect(res.body.errors[0]).toEqual({ code: 'not_found', message: `No ${what} was found` });
    }
    // Partner B's channels key cannot reach partner A's event.
    const foreign = await t.request('POST', '/v1/channels/listings', { key: other.keys.channels, body: channelListingBody({ externalListingId: 'rs-b' }) });
    expect(foreign.status).toBe(404);
    expect(foreign.body.errors[0]).toEqual({ code: 'not_found', message: "No event 'tour' was found" });
    expect(await rowCounts()).toEqual(before);

    // The organiser switched resale off for show-2 (a precondition, set in the table).
    await t.db.update(shows).set({ resaleEnabled: false }).where(eq(shows.showId, 'show-2'));
    const shut = await create({ externalListingId: 'rs-closed' });
    expect(shut.status).toBe(409);
    expect(shut.body.errors[0].message).toBe("Resale is closed for show 'show-2'");
    t.clock.set('2026-05-01T19:00:00Z');
    const started = await create({ externalListingId: 'rs-late', showId: 'show-1' });
    expect(started.status).toBe(409);
    expect(started.body.errors[0].message).toContain('has started');
  });

  it('replays an Idempotency-Key with the same body and refuses it with another', async () => {
    const { create, rowCounts } = await setup();
    const first = await create({}, undefined, { 'Idempotency-Key': 'k-1' });
    const before = await rowCounts();
    const replay = await create({}, undefined, { 'Idempotency-Key': 'k-1' });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(await rowCounts()).toEqual(before);
    const reused = await create({ price: 41 }, undefined, { 'Idempotency-Key': 'k-1' });
    expect(reused.status).toBe(422);
    expect(reused.body.errors[0].code).toBe('idempotency_key_reused');
  });
});

describe('PATCH and DELETE /v1/channels/listings/:id', () => {
  it('reprices an ACTIVE listing within the rules, with the listing.updated webhook', async () => {
    const { t, p, created, patch } = await setup();
    const l = await created();
    t.clock.advance(60_000);
    const res = await patch(l.id, { price: '42.50', currency: 'eur' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: l.id, price: 42.5, buyerTotal: 46.75, payout: 40.37, state: 'ACTIVE', updatedAt: '2026-03-01T12:01:00.000Z' });
    expect(((await t.deps.webhooks.list(p.id, { action: 'listing.updated' }))[0]!.message.payload as { data: { price: number } }).data.price).toBe(42.5);
    for (const [body, path, code] of [
      [{}, 'price', 'missing_field'],
      [{ price: 0 }, 'price', 'out_of_range'],
      [{ price: 1.001 }, 'price', 'invalid_value'],
      [{ price: 40, currency: 'USD' }, 'currency', 'invalid_value'],
      [{ price: 40, quantity: 3 }, 'quantity', 'unknown_field'],
    ] as const) {
      const bad = await patch(l.id, body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body.errors.map((e: { path: string; code: string }) => `${e.path}:${e.code}`)).toContain(`${path}:${code}`);
    }
    expect((await t.request('GET', `/v1/channels/listings/${l.id}`, { key: p.keys.channels })).body.data.price).toBe(42.5);
  });

  it('withdraws: WITHDRAWN, tickets gone, off the market; a repeat answers it again; a withdrawn listing cannot be repriced', async () => {
    const { t, p, created, withdraw, patch, intend } = await setup();
    const l = await created();
    const res = await withdraw(l.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ state: 'WITHDRAWN', endReason: 'withdrawn', endedAt: '2026-03-01T12:00:00.000Z' });
    expect((await t.db.select().from(tickets).where(eq(tickets.partnerId, p.id))).map((x) => x.state)).toEqual(['DELETED', 'DELETED']);
    expect(((await t.deps.webhooks.list(p.id, { action: 'listing.deleted' }))[0]!.message.payload as { data: { listingId: string } }).data.listingId).toBe(l.id);
    const again = await withdraw(l.id);
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(res.body.data);
    expect((await patch(l.id, { price: 41 })).status).toBe(409);
    const html = await (await t.app.request(`/market/${p.id}/tour?showId=show-2`)).text();
    expect(html).not.toContain('€44.00');
    expect((await intend([l.id])).status).toBe(409);
  });

  it('a listing in a buyer’s checkout cannot be repriced (409) and is reserved only once; withdrawing it ends that checkout', async () => {
    const { t, created, withdraw, patch, get, intend } = await setup();
    const l = await created();
    const first = await intend([l.id]);
    expect(first.status).toBe(200);
    expect((await get(l.id)).body.data.state).toBe('RESERVED');
    const second = await intend([l.id], 'other@example.com');
    expect(second.status).toBe(409);
    const repriced = await patch(l.id, { price: 41 });
    expect(repriced.status).toBe(409);
    expect(repriced.body.errors[0].message).toContain('checking out');
    // The channel withdraws it anyway (it may have sold the tickets elsewhere): the buyer's
    // checkout ends, with a reason the checkout page tells the buyer.
    const withdrawn = await withdraw(l.id);
    expect(withdrawn.status).toBe(200);
    expect(withdrawn.body.data.state).toBe('WITHDRAWN');
    const intention = await t.db.select().from(buyIntentions);
    expect(intention).toHaveLength(1);
    expect(intention[0]).toMatchObject({ state: 'CANCELLED', endReason: 'withdrawn' });
    expect((await withdraw(l.id)).status).toBe(200);
  });

  it('404 for unknown ids, another partner’s listings and the partner’s own (non-channel) listings', async () => {
    const { t, p, created, get, patch, withdraw } = await setup();
    const l = await created();
    const other = await t.partner('Other');
    await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [ticketBody('own-1', { showId: 'show-2' })] });
    const own = await t.db.transact(async (tx) => {
      const ticket = await t.deps.tickets.get(tx, p.id, 'own-1');
      return await t.deps.listings.create(tx, p.id, { sellerPk: ticket.ownerPk, ticketPks: [ticket.id], priceMinor: 4000 });
    });
    for (const [id, key] of [
      ['lst_nope', p.keys.channels],
      [l.id, other.keys.channels],
      [own.id, p.keys.channels],
    ] as const) {
      for (const res of [await get(id, key), await patch(id, { price: 41 }, key), await withdraw(id, key)]) {
        expect(res.status).toBe(404);
        expect(res.body.errors[0]).toEqual({ code: 'not_found', message: `No channel listing '${id}' was found` });
      }
    }
    expect((await get(l.id)).body.data).toMatchObject({ state: 'ACTIVE', price: 40 });
    expect((await t.deps.listings.get(t.db, p.id, own.id)).state).toBe('ACTIVE');
  });
});

describe('GET /v1/channels/listings', () => {
  it('pages oldest first and filters by channel, own id, event, show and state', async () => {
    const { t, created, withdraw, list } = await setup();
    const a = await created({ externalListingId: 'a' });
    const b = await created({ externalListingId: 'b', channelId: 'second' });
    const c = await created({ externalListingId: 'c', showId: 'show-1', priceTypeId: 'pt-standard' });
    await withdraw(b.id);
    const page1 = await list('limit=2');
    expect(page1.status).toBe(200);
    expect(page1.body.data.items.map((x: { id: string }) => x.id)).toEqual([a.id, b.id]);
    expect(page1.body.data.nextCursor).toBe(b.id);
    const page2 = await list(`limit=2&startingAfter=${b.id}`);
    expect(page2.body.data).toEqual({ items: [expect.objectContaining({ id: c.id })], nextCursor: null });
    const ids = async (q: string) => ((await list(q)).body.data.items as { id: string }[]).map((x) => x.id);
    expect(await ids('channelId=second')).toEqual([b.id]);
    expect(await ids('channelId=resellr&externalListingId=c')).toEqual([c.id]);
    expect(await ids('externalReferenceEventId=tour&showId=show-2')).toEqual([a.id, b.id]);
    expect(await ids('externalReferenceEventId=tour')).toEqual([a.id, b.id, c.id]);
    expect(await ids('state=ACTIVE')).toEqual([a.id, c.id]);
    expect(await ids('state=WITHDRAWN')).toEqual([b.id]);
    expect(await ids('state=SOLD')).toEqual([]);
    // The show of `a` starts: it reads ENDED (show_started), in the list and its filter alike.
    t.clock.set('2026-05-01T19:00:00Z');
    expect(await ids('state=ENDED')).toEqual([a.id, c.id]);
    expect(await ids('state=ACTIVE')).toEqual([]);
    expect((await list('externalListingId=a')).body.data.items[0]).toMatchObject({ state: 'ENDED', endReason: 'show_started' });
    // Partner B sees none of A's.
    const other = await t.partner('Other');
    expect((await list('', other.keys.channels)).body.data).toEqual({ items: [], nextCursor: null });
  });

  it('refuses bad queries: showId without event, unknown event or show, bad state and limits', async () => {
    const { list } = await setup();
    const noEvent = await list('showId=show-1');
    expect(noEvent.status).toBe(400);
    expect(noEvent.body.errors[0]).toMatchObject({ code: 'missing_field', path: 'externalReferenceEventId', in: 'query' });
    expect((await list('externalReferenceEventId=nope')).status).toBe(404);
    expect((await list('externalReferenceEventId=tour&showId=nope')).status).toBe(404);
    for (const q of ['state=LIVE', 'limit=0', 'limit=201', 'limit=abc', 'channelId=bad%20id']) {
      const res = await list(q);
      expect(res.status, q).toBe(400);
      expect(res.body.errors[0].in, q).toBe('query');
    }
  });
});

describe('channel listings in the market’s life', () => {
  it('are sold through the normal checkout: no ownership call for them, SOLD, tickets to the buyer, payout to the channel, ticket.update marks them', async () => {
    const owner = await ownershipServer();
    const { t, p, created, get, intend } = await setup({ ownershipUrl: owner.url });
    // A partner's own listing in the same checkout: its seller is still checked live.
    await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [ticketBody('own-1', { showId: 'show-2', buyer: 'seller@example.com' })] });
    owner.state.owned.set('seller@example.com', [{ eventId: 'tour', showId: 'show-2', ticketId: 'own-1', ticketOptionId: 'opt-field' }]);
    const own = await t.db.transact(async (tx) => {
      const ticket = await t.deps.tickets.get(tx, p.id, 'own-1');
      return await t.deps.listings.create(tx, p.id, { sellerPk: ticket.ownerPk, ticketPks: [ticket.id], priceMinor: 5000 });
    });
    const l = await created();

    const bi = await intend([l.id, own.id]);
    expect(bi.status).toBe(200);
    expect(bi.body.data).toMatchObject({ total: 143, items: [{ listingId: l.id, quantity: 2, subtotal: 88 }, { listingId: own.id, quantity: 1, subtotal: 55 }] });
    const browser = new TestBrowser(t.app);
    const url = new URL(bi.body.data.paymentUrl);
    const redeemed = await browser.get(url.pathname + url.search);
    expect(redeemed.status).toBe(302);
    const page = await browser.get(redeemed.location!);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Section A · Row 1 · Seat 1');
    expect(page.text).toContain('Section A · Row 1 · Seat 2');
    const path = new URL(redeemed.location!, 'http://x').pathname;
    const paid = await browser.post(path, { _csrf: inputValue(page.text, '_csrf')!, cardNumber: SANDBOX_CARDS.success, expiry: '12/30', cvc: '123' });
    expect(paid.status).toBe(303);
    expect(paid.location).toBe(`/checkout/${p.id}/${bi.body.data.id}/done?lang=en`);
    // The platform was asked about its own seller only, never about the channel.
    expect(owner.state.asked.length).toBeGreaterThan(0);
    expect(new Set(owner.state.asked)).toEqual(new Set(['seller@example.com']));

    const sold = (await get(l.id)).body.data;
    expect(sold).toMatchObject({ state: 'SOLD', soldAt: '2026-03-01T12:00:00.000Z', endReason: null });
    const buyer = (await t.deps.users.find(t.db, p.id, 'buyer@example.com'))!;
    const moved = await t.db.select().from(tickets).where(eq(tickets.ownerPk, buyer.id));
    expect(moved.map((x) => x.ticketId).sort()).toEqual([`${l.id}-1`, `${l.id}-2`, 'own-1'].sort());
    expect(moved.every((x) => x.state === 'VALID')).toBe(true);
    const channelUser = (await t.deps.users.find(t.db, p.id, 'channel:resellr'))!;
    expect((await t.db.select().from(payouts).where(eq(payouts.listingId, l.id)).limit(1))[0]).toMatchObject({ sellerPk: channelUser.id, amountMinor: 7600, currency: 'EUR', state: 'SCHEDULED' });

    const hook = (await t.deps.webhooks.list(p.id, { action: 'ticket.update' }))[0]!.message.payload as { data: { tickets: Record<string, unknown>[]; total: number } };
    expect(hook.data.total).toBe(143);
    const byId = Object.fromEntries(hook.data.tickets.map((x) => [x.ticketId, x]));
    expect(byId[`${l.id}-1`]).toEqual({
      ticketId: `${l.id}-1`,
      ticketOptionId: 'opt-field',
      seating: { section: 'A', row: '1', seat: '1' },
      orderId: null,
      listingId: l.id,
      pricePaid: 44,
      currency: 'EUR',
      previousOwner: { id: 'channel:resellr', email: null, phone: null },
      channel: { channelId: 'resellr', externalListingId: 'rs-1', sellerReference: 'seller-9' },
    });
    expect(byId['own-1']).not.toHaveProperty('channel');
    // The buyer is told; the channel's user has no address, its own seller is.
    expect((await t.deps.messages.list()).map((m) => `${m.template}:${m.to}`).sort()).toEqual(['listingSold:seller@example.com', 'purchaseConfirmed:buyer@example.com']);
    // Sold is final for the channel too.
    const { withdraw, patch } = helpers(t, p);
    expect((await withdraw(l.id)).status).toBe(409);
    expect((await patch(l.id, { price: 41 })).status).toBe(409);
    expect((await listPage(t, p, 'state=SOLD')).body.data.items.map((x: { id: string }) => x.id)).toEqual([l.id]);
  });

  it('end when the show is cancelled or the organiser delists (ENDED), like the partner’s own', async () => {
    const { t, p, created, get, list } = await setup();
    const a = await created({ externalListingId: 'a' });
    const b = await created({ externalListingId: 'b', showId: 'show-1' });
    const delist = await t.request('POST', '/v1/delist', { key: p.keys.private, body: { externalReferenceEventId: 'tour', showId: 'show-1' } });
    expect(delist.body.data).toMatchObject({ delisted: 1, listingIds: [b.id] });
    expect((await get(b.id)).body.data).toMatchObject({ state: 'ENDED', endReason: 'delisted' });
    // Its tickets are gone (they were never the partner's), not returned to the channel's user as sellable.
    const bTickets = await t.db.select().from(tickets).where(eq(tickets.showPk, (await t.db.select().from(listings).where(eq(listings.id, b.id)).limit(1))[0]!.showPk));
    expect(bTickets.map((x) => x.state)).toEqual(['DELETED', 'DELETED']);

    const cancel = await t.request('POST', '/v1/events/tour/cancellation?showId=show-2', { key: p.keys.private });
    expect(cancel.status).toBe(200);
    expect((await get(a.id)).body.data).toMatchObject({ state: 'ENDED', endReason: 'show_cancelled' });
    expect(((await list('state=ENDED')).body.data.items as { id: string }[]).map((x) => x.id)).toEqual([a.id, b.id]);
    const layer = await t.request('GET', '/v1/wrapper/accesslayer?type=buy&eventId=tour&showId=show-2', { key: p.keys.public });
    const cats = layer.body.data.find((c: { class: string }) => c.class === 'categoriesList')?.categoriesList.categories ?? [];
    expect(cats.every((c: { quantityForSale: number }) => c.quantityForSale === 0)).toBe(true);
    // Ended is final.
    const { withdraw, patch } = helpers(t, p);
    expect((await withdraw(a.id)).status).toBe(409);
    expect((await patch(b.id, { price: 41 })).body.errors[0].message).toBe('The listing is ENDED');
  });
});

function listPage(t: TestApp, p: TestPartner, query: string) {
  return t.request('GET', `/v1/channels/listings?${query}`, { key: p.keys.channels });
}
