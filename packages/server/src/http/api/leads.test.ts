import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { buildDeps } from '../../deps.js';
import { createTestApp, TEST_SECRET_KEY, type TestApp, type TestPartner } from '../../testing/harness.js';
import { eventBody, showBody, withEvent } from '../../testing/factories.js';
import { leads } from '../../domain/marketdata/leads.table.js';
import { LeadsService } from '../../domain/marketdata/leads.service.js';
import { MAX_BULK_LEADS, type LeadInput } from '../../domain/marketdata/leads.schemas.js';

const USERS = '/v1/marketdata/users';
const BULK = '/v1/marketdata/users/bulk';

/** A lead of event `tour`, show `show-1` (see withEvent); override what the test is about. */
function lead(type: string, overrides: Record<string, unknown> = {}) {
  const base: Record<string, unknown> = { type, externalReferenceEventId: 'tour', showId: 'show-1', buyer: { email: 'fan@example.com' } };
  if (type === 'TICKET_HOLDER') Object.assign(base, { ticketId: 'tkt-1', price: 45.5 });
  return { ...base, ...overrides };
}

async function setup(overrides: Parameters<typeof createTestApp>[0] = {}) {
  const t = createTestApp(overrides);
  const p = await t.partner();
  await withEvent(t, p);
  const post = (body: unknown, key: string = p.keys.private, headers: Record<string, string> = {}) => t.request('POST', USERS, { key, body, headers });
  return { t, p, post };
}

const rows = async (t: TestApp) => await t.db.select().from(leads);
const paths = (errors: { path?: string }[]) => errors.map((e) => e.path).sort();

