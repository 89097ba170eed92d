import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, OPERATOR_TOKEN, type TestApp, type TestPartner } from './testing/harness.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TestBrowser } from './http/pages/auth/auth.testing.js';
import { SANDBOX_CARDS } from './domain/payments/payments.provider.js';
import { csrfTokenFor } from './domain/auth/auth.service.js';
import { sessions } from './domain/auth/auth.table.js';
import { desc } from 'drizzle-orm';
import type { PartnerSettingsPatch } from './domain/partners/partners.settings.js';
import type { AppConfig } from './lib/config.js';
import { channelListingBody, eventBody, priceDetailShowBody, showBody, ticketBody, withEvent } from './testing/factories.js';
import { sampler, type Doc, type Operation, type Schema } from './testing/openapi-schema.js';
import { everyRow, sqlRows, tableNames } from './testing/sql.js';
import { PayoutAccounts } from './domain/payouts/payouts.accounts.js';
import { HOSTED_PAGES, pagePathPattern } from './http/pages/registry.js';

/**
 * The whole HTTP surface against bad input: every operation of the OpenAPI document is called
 * with wrong keys, junk path and query values, and bodies built from its own request schema
 * with one field at a time replaced by a wrong value. Whatever the input, the answer is a 4xx
 * (or a success) in the envelope: never a 500, never a bare error, and a refused request
 * changes no row. Module tests check *which* error each endpoint gives; this one checks that
 * no input reaches an unhandled path.
 */


/** Markup that must never come back unescaped in a page, whether reflected at once or stored and shown later. */
const PROBE = '<script>alert(1)</script>';
/** Values that are wrong for almost any field: each replaces one field of a well-shaped body. */
const JUNK_VALUES: unknown[] = [null, '', 'x'.repeat(5_000), -1, 1e308, 0.5, true, [], {}, '\u0000', PROBE, '2026-02-30T25:61:00Z', ['x'], { x: [1] }];
/** Values for path segments and query parameters (already URL-encoded where needed). */
const JUNK_SEGMENTS = ['nope', encodeURIComponent(PROBE), '0', '-1', '1e999', 'x'.repeat(2_000), '%00', '%E2%80%AE', '..', '%25', '%F0%9F%8E%AB', '%20', 'null', '[]', 'tour', 'show-1', 't-1'];
/** Whole bodies that are wrong for any endpoint, sent raw. */
const JUNK_BODIES = ['', 'null', '[]', '"x"', '1', '{}', '{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"polluted":1}}}', '['.repeat(5_000) + ']'.repeat(5_000), '{"a":' + '1'.repeat(400) + '}', '\uFEFF{}'];

let t: TestApp;
let p: TestPartner;
let doc: Doc;
/** A plausible value of a schema of the document (see testing/openapi-schema.ts). */
let sample: (schema: Schema | undefined) => unknown;
/** The other partner of the fixture, with the same external ids as `p`. */
let q: TestPartner;
/** A channel listing of the fixture (show-2), for the endpoints that take listing ids. */
let listingId: string;

/**
 * A fresh app for each operation: some calls change what the next ones meet (a key rotation
 * makes every later call a 401, a cancellation every later ticket call a 404), so no
 * operation may run on what another one left behind.
 */
async function fixture(settings: PartnerSettingsPatch = {}, config: Partial<AppConfig> = {}) {
  // Rate limits would turn most of these calls into 429s before they reach validation.
  t = createTestApp({ rateLimitPerMinute: 1_000_000, ...config });
  p = await t.partner('Acme Tickets', settings);
  q = await t.partner('Other Tickets');
  listingId = await seed(p, 'The Big Tour 2026');
  // The other partner uses the same external ids (event, shows, ticket, channel listing): only
  // the partner tells them apart.
  await seed(q, 'Other Tour');
}

/** Event `tour` (shows show-1 and show-2), ticket t-1 and a channel listing for `partner`; answers the listing's id. */
async function seed(partner: TestPartner, title: string): Promise<string> {
  await withEvent(t, partner, eventBody('tour', { title, shows: [priceDetailShowBody('show-1'), showBody('show-2')] }));
  const sync = await t.request('POST', '/v1/sync/tickets', { key: partner.keys.private, body: [ticketBody('t-1')] });
  expect(sync.status).toBe(200);
  const listing = await t.request('POST', '/v1/channels/listings', { key: partner.keys.channels, body: channelListingBody() });
  expect(listing.status).toBe(200);
  return listing.body.data.id;
}

const lead = { type: 'WISHLIST', externalReferenceEventId: 'tour', showId: 'show-1', buyer: { email: 'wish@example.com' } };

/**
 * A body each endpoint accepts (checked: it answers 2xx on the fixture), with the query it
 * needs. Fields of it are then replaced one at a time, so the wrong value meets the services
 * behind validation, not only the schema. Endpoints not listed get a body built from their schema.
 */
