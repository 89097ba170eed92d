import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../testing/harness.js';
import { browserRoutesOf } from './cors.js';
import { eventBody, withEvent } from '../../testing/factories.js';

const PAGE = 'https://tickets.acme.example';
const buyPath = '/v1/wrapper/accesslayer?type=buy&eventId=tour&showId=show-1';

async function setup() {
  const t = createTestApp();
  const p = await t.partner('Acme', { allowedOrigins: [PAGE] });
  const other = await t.partner('Other', { allowedOrigins: ['https://other.example'] });
  await withEvent(t, p, eventBody('tour'));
  return { t, p, other };
}

describe('CORS for the public-key endpoints', () => {
  it('answers a request with the public key from an allowed origin with CORS headers', async () => {
    const { t, p } = await setup();
    const res = await t.request('GET', buyPath, { key: p.keys.public, headers: { origin: PAGE } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(res.headers.get('vary')).toContain('Origin');
    expect(res.headers.get('access-control-expose-headers')).toContain('Request-Id');
  });

  it('refuses a foreign origin (another partner’s origin too) before doing anything, with no CORS headers', async () => {
    const { t, p } = await setup();
    for (const origin of ['https://evil.example', 'https://other.example', 'null']) {
      const res = await t.request('GET', buyPath, { key: p.keys.public, headers: { origin } });
      expect(res.status).toBe(403);
      expect(res.body.errors[0].code).toBe('origin_not_allowed');
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
    // A delist from a foreign page is refused, not executed.
    const delist = await t.request('POST', '/v1/delist', { key: p.keys.public, headers: { origin: 'https://evil.example' }, body: { eventId: 'tour' } });
    expect(delist.status).toBe(403);
  });

  it('never answers CORS to the private key, and servers (no Origin) are unaffected', async () => {
    const { t, p } = await setup();
    const priv = await t.request('GET', buyPath, { key: p.keys.private, headers: { origin: PAGE } });
    expect(priv.status).toBe(200);
    expect(priv.headers.get('access-control-allow-origin')).toBeNull();
    const events = await t.request('GET', '/v1/events/tour', { key: p.keys.private, headers: { origin: PAGE } });
    expect(events.status).toBe(200);
    expect(events.headers.get('access-control-allow-origin')).toBeNull();
    const server = await t.request('GET', buyPath, { key: p.keys.public });
    expect(server.status).toBe(200);
    expect(server.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('keeps the CORS headers on errors after authentication, so the page can read them (404, 429)', async () => {
    const t = createTestApp();
    const p = await t.partner('Acme', { allowedOrigins: [PAGE], rateLimitPerMinute: 1 });
    const first = await t.request('GET', '/v1/wrapper/accesslayer?type=buy&eventId=nope&showId=x', { key: p.keys.public, headers: { origin: PAGE } });
    expect(first.status).toBe(404);
    expect(first.headers.get('access-control-allow-origin')).toBe(PAGE);
    const limited = await t.request('GET', buyPath, { key: p.keys.public, headers: { origin: PAGE } });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(limited.headers.get('retry-after')).not.toBeNull();
  });

  it('answers preflights for browser routes from origins a partner allows, and refuses the rest', async () => {
    const { t } = await setup();
    const pre = (path: string, origin: string, method = 'GET') =>
      t.request('OPTIONS', path, { headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization' } });
    const ok = await pre('/v1/wrapper/accesslayer', PAGE);
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(ok.headers.get('access-control-allow-headers')).toContain('Authorization');
    expect(ok.headers.get('access-control-max-age')).toBe('600');
    expect((await pre('/v1/wrapper/seatmap', PAGE)).status).toBe(204);
    expect((await pre('/v1/wrapper/accesslayer/bulk', PAGE, 'POST')).status).toBe(204);
    for (const [path, origin, method] of [
      ['/v1/wrapper/accesslayer', 'https://evil.example', 'GET'],
      ['/v1/events', PAGE, 'POST'],
      ['/v1/wrapper/accesslayer', PAGE, 'DELETE'],
    ] as const) {
      const res = await pre(path, origin, method);
      expect(res.status, `${method} ${path} from ${origin}`).toBe(403);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(res.body.errors[0].code).toBe('origin_not_allowed');
    }
  });

  it('validates allowedOrigins in the operator API and normalises them', async () => {
    const { t, p } = await setup();
    const bad = await t.request('PATCH', `/admin/v1/partners/${p.id}`, { operator: true, body: { settings: { allowedOrigins: ['https://acme.example/path', 'javascript:alert(1)'] } } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { path: string }) => e.path)).toEqual(['settings.allowedOrigins.0', 'settings.allowedOrigins.1']);
    const good = await t.request('PATCH', `/admin/v1/partners/${p.id}`, { operator: true, body: { settings: { allowedOrigins: ['HTTPS://Shop.Acme.example/', 'http://localhost:3001'] } } });
    expect(good.status).toBe(200);
    expect(good.body.data.settings.allowedOrigins).toEqual(['https://shop.acme.example', 'http://localhost:3001']);
    const res = await t.request('GET', buyPath, { key: p.keys.public, headers: { origin: 'https://shop.acme.example' } });
    expect(res.headers.get('access-control-allow-origin')).toBe('https://shop.acme.example');
    // The old origin is no longer allowed.
    expect((await t.request('GET', buyPath, { key: p.keys.public, headers: { origin: PAGE } })).status).toBe(403);
  });

  it('takes the browser routes from where the routes are declared: the documented security and the key middleware agree', async () => {
    const { t, p } = await setup();
    const browser = browserRoutesOf(t.app.openAPIRegistry);
    const named = (path: string) => browser.filter((r) => r.path.test(path)).map((r) => r.method).sort();
    expect(named('/v1/wrapper/accesslayer')).toEqual(['GET']);
    expect(named('/v1/wrapper/accesslayer/bulk')).toEqual(['POST']);
    expect(named('/v1/rules')).toEqual(['GET', 'POST']);
    expect(named('/v1/events')).toEqual([]);
    // Every route documented with a partner key: the public key from an allowed page passes the
    // key check (with CORS headers) exactly where the document says it may, and is refused
    // (without them) everywhere else.
    const document = t.app.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 't', version: '1' } });
    let checked = 0;
    for (const [path, item] of Object.entries(document.paths ?? {})) {
      for (const [method, operation] of Object.entries(item as Record<string, { security?: Record<string, unknown>[] }>)) {
        const schemes = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
        if (!schemes.some((s) => ['publicKey', 'privateKey', 'channelsKey'].includes(s))) continue;
        const concrete = path.replace(/\{[^}]+\}/g, 'x');
        const res = await t.request(method.toUpperCase(), concrete, { key: p.keys.public, headers: { origin: PAGE }, ...(method === 'get' ? {} : { body: {} }) });
        const refusedKey = res.status === 403 && res.body?.errors?.[0]?.code === 'forbidden_key_kind';
        const documentedPublic = schemes.includes('publicKey');
        expect(refusedKey, `${method.toUpperCase()} ${path}`).toBe(!documentedPublic);
        expect(res.headers.get('access-control-allow-origin'), `${method.toUpperCase()} ${path}`).toBe(documentedPublic ? PAGE : null);
        expect(named(concrete).includes(method.toUpperCase()), `${method.toUpperCase()} ${path}`).toBe(documentedPublic);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('answers the retired rules path to a page too, so an old widget can read where rules went', async () => {
    const { t, p } = await setup();
    const res = await t.request('POST', '/v1/events/rules', { key: p.keys.public, headers: { origin: PAGE }, body: {} });
    expect(res.status).toBe(410);
    expect(res.headers.get('access-control-allow-origin')).toBe(PAGE);
    const foreign = await t.request('POST', '/v1/events/rules', { key: p.keys.public, headers: { origin: 'https://evil.example' }, body: {} });
    expect(foreign.status).toBe(403);
    expect(foreign.body.errors[0].code).toBe('origin_not_allowed');
  });
});