describe('POST /v1/marketdata/users: the four kinds', () => {
  it('creates a lead of each kind with its fields, and answers the record with created: true', async () => {
    const { t, post } = await setup();
    const holder = await post(
      lead('TICKET_HOLDER', {
        buyer: { id: 'user-1', email: 'Ana@Example.COM', phone: '+34600111222', firstName: 'Ana', lastName: 'García' },
        ticketOptionId: 'opt-field',
        priceTypeId: 'pt-early',
        date: '2026-02-01T18:30:00+02:00',
        currency: 'eur',
        seating: { section: 'A', row: '1', seat: '7', door: 'N' },
        attributes: ['accessible'],
        tags: ['vip-list'],
        metadata: { campaign: 'spring', score: 3 },
      }),
    );
    expect(holder.status).toBe(200);
    expect(holder.body.data.created).toBe(true);
    expect(holder.body.data.lead).toEqual({
      id: expect.stringMatching(/^ld_[0-9a-z]{26}$/),
      type: 'TICKET_HOLDER',
      externalReferenceEventId: 'tour',
      showId: 'show-1',
      buyer: { id: 'user-1', email: 'ana@example.com', phone: '+34600111222', firstName: 'Ana', lastName: 'García' },
      ticketOptionId: 'opt-field',
      priceTypeId: 'pt-early',
      date: '2026-02-01T16:30:00.000Z',
      ticketId: 'tkt-1',
      price: 45.5,
      currency: 'EUR',
      seating: { section: 'A', row: '1', seat: '7', door: 'N' },
      attributes: ['accessible'],
      tags: ['vip-list'],
      metadata: { campaign: 'spring', score: 3 },
      notifiedAt: null,
      createdAt: '2026-03-01T12:00:00.000Z',
      updatedAt: '2026-03-01T12:00:00.000Z',
    });
    const cart = await post(lead('ABANDONED_CART', { buyer: { phone: '+34600999888' }, ticketId: 'tkt-2', price: 39, seating: { row: '3' } }));
    expect(cart.body.data).toMatchObject({ created: true, lead: { type: 'ABANDONED_CART', buyer: { phone: '+34600999888', email: null }, price: 39, currency: 'EUR' } });
    const queue = await post(lead('VIRTUAL_QUEUE', { buyer: { id: 'user-2' }, showId: 'show-2' }));
    expect(queue.body.data).toMatchObject({ created: true, lead: { type: 'VIRTUAL_QUEUE', showId: 'show-2', price: null, currency: null } });
    const wish = await post(lead('WISHLIST', { buyer: { email: 'wish@example.com' }, ticketOptionId: 'opt-vip', price: 120 }));
    expect(wish.body.data).toMatchObject({ created: true, lead: { type: 'WISHLIST', ticketOptionId: 'opt-vip', price: 120, currency: 'EUR', notifiedAt: null } });
    expect(await rows(t)).toHaveLength(4);
  });

  it('requires each kind’s fields and refuses another kind’s fields as unknown', async () => {
    const { t, post } = await setup();
    const holder = await post({ type: 'TICKET_HOLDER', externalReferenceEventId: 'tour', showId: 'show-1', buyer: { email: 'a@example.com' } });
    expect(holder.status).toBe(400);
    expect(holder.body.errors.map((e: { code: string; path: string }) => [e.code, e.path]).sort()).toEqual([
      ['missing_field', 'price'],
      ['missing_field', 'ticketId'],
    ]);
    const queue = await post(lead('VIRTUAL_QUEUE', { seating: { row: '1' }, ticketId: 't' }));
    expect(queue.body.errors.map((e: { code: string }) => e.code)).toEqual(['unknown_field', 'unknown_field']);
    expect(paths(queue.body.errors)).toEqual(['seating', 'ticketId']);
    expect((await post(lead('WISHLIST', { attributes: ['x'] }))).body.errors[0]).toMatchObject({ code: 'unknown_field', path: 'attributes' });
    expect((await post({ externalReferenceEventId: 'tour', showId: 'show-1', buyer: { email: 'a@example.com' } })).body.errors[0]).toMatchObject({ code: 'missing_field', path: 'type', message: 'type is required' });
    const badType = await post(lead('FAN'));
    expect(badType.body.errors[0]).toMatchObject({ code: 'invalid_value', path: 'type' });
    expect(badType.body.errors[0].message).toContain('TICKET_HOLDER, ABANDONED_CART, VIRTUAL_QUEUE, WISHLIST');
    expect(await rows(t)).toHaveLength(0);
  });

  it('validates the common fields, naming each offending one', async () => {
    const { t, post } = await setup();
    const missing = await post({ type: 'WISHLIST' });
    expect(missing.body.errors.map((e: { code: string; path: string }) => [e.code, e.path]).sort()).toEqual([
      ['missing_field', 'buyer'],
      ['missing_field', 'externalReferenceEventId'],
      ['missing_field', 'showId'],
    ]);
    expect((await post(lead('WISHLIST', { buyer: {} }))).body.errors[0]).toMatchObject({ code: 'invalid_value', path: 'buyer', message: 'buyer needs at least one of id, email, phone' });
    expect((await post(lead('WISHLIST', { buyer: 'fan@example.com' }))).body.errors[0]).toMatchObject({ code: 'invalid_type', path: 'buyer' });
    const bad = await post(
      lead('WISHLIST', {
        buyer: { email: 'not-an-email', phone: '600111222', nickname: 'x' },
        date: 'yesterday',
        price: -1,
        currency: 'EURO',
        tags: Array.from({ length: 51 }, (_, i) => `t${i}`),
        metadata: { blob: 'x'.repeat(5000) },
      }),
    );
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { code: string; path: string }) => `${e.code} ${e.path}`).sort()).toEqual([
      'invalid_format buyer.email',
      'invalid_format buyer.phone',
      'invalid_format date',
      'invalid_value currency',
      'invalid_value metadata',
      'out_of_range price',
      'out_of_range tags',
      'unknown_field buyer.nickname',
    ]);
    expect((await post(lead('WISHLIST', { extra: 1 }))).body.errors[0]).toMatchObject({ code: 'unknown_field', path: 'extra' });
    expect(await rows(t)).toHaveLength(0);
  });

  it('checks ids against the partner’s event and show: 404 for unknown or foreign, 400 for an option or price type not of the show', async () => {
    const { t, p, post } = await setup();
    expect((await post(lead('WISHLIST', { externalReferenceEventId: 'nope' }))).status).toBe(404);
    const show = await post(lead('WISHLIST', { showId: 'show-9' }));
    expect(show.status).toBe(404);
    expect(show.body.errors[0].message).toContain("show 'show-9'");
    expect((await post(lead('WISHLIST', { ticketOptionId: 'opt-none' }))).body.errors[0]).toMatchObject({ code: 'invalid_value', path: 'ticketOptionId' });
    // show-2 is a standard show: it has no price types.
    expect((await post(lead('WISHLIST', { showId: 'show-2', priceTypeId: 'pt-early' }))).body.errors[0]).toMatchObject({ code: 'invalid_value', path: 'priceTypeId' });
    expect((await post(lead('WISHLIST', { price: 10.123 }))).body.errors[0]).toMatchObject({ code: 'invalid_value', path: 'price' });
    const other = await t.partner('Other');
    expect((await post(lead('WISHLIST'), other.keys.private)).status).toBe(404);
    expect(await rows(t)).toHaveLength(0);
    expect((await post(lead('WISHLIST'), p.keys.private)).status).toBe(200);
  });

  it('needs a currency with a price when the show’s options have several', async () => {
    const { t, p, post } = await setup();
    const multi = showBody('multi', {
      ticketOptions: [
        { ticketId: 'eur', title: 'EUR', description: 'd', currency: 'EUR', price: 10 },
        { ticketId: 'usd', title: 'USD', description: 'd', currency: 'USD', price: 10 },
      ],
    });
    await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody('world', { shows: [multi] }) });
    const base = { externalReferenceEventId: 'world', showId: 'multi', price: 12 };
    expect((await post(lead('WISHLIST', base))).body.errors[0]).toMatchObject({ code: 'missing_field', path: 'currency' });
    expect((await post(lead('WISHLIST', { ...base, ticketOptionId: 'usd' }))).body.data.lead).toMatchObject({ price: 12, currency: 'USD' });
    expect((await post(lead('WISHLIST', { ...base, buyer: { id: 'u' }, currency: 'JPY', price: 1200 }))).body.data.lead).toMatchObject({ price: 1200, currency: 'JPY' });
  });

  it('accepts only the private key', async () => {
    const { t, p, post } = await setup();
    const pub = await post(lead('WISHLIST'), p.keys.public);
    expect(pub.status).toBe(403);
    expect(pub.body.errors[0].code).toBe('forbidden_key_kind');
    expect((await post(lead('WISHLIST'), p.keys.channels)).status).toBe(403);
    expect((await t.request('POST', USERS, { body: lead('WISHLIST') })).status).toBe(401);
    expect((await t.request('GET', USERS, { key: p.keys.public })).status).toBe(403);
    expect((await t.request('POST', BULK, { key: p.keys.public, body: { items: [lead('WISHLIST')] } })).status).toBe(403);
    expect(await rows(t)).toHaveLength(0);
  });

  it('refuses an oversized body with 413 and a body that is not JSON with 400/415', async () => {
    const { t, p, post } = await setup({ maxBodyBytes: 4096 });
    const big = await post(lead('WISHLIST', { tags: Array.from({ length: 40 }, () => 'x'.repeat(150)) }));
    expect(big.status).toBe(413);
    expect(big.body.errors[0].code).toBe('payload_too_large');
    expect((await t.request('POST', USERS, { key: p.keys.private, raw: '{"type":' })).body.errors[0].code).toBe('invalid_json');
    expect((await t.request('POST', USERS, { key: p.keys.private, raw: 'type=WISHLIST', headers: { 'content-type': 'text/plain' } })).status).toBe(415);
    expect(await rows(t)).toHaveLength(0);
  });
});