const VALID: Record<string, () => { body: unknown; query?: string }> = {
  'POST /admin/v1/partners': () => ({ body: { name: 'Fuzz Tickets' } }),
  'PATCH /admin/v1/partners/{partnerId}': () => ({ body: { name: 'Renamed', settings: { allowedOrigins: ['https://acme.example'] } } }),
  'POST /admin/v1/partners/{partnerId}/keys/rotate': () => ({ body: { kind: 'private', graceSeconds: 60 } }),
  'POST /admin/v1/partners/{partnerId}/webhookSecret/rotate': () => ({ body: { graceSeconds: 3600 } }),
  'PUT /admin/v1/partners/{partnerId}/ticketShield': () => ({ body: { eventId: 'tour', showId: 'show-1', status: true } }),
  'POST /v1/events': () => ({ body: eventBody('tour-b') }),
  'PUT /v1/events': () => ({ body: eventBody('tour', { shows: [priceDetailShowBody('show-1'), showBody('show-2')] }) }),
  'POST /v1/rules': () => ({ body: [{ externalReferenceEventId: 'tour', showId: 'show-1', ticketOptionId: 'opt-field', ruleType: 'maxSell', rules: { maxTickets: 2 } }] }),
  'POST /v1/tickets': () => ({ body: [ticketBody('t-2')] }),
  'POST /v1/sync/tickets': () => ({ body: [ticketBody('t-3')] }),
  'POST /v1/tickets/batch/eventAdmission': () => ({ body: [{ ticketId: 't-1', entryDate: '2026-03-01T12:00:00Z' }] }),
  'PUT /v1/tickets/{ticketId}': () => ({ body: ticketBody('t-1', { price: 50 }) }),
  'POST /v1/delist': () => ({ body: { externalReferenceEventId: 'tour', showId: 'show-1' } }),
  'POST /v1/wrapper/accesslayer': () => ({ body: { user: 'fan@example.com', tickets: [{ eventId: 'tour', showId: 'show-1', ticketId: 't-1', ticketOptionId: 'opt-field' }] } }),
  'POST /v1/wrapper/accesslayer/bulk': () => ({ body: [{ eventId: 'tour', showIds: ['show-1'] }], query: 'type=buy' }),
  'POST /v1/marketplace/buyingflow/buyIntention': () => ({ body: { items: [listingId], user: 'buyer@example.com' } }),
  'POST /v1/marketplace/checkout/url': () => ({ body: { listingIds: [listingId] } }),
  'POST /v1/risk/evaluate': () => ({
    body: {
      customer: { id: 'user-1', firstName: 'Ana', lastName: 'García', address: { country: 'ES' }, createdAt: '2025-01-01T00:00:00Z', email: { address: 'ana@example.com', verified: true }, phone: { number: '+34600111222', verified: true } },
      device: { userId: 'user-1', sessionId: 'sess-1' },
      transaction: { id: 'tx-1', amount: 50, currency: 'EUR', action: 'resale_purchase', cardData: { bin: '424242', last4Digits: '4242', firstName: 'Ana', lastName: 'García', billingAddress: { country: 'ES' } } },
    },
  }),
  'POST /v1/risk/feedback': () => ({ body: { transactionId: 'tx-cb', userId: 'user-1', result: 'chargeback' } }),
  'PUT /v1/marketdata/events/{externalReferenceId}/inventory': () => ({ body: { capacity: 20_000, soldPercentage: 92.5 }, query: 'showId=show-1' }),
  'PUT /v1/marketdata/events/{externalReferenceId}/inventory/details': () => ({ body: { items: [{ ticketOptionId: 'opt-field', priceTypeId: 'pt-early', releasedTickets: 500 }] }, query: 'showId=show-1' }),
  'POST /v1/marketdata/users': () => ({ body: lead }),
  'POST /v1/marketdata/users/bulk': () => ({ body: { items: [lead] } }),
  'POST /v1/channels/listings': () => ({ body: channelListingBody({ externalListingId: 'rs-2' }) }),
  'PATCH /v1/channels/listings/{listingId}': () => ({ body: { price: 45 } }),
};

beforeAll(async () => {
  await fixture();
  doc = (await (await t.app.request('/v1/openapi.json')).json()) as Doc;
  sample = sampler(doc);
});

/** Every place in a value where one field can be replaced: paths of object keys and array indexes, to depth 4. */
function fieldPaths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (prefix.length >= 4 || value === null || typeof value !== 'object') return [];
  const keys = Array.isArray(value) ? value.map((_, i) => i).slice(0, 1) : Object.keys(value);
  return keys.flatMap((k) => {
    const path = [...prefix, k];
    return [path, ...fieldPaths((value as Record<string | number, unknown>)[k], path)];
  });
}

function withField(value: unknown, path: (string | number)[], replacement: unknown): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let at = copy;
  for (const k of path.slice(0, -1)) at = at[k] as Record<string | number, unknown>;
  at[path[path.length - 1]!] = replacement;
  return copy;
}

function keysFor(op: Operation): string[] {
  const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
  const keys: Record<string, string> = { privateKey: p.keys.private, publicKey: p.keys.public, channelsKey: p.keys.channels };
  return schemes.map((s) => (s === 'operatorToken' ? 'operator' : keys[s]!)).filter(Boolean);
}

/** `contentType`: sent instead of application/json; null sends none. */
type Call = { method: string; path: string; key: string | null; raw?: string; contentType?: string | null };
const problems: string[] = [];
beforeEach(() => {
  problems.length = 0;
});

/**
 * Every row of every table (or of `only` these) as one string (testing/sql.ts, `everyRow`):
 * a refused request must leave it unchanged ("nothing half-written"). `total_changes()` would
 * not do: it also counts writes that were rolled back.
 */
async function fingerprint(only?: string[]): Promise<string> {
  return await everyRow(t.db, only);
}

/** The body of the last answer `check` saw. */
let lastBody: any;

