import { Hono } from 'hono';
import { stream, streamText } from 'hono/streaming';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_SCRIPT_PATH } from '../pages/page-script.js';
import { createTestApp, listen, type Listening } from '../../testing/harness.js';
import { negotiateEncoding, varyOnEncoding, withCoding } from '../../lib/compression.js';
import { compression } from './compression.js';
import { rawRequest } from './compression.testing.js';

describe('negotiateEncoding', () => {
  const both = ['br', 'gzip'] as const;
  it.each([
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip, deflate', 'gzip'],
    ['br;q=0.5, gzip', 'gzip'],
    ['br;q=0.5, gzip;q=0.4', 'br'],
    ['GZIP', 'gzip'],
    ['x-gzip', 'gzip'],
    ['br;q=0, gzip;q=0', 'identity'],
    ['zstd, deflate', 'identity'],
    ['*', 'br'],
    ['*;q=0.2, br;q=0', 'gzip'],
    ['identity', 'identity'],
    ['br;q=0.5, identity', 'identity'],
    ['br;q=2, gzip', 'gzip'], // a malformed q-value drops the entry
    ['br;q=abc', 'identity'],
    ['identity;q=0, zstd', null],
    ['*;q=0', null],
    ['identity;q=0, gzip', 'gzip'],
    ['', 'identity'],
  ] as const)('%j -> %s', (header, expected) => {
    expect(negotiateEncoding(header, both)).toBe(expected);
  });

  it('reads no header as identity, and offers only what is on offer', () => {
    expect(negotiateEncoding(undefined, ['br', 'gzip'])).toBe('identity');
    expect(negotiateEncoding('br, gzip', ['gzip'])).toBe('gzip');
    expect(negotiateEncoding('br', [])).toBe('identity');
  });

  it('adds Accept-Encoding to Vary once, and tags each coding apart', () => {
    expect(varyOnEncoding(null)).toBe('Accept-Encoding');
    expect(varyOnEncoding('Origin')).toBe('Origin, Accept-Encoding');
    expect(varyOnEncoding('origin, accept-encoding')).toBe('origin, accept-encoding');
    expect(varyOnEncoding('*')).toBe('*');
    expect(withCoding('"abc"', 'br')).toBe('"abc-br"');
    expect(withCoding('W/"abc"', 'gzip')).toBe('W/"abc-gzip"');
  });
});

