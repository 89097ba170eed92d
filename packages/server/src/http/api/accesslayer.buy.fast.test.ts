import { request as httpRequest } from 'node:http';
import type { Logger } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { setup } from '../../flows/accesslayer/accesslayer.buy.testing.js';
import { listen, type Listening } from '../../testing/harness.js';
import { capturedLogger } from '../../testing/logs.js';
import { fastPathsOf } from '../node-listener.js';
import type { BuyFastPath } from './accesslayer.buy.fast.js';

// The fast path of GET /v1/wrapper/accesslayer (accesslayer.buy.fast.ts) must answer exactly what
// the route answers: each case asks the app itself (app.fetch: no fast path) and the server
// (listen: fast path first), and compares status, headers and bytes. Every case says whether the
// fast path answered it: a case it leaves to the route proves the hand-over, not the copy.

const ORIGIN = 'https://partner.example';
/** Headers that differ per response whoever answers. */
const PER_RESPONSE = new Set(['date', 'connection', 'keep-alive', 'request-id']);

let served: Listening | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

async function world(opts: { rateLimitPerMinute?: number; logger?: Logger } = {}) {
  const s = await setup({ settings: { allowedOrigins: [ORIGIN], ...(opts.rateLimitPerMinute ? { rateLimitPerMinute: opts.rateLimitPerMinute } : {}) }, ...(opts.logger ? { logger: opts.logger } : {}) });
  await s.list(['f3'], 4000);
  served = await listen(s.t.app);
  const fast = fastPathsOf(s.t.app).find((f) => f.name === 'buyAccessLayerFastPath') as BuyFastPath;
  const url = (query: Record<string, string> | string = {}) =>
    `/v1/wrapper/accesslayer?${typeof query === 'string' ? query : new URLSearchParams({ type: 'buy', eventId: 'tour', showId: 'show-1', ...query }).toString()}`;
  /** One request over HTTP; its bytes, and whether the fast path answered it. */
  const ask = async (path: string, headers: Record<string, string> = {}, method = 'GET', body?: string) => {
    const before = fast.answered;
    const { res, bytes } = await raw(served!.base + path, headers, method, body);
    return { res, bytes, fast: fast.answered > before };
  };
  /** The same request to the app, without the fast path. */
  const askApp = async (path: string, headers: Record<string, string> = {}, method = 'GET') => {
    const res = await s.t.app.fetch(new Request('http://resale.test' + path, { method, headers }));
    return { res, bytes: Buffer.from(await res.arrayBuffer()) };
  };
  return { ...s, fast, url, ask, askApp };
}

/**
 * A request over node:http, as sent (fetch would add its own Accept-Encoding and decode the
 * body), read back as a Response for the comparisons.
 */
function raw(url: string, headers: Record<string, string>, method: string, body?: string): Promise<{ res: Answer; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const out = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) out.set(name, Array.isArray(value) ? value.join(', ') : value);
        resolve({ res: { status: res.statusCode!, headers: out }, bytes: Buffer.concat(chunks) });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** What the comparisons read of an answer. */
interface Answer {
  status: number;
  headers: Headers;
}

function headersOf(res: Answer): Record<string, string> {
  const out: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (!PER_RESPONSE.has(name)) out[name] = value;
  });
  return out;
}

/** Asks both, checks they agree, and answers the server's. */
async function same(w: Awaited<ReturnType<typeof world>>, path: string, headers: Record<string, string> = {}) {
  const viaServer = await w.ask(path, headers);
  const viaApp = await w.askApp(path, headers);
  const served = headersOf(viaServer.res);
  const app = headersOf(viaApp.res);
  // Node's adaptor says the length of a body the app left unmeasured (c.json): the right one.
  if (app['content-length'] === undefined && served['content-length'] !== undefined) {
    expect(Number(served['content-length'])).toBe(viaServer.bytes.length);
    delete served['content-length'];
  }
  expect({ status: viaServer.res.status, headers: served }).toEqual({ status: viaApp.res.status, headers: app });
  expect(viaServer.bytes.equals(viaApp.bytes)).toBe(true);
  expect(viaServer.res.headers.get('request-id')).toMatch(/^req_/);
  return viaServer;
}

