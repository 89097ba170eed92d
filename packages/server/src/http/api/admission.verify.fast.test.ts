import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { brotliDecompressSync } from 'node:zlib';
import type { Logger } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { stepAt } from '@resale/shared/admission-code';
import { certifiedPhone, eventBody, showBody, ticketBody, withEvent, withRotatingCodes } from '../../testing/factories.js';
import { createTestApp, listen, type Listening } from '../../testing/harness.js';
import { capturedLogger } from '../../testing/logs.js';
import { sqlRows } from '../../testing/sql.js';
import { fastPathsOf } from '../node-listener.js';
import type { VerifyFastPath } from './admission.verify.fast.js';

// The fast path of POST /v1/tickets/admission/verify (admission.verify.fast.ts) must answer
// exactly what the route answers: the server (listen: fast paths first) and the app itself
// (app.fetch: no fast path) are asked the same, and status, headers and bytes compared. Every
// case says whether the fast path answered it: a case it leaves to the route proves the
// hand-over (the body it read handed on), not the copy.

const PATH = '/v1/tickets/admission/verify';
/** Headers that differ per response whoever answers. */
const PER_RESPONSE = new Set(['date', 'connection', 'keep-alive', 'request-id']);

let served: Listening | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

interface Answer {
  status: number;
  headers: Record<string, string>;
  bytes: Buffer;
}

async function world(opts: { rateLimitPerMinute?: number; logger?: Logger } = {}) {
  const t = createTestApp({}, opts.logger ? { logger: opts.logger } : {});
  const p = await t.partner('Acme Tickets', opts.rateLimitPerMinute ? { rateLimitPerMinute: opts.rateLimitPerMinute } : {});
  await withEvent(t, p, eventBody('tour', { shows: [showBody('show-1'), showBody('show-2')] }));
  await withRotatingCodes(t, p);
  const tickets = ['tk-1', 'tk-2', 'tk-3', 'tk-4'];
  expect((await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: tickets.map((id) => ticketBody(id, { section: 'B', row: '4', seat: id })) })).status).toBe(200);
  const phones = new Map<string, Awaited<ReturnType<typeof certifiedPhone>>>();
  for (const id of tickets) phones.set(id, await certifiedPhone(t, p.id, id));
  /** The current code of a ticket's phone. */
  const code = async (ticketId: string) => await phones.get(ticketId)!.code(stepAt(t.clock.now(), 15));
  served = await listen(t.app);
  const fast = fastPathsOf(t.app).find((f) => f.name === 'admissionVerifyFastPath') as VerifyFastPath;
  expect(fast).toBeDefined();
  const json = (key: string | null, extra: Record<string, string> = {}) => ({ 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}), ...extra });
  /** One request over HTTP, and whether the fast path answered it. */
  const ask = async (body: string, headers: Record<string, string>, path = PATH): Promise<Answer & { fast: boolean }> => {
    const before = fast.answered;
    const answer = await raw(served!.base + path, headers, body);
    return { ...answer, fast: fast.answered > before };
  };
  /** The same request to the app, without the fast path. */
  const askApp = async (body: string, headers: Record<string, string>, path = PATH): Promise<Answer> => {
    const res = await t.app.fetch(new Request('http://resale.test' + path, { method: 'POST', headers, body }));
    const out: Record<string, string> = {};
    res.headers.forEach((value, name) => void (out[name] = value));
    return { status: res.status, headers: out, bytes: Buffer.from(await res.arrayBuffer()) };
  };
  return { t, p, code, fast, json, ask, askApp };
}

