import { describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestPartner } from '../../testing/harness.js';
import { eventBody, priceDetailShowBody, showBody } from '../../testing/factories.js';

type Entry = { code: string; path?: string; in?: string; message: string };

async function post(t: TestApp, p: TestPartner, body: unknown) {
  return t.request('POST', '/v1/events', { key: p.keys.private, body });
}

function paths(errors: Entry[]) {
  return errors.map((e) => `${e.code}@${e.path ?? ''}`).sort();
}

describe('events: bad input', () => {
  it('names every missing required field at once', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const res = await post(t, p, { externalReferenceId: 'x', shows: [{ showId: 's' }] });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 400, data: null });
    expect(paths(res.body.errors)).toEqual(
      [
        'missing_field@title',
        'missing_field@description',
        'missing_field@location',
        'missing_field@configuration',
        'missing_field@shows.0.title',
        'missing_field@shows.0.date',
        'missing_field@shows.0.ticketOptions',
        'missing_field@shows.0.images',
        'missing_field@shows.0.configuration',
      ].sort(),
    );
    expect(res.body.errors.find((e: Entry) => e.path === 'title')).toEqual({ code: 'missing_field', message: 'title is required', path: 'title', in: 'body' });
  });

  it('refuses wrong types, enums, formats and ranges with their paths', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const body = eventBody('bad', {
      title: 42,
      location: { city: 'Madrid', timeZone: 'Mars/Olympus' },
      configuration: { redemption: { policy: 'SOMETIMES' }, ticketDelivery: { time: { when: 'BEFORE', seconds: -5 } } },
      shows: [
        showBody('s1', {
          date: '2026-05-01T21:00:00',
          status: 'ON_SALE',
          images: [{ url: 'javascript:alert(1)', kind: 'poster' }],
          primarySalesUrl: '',
          ticketOptions: [{ ticketId: 'o', title: 'O', description: 'o', currency: 'EURO', price: -1, stock: 1.5 }],
        }),
      ],
    });
    const res = await post(t, p, body);
    expect(res.status).toBe(400);
    expect(paths(res.body.errors)).toEqual(
      [
        'invalid_type@title',
        'invalid_value@location.timeZone',
        'invalid_value@configuration.redemption.policy',
        'out_of_range@configuration.ticketDelivery.time.seconds',
        'invalid_format@shows.0.date',
        'invalid_value@shows.0.status',
        'invalid_format@shows.0.images.0.url',
        'invalid_value@shows.0.images.0.kind',
        'invalid_format@shows.0.primarySalesUrl',
        'invalid_value@shows.0.ticketOptions.0.currency',
        'out_of_range@shows.0.ticketOptions.0.price',
        'invalid_type@shows.0.ticketOptions.0.stock',
      ].sort(),
    );
    const date = res.body.errors.find((e: Entry) => e.path === 'shows.0.date');
    expect(date.message).toMatch(/ISO 8601 date-time with an offset/);
  });

  it('refuses unknown fields, naming them (a typo is an error, not silence)', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const res = await post(t, p, eventBody('u', { titel: 'typo', shows: [showBody('s1', { resaleEnabeld: false })] }));
    expect(res.status).toBe(400);
    expect(paths(res.body.errors)).toEqual(['unknown_field@shows.0.resaleEnabeld', 'unknown_field@titel']);
  });

  it('refuses a price with more decimals than its currency, duplicate ids and dangling combinations', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const show = priceDetailShowBody('s1', {
      ticketOptions: [
        { ticketId: 'opt-field', title: 'F', description: 'f', currency: 'EUR', price: 10.555 },
        { ticketId: 'opt-field', title: 'F2', description: 'f', currency: 'EUR' },
        { ticketId: 'opt-yen', title: 'Y', description: 'y', currency: 'JPY', price: '100.5' },
      ],
      combinations: [
        { ticketOptionId: 'opt-field', priceTypeId: 'pt-early', price: 1 },
        { ticketOptionId: 'opt-field', priceTypeId: 'pt-early', price: 2 },
        { ticketOptionId: 'opt-ghost', priceTypeId: 'pt-none', price: 3 },
      ],
    });
    const res = await post(t, p, eventBody('d', { shows: [show, showBody('s1')] }));
    expect(res.status).toBe(400);
    expect(paths(res.body.errors)).toEqual(
      [
        'invalid_value@shows.1.showId',
        'invalid_value@shows.0.ticketOptions.0.price',
        'invalid_value@shows.0.ticketOptions.1.ticketId',
        'invalid_value@shows.0.ticketOptions.2.price',
        'invalid_value@shows.0.combinations.1',
        'invalid_value@shows.0.combinations.2.ticketOptionId',
        'invalid_value@shows.0.combinations.2.priceTypeId',
      ].sort(),
    );
    expect((await t.request('GET', '/v1/events/d', { key: p.keys.private })).status).toBe(404);
  });

  it('refuses an empty shows array, an empty id and out-of-range inventory', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const r1 = await post(t, p, eventBody('e', { shows: [] }));
    expect(paths(r1.body.errors)).toEqual(['out_of_range@shows']);
    const r2 = await post(t, p, eventBody('  '));
    expect(paths(r2.body.errors)).toEqual(['out_of_range@externalReferenceId']);
    const r3 = await post(t, p, eventBody('inv', { shows: [showBody('s', { priceTypes: [{ priceTypeId: 'p', inventory: { soldPercentage: 101, releasedTickets: -1 } }] })] }));
    expect(paths(r3.body.errors)).toEqual(['out_of_range@shows.0.priceTypes.0.inventory.releasedTickets', 'out_of_range@shows.0.priceTypes.0.inventory.soldPercentage']);
  });

  it('answers 400 when PUT lacks externalReferenceId, and for a body that is not an object', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const r1 = await t.request('PUT', '/v1/events', { key: p.keys.private, body: { title: 'x' } });
    expect(paths(r1.body.errors)).toEqual(['missing_field@externalReferenceId']);
    const r2 = await t.request('POST', '/v1/events', { key: p.keys.private, body: [1, 2] });
    expect(r2.status).toBe(400);
    expect(r2.body.errors[0].code).toBe('invalid_type');
    const r3 = await t.request('POST', '/v1/events', { key: p.keys.private });
    expect(r3.status).toBe(400);
  });

  it('answers 413 for an oversized body and writes nothing', async () => {
    const t = createTestApp({ maxBodyBytes: 4096 });
    const p = await t.partner();
    const res = await post(t, p, eventBody('big', { description: 'x'.repeat(10_000) }));
    expect(res.status).toBe(413);
    expect(res.body.errors[0].code).toBe('payload_too_large');
    expect((await t.request('GET', '/v1/events/big', { key: p.keys.private })).status).toBe(404);
  });
});