describe('buy access layer fast path: the same answers as the route', () => {
  it('answers a cached show from memory once the route has answered it, and the same bytes and headers in every coding', async () => {
    const w = await world();
    const key = { authorization: w.p.keys.public };
    // The first request fills the key cache and the snapshot: the route's.
    const first = await same(w, w.url(), key);
    expect(first.fast).toBe(false);
    expect(first.res.status).toBe(200);
    const again = await same(w, w.url(), key);
    expect(again.fast).toBe(true);
    expect(JSON.parse(again.bytes.toString('utf8')).data.length).toBeGreaterThan(0);
    expect(again.res.headers.get('cache-control')).toBe('public, max-age=2, stale-while-revalidate=10');
    expect(again.res.headers.get('vary')).toBe('Accept-Encoding, Authorization');
    for (const coding of ['br', 'gzip', 'gzip, deflate, br', 'identity', 'zstd']) {
      const r = await w.ask(w.url(), { ...key, 'accept-encoding': coding });
      const viaApp = await w.askApp(w.url(), { ...key, 'accept-encoding': coding });
      expect(r.fast).toBe(true);
      expect(headersOf(r.res)).toEqual(headersOf(viaApp.res));
      expect(r.bytes.equals(viaApp.bytes)).toBe(true);
    }
    // Bearer, and the other language (rendered from the cached snapshot and kept with it).
    const es = await same(w, w.url({ lang: 'es' }), { authorization: `Bearer ${w.p.keys.public}` });
    expect([es.fast, es.res.status]).toEqual([true, 200]);
    expect(es.bytes.equals(again.bytes)).toBe(false);
  });

  it('answers 304 to If-None-Match naming the current answer, 200 to another or to a changed show', async () => {
    const w = await world();
    const key = { authorization: w.p.keys.public };
    const etag = (await same(w, w.url(), key)).res.headers.get('etag')!;
    expect(etag).toMatch(/^W\/"/);
    const notModified = await same(w, w.url(), { ...key, 'if-none-match': etag });
    expect(notModified.fast).toBe(true);
    expect(notModified.res.status).toBe(304);
    expect(notModified.bytes.length).toBe(0);
    expect(notModified.res.headers.get('etag')).toBe(etag);
    const other = await same(w, w.url(), { ...key, 'if-none-match': 'W/"other", "more"' });
    expect([other.fast, other.res.status]).toEqual([true, 200]);
    // A listing sold meanwhile: the next answer is new (never the old one from memory).
    await w.list(['f4'], 3000);
    const changed = await same(w, w.url(), { ...key, 'if-none-match': etag });
    expect(changed.res.status).toBe(200);
    expect(changed.res.headers.get('etag')).not.toBe(etag);
  });

  it('says CORS to an allowed origin with the public key, none with the private key, and leaves a foreign origin to the route (403)', async () => {
    const w = await world();
    await same(w, w.url(), { authorization: w.p.keys.public });
    const allowed = await same(w, w.url(), { authorization: w.p.keys.public, origin: ORIGIN });
    expect(allowed.fast).toBe(true);
    expect(allowed.res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(allowed.res.headers.get('vary')).toBe('Origin, Accept-Encoding, Authorization');
    await same(w, w.url(), { authorization: w.p.keys.private });
    const server = await same(w, w.url(), { authorization: w.p.keys.private, origin: 'https://elsewhere.example' });
    expect(server.fast).toBe(true);
    expect(server.res.headers.get('access-control-allow-origin')).toBeNull();
    const foreign = await same(w, w.url(), { authorization: w.p.keys.public, origin: 'https://elsewhere.example' });
    expect([foreign.fast, foreign.res.status]).toEqual([false, 403]);
    expect(JSON.parse(foreign.bytes.toString('utf8')).errors[0].code).toBe('origin_not_allowed');
  });

  it('leaves to the route every request it must not answer from memory, which the route answers in full', async () => {
    const w = await world();
    const key = { authorization: w.p.keys.public };
    await same(w, w.url(), key);
    const cases: [string, Record<string, string>, number][] = [
      [w.url(), {}, 401],
      [w.url(), { authorization: 'pk_not_a_key' }, 401],
      [w.url(), { authorization: w.p.keys.channels }, 403],
      [w.url({ showId: 'no-such-show' }), key, 404],
      [w.url({ lang: 'xx' }), key, 400],
      [w.url({ 'loginTrust[user]': 'fan-1' }), key, 403],
      ['/v1/wrapper/accesslayer?type=buy&eventId=tour&showId=show-1&showId=show-2', key, 400],
      ['/v1/wrapper/accesslayer?type=buy&eventId=tour&showId=show%2D1', key, 200],
      ['/v1/wrapper/accesslayer?type=buy&eventId=tour&showId=show-1&extra=1', key, 200],
      ['/v1/wrapper/accesslayer?type=sell&eventId=tour&showId=show-1', key, 400],
      ['/v1/wrapper/accesslayer?type=buy&eventId=tour&showId=show-1&ticketId=%00', key, 400],
    ];
    for (const [path, headers, status] of cases) {
      const r = await same(w, path, headers);
      expect([path, r.fast, r.res.status]).toEqual([path, false, status]);
    }
    // HEAD and a GET with a body: the route's.
    const head = await w.ask(w.url(), key, 'HEAD');
    expect([head.fast, head.res.status]).toEqual([false, 200]);
    expect(head.bytes.length).toBe(0);
    const withBody = await w.ask(w.url(), { ...key, 'content-type': 'application/json', 'content-length': '2' }, 'GET', '{}');
    expect(withBody.fast).toBe(false);
    expect(withBody.res.status).toBeLessThan(500);
  });

  it('stops serving a key the moment it is revoked, and a show the moment it changes', async () => {
    const w = await world();
    const key = { authorization: w.p.keys.public };
    await same(w, w.url(), key);
    expect((await same(w, w.url(), key)).fast).toBe(true);
    const rotated = await w.t.request('POST', `/admin/v1/partners/${w.p.id}/keys/rotate`, { operator: true, body: { kind: 'public', graceSeconds: 0 } });
    expect(rotated.status).toBe(200);
    const revoked = await same(w, w.url(), key);
    expect([revoked.fast, revoked.res.status]).toEqual([false, 401]);
    const fresh = { authorization: rotated.body.data.secret as string };
    const before = JSON.parse((await same(w, w.url(), fresh)).bytes.toString('utf8'));
    expect((await same(w, w.url(), fresh)).fast).toBe(true);
    await w.list(['f4'], 3000);
    const after = await same(w, w.url(), fresh);
    expect(after.fast).toBe(false);
    expect(JSON.parse(after.bytes.toString('utf8'))).not.toEqual(before);
  });

  it('counts each answer in the partner’s rate limit, and leaves the refusal to the route (429 with Retry-After)', async () => {
    const w = await world({ rateLimitPerMinute: 3 });
    const key = { authorization: w.p.keys.public };
    // The set-up's own calls out of the window.
    w.t.clock.advance(61_000);
    const first = await w.ask(w.url(), key);
    const second = await w.ask(w.url(), key);
    const third = await w.ask(w.url(), key);
    expect([first, second, third].map((r) => [r.fast, r.res.status])).toEqual([
      [false, 200],
      [true, 200],
      [true, 200],
    ]);
    const refused = await w.ask(w.url(), key);
    expect([refused.fast, refused.res.status]).toEqual([false, 429]);
    expect(Number(refused.res.headers.get('retry-after'))).toBeGreaterThan(0);
    // A minute later the window is empty again.
    w.t.clock.advance(61_000);
    expect((await w.ask(w.url(), key)).res.status).toBe(200);
  });

  it('names and logs each answer as the app does, and counts it in the metrics under the route', async () => {
    const { logger, lines } = capturedLogger();
    const w = await world({ logger });
    const key = { authorization: w.p.keys.public };
    await w.ask(w.url(), key);
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const echoed = await w.ask(w.url(), { ...key, 'request-id': 'page-42:poll.1', traceparent });
    expect(echoed.fast).toBe(true);
    expect(echoed.res.headers.get('request-id')).toBe('page-42:poll.1');
    const refused = await w.ask(w.url(), { ...key, 'request-id': 'has space' });
    expect(refused.fast).toBe(true);
    const generated = refused.res.headers.get('request-id')!;
    expect(generated).toMatch(/^req_[A-Za-z0-9_-]{12}[0-9a-z]+$/);
    const requests = lines.filter((l) => l.msg === 'request');
    expect(requests.at(-2)).toMatchObject({ requestId: 'page-42:poll.1', method: 'GET', path: '/v1/wrapper/accesslayer', status: 200, partnerId: w.p.id, traceId: '4bf92f3577b34da6a3ce929d0e0e4736' });
    expect(requests.at(-1)).toMatchObject({ requestId: generated, status: 200, requestIdRefused: true });
    expect(typeof requests.at(-1)!.ms).toBe('number');
    // Never the query (it may carry e-mails) nor the key.
    expect(JSON.stringify(requests)).not.toContain('eventId=');
    expect(JSON.stringify(lines)).not.toContain(w.p.keys.public);
    const text = await w.t.deps.metrics.scrape();
    expect(text).toMatch(/resale_http_requests_total\{method="GET",route="\/v1\/wrapper\/accesslayer",status="200"\} 3/);
    expect(w.t.deps.metrics.inFlight).toBe(0);
  });
});