async function check(call: Call): Promise<number> {
  const before = await fingerprint();
  const res = await send(call);
  lastBody = res.body;
  const type = call.contentType === undefined ? '' : ` type=${call.contentType ?? 'none'}`;
  const label = `${call.method} ${call.path.slice(0, 160)} key=${call.key?.slice(0, 8) ?? 'none'}${type} body=${(call.raw ?? '').slice(0, 160)}`;
  if (res.status >= 500) problems.push(`${res.status} ${label}: ${JSON.stringify(res.body).slice(0, 300)}`);
  if (res.status >= 400 && (await fingerprint()) !== before) problems.push(`refused, yet wrote ${res.status} ${label}`);
  const body: unknown = res.body; // the harness gives a page's text when the answer is not JSON
  if (typeof body === 'string' && body.includes(PROBE)) problems.push(`unescaped markup ${res.status} ${label}`);
  const json = (res.headers.get('content-type') ?? '').includes('application/json');
  if (res.status >= 400 && json) {
    const b = res.body;
    const envelope = b && b.status === res.status && b.data === null && Array.isArray(b.errors) && b.errors.length > 0 && b.errors.every((e: { code?: unknown; message?: unknown }) => typeof e.code === 'string' && typeof e.message === 'string');
    if (!envelope) problems.push(`not an envelope ${res.status} ${label}: ${JSON.stringify(b).slice(0, 300)}`);
  }
  // Move past per-minute limits (the synchronous ticket endpoint allows 60 a minute).
  t.clock.advance(61_000);
  return res.status;
}

/** The request of a call, through the harness (JSON unless `contentType` says otherwise). */
async function send(call: Call) {
  if (call.contentType === undefined) {
    return t.request(call.method, call.path, { ...(call.key === 'operator' ? { operator: true } : { key: call.key }), ...(call.raw !== undefined ? { raw: call.raw } : {}) });
  }
  const headers: Record<string, string> = {};
  if (call.key === 'operator') headers.authorization = `Bearer ${OPERATOR_TOKEN}`;
  else if (call.key) headers.authorization = call.key;
  if (call.contentType !== null) headers['content-type'] = call.contentType;
  const res = await t.app.request(call.path, { method: call.method, headers, ...(call.raw !== undefined ? { body: call.raw } : {}) });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    // a page
  }
  return { status: res.status, body, headers: res.headers };
}

function operations() {
  return Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method: method.toUpperCase(), op })));
}

/** The path with each `{param}` filled: by `fill`, or by a value that exists for this partner. */
function fillPath(path: string, fill?: string): string {
  const known: Record<string, string> = { partnerId: p.id, externalReferenceId: 'tour', eventId: 'tour', ticketId: 't-1', listingId };
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => fill ?? known[name] ?? 'nope');
}

/**
 * What the mutations stored (markup in a title, a seat, a name) is shown escaped: in the market
 * pages of both shows, the ticket view and every e-mail queued.
 */
async function storedMarkupShownEscaped(after: string) {
  const view = (await t.request('GET', '/v1/tickets/t-1/url', { key: p.keys.private })).body.data;
  const pages = [`/market/${p.id}/tour?showId=show-1`, `/market/${p.id}/tour?showId=show-2`, ...(typeof view === 'string' ? [local(view)] : [])];
  for (const page of pages) {
    const res = await t.app.request(page);
    const html = await res.text();
    if (res.status >= 500) problems.push(`${res.status} GET ${page} after ${after}`);
    if (html.includes(PROBE)) problems.push(`unescaped markup in GET ${page} after ${after}`);
  }
  for (const m of await t.deps.messages.list({ limit: 500 })) if (m.html?.includes(PROBE)) problems.push(`unescaped markup in the e-mail "${m.subject}" after ${after}`);
}