describe('POST /v1/marketdata/users: the upsert', () => {
  it('updates the lead of the same buyer, event and show: fields replaced, contact points merged, type switched', async () => {
    const { t, post } = await setup();
    const first = await post(lead('ABANDONED_CART', { buyer: { email: 'Fan@Example.com', firstName: 'Ana' }, ticketId: 'tkt-9', price: 40, tags: ['a'] }));
    t.clock.advance(60_000);
    const second = await post(lead('WISHLIST', { buyer: { email: 'fan@EXAMPLE.com', phone: '+34600111222' }, ticketOptionId: 'opt-vip' }));
    expect(second.status).toBe(200);
    expect(second.body.data.created).toBe(false);
    expect(second.body.data.lead).toMatchObject({
      id: first.body.data.lead.id,
      type: 'WISHLIST',
      buyer: { email: 'fan@example.com', phone: '+34600111222', firstName: 'Ana' },
      ticketOptionId: 'opt-vip',
      ticketId: null,
      price: null,
      currency: null,
      tags: [],
      createdAt: '2026-03-01T12:00:00.000Z',
      updatedAt: '2026-03-01T12:01:00.000Z',
    });
    expect(await rows(t)).toHaveLength(1);
    // Another show, or another event, is another lead.
    expect((await post(lead('WISHLIST', { showId: 'show-2' }))).body.data.created).toBe(true);
    expect(await rows(t)).toHaveLength(2);
  });

  it('identifies the buyer by id, else e-mail (any case), else phone', async () => {
    const { t, post } = await setup();
    const byId = await post(lead('WISHLIST', { buyer: { id: 'user-7', email: 'one@example.com' } }));
    expect((await post(lead('WISHLIST', { buyer: { id: 'user-7', email: 'two@example.com' } }))).body.data).toMatchObject({ created: false, lead: { id: byId.body.data.lead.id, buyer: { email: 'two@example.com' } } });
    // The same e-mail without the id is another identity (id wins when sent).
    expect((await post(lead('WISHLIST', { buyer: { email: 'TWO@example.com' } }))).body.data.created).toBe(true);
    expect((await post(lead('WISHLIST', { buyer: { email: 'two@example.com', phone: '+34600000001' } }))).body.data.created).toBe(false);
    expect((await post(lead('WISHLIST', { buyer: { phone: '+34600000001' } }))).body.data.created).toBe(true);
    expect((await post(lead('VIRTUAL_QUEUE', { buyer: { phone: '+34600000001' } }))).body.data.created).toBe(false);
    expect(await rows(t)).toHaveLength(3);
  });

  it('never duplicates under concurrent requests: one row, one created', async () => {
    const { t, post } = await setup();
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => post(lead('WISHLIST', { buyer: { email: 'race@example.com' }, tags: [`n${i}`] }))));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.filter((a) => a.body.data.created)).toHaveLength(1);
    expect(new Set(answers.map((a) => a.body.data.lead.id)).size).toBe(1);
    expect(await rows(t)).toHaveLength(1);
  });

  it('never duplicates when several processes upsert the same lead at once over one database', async () => {
    const { t, p } = await setup();
    // Four services over the same database, as four processes would run them (on PostgreSQL
    // each transaction takes a connection of its own from the pool). Each upserts the lead
    // `rounds` times, all starting together.
    const processes = [t.deps, ...Array.from({ length: 3 }, () => buildDeps({ db: t.db, clock: t.clock, config: t.deps.config, logger: pino({ level: 'silent' }), secretKey: TEST_SECRET_KEY }))];
    const rounds = 25;
    const input = { type: 'WISHLIST', externalReferenceEventId: 'tour', showId: 'show-1', buyer: { email: 'race@example.com' } } as LeadInput;
    const done = await Promise.all(
      processes.map(async (d) => {
        const svc = new LeadsService(d);
        let created = 0;
        const ids = new Set<string>();
        for (let i = 0; i < rounds; i++) {
          const r = await d.db.transact(async (tx) => await svc.upsert(tx, p.id, { ...input, tags: [`round-${i}`] }));
          if (r.created) created++;
          ids.add(r.lead.id);
        }
        return { created, ids: [...ids] };
      }),
    );
    expect(done.reduce((n, r) => n + r.created, 0)).toBe(1);
    expect(new Set(done.flatMap((r) => r.ids)).size).toBe(1);
    const stored = await rows(t);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.tags).toEqual([`round-${rounds - 1}`]);
  });

  it('replays an Idempotency-Key and refuses it with another body', async () => {
    const { t, post } = await setup();
    const headers = { 'Idempotency-Key': 'lead-1' };
    const first = await post(lead('WISHLIST'), undefined, headers);
    const again = await post(lead('WISHLIST'), undefined, headers);
    expect(again.status).toBe(200);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.body.data.created).toBe(true);
    const reused = await post(lead('WISHLIST', { tags: ['x'] }), undefined, headers);
    expect(reused.status).toBe(422);
    expect(reused.body.errors[0].code).toBe('idempotency_key_reused');
    expect(await rows(t)).toHaveLength(1);
  });
});

