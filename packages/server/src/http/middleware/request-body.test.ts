import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../testing/harness.js';
import { eventBody, withEvent } from '../../testing/factories.js';
import { TestBrowser } from '../pages/auth/auth.testing.js';
import { dataTableNames, sqlRows } from '../../testing/sql.js';

/**
 * What a body may be before anything reads it (checkRequestBody): JSON to the API, forms to the
 * pages, and JSON no deeper than 32 levels nor wider than 10,000 elements or 1,000 keys.
 * Bodies up to the production limit (5 MiB), where 100,000 levels fit.
 */
const setup = async () => {
  const t = createTestApp({ maxBodyBytes: 5 * 1024 * 1024, rateLimitPerMinute: 1_000_000 });
  return { t, p: await t.partner() };
};
const deepObjects = (n: number, leaf = '1') => '{"a":'.repeat(n) + leaf + '}'.repeat(n);
const deepArrays = (n: number, leaf = '') => '['.repeat(n) + leaf + ']'.repeat(n);
const rowCount = async (t: ReturnType<typeof createTestApp>) => {
  let n = 0;
  for (const name of await dataTableNames(t.db)) n += (await sqlRows<{ c: number }>(t.db, `select count(*) as c from "${name}"`))[0]!.c;
  return n;
};

describe('JSON depth and size', () => {
  it('answers 400 invalid_json to 100,000 levels on every kind of route, with or without a key (was a 500: the control-character walk overflowed the stack)', async () => {
    const { t, p } = await setup();
    const bodies = [deepObjects(100_000), deepArrays(100_000), deepObjects(100_000, '"\\u0000"'), deepArrays(100_000, '"\\u0001"'), `[${deepObjects(50_000)}]`];
    const targets: [string, string | null][] = [
      ['/v1/events', p.keys.private],
      ['/v1/events', null],
      ['/v1/tickets', p.keys.private],
      ['/v1/sync/tickets', p.keys.private],
      ['/v1/marketdata/users', p.keys.private],
      ['/v1/channels/listings', p.keys.channels],
      ['/admin/v1/partners', 'operator'],
      ['/no/such/route', null],
    ];
    const before = await rowCount(t);
    for (const [path, key] of targets) {
      for (const raw of bodies) {
        const res = await t.request('POST', path, { ...(key === 'operator' ? { operator: true } : { key }), raw });
        expect(res.status, `${path} ${raw.slice(0, 12)}`).toBe(400);
        expect(res.body).toEqual({ status: 400, data: null, errors: [{ code: 'invalid_json', message: 'The body nests objects and arrays more than 32 levels deep' }] });
      }
    }
    expect(await rowCount(t)).toBe(before);
  });

  it('takes 32 levels (validation answers) and refuses 33', async () => {
    const { t, p } = await setup();
    const metadata = (levels: number) => JSON.parse(deepObjects(levels)) as unknown;
    const lead = (levels: number) => ({ type: 'WISHLIST', externalReferenceEventId: 'tour', showId: 'show-1', buyer: { email: 'fan@example.com' }, metadata: metadata(levels) });
    // metadata sits at level 2, so 31 levels of it make a body of 32.
    const ok = await t.request('POST', '/v1/marketdata/users', { key: p.keys.private, body: lead(31) });
    expect(ok.body.errors[0]).toMatchObject({ code: 'not_found' }); // past the limits: the event does not exist
    const over = await t.request('POST', '/v1/marketdata/users', { key: p.keys.private, body: lead(32) });
    expect(over.status).toBe(400);
    expect(over.body.errors[0].code).toBe('invalid_json');
  });

  it('answers 400 out_of_range, naming the array, to 200,000 elements', async () => {
    const { t, p } = await setup();
    const res = await t.request('POST', '/v1/marketdata/users/bulk', { key: p.keys.private, raw: `{"items":[${'0,'.repeat(199_999)}0]}` });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ code: 'out_of_range', message: 'items holds more than 10000 elements', path: 'items', in: 'body' }]);
    const root = await t.request('POST', '/v1/tickets', { key: p.keys.private, raw: `[${'{},'.repeat(199_999)}{}]` });
    expect(root.body.errors).toEqual([{ code: 'out_of_range', message: 'The body holds more than 10000 elements', in: 'body' }]);
    const keys = await t.request('POST', '/v1/marketdata/users', { key: p.keys.private, raw: `{${Array.from({ length: 1_001 }, (_, i) => `"k${i}":0`).join(',')}}` });
    expect(keys.body.errors).toEqual([{ code: 'out_of_range', message: 'The body holds more than 1000 keys', in: 'body' }]);
  });
});