describe('events: keys', () => {
  it('401 without a key or with an unknown one; 403 for the public and channels keys', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const none = await t.request('POST', '/v1/events', { body: eventBody() });
    expect(none.status).toBe(401);
    expect(none.body.errors[0].code).toBe('unauthorized');
    expect((await t.request('POST', '/v1/events', { key: 'sk_made_up', body: eventBody() })).status).toBe(401);
    for (const key of [p.keys.public, p.keys.channels]) {
      const res = await t.request('POST', '/v1/events', { key, body: eventBody() });
      expect(res.status).toBe(403);
      expect(res.body.errors[0].code).toBe('forbidden_key_kind');
    }
    for (const [method, path] of [
      ['PUT', '/v1/events'],
      ['GET', '/v1/events/x'],
      ['POST', '/v1/events/x/cancellation'],
    ] as const) {
      expect((await t.request(method, path, { key: p.keys.public, body: method === 'PUT' ? { externalReferenceId: 'x' } : undefined })).status).toBe(403);
    }
  });
});

describe('events: saves at once (several processes on PostgreSQL)', () => {
  it('creates the event once when the same POST arrives many times at once: one 200, the others 409, never a 500', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const statuses = await Promise.all(Array.from({ length: 8 }, () => post(t, p, eventBody('race', { shows: [showBody('s1')] })).then((r) => r.status)));
    expect(statuses.sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
  });

  it('applies concurrent updates of one event one after the other: each PUT adds its show, none is lost', async () => {
    const t = createTestApp();
    const p = await t.partner();
    expect((await post(t, p, eventBody('merge', { shows: [showBody('s0')] }))).status).toBe(200);
    const puts = await Promise.all(
      Array.from({ length: 6 }, (_, i) => t.request('PUT', '/v1/events', { key: p.keys.private, body: { externalReferenceId: 'merge', shows: [showBody(`s${i + 1}`)] } }).then((r) => r.status)),
    );
    expect(puts).toEqual(Array(6).fill(200));
    const got = await t.request('GET', '/v1/events/merge', { key: p.keys.private });
    expect(got.body.data.shows.map((s: { showId: string }) => s.showId).sort()).toEqual(['s0', 's1', 's2', 's3', 's4', 's5', 's6']);
  });
});