describe('POST /v1/marketdata/users/bulk', () => {
  it('applies each item on its own and answers each outcome in order', async () => {
    const { t, p } = await setup();
    const res = await t.request('POST', BULK, {
      key: p.keys.private,
      body: {
        items: [
          lead('WISHLIST', { buyer: { email: 'a@example.com' } }),
          lead('TICKET_HOLDER', { buyer: { email: 'b@example.com' }, price: undefined }),
          lead('WISHLIST', { buyer: { email: 'A@example.com' }, ticketOptionId: 'opt-vip' }),
          lead('WISHLIST', { externalReferenceEventId: 'nope' }),
          'not a lead',
          lead('VIRTUAL_QUEUE', { buyer: { phone: '+34600111222' }, ticketOptionId: 'opt-none' }),
          lead('ABANDONED_CART', { buyer: { id: 'u-1' }, showId: 'show-2' }),
        ],
      },
    });
    expect(res.status).toBe(200);
    const r = res.body.data;
    expect([r.created, r.updated, r.rejected]).toEqual([2, 1, 4]);
    expect(r.results.map((x: { index: number; status: string }) => [x.index, x.status])).toEqual([
      [0, 'created'],
      [1, 'rejected'],
      [2, 'updated'],
      [3, 'rejected'],
      [4, 'rejected'],
      [5, 'rejected'],
      [6, 'created'],
    ]);
    expect(r.results[2].id).toBe(r.results[0].id);
    expect(r.results[1].errors).toEqual([{ code: 'missing_field', message: 'price is required', path: 'price' }]);
    expect(r.results[3].errors[0]).toMatchObject({ code: 'not_found' });
    expect(r.results[4].errors[0]).toMatchObject({ code: 'invalid_type' });
    expect(r.results[5].errors[0]).toMatchObject({ code: 'invalid_value', path: 'ticketOptionId' });
    expect(r.results[1].id).toBeUndefined();
    // Rejected items wrote nothing.
    expect((await rows(t)).map((l) => l.buyerKey).sort()).toEqual(['email:a@example.com', 'id:u-1']);
    expect((await rows(t)).find((l) => l.buyerKey === 'email:a@example.com')!.ticketOptionId).toBe('opt-vip');
  });

  it(`takes ${MAX_BULK_LEADS} leads, refuses more, none, or a bare array`, async () => {
    const { t, p } = await setup({ maxBodyBytes: 1024 * 1024 });
    const items = (n: number) => Array.from({ length: n }, (_, i) => lead('WISHLIST', { buyer: { email: `fan${i}@example.com` } }));
    const full = await t.request('POST', BULK, { key: p.keys.private, body: { items: items(MAX_BULK_LEADS) } });
    expect(full.status).toBe(200);
    expect(full.body.data.created).toBe(MAX_BULK_LEADS);
    expect(await rows(t)).toHaveLength(MAX_BULK_LEADS);
    const over = await t.request('POST', BULK, { key: p.keys.private, body: { items: items(MAX_BULK_LEADS + 1) } });
    expect(over.status).toBe(400);
    expect(over.body.errors[0]).toMatchObject({ code: 'out_of_range', path: 'items', message: `items must hold at most ${MAX_BULK_LEADS} item(s)` });
    expect((await t.request('POST', BULK, { key: p.keys.private, body: { items: [] } })).body.errors[0]).toMatchObject({ code: 'out_of_range', path: 'items' });
    expect((await t.request('POST', BULK, { key: p.keys.private, body: items(2) })).body.errors[0]).toMatchObject({ code: 'invalid_type' });
    expect((await t.request('POST', BULK, { key: p.keys.private, body: { items: items(1), extra: true } })).body.errors[0]).toMatchObject({ code: 'unknown_field', path: 'extra' });
    expect(await rows(t)).toHaveLength(MAX_BULK_LEADS);
  });

  it('refuses an oversized bulk body with 413, and replays an Idempotency-Key', async () => {
    const { t, p } = await setup({ maxBodyBytes: 8 * 1024 });
    const items = Array.from({ length: 100 }, (_, i) => lead('WISHLIST', { buyer: { email: `fan${i}@example.com` } }));
    expect((await t.request('POST', BULK, { key: p.keys.private, body: { items } })).status).toBe(413);
    expect(await rows(t)).toHaveLength(0);
    const headers = { 'Idempotency-Key': 'bulk-1' };
    const body = { items: items.slice(0, 3) };
    const first = await t.request('POST', BULK, { key: p.keys.private, body, headers });
    const again = await t.request('POST', BULK, { key: p.keys.private, body, headers });
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.body.data.created).toBe(3);
  });
});

