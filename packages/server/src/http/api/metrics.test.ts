import { afterEach, describe, expect, it } from 'vitest';
import { ENGINE } from '../../db/engine.js';
import { EnvError, parseEnv } from '../../env.js';
import { eventBody, showBody, ticketBody, withEvent } from '../../testing/factories.js';
import { createTestApp, OPERATOR_TOKEN, type TestApp, type TestPartner } from '../../testing/harness.js';
import { closeReceivers, receiver, shield } from '../../domain/webhooks/webhooks.testing.js';
import { availabilityOf } from '../../db/availability.js';

afterEach(closeReceivers);

const METRICS_TOKEN = 'test-metrics-token-0000000000000';

/** GET /metrics with a bearer token (null: no Authorization header; a bare value: as given). */
async function scrape(t: TestApp, token: string | null = OPERATOR_TOKEN, raw = false) {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = raw ? token : `Bearer ${token}`;
  const res = await t.app.request('/metrics', { headers });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

/** The scrape's text, checked to be valid Prometheus text exposition line by line. */
async function metricsText(t: TestApp): Promise<string> {
  const res = await scrape(t);
  expect(res.status).toBe(200);
  expect(res.type).toBe('text/plain; version=0.0.4; charset=utf-8');
  expect(validExposition(res.text)).toEqual([]);
  return res.text;
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABELS = `\\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*",?)*\\}`;
/** A float as Prometheus reads it (Go's ParseFloat: NaN and Inf in any case; prom-client writes `Nan`). */
const VALUE = '(?:[-+]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][-+]?\\d+)?|[Nn][Aa][Nn]|[-+][Ii]nf)';
const SAMPLE = new RegExp(`^(${NAME})(${LABELS})? ${VALUE}$`);

/**
 * The lines of a scrape that break the text format 0.0.4: a sample line must be
 * `name{labels} value`, a comment `# HELP name …` or `# TYPE name counter|gauge|histogram|summary|untyped`,
 * each sample must belong to a declared family (histograms: `_bucket`, `_sum`, `_count`), and
 * a family is declared once.
 */
function validExposition(text: string): string[] {
  const bad: string[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const help = /^# HELP (\S+) .*$/.exec(line);
    const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) {
      if (types.has(type[1]!)) bad.push(`declared twice: ${line}`);
      types.set(type[1]!, type[2]!);
      continue;
    }
    if (help) continue;
    const m = SAMPLE.exec(line);
    if (!m) {
      bad.push(line);
      continue;
    }
    const name = m[1]!;
    const family = types.has(name) ? name : name.replace(/_(bucket|sum|count)$/, '');
    if (!types.has(family) || (family !== name && types.get(family) !== 'histogram' && types.get(family) !== 'summary')) bad.push(`no family: ${line}`);
  }
  return bad;
}

/** The value of one sample (labels in any order), or undefined when the scrape lacks it. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = SAMPLE.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="([^"]*)"/g)].map((x) => [x[1]!, x[2]!]));
    if (Object.keys(got).length === Object.keys(labels).length && Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

async function listing(t: TestApp, p: TestPartner, ticketId: string) {
  const ticket = await t.deps.tickets.get(t.db, p.id, ticketId);
  return await t.db.transact(async (tx) => await t.deps.listings.create(tx, p.id, { sellerPk: ticket.ownerPk, ticketPks: [ticket.id], priceMinor: 4000 }));
}

describe('GET /metrics: who may scrape', () => {
  it('refuses no token, a wrong token and a partner’s API key with 401 in the envelope', async () => {
    const t = createTestApp();
    const p = await t.partner();
    for (const [token, raw] of [
      [null, false],
      ['not-the-operator-token-000000000', false],
      [p.keys.private, false],
      [p.keys.private, true],
      [p.keys.public, true],
      [`Basic ${OPERATOR_TOKEN}`, true],
    ] as const) {
      const res = await scrape(t, token, raw);
      expect(res.status, String(token)).toBe(401);
      expect(res.type).toBe('application/json');
      expect(JSON.parse(res.text)).toEqual({ status: 401, data: null, errors: [{ code: 'unauthorized', message: 'Send the metrics token (METRICS_TOKEN, or OPERATOR_TOKEN when it is not set) as Authorization: Bearer <token>' }] });
    }
  });

  it('answers the operator token with the Prometheus text format, uncached, outside /v1 and the OpenAPI document lists it', async () => {
    const t = createTestApp();
    const res = await t.app.request('/metrics', { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('request-id')).toMatch(/^req_/);
    expect(validExposition(await res.text())).toEqual([]);
    const doc = (await t.request('GET', '/v1/openapi.json')).body as unknown as { paths: Record<string, any> };
    expect(doc.paths['/metrics'].get).toMatchObject({ operationId: 'getMetrics', tags: ['Operations'], security: [{ operatorToken: [] }] });
    expect(Object.keys(doc.paths['/metrics'].get.responses[200].content)).toEqual(['text/plain']);
  });

  it('takes only METRICS_TOKEN when it is set', async () => {
    const t = createTestApp({ metricsToken: METRICS_TOKEN });
    expect((await scrape(t, OPERATOR_TOKEN)).status).toBe(401);
    expect((await scrape(t, METRICS_TOKEN)).status).toBe(200);
    // The operator API keeps its own token.
    expect((await t.request('GET', '/admin/v1/partners', { operator: true })).status).toBe(200);
    expect((await t.request('GET', '/admin/v1/partners', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status).toBe(401);
  });

  it('is disabled (401) when neither token is set', async () => {
    const t = createTestApp({ operatorToken: null });
    const res = await scrape(t, 'anything-at-all-0000000000000000');
    expect(res.status).toBe(401);
    expect(JSON.parse(res.text).errors[0]).toEqual({ code: 'unauthorized', message: 'Metrics are disabled (neither METRICS_TOKEN nor OPERATOR_TOKEN is set)' });
  });

  it('reads METRICS_TOKEN from the environment: optional, at least 24 characters', () => {
    // The engine of this test process (DATABASE_URL must match it, see env.ts).
    const base = { SECRET_KEY: 'x'.repeat(32), DATABASE_URL: process.env.DATABASE_URL };
    expect(parseEnv(base).METRICS_TOKEN).toBeUndefined();
    expect(parseEnv({ ...base, METRICS_TOKEN: '' }).METRICS_TOKEN).toBeUndefined();
    expect(parseEnv({ ...base, METRICS_TOKEN }).METRICS_TOKEN).toBe(METRICS_TOKEN);
    expect(() => parseEnv({ ...base, METRICS_TOKEN: 'short' })).toThrowError(EnvError);
    expect(() => parseEnv({ ...base, METRICS_TOKEN: 'short' })).toThrowError(/METRICS_TOKEN: must be at least 24 characters/);
  });

  it('is never rate limited, even when every per-address and per-partner limit is tiny', async () => {
    const t = createTestApp({ pageRateLimitPerMinute: 1, pagePostRateLimitPerMinute: 1, rateLimitPerMinute: 1 });
    for (let i = 0; i < 5; i++) expect((await scrape(t)).status).toBe(200);
  });
});

describe('GET /metrics: what it says', () => {
  it('counts requests by route template, never by raw path, with latency buckets and requests in flight', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await withEvent(t, p);
    for (let i = 0; i < 3; i++) expect((await t.request('GET', '/v1/events/tour', { key: p.keys.private })).status).toBe(200);
    expect((await t.request('GET', '/v1/events/no-such-event', { key: p.keys.private })).status).toBe(404);
    expect((await t.request('GET', '/v1/events/tour', { key: 'sk_wrong' })).status).toBe(401);
    expect((await t.request('GET', '/v1/no/such/route/tkt_123')).status).toBe(404);
    expect((await t.request('PUT', '/v1/events/tour', { key: p.keys.private, body: {} })).status).toBe(405);

    const text = await metricsText(t);
    const route = '/v1/events/:externalReferenceId';
    expect(sample(text, 'resale_http_requests_total', { method: 'GET', route, status: '200' })).toBe(3);
    expect(sample(text, 'resale_http_requests_total', { method: 'GET', route, status: '404' })).toBe(1);
    expect(sample(text, 'resale_http_requests_total', { method: 'GET', route, status: '401' })).toBe(1);
    expect(sample(text, 'resale_http_requests_total', { method: 'POST', route: '/v1/events', status: '200' })).toBe(1);
    expect(sample(text, 'resale_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(sample(text, 'resale_http_requests_total', { method: 'PUT', route: 'unmatched', status: '405' })).toBe(1);
    // No raw path, id or query ever becomes a label.
    expect(text).not.toContain('/v1/events/tour');
    expect(text).not.toContain('no-such-event');
    expect(text).not.toContain('tkt_123');

    expect(sample(text, 'resale_http_request_duration_seconds_count', { method: 'GET', route, status_class: '2xx' })).toBe(3);
    expect(sample(text, 'resale_http_request_duration_seconds_count', { method: 'GET', route, status_class: '4xx' })).toBe(2);
    expect(sample(text, 'resale_http_request_duration_seconds_bucket', { method: 'GET', route, status_class: '2xx', le: '+Inf' })).toBe(3);
    expect(sample(text, 'resale_http_request_duration_seconds_bucket', { method: 'GET', route, status_class: '2xx', le: '0.001' })).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'resale_http_request_duration_seconds_sum', { method: 'GET', route, status_class: '2xx' })).toBeGreaterThan(0);
    // The scrape itself is the one request in flight while it is answered.
    expect(sample(text, 'resale_http_requests_in_flight')).toBe(1);
    // …and the next scrape has counted the first.
    expect(sample(await metricsText(t), 'resale_http_requests_total', { method: 'GET', route: '/metrics', status: '200' })).toBe(1);
  });

  it('says whether the process can use its database (resale_database_available)', async () => {
    const t = createTestApp();
    await t.partner();
    expect(sample(await metricsText(t), 'resale_database_available')).toBe(1);
    availabilityOf(t.db)!.fail(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    expect(sample(await metricsText(t), 'resale_database_available')).toBe(0);
    await t.db.transact(async () => 1);
    expect(sample(await metricsText(t), 'resale_database_available')).toBe(1);
  });

  it('times root database calls by engine', async () => {
    const t = createTestApp();
    await t.partner();
    await t.db.transact(async (tx) => await tx.transact(async () => 1)); // a savepoint is part of its root's time, not a call of its own
    await t.db.read(() => 1);
    const text = await metricsText(t);
    expect(sample(text, 'resale_db_duration_seconds_count', { engine: ENGINE, call: 'transact' })).toBe(2);
    expect(sample(text, 'resale_db_duration_seconds_bucket', { engine: ENGINE, call: 'transact', le: '+Inf' })).toBe(2);
    // The scrape's own queue read is counted once it has ended.
    expect(sample(text, 'resale_db_duration_seconds_count', { engine: ENGINE, call: 'read' })).toBeGreaterThanOrEqual(1);
  });

  it('reports queue depths and the age of their oldest item on the test clock', async () => {
    const t = createTestApp();
    const p = await t.partner('Acme', { webhookUrl: 'http://127.0.0.1:9/never' });
    await withEvent(t, p);
    let text = await metricsText(t);
    for (const queue of ['ticket_jobs', 'webhooks', 'email', 'sms', 'payouts']) {
      expect(sample(text, 'resale_queue_depth', { queue }), queue).toBe(0);
      expect(sample(text, 'resale_queue_oldest_age_seconds', { queue }), queue).toBe(0);
    }

    const job = await t.request('POST', '/v1/tickets', { key: p.keys.private, body: [ticketBody('q1'), ticketBody('q2')] });
    expect(job.status).toBe(202);
    await t.db.transact(async (tx) => await t.deps.webhooks.enqueue(tx, p.id, shield('show-1')));
    t.clock.advance(90_000);
    await t.db.transact(async (tx) => await t.deps.webhooks.enqueue(tx, p.id, shield('show-2')));
    await t.request('POST', '/v1/tickets', { key: p.keys.private, body: [ticketBody('q3')] });
    t.clock.advance(30_000);

    text = await metricsText(t);
    expect(sample(text, 'resale_queue_depth', { queue: 'ticket_jobs' })).toBe(2);
    expect(sample(text, 'resale_queue_oldest_age_seconds', { queue: 'ticket_jobs' })).toBe(120);
    expect(sample(text, 'resale_queue_depth', { queue: 'webhooks' })).toBe(2);
    expect(sample(text, 'resale_queue_oldest_age_seconds', { queue: 'webhooks' })).toBe(120);
    expect(sample(text, 'resale_queue_depth', { queue: 'email' })).toBe(0);

    // Applied jobs leave the queue.
    await t.deps.ticketsIngest.drain(10_000);
    text = await metricsText(t);
    expect(sample(text, 'resale_queue_depth', { queue: 'ticket_jobs' })).toBe(0);
    expect(sample(text, 'resale_queue_oldest_age_seconds', { queue: 'ticket_jobs' })).toBe(0);
  });

  it('counts webhook outcomes where deliveries are recorded: delivered, failed attempt, skipped (once committed)', async () => {
    const rx = await receiver((n) => (n === 1 ? 503 : 200));
    const t = createTestApp();
    const p = await t.partner('Acme', { webhookUrl: rx.url, webhookEvents: ['ticketShield.updated'] });
    await t.db.transact(async (tx) => await t.deps.webhooks.enqueue(tx, p.id, shield('show-1')));
    // Not subscribed: stored as skipped, counted when its transaction commits…
    await t.db.transact(async (tx) => await t.deps.webhooks.enqueue(tx, p.id, { action: 'event.unlock', resourceKey: 'show:tour/show-1', data: { eventId: 'tour', showId: 'show-1' } }));
    // …and not at all when it rolls back.
    await expect(
      t.db.transact(async (tx) => {
        await t.deps.webhooks.enqueue(tx, p.id, { action: 'event.unlock', resourceKey: 'show:tour/show-2', data: { eventId: 'tour', showId: 'show-2' } });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');

    expect(await t.deps.webhooks.deliverDue()).toMatchObject({ attempted: 1, retrying: 1 });
    t.clock.advance(60_000);
    expect(await t.deps.webhooks.deliverDue()).toMatchObject({ attempted: 1, delivered: 1 });
    expect(rx.received).toHaveLength(2);

    const text = await metricsText(t);
    expect(sample(text, 'resale_webhook_outcomes_total', { outcome: 'delivered' })).toBe(1);
    expect(sample(text, 'resale_webhook_outcomes_total', { outcome: 'failed_attempt' })).toBe(1);
    expect(sample(text, 'resale_webhook_outcomes_total', { outcome: 'skipped' })).toBe(1);
    expect(sample(text, 'resale_webhook_outcomes_total', { outcome: 'gave_up' })).toBe(0);
    expect(sample(text, 'resale_queue_depth', { queue: 'webhooks' })).toBe(0);
  });

  it('counts buy intentions created, refused with their reason, cancelled and expired, each once and only when committed', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await withEvent(t, p);
    await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [ticketBody('s1', { buyer: 'seller@example.com' }), ticketBody('s2', { buyer: 'seller@example.com' })] });
    const a = await listing(t, p, 's1');
    const b = await listing(t, p, 's2');
    const buy = (items: string[], user = 'buyer@example.com') => t.request('POST', '/v1/marketplace/buyingflow/buyIntention', { key: p.keys.private, body: { items, user } });

    const first = await buy([a.id]);
    expect(first.status).toBe(200);
    // Taken meanwhile: its intention was opened, then rolled back with the refusal; only the refusal counts.
    expect((await buy([b.id, a.id], 'other@example.com')).status).toBe(409);
    expect((await buy([b.id], 'seller@example.com')).status).toBe(409);
    expect((await buy(['lst_unknown'])).status).toBe(404);
    expect((await t.request('DELETE', `/v1/marketplace/buyingflow/buyIntention/${first.body.data.id}`, { key: p.keys.private })).status).toBe(200);
    const second = await buy([b.id]);
    expect(second.status).toBe(200);
    t.clock.advance(3_600_000);
    expect(await t.deps.intentions.expireDue()).toBe(1);
    expect(await t.deps.intentions.expireDue()).toBe(0);

    const text = await metricsText(t);
    expect(sample(text, 'resale_buy_intentions_total', { outcome: 'created' })).toBe(2);
    expect(sample(text, 'resale_buy_intentions_total', { outcome: 'refused', reason: 'listing_unavailable' })).toBe(1);
    expect(sample(text, 'resale_buy_intentions_total', { outcome: 'refused', reason: 'own_listing' })).toBe(1);
    expect(sample(text, 'resale_buy_intentions_total', { outcome: 'refused', reason: 'not_found' })).toBe(1);
    expect(sample(text, 'resale_buy_intentions_total', { outcome: 'cancelled' })).toBe(1);
    expect(sample(text, 'resale_buy_intentions_total', { outcome: 'expired' })).toBe(1);
    expect(sample(text, 'resale_buy_intentions_total', { outcome: 'paid' })).toBe(0);
    expect(sample(text, 'resale_buy_intentions_total', { outcome: 'failed' })).toBe(0);
  });

  it('counts the buy access layer cache: a rebuild, then a hit for the identical call', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await withEvent(t, p, eventBody('tour', { shows: [showBody('show-1')] }));
    const buy = () => t.request('GET', '/v1/wrapper/accesslayer?type=buy&eventId=tour&showId=show-1', { key: p.keys.public });
    expect((await buy()).status).toBe(200);
    let text = await metricsText(t);
    expect(sample(text, 'resale_buy_accesslayer_cache_rebuilds_total')).toBe(1);
    expect(sample(text, 'resale_buy_accesslayer_cache_hits_total')).toBe(0);
    expect((await buy()).status).toBe(200);
    text = await metricsText(t);
    const counts = ['hits', 'rebuilds', 'checks'].map((n) => sample(text, `resale_buy_accesslayer_cache_${n}_total`));
    expect(counts).toEqual([1, 1, 0]);
    expect(sample(text, 'resale_http_requests_total', { method: 'GET', route: '/v1/wrapper/accesslayer', status: '200' })).toBe(2);
  });

  it('keeps one registry per app: two apps in one process count apart', async () => {
    const one = createTestApp();
    const two = createTestApp();
    await one.request('GET', '/healthz');
    await one.request('GET', '/healthz');
    await two.request('GET', '/healthz');
    expect(sample(await metricsText(one), 'resale_http_requests_total', { method: 'GET', route: '/healthz', status: '200' })).toBe(2);
    expect(sample(await metricsText(two), 'resale_http_requests_total', { method: 'GET', route: '/healthz', status: '200' })).toBe(1);
  });

  it('adds the process metrics (event-loop lag, CPU, memory) under their default names once main.ts asks for them', async () => {
    const t = createTestApp();
    expect(await metricsText(t)).not.toContain('nodejs_eventloop_lag_seconds');
    t.deps.metrics.collectProcessMetrics();
    t.deps.metrics.collectProcessMetrics();
    const text = await metricsText(t);
    for (const name of ['nodejs_eventloop_lag_seconds', 'nodejs_eventloop_lag_p99_seconds', 'process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes']) {
      expect(text, name).toMatch(new RegExp(`^${name} `, 'm'));
    }
  });
});