// The time each sweep takes grows with the API (every operation, and the fixture before each);
// on PostgreSQL in CI they took 15 to 90 s, so each has a few times that, not a tight bound.
describe('the HTTP surface never answers 500', () => {
  it('with any key, including none, a garbage one and every wrong kind', async () => {
    for (const { path, method } of operations()) {
      await fixture();
      const allKeys = [null, 'garbage', 'Bearer ', 'sk_live_' + 'x'.repeat(40), p.keys.private, p.keys.public, p.keys.channels, 'operator'];
      for (const key of allKeys) await check({ method, path: fillPath(path), key, ...(method === 'GET' || method === 'DELETE' ? {} : { raw: '{}' }) });
    }
    expect(problems).toEqual([]);
  }, 180_000);

  it('with junk in every path parameter and every query parameter', async () => {
    for (const { path, method, op } of operations()) {
      await fixture();
      const key = keysFor(op)[0] ?? null;
      const raw = op.requestBody ? JSON.stringify(sample(op.requestBody.content['application/json']?.schema)) : undefined;
      const base = { method, key, ...(raw !== undefined ? { raw } : {}) };
      if (path.includes('{')) for (const seg of JUNK_SEGMENTS) await check({ ...base, path: fillPath(path, seg) });
      const query = (op.parameters ?? []).filter((x) => x.in === 'query').map((x) => x.name);
      for (const name of query) {
        for (const seg of JUNK_SEGMENTS) await check({ ...base, path: `${fillPath(path)}?${encodeURIComponent(name)}=${seg}` });
        await check({ ...base, path: `${fillPath(path)}?${encodeURIComponent(name)}=a&${encodeURIComponent(name)}=b` });
      }
    }
    expect(problems).toEqual([]);
  }, 180_000);

  it('with whole bodies of the wrong kind, and well-shaped bodies with one field wrong', async () => {
    for (const { path, method, op } of operations()) {
      if (!op.requestBody) continue;
      await fixture();
      const key = keysFor(op)[0] ?? null;
      const valid = VALID[`${method} ${path}`]?.();
      const target = fillPath(path) + (valid?.query ? `?${valid.query}` : '');
      for (const raw of JUNK_BODIES) await check({ method, path: target, key, raw });
      const shapes = [sample(op.requestBody.content['application/json']?.schema)];
      if (valid) {
        // The valid body first, on the untouched fixture: it must be accepted, or its mutations prove little.
        const accepted = await t.request(method, target, { ...(key === 'operator' ? { operator: true } : { key }), body: valid.body });
        if (accepted.status >= 300) problems.push(`valid body refused: ${method} ${target} ${accepted.status} ${JSON.stringify(accepted.body).slice(0, 300)}`);
        shapes.push(valid.body);
      }
      for (const shaped of shapes) {
        await check({ method, path: target, key, raw: JSON.stringify(shaped) });
        for (const field of fieldPaths(shaped)) {
          for (const junk of JUNK_VALUES) {
            const status = await check({ method, path: target, key, raw: JSON.stringify(withField(shaped, field, junk)) });
            // Markup accepted as text: wherever it is shown, it is shown escaped.
            if (junk === PROBE && status < 300) await storedMarkupShownEscaped(`${method} ${path} with ${field.join('.')} = ${PROBE}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  }, 300_000);

  it('on the pages (market, sell, checkout, ticket view, sign-in) with junk in their paths', async () => {
    await fixture();
    const pages = t.app.routes.filter((r) => r.method === 'GET' || r.method === 'POST').map((r) => ({ method: r.method, path: r.path })).filter((r) => !r.path.startsWith('/v1/') && !r.path.startsWith('/admin/') && !r.path.includes('*'));
    const seen = new Set<string>();
    for (const { method, path } of pages) {
      if (seen.has(method + path)) continue;
      seen.add(method + path);
      for (const seg of JUNK_SEGMENTS.slice(0, 11)) {
        const target = path.replace(/:[A-Za-z]+(\{[^}]*\})?/g, (m) => (m.startsWith(':partnerId') ? p.id : seg));
        await check({ method, path: target, key: null, ...(method === 'POST' ? { raw: '{}' } : {}) });
        await check({ method, path: `${target}?lang=${seg}&eventId=${seg}&showId=${seg}&returnTo=${seg}`, key: null });
      }
    }
    expect(problems).toEqual([]);
  }, 180_000);
});

/** 100,000 levels and more of objects with `leaf` inside. */
const nested = (levels: number, leaf = '1') => '{"a":'.repeat(levels) + leaf + '}'.repeat(levels);
/**
 * Bodies past the JSON limits (32 levels, 10,000 elements, 1,000 keys; checked on the text
 * before anything parses it), with the code every JSON route answers them with. Sent to a
 * service with the production body limit (5 MiB), where they all fit.
 */
const HOSTILE_BODIES: { name: string; raw: string; code: string }[] = [
  { name: '100,000 levels of objects', raw: nested(100_000), code: 'invalid_json' },
  { name: '100,000 levels of arrays', raw: '['.repeat(100_000) + ']'.repeat(100_000), code: 'invalid_json' },
  { name: '100,000 levels holding a control character', raw: '['.repeat(100_000) + '"\\u0000"' + ']'.repeat(100_000), code: 'invalid_json' },
  { name: '100,000 levels in a field', raw: `{"externalReferenceId":"tour","items":[${nested(100_000)}]}`, code: 'invalid_json' },
  { name: '33 levels, one past the limit', raw: nested(33), code: 'invalid_json' },
  { name: '200,000 elements', raw: `[${'0,'.repeat(199_999)}0]`, code: 'out_of_range' },
  { name: '200,000 elements in a field', raw: `{"items":[${'{},'.repeat(199_999)}{}]}`, code: 'out_of_range' },
  { name: '2,000 keys', raw: `{${Array.from({ length: 2_000 }, (_, i) => `"k${i}":${i}`).join(',')}}`, code: 'out_of_range' },
];
/** Content types no JSON endpoint takes, null for none at all. */
const NOT_JSON: (string | null)[] = ['application/json-patch+json', 'application/merge-patch+json', 'text/plain', 'application/xml', null, 'multipart/form-data', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded'];
/** What a hosted form may be sent as that it does not take (415), or cannot read (a multipart body without its boundary: 400). */
const NOT_A_FORM: { type: string | null; raw: string; status: number }[] = [
  { type: 'application/json', raw: '{"price":"40","_csrf":"x"}', status: 415 },
  { type: 'application/json', raw: nested(20_000), status: 415 }, // 120 KB: within the pages' fixture's body limit
  { type: 'application/json-patch+json', raw: '[{"op":"replace","path":"/price","value":1}]', status: 415 },
  { type: 'text/plain', raw: 'price=40', status: 415 },
  { type: 'application/xml', raw: '<price>40</price>', status: 415 },
  { type: null, raw: 'price=40', status: 415 },
  { type: 'multipart/form-data', raw: 'price=40', status: 400 },
  { type: 'multipart/form-data; boundary=x', raw: '--x\r\nContent-Disposition: form-data; name="price"\r\n\r\n40', status: 400 },
];

describe('the HTTP surface against deep, wide and odd bodies', () => {
  const BIG = { maxBodyBytes: 5 * 1024 * 1024 };
  const withBodies = () => operations().filter(({ method }) => method !== 'GET' && method !== 'HEAD');

  it('answers bodies nested 100,000 levels, one level past the limit, or 200,000 elements wide with a 400 on every operation, writing nothing', async () => {
    for (const { path, method, op } of withBodies()) {
      await fixture({}, BIG);
      const valid = VALID[`${method} ${path}`]?.();
      const target = fillPath(path) + (valid?.query ? `?${valid.query}` : '');
      for (const key of [keysFor(op)[0] ?? null, null]) {
        for (const { name, raw, code } of HOSTILE_BODIES) {
          const status = await check({ method, path: target, key, raw });
          if (status !== 400 || lastBody?.errors?.[0]?.code !== code) problems.push(`${method} ${target} with ${name}: ${status} ${JSON.stringify(lastBody).slice(0, 200)}, not 400 ${code}`);
        }
      }
    }
    expect(problems).toEqual([]);
  }, 120_000);

  it('answers 415 to a body that is not application/json (JSON Patch, text, XML, none, multipart, a form) on every operation, writing nothing', async () => {
    for (const { path, method, op } of withBodies()) {
      await fixture();
      const key = keysFor(op)[0] ?? null;
      const valid = VALID[`${method} ${path}`]?.();
      const target = fillPath(path) + (valid?.query ? `?${valid.query}` : '');
      // The body the endpoint would accept as JSON, so only the type is wrong.
      const raw = JSON.stringify(valid?.body ?? (op.requestBody ? sample(op.requestBody.content['application/json']?.schema) : { x: 1 }));
      for (const contentType of NOT_JSON) {
        const status = await check({ method, path: target, key, raw, contentType });
        if (status !== 415) problems.push(`${method} ${target} as ${contentType ?? 'no type'}: ${status}, not 415`);
      }
      // A JSON Patch of a big document: once a 500.
      const patch = JSON.stringify(Array.from({ length: 2_000 }, (_, i) => ({ op: 'replace', path: `/shows/${i}/title`, value: 'x'.repeat(60) })));
      if ((await check({ method, path: target, key, raw: patch, contentType: 'application/json-patch+json' })) !== 415) problems.push(`${method} ${target}: a JSON Patch was not refused with 415`);
    }
    expect(problems).toEqual([]);
  }, 120_000);

  it('answers every page form sent as JSON, text, XML, none or a malformed multipart body with a 4xx page, writing nothing', async () => {
    await fixture({}, BIG);
    const forms = [...new Set(t.app.routes.filter((r) => r.method === 'POST' && !r.path.startsWith('/v1/') && !r.path.startsWith('/admin/') && !r.path.includes('*')).map((r) => r.path))];
    expect(forms.length).toBeGreaterThan(5);
    for (const path of forms) {
      const target = path.replace(/:[A-Za-z]+(\{[^}]*\})?/g, (m) => (m.startsWith(':partnerId') ? p.id : m.startsWith(':action') ? 'price' : 'nope'));
      for (const { type, raw, status: expected } of NOT_A_FORM) {
        const status = await check({ method: 'POST', path: target, key: null, raw, contentType: type });
        if (status !== expected) problems.push(`POST ${target} as ${type ?? 'no type'}: ${status}, not ${expected}`);
      }
    }
    expect(problems).toEqual([]);
  }, 60_000);
});

/** Values a form field may receive from a hand-edited request. */
const JUNK_FORM = ['', 'x'.repeat(5_000), '-1', '1e309', 'NaN', '0.001', '99999999999999999999', PROBE, '\u0000', 'https://evil.example/'];

type Form = { action: string; fields: [string, string][] };

/** What a user types into the fields a page leaves empty, so that the unchanged form succeeds (a sale, a payment). */
const TYPED: Record<string, string> = { cardNumber: SANDBOX_CARDS.success, expiry: '12/30', cvc: '123', holderName: 'Ana García', iban: 'ES91 2100 0418 4502 0005 1332', price: '40' };

const decode = (v: string) => v.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#x27;|&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');
const local = (url: string) => url.replace(/^https?:\/\/resale\.test/, '');

/**
 * The POST forms of a page, each with the fields a browser would send (inputs, checked boxes,
 * first option of selects, textareas): one form per submit button, as only the clicked one is sent.
 */
function formsOf(html: string, pageUrl: string): Form[] {
  return [...html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)]
    .filter(([, attrs]) => /method="post"/i.test(attrs!))
    .flatMap(([, attrs, inner]) => {
      const fields: [string, string][] = [];
      for (const [tag] of inner!.matchAll(/<input\b[^>]*>/g)) {
        const name = /name="([^"]*)"/.exec(tag)?.[1];
        if (!name || (/type="(checkbox|radio)"/.test(tag) && !/checked/.test(tag))) continue;
        fields.push([decode(name), decode(/value="([^"]*)"/.exec(tag)?.[1] ?? '') || (TYPED[decode(name)] ?? '')]);
      }
      for (const [, name, options] of inner!.matchAll(/<select\b[^>]*name="([^"]*)"[^>]*>([\s\S]*?)<\/select>/g)) {
        fields.push([decode(name!), decode(/<option\b[^>]*value="([^"]*)"/.exec(options!)?.[1] ?? '')]);
      }
      for (const [, name, text] of inner!.matchAll(/<textarea\b[^>]*name="([^"]*)"[^>]*>([\s\S]*?)<\/textarea>/g)) fields.push([decode(name!), decode(text!)]);
      const action = local(decode(/action="([^"]*)"/.exec(attrs!)?.[1] ?? pageUrl));
      const buttons = [...inner!.matchAll(/<button\b[^>]*>/g)].flatMap(([tag]) => {
        const name = /name="([^"]*)"/.exec(tag)?.[1];
        return name ? [[decode(name), decode(/value="([^"]*)"/.exec(tag)?.[1] ?? '')] as [string, string]] : [];
      });
      return buttons.length === 0 ? [{ action, fields }] : buttons.map((button) => ({ action, fields: [...fields, button] }));
    });
}

/** The pages whose links the crawl follows: those of the page registry that a fan browses (`crawl`). */
const CRAWLED = pagePathPattern(HOSTED_PAGES.filter((page) => page.crawl));

/** Links of a page that stay on the service's pages (see {@link CRAWLED}). */
function linksOf(html: string): string[] {
  return [...html.matchAll(/href="([^"]*)"/g)].map(([, href]) => local(decode(href!))).filter((u) => CRAWLED.test(u));
}

describe('tenancy', () => {
  /**
   * What belongs to `partnerId`: every row that holds its id or the id of a row that does (a
   * show holds its event's id, a listing ticket its listing's), as text, and those ids.
   */
  async function holdings(partnerId: string) {
    const rows: { id: string | null; text: string }[] = [];
    for (const name of await tableNames(t.db)) {
      for (const r of await sqlRows(t.db, `select * from "${name}"`)) rows.push({ id: typeof r.id === 'string' ? r.id : null, text: `${name} ${JSON.stringify(r)}` });
    }
    const ids = new Set([partnerId]);
    const holds = (text: string) => [...ids].some((id) => text.includes(id));
    for (let grew = true; grew; ) {
      grew = false;
      for (const r of rows) {
        if (r.id && /^[a-z]+_[0-9a-z]{26}$/.test(r.id) && !ids.has(r.id) && holds(r.text)) {
          ids.add(r.id);
          grew = true;
        }
      }
    }
    return { ids, rows: new Set(rows.filter((r) => holds(r.text)).map((r) => r.text)) };
  }

  it('another partner, with the same external ids, reaches none of a partner’s data through any endpoint or key', async () => {
    for (const { path, method, op } of operations()) {
      if (path.startsWith('/admin/')) continue; // the operator reaches every partner by design
      await fixture();
      // A lead and a buy intention of partner p, for the endpoints that list them.
      expect((await t.request('POST', '/v1/marketdata/users', { key: p.keys.private, body: lead })).status).toBe(200);
      expect((await t.request('POST', '/v1/marketplace/buyingflow/buyIntention', { key: p.keys.private, body: { items: [listingId], user: 'buyer@example.com' } })).status).toBe(200);
      const valid = VALID[`${method} ${path}`]?.();
      // p's ids where the path and body name listings: the other partner must not reach them.
      const target = fillPath(path) + (valid?.query ? `?${valid.query}` : '');
      const body = valid?.body ?? (op.requestBody ? sample(op.requestBody.content['application/json']?.schema) : undefined);
      for (const key of [q.keys.private, q.keys.public, q.keys.channels]) {
        const before = await holdings(p.id);
        const res = await t.request(method, target, { key, ...(body !== undefined ? { body } : {}) });
        const label = `${method} ${target} with ${key.slice(0, 6)}… of the other partner: ${res.status}`;
        if (res.status >= 500) problems.push(`${label} ${JSON.stringify(res.body).slice(0, 200)}`);
        const after = await holdings(p.id);
        const changed = [...before.rows].filter((r) => !after.rows.has(r));
        const added = [...after.rows].filter((r) => !before.rows.has(r));
        if (changed.length > 0) problems.push(`${label} changed ${changed.map((r) => r.slice(0, 120)).join('; ')}`);
        if (added.length > 0) problems.push(`${label} wrote rows naming p's: ${added.map((r) => r.slice(0, 120)).join('; ')}`);
        // Nothing of p in the answer but what the request itself named.
        const text = JSON.stringify(res.body);
        const asked = target + JSON.stringify(body ?? '');
        const leaked = [...before.ids].filter((id) => text.includes(id) && !asked.includes(id));
        const title = text.includes('The Big Tour 2026') && !asked.includes('The Big Tour 2026');
        if (leaked.length > 0 || title) problems.push(`${label} answered p's ${leaked.join(', ') || 'event title'}: ${text.slice(0, 200)}`);
      }
    }
    expect(problems).toEqual([]);
  }, 300_000);
});

describe('the pages as a signed-in user', () => {
  /** The partner platform's ownership endpoint: fan@example.com owns t-1, and t-4 and t-5 of order o-1; nobody else owns anything. */
  async function withPlatform(run: () => Promise<void>) {
    const owned = [t1Record('t-1'), t1Record('t-4', 'o-1'), t1Record('t-5', 'o-1')];
    const platform = createServer((req, res) => {
      const user = new URL(req.url!, 'http://x').searchParams.get('user');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(user === 'fan@example.com' ? owned : []));
    });
    await new Promise<void>((r) => platform.listen(0, '127.0.0.1', r));
    try {
      await fixture({ ownershipUrl: `http://127.0.0.1:${(platform.address() as AddressInfo).port}/owned`, loginUrl: 'https://partner.example/login' });
      await run();
    } finally {
      platform.close();
    }
  }

  it('never answer 500: a crawl of what a fan reaches posts every form with each field missing, repeated or wrong', async () => {
    await withPlatform(crawlAndPost);
    expect(problems).toEqual([]);
  }, 120_000);

  it('let another signed-in user change none of the fan’s tickets, listings or orders, with valid CSRF tokens of their own', async () => {
    await withPlatform(async () => {
      const intruder = new TestBrowser(t.app, '203.0.113.9');
      const entry = (await t.request('GET', '/v1/marketplace/sellingflow/url/entrypoint?ticketId=t-1&loginTrust[user]=intruder@example.com', { key: p.keys.private })).body.data as string;
      const fan = await fanSession();
      await intruder.get(local(entry));
      const session = (await t.db.select().from(sessions).orderBy(desc(sessions.id)).limit(1))[0]!; // the intruder's: ids grow, the clock stands still
      const owned = async () => await fingerprint(['tickets', 'listings', 'listing_tickets', 'payouts', 'payout_accounts', 'buy_intentions']);
      /** Posts each form as the intruder, with a valid CSRF token of the intruder's session: everything must be refused, nothing change. */
      const replay = async (forms: Form[]) => {
        const before = await owned();
        for (const { action, fields } of forms) {
          const token = csrfTokenFor(session.csrfSecret, action.split('?')[0]!);
          const res = await intruder.post(action, new URLSearchParams(fields.map(([k, v]): [string, string] => [k, k === '_csrf' ? token : v])));
          if (res.status < 400) problems.push(`${res.status} for another user: POST ${action}`);
          // A refused CSRF token would stop the post before the owner checks this test is about.
          if (res.text.includes('This form has expired')) problems.push(`CSRF refused, the handler was not reached: POST ${action}`);
        }
        expect(await owned()).toBe(before);
      };
      // The seller's forms act on what the fan owns (the payout form acts on whoever posts it; buying is for anyone).
      const sellerForms = async () => [...(await fan.crawl()).values()].filter((f) => /^\/sell\/[^/]+\/(ticket|order|listings)\//.test(f.action));

      // Publishing the fan's tickets and order (preview and publish of each).
      const unpublished = await sellerForms();
      expect(unpublished.filter((f) => /\/(ticket\/t-1|order\/o-1)$/.test(f.action)).length).toBe(4); // t-1: preview, publish and the step-up before payout details (the fan came by a link); o-1: one form
      await replay(unpublished);
      // The fan publishes (as the pages give the forms, once it is known where to pay the fan); then changing or removing the listings.
      await t.db.transact(async (tx) => await new PayoutAccounts(t.deps).save(tx, p.id, (await t.deps.users.resolve(tx, p.id, { email: 'fan@example.com' })).id, { holderName: 'Fan', iban: 'DE89 3704 0044 0532 0130 00' }));
      for (const { action, fields } of unpublished.filter((f) => /\/(ticket\/t-1|order\/o-1)$/.test(f.action) && !f.fields.some(([k, v]) => k === 'intent' && v !== 'publish'))) {
        expect((await fan.post(action, fields)).status).toBe(303);
      }
      const live = (await sellerForms()).filter((f) => f.action.includes('/listings/'));
      expect(live.length).toBeGreaterThanOrEqual(4);
      await replay(live);
      const before = await owned();
      // The same forms work for their owner: the test would see a change.
      const remove = live.find((f) => /\/remove(\?|$)/.test(f.action))!;
      // Removing asks first: the confirmation page's form (confirm=1) is what removes.
      const asked = await fan.post(remove.action, remove.fields);
      expect(asked.status).toBe(200);
      expect(await owned()).toBe(before);
      const confirm = formsOf(asked.text, remove.action).find((f) => f.fields.some(([k, v]) => k === 'confirm' && v === '1'))!;
      await replay([confirm]);
      expect((await fan.post(confirm.action, confirm.fields)).status).toBe(303);
      expect(await owned()).not.toBe(before);
    });
    expect(problems).toEqual([]);
  }, 120_000);
});

const t1Record = (ticketId: string, orderId?: string) => ({ eventId: 'tour', showId: 'show-1', ticketId, ticketOptionId: 'opt-field', ...(orderId ? { orderId } : {}) });

/**
 * The fan's side of the pages: fan@example.com signed in through the API's signed entry URLs
 * (sell hub, market, checkout, ticket view, smart publish, order, payout), a crawl that follows
 * links and redirects between the service's pages and collects their forms, and posts.
 */
async function fanSession() {
  await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [ticketBody('t-4', { orderId: 'o-1' }), ticketBody('t-5', { orderId: 'o-1' })] });
  const forSale = await t.request('POST', '/v1/channels/listings', { key: p.keys.channels, body: channelListingBody({ externalListingId: 'rs-2' }) });
  expect(forSale.status).toBe(200);
  const starts = [
    (await t.request('GET', '/v1/marketplace/sellingflow/url/entrypoint?ticketId=t-1&loginTrust[user]=fan@example.com', { key: p.keys.private })).body.data,
    (await t.request('GET', `/v1/marketplace/buyingflow/url/entrypoint?externalReferenceEventId=tour&showId=show-2&returnTo=${encodeURIComponent('https://partner.example/ev')}&loginTrust[user]=fan@example.com`, { key: p.keys.private })).body.data,
    (await t.request('POST', '/v1/marketplace/checkout/url', { key: p.keys.private, body: { listingIds: [listingId] } })).body.data,
    (await t.request('GET', '/v1/tickets/t-1/url', { key: p.keys.private })).body.data,
    (await t.request('GET', '/v1/marketplace/smartPublish?email=fan@example.com', { key: p.keys.private })).body.data,
    (await t.request('GET', '/v1/marketplace/sellingflow/url/order/entrypoint?orderId=o-1', { key: p.keys.private })).body.data,
    `/sell/${p.id}/payout`,
  ].map((u) => local(typeof u === 'string' ? u : ''));
  expect(starts.every((u) => u.startsWith('/'))).toBe(true);

  const browser = new TestBrowser(t.app);
  // Each entry URL signs in afresh (a new session, new CSRF tokens): use them all first, so that
  // every form collected afterwards belongs to the session that posts it.
  for (const url of starts) {
    const res = await browser.get(url);
    if (res.status >= 500) problems.push(`${res.status} GET ${url}`);
  }
  const withoutToken = (u: string) => u.replace(/([?&])oneTimeToken=[^&]*&?/, '$1').replace(/[?&]$/, '');
  const known = new Set(starts.map(withoutToken));

  /** Visits every page reachable from the ones seen so far; answers the forms found, by action and fields. */
  async function crawl(): Promise<Map<string, Form>> {
    const queue = [...known];
    const visited = new Set<string>();
    const forms = new Map<string, Form>();
    while (queue.length > 0 && visited.size < 80) {
      const url = queue.shift()!;
      if (visited.has(url)) continue;
      visited.add(url);
      known.add(url);
      const res = await browser.get(url);
      if (res.status >= 500) problems.push(`${res.status} GET ${url}`);
      if (res.text.includes(PROBE)) problems.push(`unescaped markup ${res.status} GET ${url}`);
      if (res.location) queue.push(local(res.location));
      for (const link of linksOf(res.text)) queue.push(link);
      for (const form of formsOf(res.text, url)) forms.set(`${form.action} ${JSON.stringify(form.fields.filter(([k]) => k !== '_csrf'))}`, form);
    }
    return forms;
  }

  async function post(action: string, fields: [string, string][]) {
    const res = await browser.post(action, new URLSearchParams(fields));
    if (res.status >= 500) problems.push(`${res.status} POST ${action} ${JSON.stringify(fields).slice(0, 300)}: ${res.text.slice(0, 200)}`);
    if (res.text.includes(PROBE)) problems.push(`unescaped markup ${res.status} POST ${action} ${JSON.stringify(fields).slice(0, 300)}`);
    return res;
  }

  /** Posts `raw` to a form as `type` (none when null), with the session's cookies: refused with `expected`, nothing written. */
  async function postAs(action: string, type: string | null, raw: string, expected: number) {
    const before = await fingerprint();
    const cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await t.app.request(action, { method: 'POST', headers: { cookie, ...(type === null ? {} : { 'content-type': type }) }, body: raw }, { incoming: { socket: { remoteAddress: browser.ip } } });
    const label = `POST ${action} as ${type ?? 'no type'} ${raw.slice(0, 60)}`;
    if (res.status !== expected) problems.push(`${res.status}, not ${expected}: ${label}`);
    if ((await fingerprint()) !== before) problems.push(`refused, yet wrote: ${label}`);
  }

  return { crawl, post, postAs };
}

/**
 * Crawls what the fan reaches and posts every form with each field replaced by junk, missing,
 * repeated, or with an extra field. Twice: what the first round published (a listing, say) has
 * pages and forms of its own.
 */
async function crawlAndPost(): Promise<void> {
  const fan = await fanSession();
  const fuzzed = new Set<string>();
  for (let round = 0; round < 2; round++) {
    const forms = await fan.crawl();
    if (round === 0) {
      // The crawl must reach the forms that matter, or the rest proves little.
      const actions = [...forms.values()].map((f) => f.action);
      expect(actions.filter((a) => a.startsWith('/sell/')).length, actions.join(' ')).toBeGreaterThan(0);
      expect(actions.filter((a) => a.startsWith('/checkout/')).length, actions.join(' ')).toBeGreaterThan(0);
      expect(actions.filter((a) => a.startsWith('/market/')).length, actions.join(' ')).toBeGreaterThan(0);
    }
    for (const [id, { action, fields }] of forms) {
      if (fuzzed.has(id) || action.startsWith('/auth/logout')) continue;
      fuzzed.add(id);
      // Junk first: refused, it changes nothing. Then what may succeed (a repeated field, an
      // extra one: the form still makes sense), the unchanged form last, as a success (a sale,
      // a payment) changes what every later post meets.
      // The same fields in what a form is not sent as (JSON, text, none, …), with the session's valid CSRF token.
      const encoded = new URLSearchParams(fields).toString();
      for (const { type, raw, status } of NOT_A_FORM) await fan.postAs(action, type, raw.startsWith('{"price"') ? JSON.stringify(Object.fromEntries(fields)) : raw === 'price=40' ? encoded : raw, status);
      const fuzzable = fields.map((_, i) => i).filter((i) => fields[i]![0] !== '_csrf');
      for (const i of fuzzable) for (const junk of JUNK_FORM) await fan.post(action, fields.map((f, j) => (j === i ? [f[0], junk] : f)));
      for (const i of fuzzable) await fan.post(action, fields.filter((_, j) => j !== i));
      for (const i of fuzzable) await fan.post(action, [...fields, fields[i]!]);
      await fan.post(action, [...fields, ['unexpected', 'x']]);
      await fan.post(action, fields);
    }
  }
}