describe('GET /v1/marketdata/users', () => {
  async function seeded() {
    const s = await setup();
    const other = await s.t.partner('Other');
    await withEvent(s.t, other);
    for (let i = 0; i < 5; i++) await s.post(lead(i % 2 ? 'WISHLIST' : 'VIRTUAL_QUEUE', { buyer: { id: `u${i}` }, showId: i < 3 ? 'show-1' : 'show-2' }));
    await s.post(lead('WISHLIST', { buyer: { id: 'foreign' } }), other.keys.private);
    return { ...s, other };
  }
  const list = (t: TestApp, p: TestPartner, q: Record<string, string> = {}) => t.request('GET', `${USERS}?${new URLSearchParams(q)}`, { key: p.keys.private });

  it('lists the partner’s leads by event, show and type, a page at a time', async () => {
    const { t, p } = await seeded();
    const all = await list(t, p);
    expect(all.status).toBe(200);
    expect(all.body.data.items.map((l: { buyer: { id: string } }) => l.buyer.id)).toEqual(['u0', 'u1', 'u2', 'u3', 'u4']);
    expect(all.body.data.nextCursor).toBeNull();
    expect((await list(t, p, { externalReferenceEventId: 'tour', showId: 'show-2' })).body.data.items.map((l: { buyer: { id: string } }) => l.buyer.id)).toEqual(['u3', 'u4']);
    expect((await list(t, p, { externalReferenceEventId: 'tour', type: 'WISHLIST' })).body.data.items.map((l: { buyer: { id: string } }) => l.buyer.id)).toEqual(['u1', 'u3']);
    const page1 = await list(t, p, { limit: '2' });
    expect(page1.body.data.items).toHaveLength(2);
    const page2 = await list(t, p, { limit: '2', startingAfter: page1.body.data.nextCursor });
    const page3 = await list(t, p, { limit: '2', startingAfter: page2.body.data.nextCursor });
    expect([...page1.body.data.items, ...page2.body.data.items, ...page3.body.data.items].map((l: { buyer: { id: string } }) => l.buyer.id)).toEqual(['u0', 'u1', 'u2', 'u3', 'u4']);
    expect(page3.body.data.nextCursor).toBeNull();
  });

  it('reads one lead, and hides other partners’ leads and events', async () => {
    const { t, p, other } = await seeded();
    const mine = (await list(t, p)).body.data.items[0];
    expect((await t.request('GET', `${USERS}/${mine.id}`, { key: p.keys.private })).body.data).toEqual(mine);
    expect((await t.request('GET', `${USERS}/${mine.id}`, { key: other.keys.private })).status).toBe(404);
    expect((await t.request('GET', `${USERS}/ld_unknown`, { key: p.keys.private })).status).toBe(404);
    expect((await list(t, other)).body.data.items.map((l: { buyer: { id: string } }) => l.buyer.id)).toEqual(['foreign']);
    expect((await list(t, p, { externalReferenceEventId: 'nope' })).status).toBe(404);
    expect((await list(t, p, { externalReferenceEventId: 'tour', showId: 'show-9' })).status).toBe(404);
    expect((await list(t, p, { showId: 'show-1' })).body.errors[0]).toMatchObject({ code: 'missing_field', path: 'externalReferenceEventId', in: 'query' });
    expect((await list(t, p, { limit: '0' })).body.errors[0]).toMatchObject({ code: 'out_of_range', path: 'limit' });
    expect((await list(t, p, { type: 'FAN' })).body.errors[0]).toMatchObject({ code: 'invalid_value', path: 'type' });
  });

  it('documents every lead operation in the OpenAPI document', async () => {
    const { t } = await setup();
    const doc = (await (await t.app.request('/v1/openapi.json')).json()) as { paths: Record<string, Record<string, { operationId: string }>>; components: { schemas: Record<string, unknown> } };
    expect(doc.paths[USERS]!.post!.operationId).toBe('upsertLead');
    expect(doc.paths[USERS]!.get!.operationId).toBe('listLeads');
    expect(doc.paths[BULK]!.post!.operationId).toBe('upsertLeadsBulk');
    expect(doc.paths[`${USERS}/{leadId}`]!.get!.operationId).toBe('getLead');
    for (const name of ['LeadInput', 'TicketHolderLead', 'AbandonedCartLead', 'VirtualQueueLead', 'WishlistLead', 'Lead', 'LeadBulk', 'LeadBulkResult']) expect(doc.components.schemas[name], name).toBeDefined();
  });
});
