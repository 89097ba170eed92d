import { closeServers } from '../../testing/servers.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestApp } from '../../testing/harness.js';
import { platformFetch } from './platform-request.js';

const SECRET = 'a-very-secret-header-value';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A real HTTP server on 127.0.0.1 playing the partner's platform; closed after each test. */
const servers: Server[] = [];
async function platform(handler: Handler): Promise<{ url: (path?: string) => string; port: number; seen: IncomingMessage[] }> {
  const seen: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    seen.push(req);
    handler(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { url: (path = '/') => `http://127.0.0.1:${port}${path}`, port, seen };
}

afterEach(() => closeServers(servers));

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function setup(settings: { platformSecret?: string } = {}) {
  const t = createTestApp();
  const p = await t.partner('Acme', settings);
  return { t, partner: await t.deps.partners.get(p.id) };
}

describe('platformFetch', () => {
  it('GETs JSON with Accept, User-Agent, the query, and the secret header when the partner has one', async () => {
    const { t, partner } = await setup({ platformSecret: SECRET });
    const srv = await platform((_req, res) => json(res, 200, [{ ticketId: 't-1' }]));
    const res = await platformFetch(t.deps, partner, srv.url('/owned?x=1'), { query: { user: 'ana@example.com' } });
    expect(res).toEqual({ ok: true, status: 200, json: [{ ticketId: 't-1' }] });
    const req = srv.seen[0]!;
    expect(req.method).toBe('GET');
    expect(req.url).toBe('/owned?x=1&user=ana%40example.com');
    expect(req.headers.accept).toBe('application/json');
    expect(req.headers['user-agent']).toBe('resale/1.0');
    expect(req.headers['x-resale-secret']).toBe(SECRET);
  });

  it('sends no secret header when the partner has no platform secret', async () => {
    const { t, partner } = await setup();
    const srv = await platform((_req, res) => json(res, 200, []));
    expect((await platformFetch(t.deps, partner, srv.url())).ok).toBe(true);
    expect(srv.seen[0]!.headers['x-resale-secret']).toBeUndefined();
  });

  it('answers a non-2xx status as an http failure carrying the status', async () => {
    const { t, partner } = await setup({ platformSecret: SECRET });
    const srv = await platform((req, res) => json(res, req.url === '/missing' ? 404 : 500, { error: SECRET }));
    expect(await platformFetch(t.deps, partner, srv.url('/missing'))).toEqual({ ok: false, reason: 'http', status: 404, message: 'The platform answered HTTP 404' });
    const down = await platformFetch(t.deps, partner, srv.url('/boom'));
    expect(down).toMatchObject({ ok: false, reason: 'http', status: 500 });
    expect(JSON.stringify(down)).not.toContain(SECRET);
  });

  it('gives json null for 204 and refuses a body that is not JSON, without quoting it', async () => {
    const { t, partner } = await setup({ platformSecret: SECRET });
    const srv = await platform((req, res) => {
      if (req.url === '/empty') return void res.writeHead(204).end();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"owner": "ana@example.com", ${SECRET}`);
    });
    expect(await platformFetch(t.deps, partner, srv.url('/empty'))).toEqual({ ok: true, status: 204, json: null });
    const bad = await platformFetch(t.deps, partner, srv.url('/garbage'));
    expect(bad).toMatchObject({ ok: false, reason: 'invalid_json', status: 200 });
    expect(JSON.stringify(bad)).not.toContain(SECRET);
    expect(JSON.stringify(bad)).not.toContain('ana@example.com');
  });

  it('refuses an answer nested deeper than 32 levels before parsing it, and takes 32', async () => {
    const { t, partner } = await setup();
    const nested = (n: number) => '['.repeat(n) + '{"ticketId":"t-1"}' + ']'.repeat(n);
    const srv = await platform((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(req.url === '/deep' ? nested(100_000) : nested(31));
    });
    const deep = await platformFetch(t.deps, partner, srv.url('/deep'));
    expect(deep).toEqual({ ok: false, reason: 'invalid_json', status: 200, message: "The platform's answer is not usable JSON: it nests objects and arrays more than 32 levels deep" });
    expect(await platformFetch(t.deps, partner, srv.url('/fine'))).toMatchObject({ ok: true, status: 200 });
  });

  it('refuses a body over maxBytes while it streams, and a Content-Length over it before reading', async () => {
    const { t, partner } = await setup();
    let written = 0;
    const srv = await platform((req, res) => {
      if (req.url === '/declared') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(10_000) });
        return void res.end('['.padEnd(9_999, ' ') + ']');
      }
      // Chunked, without Content-Length, and endless: only a streaming limit stops it.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
      const chunk = '1,'.repeat(8 * 1024);
      const pump = () => {
        while (!res.destroyed && written < 200 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      pump();
    });
    const endless = await platformFetch(t.deps, partner, srv.url('/endless'), { maxBytes: 64 * 1024, timeoutMs: 5_000 });
    expect(endless).toMatchObject({ ok: false, reason: 'too_large', status: 200 });
    expect(written).toBeLessThan(50 * 1024 * 1024);
    const declared = await platformFetch(t.deps, partner, srv.url('/declared'), { maxBytes: 1_000 });
    expect(declared).toMatchObject({ ok: false, reason: 'too_large' });
    // At the limit the same body is fine.
    expect(await platformFetch(t.deps, partner, srv.url('/declared'), { maxBytes: 10_000 })).toEqual({ ok: true, status: 200, json: [] });
  });

  it('times out when the platform never answers, or stops in the middle of the body', async () => {
    const { t, partner } = await setup();
    const srv = await platform((req, res) => {
      if (req.url === '/half') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('[{"a":');
      }
      // Otherwise: never answer.
    });
    const started = Date.now();
    expect(await platformFetch(t.deps, partner, srv.url('/hang'), { timeoutMs: 200 })).toEqual({
      ok: false,
      reason: 'timeout',
      message: 'The platform did not answer within 200 ms',
    });
    expect(await platformFetch(t.deps, partner, srv.url('/half'), { timeoutMs: 200 })).toMatchObject({ ok: false, reason: 'timeout' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('answers a network failure (closed port) and never throws', async () => {
    const { t, partner } = await setup({ platformSecret: SECRET });
    const srv = await platform(() => undefined);
    const url = srv.url('/events');
    await new Promise<void>((resolve) => servers.pop()!.close(() => resolve()));
    const res = await platformFetch(t.deps, partner, url);
    expect(res).toMatchObject({ ok: false, reason: 'network' });
    expect(res.ok === false && res.message).toMatch(/ECONNREFUSED/);
    expect(JSON.stringify(res)).not.toContain(SECRET);
    expect(await platformFetch(t.deps, partner, 'not a url')).toMatchObject({ ok: false, reason: 'network' });
  });

  it('follows redirects, sending the secret only to the origin it was configured for', async () => {
    const { t, partner } = await setup({ platformSecret: SECRET });
    const other = await platform((_req, res) => json(res, 200, ['elsewhere']));
    const srv = await platform((req, res) => {
      if (req.url === '/moved') return void res.writeHead(302, { location: '/here' }).end();
      if (req.url === '/away') return void res.writeHead(307, { location: other.url('/there') }).end();
      if (req.url === '/loop') return void res.writeHead(302, { location: '/loop' }).end();
      json(res, 200, ['here']);
    });
    expect(await platformFetch(t.deps, partner, srv.url('/moved'))).toEqual({ ok: true, status: 200, json: ['here'] });
    expect(srv.seen.map((r) => [r.url, r.headers['x-resale-secret']])).toEqual([
      ['/moved', SECRET],
      ['/here', SECRET],
    ]);
    expect(await platformFetch(t.deps, partner, srv.url('/away'))).toEqual({ ok: true, status: 200, json: ['elsewhere'] });
    expect(other.seen[0]!.headers['x-resale-secret']).toBeUndefined();
    expect(await platformFetch(t.deps, partner, srv.url('/loop'))).toMatchObject({ ok: false, reason: 'http', status: 302 });
  });
});