describe('media types', () => {
  it('API endpoints take application/json only (parameters ignored): anything else with a body is 415 before the key, the idempotency claim or the handler', async () => {
    const { t, p } = await setup();
    const body = JSON.stringify(eventBody('tour'));
    const before = await rowCount(t);
    for (const type of ['application/json-patch+json', 'application/merge-patch+json', 'text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'text/json', null]) {
      for (const key of [p.keys.private, null]) {
        const headers: Record<string, string> = { 'idempotency-key': 'k-1', ...(type ? { 'content-type': type } : {}), ...(key ? { authorization: key } : {}) };
        const res = await t.app.request('/v1/events', { method: 'POST', headers, body });
        expect(res.status, `${type}`).toBe(415);
        const json = (await res.json()) as { errors: unknown[] };
        expect(json).toEqual({
          status: 415,
          data: null,
          errors: [{ code: 'unsupported_media_type', message: expect.stringMatching(/^Send the body as JSON \(Content-Type: application\/json\)/), path: 'Content-Type', in: 'header' }],
        });
      }
    }
    expect(await rowCount(t)).toBe(before);
    for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON;charset=UTF-8']) {
      const res = await t.app.request('/v1/events', { method: 'POST', headers: { 'content-type': type, authorization: p.keys.private }, body: JSON.stringify(eventBody(`tour-${type.length}`)) });
      expect(res.status, type).toBe(200);
    }
  });

  it('an empty body passes with any type, so endpoints without a body keep working (curl -d "" sends a form type)', async () => {
    const { t, p } = await setup();
    await withEvent(t, p);
    const res = await t.app.request('/v1/events/tour/cancellation', { method: 'POST', headers: { authorization: p.keys.private, 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    expect(res.status).toBe(200);
    const withBody = await t.app.request('/v1/events/tour/cancellation', { method: 'POST', headers: { authorization: p.keys.private, 'content-type': 'text/plain' }, body: 'x' });
    expect(withBody.status).toBe(415);
  });

  it('unknown paths and wrong methods keep their 404 and 405', async () => {
    const { t } = await setup();
    expect((await t.app.request('/v1/nope', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' })).status).toBe(404);
    expect((await t.app.request('/v1/events', { method: 'PATCH', headers: { 'content-type': 'text/plain' }, body: 'x' })).status).toBe(405);
  });

  it('hosted forms take urlencoded and multipart only: anything else is a localised 415 page, a malformed multipart body a 400 page (was a 500)', async () => {
    const { t, p } = await setup();
    const browser = new TestBrowser(t.app);
    const before = await rowCount(t);
    const forms = [`/market/${p.id}/tour/buy`, `/sell/${p.id}/payout`, `/checkout/${p.id}/bi_nope`, '/auth/otp', '/auth/logout'];
    for (const action of forms) {
      for (const [type, body] of [
        ['application/json', '{"listingId":"x"}'],
        ['text/plain', 'x'],
        ['application/xml', '<x/>'],
        ['', 'a=1'],
      ] as const) {
        const res = await t.app.request(`${action}?lang=es`, { method: 'POST', headers: type ? { 'content-type': type } : {}, body });
        const html = await res.text();
        expect(res.status, `${action} ${type}`).toBe(415);
        expect(html).toContain('No hemos podido leer este formulario');
        expect(res.headers.get('content-security-policy')).toBeTruthy();
      }
      for (const type of ['multipart/form-data', 'multipart/form-data; boundary=xyz']) {
        const res = await t.app.request(action, { method: 'POST', headers: { 'content-type': type }, body: '--nope\r\nbroken' });
        expect(res.status, `${action} ${type}`).toBe(400);
        expect(await res.text()).toContain('This form could not be read');
      }
      // A real form reaches the page (which then asks for its CSRF token, a session…).
      const form = await browser.post(action, { a: '1' });
      expect(form.status, action).not.toBe(415);
      expect(form.status, action).toBeLessThan(500);
    }
    expect(await rowCount(t)).toBe(before);
  });
});
