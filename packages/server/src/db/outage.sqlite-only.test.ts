import { describe, expect, it } from 'vitest';
import { eventBody } from '../testing/factories.js';
import { createTestApp } from '../testing/harness.js';
import { TestBrowser } from '../http/pages/auth/auth.testing.js';
import { availabilityOf } from './availability.js';

/**
 * SQLite only: a database file that cannot be written. A real read-only file cannot be made
 * here (the tests run as root, whom file modes do not stop) nor a full disk (mounting a small
 * tmpfs needs privileges CI may lack), so SQLite is asked for the same errors itself: `PRAGMA
 * query_only` makes every write fail with SQLITE_READONLY, as a read-only file or mount does,
 * and `PRAGMA max_page_count` at the current size makes the file unable to grow, SQLITE_FULL,
 * as a full disk does. The service must answer 503 with Retry-After, turn readiness off, keep
 * liveness and reads, never crash, and be back as soon as a write commits.
 */

describe('a SQLite file that cannot be written', () => {
  it('answers writes 503 database_unavailable with Retry-After while it is read-only, keeps reads and liveness, and readiness off until a write commits', async () => {
    const t = createTestApp();
    const p = await t.partner();
    expect((await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody('before') })).status).toBe(200);
    expect((await t.request('GET', '/readyz')).status).toBe(200);

    t.db.$client.pragma('query_only = ON');
    const refused = await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody('during') });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(refused.body).toEqual({ status: 503, data: null, errors: [{ code: 'database_unavailable', message: 'The database cannot be reached right now; nothing was changed. Retry in 2 s.' }] });
    expect(availabilityOf(t.db)?.down).toBe(true);
    // Readiness goes off (a load balancer stops sending writes here); liveness does not (no restart would help).
    const ready = await t.request('GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.errors).toEqual([{ code: 'not_ready', message: 'Not ready: the database cannot be written' }]);
    expect((await t.request('GET', '/healthz')).status).toBe(200);
    // Reads still answer.
    expect((await t.request('GET', '/v1/events/before', { key: p.keys.private })).status).toBe(200);
    expect((await t.request('GET', '/v1/events/during', { key: p.keys.private })).status).toBe(404);

    t.db.$client.pragma('query_only = OFF');
    // Still off: nothing has shown yet that writes work again.
    expect((await t.request('GET', '/readyz')).status).toBe(503);
    expect((await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody('after') })).status).toBe(200);
    expect(availabilityOf(t.db)?.down).toBe(false);
    expect((await t.request('GET', '/readyz')).status).toBe(200);
  });

  it('answers 503 when the file cannot grow (a full disk), with nothing half-written, and serves again once it can', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const pages = t.db.$client.pragma('page_count', { simple: true }) as number;
    t.db.$client.pragma(`max_page_count = ${pages}`);
    // The free space inside the file's pages takes a few events; then the file must grow.
    let status = 200;
    let n = 0;
    for (; n < 500 && status === 200; n++) status = (await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody(`full-${n}`, { description: 'x'.repeat(2_000) }) })).status;
    expect(status).toBe(503);
    const failed = `full-${n - 1}`;
    // The refused event was not half-written: neither it nor its shows exist.
    expect((await t.request('GET', `/v1/events/${failed}`, { key: p.keys.private })).status).toBe(404);
    expect((await t.request('GET', '/readyz')).status).toBe(503);

    t.db.$client.pragma('max_page_count = 1073741823');
    expect((await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody(failed) })).status).toBe(200);
    expect((await t.request('GET', '/readyz')).status).toBe(200);
  });

  it('shows the hosted pages a localised 503 notice with Retry-After, not an error', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody('tour-2026') });
    t.db.$client.pragma('query_only = ON');
    // Asking for a sign-in code writes (the code, the outbox): the form's POST meets the read-only file.
    const browser = new TestBrowser(t.app, '203.0.113.90');
    const form = await browser.get(`/auth/otp?p=${p.id}&lang=es`);
    expect(form.status).toBe(200);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)![1]!;
    const res = await browser.post(`/auth/otp?p=${p.id}&lang=es`, { _csrf: csrf, identifier: 'ana@example.com' });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('2');
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toContain('<html lang="es">');
    expect(res.text).toContain('<h1>Volvemos enseguida</h1>');
    t.db.$client.pragma('query_only = OFF');
  });
});