describe('compression() over real HTTP', () => {
  const big = { items: Array.from({ length: 100 }, (_, i) => ({ id: `item-${i}`, title: `A title that repeats ${i}` })) };
  const bigJson = JSON.stringify(big);
  const page = `<!DOCTYPE html><html><body>${'<p>Resale, officially.</p>'.repeat(200)}</body></html>`;
  const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(4000, 'x')]);
  let http: Listening;

  beforeAll(async () => {
    const app = new Hono();
    app.use('*', compression());
    app.get('/big', (c) => c.json(big));
    app.get('/small', (c) => c.json({ ok: true }));
    app.get('/tagged', (c) => c.json(big, 200, { ETag: '"v1"' }));
    app.get('/page', (c) => c.html(page, 200, { 'Cache-Control': 'no-store' }));
    app.get('/pdf', (c) => c.body(new Uint8Array(pdf), 200, { 'Content-Type': 'application/pdf', 'Cache-Control': 'no-store' }));
    app.get('/no-transform', (c) => c.json(big, 200, { 'Cache-Control': 'public, no-transform' }));
    app.get('/negotiated', (c) => c.json(big, 200, { Vary: 'Accept-Encoding' }));
    app.get('/events', (c) =>
      stream(c, async (s) => {
        c.header('Content-Type', 'text/event-stream');
        await s.write(`data: ${'x'.repeat(2000)}\n\n`);
      }),
    );
    app.get('/created', (c) => c.body(null, 204));
    app.get('/text-stream', (c) =>
      streamText(c, async (s) => {
        await s.write('y'.repeat(2000));
      }),
    );
    http = await listen(app);
  });
  afterAll(async () => await http.close());

  const get = (path: string, headers: Record<string, string> = {}, method = 'GET') => rawRequest(`${http.base}${path}`, headers, method);

  it('answers Brotli, gzip or identity by Accept-Encoding, with Vary and an exact Content-Length', async () => {
    const br = await get('/big', { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toBe('Accept-Encoding');
    expect(Number(br.headers['content-length'])).toBe(br.body.length);
    expect(br.body.length).toBeLessThan(bigJson.length / 4);
    expect(brotliDecompressSync(br.body).toString()).toBe(bigJson);

    const gz = await get('/big', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(Number(gz.headers['content-length'])).toBe(gz.body.length);
    expect(gunzipSync(gz.body).toString()).toBe(bigJson);

    for (const accept of [undefined, 'br;q=0, gzip;q=0', 'zstd', 'identity']) {
      const plain = await get('/big', accept === undefined ? {} : { 'accept-encoding': accept });
      expect(plain.headers['content-encoding'], accept).toBeUndefined();
      expect(plain.headers.vary, accept).toBe('Accept-Encoding');
      expect(plain.body.toString(), accept).toBe(bigJson);
      expect(Number(plain.headers['content-length']), accept).toBe(bigJson.length);
    }

    // Preferred by q-value, not by our order.
    expect((await get('/big', { 'accept-encoding': 'br;q=0.1, gzip;q=0.9' })).headers['content-encoding']).toBe('gzip');
  });

  it('leaves small answers alone, unless identity is refused', async () => {
    const small = await get('/small', { 'accept-encoding': 'br' });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.headers.vary).toBeUndefined();
    expect(small.body.toString()).toBe('{"ok":true}');
    const refused = await get('/small', { 'accept-encoding': 'identity;q=0, gzip' });
    expect(refused.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(refused.body).toString()).toBe('{"ok":true}');
    // Nothing acceptable at all: identity, rather than an error in place of the answer.
    const nothing = await get('/big', { 'accept-encoding': 'identity;q=0, zstd' });
    expect(nothing.status).toBe(200);
    expect(nothing.body.toString()).toBe(bigJson);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const getBr = await get('/big', { 'accept-encoding': 'br' });
    const head = await get('/big', { 'accept-encoding': 'br' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-encoding']).toBe('br');
    expect(head.headers.vary).toBe('Accept-Encoding');
    expect(head.headers['content-length']).toBe(getBr.headers['content-length']);
  });

  it('gives each coding its own ETag', async () => {
    expect((await get('/tagged', { 'accept-encoding': 'br' })).headers.etag).toBe('"v1-br"');
    expect((await get('/tagged', { 'accept-encoding': 'gzip' })).headers.etag).toBe('"v1-gzip"');
    expect((await get('/tagged')).headers.etag).toBe('"v1"');
  });

  it('compresses a no-store page asked for without a cookie, never with one (BREACH)', async () => {
    const fresh = await get('/page', { 'accept-encoding': 'br' });
    expect(fresh.headers['content-encoding']).toBe('br');
    expect(fresh.headers['cache-control']).toBe('no-store');
    expect(brotliDecompressSync(fresh.body).toString()).toBe(page);
    const withSession = await get('/page', { 'accept-encoding': 'br', cookie: 'resale_session=abc' });
    expect(withSession.headers['content-encoding']).toBeUndefined();
    expect(withSession.body.toString()).toBe(page);
  });

  it('leaves alone the PDF, no-transform, an answer its handler negotiated, streams and empty answers', async () => {
    const p = await get('/pdf', { 'accept-encoding': 'br, gzip' });
    expect(p.headers['content-encoding']).toBeUndefined();
    expect(p.headers['content-type']).toBe('application/pdf');
    expect(p.body.equals(pdf)).toBe(true);
    for (const path of ['/no-transform', '/negotiated']) {
      const r = await get(path, { 'accept-encoding': 'br, gzip' });
      expect(r.headers['content-encoding'], path).toBeUndefined();
      expect(r.body.toString(), path).toBe(bigJson);
    }
    const events = await get('/events', { 'accept-encoding': 'br' });
    expect(events.headers['content-encoding']).toBeUndefined();
    expect(events.body.toString()).toContain('data: xxx');
    const text = await get('/text-stream', { 'accept-encoding': 'br' });
    expect(text.headers['content-encoding']).toBeUndefined();
    expect(text.body.toString()).toBe('y'.repeat(2000));
    const empty = await get('/created', { 'accept-encoding': 'br' });
    expect(empty.status).toBe(204);
    expect(empty.headers['content-encoding']).toBeUndefined();
  });
});

describe('compression in the app', () => {
  it('compresses the pages\' script and keeps the request id; small errors go as they are', async () => {
    const t = createTestApp();
    const http = await listen(t.app);
    try {
      const plain = await rawRequest(`${http.base}${PAGE_SCRIPT_PATH}`);
      expect(plain.body.length).toBeGreaterThan(1024);
      const br = await rawRequest(`${http.base}${PAGE_SCRIPT_PATH}`, { 'accept-encoding': 'gzip, deflate, br' });
      expect(br.status).toBe(200);
      expect(br.headers['content-encoding']).toBe('br');
      expect(br.headers.vary).toBe('Accept-Encoding');
      expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(br.headers['request-id']).toMatch(/^req_/);
      expect(Number(br.headers['content-length'])).toBe(br.body.length);
      expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
      expect(br.body.length).toBeLessThan(plain.body.length / 2);

      const missing = await rawRequest(`${http.base}/v1/nothing-here`, { 'accept-encoding': 'br' });
      expect(missing.status).toBe(404);
      expect(missing.headers['content-encoding']).toBeUndefined();
      expect(JSON.parse(missing.body.toString()).errors[0].code).toBe('route_not_found');
    } finally {
      await http.close();
    }
  });

  it('compresses the landing page (no-store) for a first visit, not for a browser with cookies', async () => {
    const t = createTestApp();
    const http = await listen(t.app);
    try {
      const plain = await rawRequest(`${http.base}/`);
      expect(plain.headers['cache-control']).toBe('no-store');
      const br = await rawRequest(`${http.base}/`, { 'accept-encoding': 'br' });
      expect(br.headers['content-encoding']).toBe('br');
      expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
      const cookied = await rawRequest(`${http.base}/`, { 'accept-encoding': 'br', cookie: 'resale_csrf=x' });
      expect(cookied.headers['content-encoding']).toBeUndefined();
    } finally {
      await http.close();
    }
  });
});