/** A request over node:http, as sent (fetch would add its own headers and decode the body). */
function raw(url: string, headers: Record<string, string>, body: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const out: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
        resolve({ status: res.statusCode!, headers: out, bytes: Buffer.concat(chunks) });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The headers compared: all but those that differ per response. */
function compared(a: Answer): Record<string, string> {
  return Object.fromEntries(Object.entries(a.headers).filter(([name]) => !PER_RESPONSE.has(name)));
}

/** Asks the server, then the app, the same; checks they agree and answers the server's. */
async function same(w: Awaited<ReturnType<typeof world>>, body: string, headers: Record<string, string>, path = PATH) {
  const viaServer = await w.ask(body, headers, path);
  const viaApp = await w.askApp(body, headers, path);
  const server = compared(viaServer);
  const app = compared(viaApp);
  // Node's adaptor says the length of a body the app left unmeasured (c.json): the right one.
  if (app['content-length'] === undefined && server['content-length'] !== undefined) {
    expect(Number(server['content-length'])).toBe(viaServer.bytes.length);
    delete server['content-length'];
  }
  expect({ status: viaServer.status, headers: server }).toEqual({ status: viaApp.status, headers: app });
  expect(viaServer.bytes.toString('utf8')).toBe(viaApp.bytes.toString('utf8'));
  expect(viaServer.headers['request-id']).toMatch(/^req_/);
  return viaServer;
}

const data = (a: Answer) => JSON.parse(a.bytes.toString('utf8')).data;

describe('the admission verify fast path: the same answers as the route', () => {
  it('admits a scan itself, once, with its webhook; a repeat and a refusal read as the route reads them', async () => {
    const w = await world();
    const text = await w.code('tk-1');
    const first = await w.ask(JSON.stringify({ text, externalReferenceEventId: 'tour', showId: 'show-1' }), w.json(w.p.keys.private));
    expect([first.fast, first.status]).toEqual([true, 200]);
    expect(first.headers['content-type']).toBe('application/json');
    expect(data(first)).toEqual({
      valid: true,
      reason: 'admitted',
      repeat: false,
      ticket: { ticketId: 'tk-1', externalReferenceEventId: 'tour', showId: 'show-1', seat: { section: 'B', row: '4', seat: 'tk-1' } },
      admittedAt: new Date(w.t.clock.now()).toISOString(),
    });
    expect((await w.t.deps.tickets.get(w.t.db, w.p.id, 'tk-1')).state).toBe('ADMITTED');
    // The same scan again (a door's retry), and the same ticket's scan at another door: byte for byte the route's answers.
    const repeat = await same(w, JSON.stringify({ text }), w.json(w.p.keys.private));
    expect([repeat.fast, data(repeat).repeat]).toEqual([true, true]);
    const junk = await same(w, JSON.stringify({ text: 'not a code' }), w.json(w.p.keys.private));
    expect([junk.fast, data(junk)]).toEqual([true, { valid: false, reason: 'malformed', repeat: false, ticket: null, admittedAt: null }]);
    const otherShow = await same(w, JSON.stringify({ text: await w.code('tk-2'), externalReferenceEventId: 'tour', showId: 'show-2' }), w.json(w.p.keys.private));
    expect([otherShow.fast, data(otherShow).reason]).toEqual([true, 'other_show']);
    // A charset parameter and a bare key (no Bearer) are the same request.
    const bare = await w.ask(JSON.stringify({ text: await w.code('tk-3') }), { 'content-type': 'application/json; charset=utf-8', authorization: w.p.keys.private });
    expect([bare.fast, data(bare).reason]).toEqual([true, 'admitted']);
    // One webhook per admission, none for the repeat or the refusals.
    const hooks = await sqlRows<{ payload: string }>(w.t.db, `select payload from webhook_messages where action = 'ticket.admitted'`);
    expect(hooks.map((h) => JSON.parse(h.payload).data.ticketId).sort()).toEqual(['tk-1', 'tk-3']);
  });

  it('admits a ticket once when its scans arrive together, in one group or several', async () => {
    const w = await world();
    const texts = await Promise.all(['tk-1', 'tk-2', 'tk-3', 'tk-4'].map((id) => w.code(id)));
    // Each code scanned five times at once: twenty requests over as many connections.
    const answers = await Promise.all(texts.flatMap((text) => Array.from({ length: 5 }, () => w.ask(JSON.stringify({ text }), w.json(w.p.keys.private)))));
    expect(answers.every((a) => a.fast && a.status === 200 && data(a).valid)).toBe(true);
    expect(answers.filter((a) => !data(a).repeat).map((a) => data(a).ticket.ticketId).sort()).toEqual(['tk-1', 'tk-2', 'tk-3', 'tk-4']);
    const hooks = await sqlRows<{ payload: string }>(w.t.db, `select payload from webhook_messages where action = 'ticket.admitted'`);
    expect(hooks.length).toBe(4);
  });

  it('leaves to the route, body and all, every request the route would not answer 200, which the route answers in full and nothing is written', async () => {
    const w = await world();
    const text = await w.code('tk-1');
    const body = JSON.stringify({ text });
    const other = await w.t.partner('Other');
    await withEvent(w.t, other, eventBody('theirs', { shows: [showBody('x-1')] }));
    const cases: [string, string, Record<string, string>, number][] = [
      ['no key', body, w.json(null), 401],
      ['an unknown key', body, w.json('sk_not_a_key'), 401],
      ['the public key', body, w.json(w.p.keys.public), 403],
      ['the channels key', body, w.json(w.p.keys.channels), 403],
      ['not JSON', '{"text":', w.json(w.p.keys.private), 400],
      ['an array', '[1]', w.json(w.p.keys.private), 400],
      ['no text', '{}', w.json(w.p.keys.private), 400],
      ['a number', '{"text":42}', w.json(w.p.keys.private), 400],
      ['an unknown field', JSON.stringify({ text, extra: 1 }), w.json(w.p.keys.private), 400],
      ['a nested unknown field', JSON.stringify({ text, extra: { deep: [[[1]]] } }), w.json(w.p.keys.private), 400],
      ['a text too long', JSON.stringify({ text: 'x'.repeat(2_001) }), w.json(w.p.keys.private), 400],
      ['a control character', JSON.stringify({ text: text + '\u0000' }), w.json(w.p.keys.private), 400],
      ['half a show', JSON.stringify({ text, showId: 'show-1' }), w.json(w.p.keys.private), 400],
      ['an unknown show', JSON.stringify({ text, externalReferenceEventId: 'tour', showId: 'show-9' }), w.json(w.p.keys.private), 404],
      ['another partner’s show', JSON.stringify({ text, externalReferenceEventId: 'theirs', showId: 'x-1' }), w.json(w.p.keys.private), 404],
      ['a form', 'text=abc', { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${w.p.keys.private}` }, 415],
      ['a structured JSON type', body, w.json(w.p.keys.private, { 'content-type': 'application/merge-patch+json' }), 415],
      ['a body over 16 KB', JSON.stringify({ text: 'x'.repeat(20_000) }), w.json(w.p.keys.private), 400],
    ];
    for (const [name, sent, headers, status] of cases) {
      const r = await same(w, sent, headers);
      expect([name, r.fast, r.status]).toEqual([name, false, status]);
      expect(JSON.parse(r.bytes.toString('utf8')).errors.length).toBeGreaterThan(0);
    }
    // No Content-Type at all (not compared: a Request made with a text body says text/plain).
    const untyped = await w.ask(body, { authorization: `Bearer ${w.p.keys.private}` });
    expect([untyped.fast, untyped.status, JSON.parse(untyped.bytes.toString('utf8')).errors[0].code]).toEqual([false, 415, 'unsupported_media_type']);
    // Nothing of it admitted the ticket, nor queued a webhook.
    expect((await w.t.deps.tickets.get(w.t.db, w.p.id, 'tk-1')).state).toBe('VALID');
    expect(await sqlRows(w.t.db, `select id from webhook_messages where action = 'ticket.admitted'`)).toEqual([]);
    // Requests the route answers 200 (each its own ticket's code: the second of two asks would be a repeat).
    const routes: [string, string, Record<string, string>][] = [
      ['a query string', PATH + '?x=1', w.json(w.p.keys.private)],
      ['a browser’s call', PATH, w.json(w.p.keys.private, { origin: 'https://elsewhere.example' })],
      ['an idempotency key', PATH, w.json(w.p.keys.private, { 'idempotency-key': 'scan-1' })],
    ];
    for (const [i, [name, path, headers]] of routes.entries()) {
      const r = await w.ask(JSON.stringify({ text: await w.code(`tk-${i + 2}`) }), headers, path);
      expect([name, r.fast, r.status, data(r).reason]).toEqual([name, false, 200, 'admitted']);
    }
    // A chunked body (no Content-Length) is the route's too.
    const chunked = await new Promise<Answer>((resolve, reject) => {
      const req = httpRequest(served!.base + PATH, { method: 'POST', headers: w.json(w.p.keys.private) }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: {}, bytes: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.write(body.slice(0, 10));
      req.end(body.slice(10));
    });
    expect([chunked.status, data(chunked).reason]).toEqual([200, 'admitted']);
    expect(w.fast.answered).toBe(0);
  });

  it('lets go of a request whose client leaves mid-body: nothing in flight, nothing written, the next scan answered', async () => {
    const w = await world();
    const text = await w.code('tk-1');
    const body = JSON.stringify({ text });
    // Headers and a third of the body, then the connection cut.
    await new Promise<void>((resolve) => {
      const socket = connect(served!.port, '127.0.0.1', () => {
        socket.write(`POST ${PATH} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${w.p.keys.private}\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, body.length / 3)}`);
        setImmediate(() => socket.destroy());
      });
      socket.on('close', () => resolve());
    });
    expect((await w.t.deps.tickets.get(w.t.db, w.p.id, 'tk-1')).state).toBe('VALID');
    // Answered after the cut one reached the server (one process, in order): by then it was let go.
    const next = await w.ask(body, w.json(w.p.keys.private));
    expect([next.fast, next.status, data(next).reason]).toEqual([true, 200, 'admitted']);
    expect(w.t.deps.metrics.inFlight).toBe(0);
  });

  it('stops answering a key the moment it is revoked, and leaves a refusal of the rate limit to the route (429)', async () => {
    const w = await world({ rateLimitPerMinute: 2 });
    // The set-up's own calls out of the window.
    w.t.clock.advance(61_000);
    const scan = async (ticketId: string, key = w.p.keys.private) => await w.ask(JSON.stringify({ text: await w.code(ticketId) }), w.json(key));
    expect(await scan('tk-1').then((r) => [r.fast, r.status])).toEqual([true, 200]);
    expect(await scan('tk-2').then((r) => [r.fast, r.status])).toEqual([true, 200]);
    const refused = await scan('tk-3');
    expect([refused.fast, refused.status]).toEqual([false, 429]);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await w.t.deps.tickets.get(w.t.db, w.p.id, 'tk-3')).state).toBe('VALID');
    w.t.clock.advance(61_000);
    const rotated = await w.t.request('POST', `/admin/v1/partners/${w.p.id}/keys/rotate`, { operator: true, body: { kind: 'private', graceSeconds: 0 } });
    expect(rotated.status).toBe(200);
    const revoked = await scan('tk-3');
    expect([revoked.fast, revoked.status]).toEqual([false, 401]);
    expect(await scan('tk-3', rotated.body.data.secret as string).then((r) => [r.fast, r.status, data(r).reason])).toEqual([true, 200, 'admitted']);
  });

  it('compresses as the app does when the client refuses identity, names and logs each answer, and counts it under the route', async () => {
    const { logger, lines } = capturedLogger();
    const w = await world({ logger });
    const text = await w.code('tk-1');
    await w.ask(JSON.stringify({ text }), w.json(w.p.keys.private));
    const coded = await same(w, JSON.stringify({ text }), w.json(w.p.keys.private, { 'accept-encoding': 'br, identity;q=0' }));
    expect([coded.fast, coded.headers['content-encoding'], coded.headers.vary]).toEqual([true, 'br', 'Accept-Encoding']);
    expect(JSON.parse(brotliDecompressSync(coded.bytes).toString('utf8')).data.repeat).toBe(true);
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const echoed = await w.ask(JSON.stringify({ text }), w.json(w.p.keys.private, { 'request-id': 'gate-3:scan.7', traceparent }));
    expect([echoed.fast, echoed.headers['request-id']]).toEqual([true, 'gate-3:scan.7']);
    const requests = lines.filter((l) => l.msg === 'request');
    expect(requests.at(-1)).toMatchObject({ requestId: 'gate-3:scan.7', method: 'POST', path: PATH, status: 200, partnerId: w.p.id, traceId: '4bf92f3577b34da6a3ce929d0e0e4736' });
    expect(typeof requests.at(-1)!.ms).toBe('number');
    // Never the key nor the code.
    expect(JSON.stringify(lines)).not.toContain(w.p.keys.private);
    expect(JSON.stringify(lines)).not.toContain(text);
    const metrics = await w.t.deps.metrics.scrape();
    // The three the fast path answered and the one the app answered (same() asks both).
    expect(metrics).toMatch(/resale_http_requests_total\{method="POST",route="\/v1\/tickets\/admission\/verify",status="200"\} 4/);
    expect(w.t.deps.metrics.inFlight).toBe(0);
  });
});
