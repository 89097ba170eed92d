import { describe, expect, it, onTestFinished } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { desc } from 'drizzle-orm';
import { createTestApp, OPERATOR_TOKEN, type TestApp, type TestPartner } from './testing/harness.js';
import { channelListingBody, eventBody, priceDetailShowBody, showBody, ticketBody, withEvent } from './testing/factories.js';
import { TestBrowser } from './http/pages/auth/auth.testing.js';
import { csrfTokenFor } from './domain/auth/auth.service.js';
import { sessions } from './domain/auth/auth.table.js';
import { sampler, type Doc, type Operation } from './testing/openapi-schema.js';
import { everyRow } from './testing/sql.js';

/**
 * A seeded fuzz of the whole HTTP surface: every operation of the OpenAPI document and every
 * hosted form, with bodies built from valid ones and then mutated (nesting deep and just past
 * the limit, huge and odd numbers, wrong types, unicode, truncated text, duplicate keys,
 * prototype keys, huge arrays, bytes that are not UTF-8), and mutated headers (content types,
 * keys, idempotency keys, origins). It fails on any 5xx, on an API answer outside the
 * envelope, and on a refused API request that changed a row, printing the seed and each
 * request that failed.
 *
 * Deterministic: the same seed sends the same requests. `FUZZ_SEED=<n>` replays another
 * sequence, `FUZZ_COUNT=<n>` sends more (or fewer); the default is part of `npm test`.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed_2026);
const COUNT = Number(process.env.FUZZ_COUNT ?? 4_000);
/** A fresh fixture every this many requests: a rotated key or a cancelled show would otherwise turn the rest into 401s and 404s. */
const REFRESH_EVERY = 150;
/** Stop early (and say so) on a machine this slow; the sequence stays the same, only shorter. */
const TIME_BUDGET_MS = 100_000;

// ------------------------------------------------------------------ randomness

/** sfc32: a small, fast, well-distributed PRNG with a 128-bit state, seeded from one number. */
function prng(seed: number) {
  let a = 0x9e3779b9;
  let b = 0x243f6a88;
  let c = 0xb7e15162;
  let d = seed >>> 0;
  const next = () => {
    a |= 0;
    b |= 0;
    c |= 0;
    d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 15; i++) next();
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(list: readonly T[]): T => list[int(list.length)]!;
  const chance = (p: number) => next() < p;
  return { next, int, pick, chance };
}
type Rng = ReturnType<typeof prng>;

// ------------------------------------------------------------------ mutations

/** A junk value as URL text (a value may be an object whose own `toString` is junk too). */
const asText = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? 'null'));

/** A path segment: junk encoded, or raw percent sequences a decoder may choke on. */
const junkSegment = (rng: Rng): string =>
  rng.chance(0.5)
    ? encodeURIComponent(wellFormed(asText(junkValue(rng))).slice(0, 300))
    : rng.pick(['%', '%ZZ', '%00', '%E2%80', '%C0%AF', '%ED%A0%80', '%FF', '..', '%2e%2e', '%2F', '%25', '%20', 'x'.repeat(3_000)]);
/** `s` with lone surrogates replaced (encodeURIComponent throws on them). */
const wellFormed = (s: string) => new TextDecoder().decode(new TextEncoder().encode(s));

const nest = (levels: number, leaf: string, kind: 'object' | 'array') =>
  kind === 'object' ? '{"a":'.repeat(levels) + leaf + '}'.repeat(levels) : '['.repeat(levels) + leaf + ']'.repeat(levels);

const UNICODE = ['Gala 🎫', 'ŽŸÇ—“quoted”', 'مرحبا', '\u202Eevil\u202C', 'e\u0301\u0301\u0301', '\uFEFFbom', '𝕏'.repeat(300), '\ud800', '\udfff', 'ﷺ'.repeat(50), '\u2028\u2029', 'Ⅻ', '\u0000', '\u001b[31m', '\u0085', '\u007f', '%00', '../../etc/passwd', '<script>alert(1)</script>', "'; drop table events; --", '${7*7}', '{{7*7}}'];
const NUMBERS = [0, -0, -1, 1e308, -1e308, 5e-324, 2 ** 53 + 1, -(2 ** 63), 0.1 + 0.2, 1e21, 123456789.123456789, 10.555, 99999999999];
/** Number literals JSON.stringify cannot produce, spliced into the text. */
const NUMBER_TEXT = ['1e999', '-1e999', '1e-999', '123456789012345678901234567890', '-0', '0.0000000000000000001', '1E+2', '00', '01', '.5', '+1', 'NaN', 'Infinity', '0x10'];
const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'then'];

function junkValue(rng: Rng): unknown {
  switch (rng.int(10)) {
    case 0:
      return rng.pick(NUMBERS);
    case 1:
      return rng.pick(UNICODE);
    case 2:
      return 'x'.repeat(rng.pick([0, 1, 199, 200, 201, 256, 2_331, 2_332, 5_000, 100_000]));
    case 3:
      return rng.pick([null, true, false, [], {}, [null], [[]], { '': '' }]);
    case 4:
      return JSON.parse(nest(rng.pick([2, 10, 20, 29]), '1', rng.chance(0.5) ? 'object' : 'array')) as unknown;
    case 5:
      return Object.fromEntries([[rng.pick(PROTO_KEYS), { polluted: true }]]);
    case 6:
      return rng.pick(['2026-02-30T25:61:00Z', '2026-05-01T21:00:00', '1970-01-01T00:00:00Z', '9999-12-31T23:59:59Z', '-000001-01-01T00:00:00Z', '2026-05-01T21:00:00+99:99']);
    case 7:
      return rng.pick(['https://evil.example/', 'javascript:alert(1)', 'data:text/html,x', '//evil.example', 'http://[::1', 'ftp://x']);
    case 8:
      return Array.from({ length: rng.pick([1, 2, 21, 101, 501, 1_001]) }, () => rng.pick(['x', 1, null, {}]));
    default:
      return rng.pick(['', ' ', 'EUR', 'eur', 'XXX', 'LIVE', 'CANCELLED', 'show-1', 'tour', 't-1', 'opt-field', 'pt-early', 'fan@example.com', '+34600111222']);
  }
}

/** Every place of a value where a field can be replaced or removed (up to depth 5). */
function fieldPaths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (prefix.length >= 5 || value === null || typeof value !== 'object') return [];
  const keys = Array.isArray(value) ? Array.from({ length: value.length }, (_, i) => i) : Object.keys(value);
  return keys.flatMap((k) => [[...prefix, k], ...fieldPaths((value as Record<string | number, unknown>)[k], [...prefix, k])]);
}

function parentOf(root: unknown, path: (string | number)[]): Record<string | number, unknown> | null {
  let at = root as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) {
    at = at[k] as Record<string | number, unknown>;
    if (at === null || typeof at !== 'object') return null;
  }
  return at;
}

/** A structural mutation of a parsed value (a copy). */
function mutateValue(rng: Rng, base: unknown): unknown {
  let value = structuredClone(base);
  const paths = fieldPaths(value);
  const kind = rng.int(6);
  if (paths.length === 0 || kind === 5) return rng.chance(0.5) ? [value] : junkValue(rng);
  const path = rng.pick(paths);
  const parent = parentOf(value, path);
  if (!parent) return value;
  const key = path[path.length - 1]!;
  switch (kind) {
    case 0:
    case 1:
      parent[key] = junkValue(rng);
      break;
    case 2:
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else delete parent[key];
      break;
    case 3:
      // A prototype key or an unknown one beside the field; own property, as JSON.parse makes it.
      // (On an object: an array with an own `constructor` would break the array methods used here.)
      Object.defineProperty(Array.isArray(parent) ? (parent[key] = {}) : parent, rng.chance(0.6) ? rng.pick(PROTO_KEYS) : rng.pick(UNICODE), {
        value: junkValue(rng),
        enumerable: true,
        configurable: true,
        writable: true,
      });
      break;
    default:
      if (Array.isArray(parent[key])) (parent[key] as unknown[]).push(...Array.from({ length: rng.pick([1, 5, 100, 1_001, 5_001]) }, () => structuredClone((parent[key] as unknown[])[0] ?? 1)));
      else parent[key] = [parent[key], parent[key]];
  }
  if (rng.chance(0.1)) value = mutateValue(rng, value);
  return value;
}

/** A mutation of the JSON text itself: what JSON.stringify never writes. */
function mutateText(rng: Rng, text: string): string | Uint8Array {
  switch (rng.int(12)) {
    case 11: {
      // Deep nesting as the value of one field (metadata, props, …), the original value kept under another key.
      const colons = [...text.matchAll(/":/g)].map((m) => m.index! + 1);
      if (colons.length === 0) return text;
      const at = rng.pick(colons) + 1;
      const deep = nest(rng.pick([33, 1_000, 20_000, 100_000]), rng.chance(0.3) ? '"\\u0000"' : '1', rng.chance(0.5) ? 'object' : 'array');
      return `${text.slice(0, at)}${deep},"zz":${text.slice(at)}`;
    }
    case 0:
      return text.slice(0, rng.int(text.length)); // truncated
    case 1: {
      // A duplicate key: the first key of the first object again, with junk.
      const at = text.indexOf('{"');
      if (at < 0) return text;
      const end = text.indexOf('"', at + 2);
      return `${text.slice(0, at + 1)}${text.slice(at + 1, end + 1)}:${JSON.stringify(junkValue(rng)) ?? 'null'},${text.slice(at + 1)}`;
    }
    case 2: {
      // A number literal JSON.stringify cannot write, in place of the first number.
      const m = /:(-?\d+(\.\d+)?)/.exec(text);
      return m ? text.replace(m[0], `:${rng.pick(NUMBER_TEXT)}`) : `${text.slice(0, -1)},"n":${rng.pick(NUMBER_TEXT)}}`;
    }
    case 3:
      return nest(rng.pick([31, 32, 33, 64, 1_000, 20_000, 100_000]), rng.chance(0.3) ? '"\\u0000"' : text || '1', rng.chance(0.5) ? 'object' : 'array');
    case 4:
    {
      const item = text.length > 0 && text.length <= 40 ? text : rng.pick(['0', '{}', '"x"', 'null']);
      const n = rng.pick([10_000, 10_001, 50_000, 200_000]);
      return rng.chance(0.5) ? `[${`${item},`.repeat(n - 1)}${item}]` : `{"items":[${`${item},`.repeat(n - 1)}${item}]}`;
    }
    case 5:
      return rng.pick(['\uFEFF', ' \n\t', '\u00a0']) + text;
    case 6:
      return text + rng.pick([' x', '}', ']', ',', '\u0000', '//', '/* */']);
    case 7: {
      // Bytes that are not UTF-8 inside a string.
      const bytes = new TextEncoder().encode(text);
      const out = new Uint8Array(bytes.length + 2);
      const at = Math.max(1, rng.int(bytes.length));
      out.set(bytes.subarray(0, at));
      out.set([rng.pick([0xc3, 0xff, 0xed, 0x80]), rng.pick([0x28, 0xa0, 0xbf])], at);
      out.set(bytes.subarray(at), at + 2);
      return out;
    }
    case 8: {
      const at = rng.int(text.length);
      return text.slice(0, at) + String.fromCharCode(rng.pick([0x22, 0x5c, 0x7b, 0x7d, 0x5b, 0x5d, 0x3a, 0x2c, 0x00, 0x0a])) + text.slice(at + 1);
    }
    case 9:
      return text.replace(/"([^"\\]{1,40})"/, (_, s: string) => `"${s}\\u${rng.pick(['0000', 'd800', 'dfff', '001f', '007f', '0085', 'zzzz', '00'])}"`);
    default:
      return rng.pick(['', 'null', '[]', '{}', '"x"', '1', 'true', '[{}]', '{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"polluted":1}}}']);
  }
}

const CONTENT_TYPES = [
  'application/json',
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  'application/json;',
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/vnd.api+json',
  'text/plain',
  'text/json',
  'application/xml',
  'multipart/form-data',
  'multipart/form-data; boundary=----x',
  'application/x-www-form-urlencoded',
  'a/b/c',
  ';',
  'application/' + 'x'.repeat(2_000),
  null,
];

// ------------------------------------------------------------------ the surface

interface Fixture {
  t: TestApp;
  p: TestPartner;
  listingId: string;
  fan: TestBrowser;
  csrfSecret: string | null;
}

async function fixture(ownershipUrl: string): Promise<Fixture> {
  const t = createTestApp({ rateLimitPerMinute: 1_000_000, maxBodyBytes: 5 * 1024 * 1024 });
  const p = await t.partner('Acme Tickets', { allowedOrigins: ['https://acme.example'], ownershipUrl, loginUrl: 'https://partner.example/login' });
  await withEvent(t, p, eventBody('tour', { shows: [priceDetailShowBody('show-1'), showBody('show-2')] }));
  await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [ticketBody('t-1'), ticketBody('t-4', { orderId: 'o-1' })] });
  const listing = await t.request('POST', '/v1/channels/listings', { key: p.keys.channels, body: channelListingBody() });
  // A signed-in fan, so the hosted forms are reached past their sign-in, with valid CSRF tokens.
  const fan = new TestBrowser(t.app);
  const entry = (await t.request('GET', '/v1/marketplace/sellingflow/url/entrypoint?ticketId=t-1&loginTrust[user]=fan@example.com', { key: p.keys.private })).body.data;
  if (typeof entry === 'string') await fan.get(entry.replace(/^https?:\/\/resale\.test/, ''));
  const session = (await t.db.select().from(sessions).orderBy(desc(sessions.id)).limit(1))[0];
  return { t, p, listingId: listing.body.data?.id ?? 'lst_nope', fan, csrfSecret: session?.csrfSecret ?? null };
}

/** Bodies each endpoint accepts, the base of the mutations (others come from the schema). */
function validBodies(f: Fixture): Record<string, () => unknown> {
  const lead = { type: 'WISHLIST', externalReferenceEventId: 'tour', showId: 'show-1', buyer: { email: 'wish@example.com' }, metadata: { campaign: 'spring' } };
  return {
    'POST /v1/events': () => eventBody('tour-b', { seating: { svgCode: '<svg viewBox="0 0 10 10"><rect data-area="Field" width="5" height="5"/></svg>' } }),
    'PUT /v1/events': () => eventBody('tour', { shows: [priceDetailShowBody('show-1'), showBody('show-2')] }),
    'POST /v1/rules': () => [{ externalReferenceEventId: 'tour', showId: 'show-1', ticketOptionId: 'opt-field', ruleType: 'maxSell', rules: { maxTickets: 2 } }],
    'POST /v1/tickets': () => [ticketBody('t-2'), ticketBody('t-3', { buyer: { email: 'x@example.com', firstName: 'Ana' }, props: { seating: { row: '1', seat: '2' } } })],
    'POST /v1/sync/tickets': () => [ticketBody('t-3')],
    'POST /v1/tickets/batch/eventAdmission': () => [{ ticketId: 't-1', entryDate: '2026-03-01T12:00:00Z' }],
    'PUT /v1/tickets/{ticketId}': () => ticketBody('t-1', { price: 50 }),
    'POST /v1/delist': () => ({ externalReferenceEventId: 'tour', showId: 'show-1' }),
    'POST /v1/wrapper/accesslayer': () => ({ user: 'fan@example.com', tickets: [{ eventId: 'tour', showId: 'show-1', ticketId: 't-1', ticketOptionId: 'opt-field' }] }),
    'POST /v1/wrapper/accesslayer/bulk': () => [{ eventId: 'tour', showIds: ['show-1'] }],
    'POST /v1/marketplace/buyingflow/buyIntention': () => ({ items: [f.listingId], user: 'buyer@example.com' }),
    'POST /v1/marketplace/checkout/url': () => ({ listingIds: [f.listingId] }),
    'POST /v1/marketdata/users': () => lead,
    'POST /v1/marketdata/users/bulk': () => ({ items: [lead, { ...lead, buyer: { phone: '+34600111222' } }] }),
    'POST /v1/channels/listings': () => channelListingBody({ externalListingId: 'rs-2' }),
    'PATCH /v1/channels/listings/{listingId}': () => ({ price: 45 }),
    'POST /admin/v1/partners': () => ({ name: 'Fuzz Tickets' }),
    'PATCH /admin/v1/partners/{partnerId}': () => ({ name: 'Renamed', settings: { allowedOrigins: ['https://acme.example'] } }),
  };
}

/** The hosted forms with the fields their pages send. */
function pageForms(f: Fixture): { action: string; fields: Record<string, string> }[] {
  const id = f.p.id;
  return [
    { action: `/market/${id}/tour/buy`, fields: { listingId: f.listingId, showId: 'show-2', listingIds: f.listingId } },
    { action: `/sell/${id}/ticket/t-1`, fields: { price: '40', intent: 'preview' } },
    { action: `/sell/${id}/order/o-1`, fields: { price: '40' } },
    { action: `/sell/${id}/payout`, fields: { holderName: 'Ana García', iban: 'ES91 2100 0418 4502 0005 1332' } },
    { action: `/sell/${id}/listings/${f.listingId}/price`, fields: { price: '41' } },
    { action: `/checkout/${id}/bi_nope`, fields: { cardNumber: '4242 4242 4242 4242', expiry: '12/30', cvc: '123', holderName: 'Ana' } },
    { action: `/auth/otp?partnerId=${id}`, fields: { identifier: 'fan@example.com' } },
    { action: `/auth/otp/verify?partnerId=${id}`, fields: { code: '123456' } },
    { action: '/auth/logout', fields: {} },
  ];
}

// ------------------------------------------------------------------ checks

/** Every row of every table as one string: a refused API request must leave it as it was. */
async function fingerprint(t: TestApp): Promise<string> {
  return await everyRow(t.db);
}

function isEnvelope(status: number, body: any): boolean {
  if (body === null || typeof body !== 'object' || body.status !== status) return false;
  if (status >= 400) return body.data === null && Array.isArray(body.errors) && body.errors.length > 0 && body.errors.every((e: any) => typeof e?.code === 'string' && typeof e?.message === 'string');
  return body.errors === null && 'data' in body;
}

const describeBody = (body: string | Uint8Array | undefined) =>
  body === undefined ? 'none' : typeof body === 'string' ? `${JSON.stringify(body.slice(0, 300))}${body.length > 300 ? `… (${body.length} chars)` : ''}` : `bytes(${body.length}) ${JSON.stringify(new TextDecoder().decode(body.subarray(0, 200)))}`;

describe(`fuzz (FUZZ_SEED=${SEED}, FUZZ_COUNT=${COUNT})`, () => {
  it('no request, however mangled, answers 5xx or an API answer outside the envelope, and no refused API request writes', async () => {
    const rng = prng(SEED);
    const failures: string[] = [];
    const started = Date.now();
    // The partner platform's ownership endpoint (the sell forms check it live; without one they answer 503 by design).
    const owned = [
      { eventId: 'tour', showId: 'show-1', ticketId: 't-1', ticketOptionId: 'opt-field' },
      { eventId: 'tour', showId: 'show-1', ticketId: 't-4', ticketOptionId: 'opt-field', orderId: 'o-1' },
    ];
    const platform = createServer((req, res) => {
      const user = new URL(req.url!, 'http://x').searchParams.get('user');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(user === 'fan@example.com' ? owned : []));
    });
    await new Promise<void>((r) => platform.listen(0, '127.0.0.1', r));
    onTestFinished(() => new Promise<void>((r) => platform.close(() => r())));
    const ownershipUrl = `http://127.0.0.1:${(platform.address() as AddressInfo).port}/owned`;
    let f = await fixture(ownershipUrl);
    const doc = (await (await f.t.app.request('/v1/openapi.json')).json()) as Doc;
    const sample = sampler(doc);
    const ops = Object.entries(doc.paths).flatMap(([path, byMethod]) => Object.entries(byMethod).map(([method, op]) => ({ path, method: method.toUpperCase(), op })));
    let sent = 0;
    const statuses = new Map<number, number>();

    for (let i = 0; i < COUNT; i++) {
      if (Date.now() - started > TIME_BUDGET_MS) {
        console.warn(`fuzz: time budget spent after ${i} of ${COUNT} requests (FUZZ_SEED=${SEED})`);
        break;
      }
      if (i > 0 && i % REFRESH_EVERY === 0) f = await fixture(ownershipUrl);
      const { t, p } = f;
      const page = rng.chance(0.15);
      let method: string;
      let path: string;
      let isApi: boolean;
      let base: unknown;
      let auth: string | null = null;
      let answers: Operation['responses'];
      const headers: Record<string, string> = {};

      if (page) {
        const form = rng.pick(pageForms(f));
        method = 'POST';
        path = form.action;
        isApi = false;
        const fields = { ...form.fields };
        if (f.csrfSecret && rng.chance(0.8)) fields._csrf = csrfTokenFor(f.csrfSecret, path.split('?')[0]!);
        base = fields;
        const cookie = [...f.fan.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
        if (cookie && rng.chance(0.9)) headers.cookie = cookie;
      } else {
        const { path: template, method: m, op } = rng.pick(ops);
        method = m;
        isApi = true;
        answers = op.responses;
        const known: Record<string, string> = { partnerId: p.id, externalReferenceId: 'tour', eventId: 'tour', ticketId: 't-1', listingId: f.listingId, jobId: 'job_nope', leadId: 'lead_nope', intentionId: 'bi_nope', messageId: 'msg_nope' };
        path = template.replace(/\{([^}]+)\}/g, (_, name: string) => (rng.chance(0.9) ? (known[name] ?? 'nope') : junkSegment(rng)));
        const query = (op.parameters ?? []).filter((x) => x.in === 'query').map((x) => x.name);
        const defaults: Record<string, string> = { showId: 'show-1', externalReferenceEventId: 'tour', eventId: 'tour', type: 'buy', ticketId: 't-1', email: 'fan@example.com', lang: 'es', returnTo: 'https://partner.example/ev', orderId: 'o-1', sellerEmail: 'fan@example.com' };
        const params = query.filter(() => rng.chance(0.8)).map((name): [string, string] => [name, rng.chance(0.85) ? (defaults[name] ?? 'x') : asText(junkValue(rng)).slice(0, 500)]);
        if (params.length > 0) path += `?${new URLSearchParams(params)}`;
        const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
        const keys: Record<string, string> = { privateKey: p.keys.private, publicKey: p.keys.public, channelsKey: p.keys.channels, operatorToken: `Bearer ${OPERATOR_TOKEN}` };
        auth = rng.chance(0.85) && schemes.length > 0 ? keys[schemes[0]!]! : rng.pick([p.keys.private, p.keys.public, p.keys.channels, 'garbage', 'Bearer ', `Bearer ${'x'.repeat(5_000)}`, 'sk_live_\u00ff\u00fe']);
        const valid = validBodies(f)[`${m} ${template}`];
        base = valid ? valid() : op.requestBody ? sample(op.requestBody.content['application/json']?.schema) : undefined;
      }

      // The body: valid, structurally mutated, then perhaps mangled as text.
      let body: string | Uint8Array | undefined;
      if (method !== 'GET' && method !== 'HEAD' && (base !== undefined || rng.chance(0.3))) {
        const value = rng.chance(0.15) ? base : mutateValue(rng, base ?? {});
        if (page && rng.chance(0.5)) {
          const entries = Object.entries((value && typeof value === 'object' ? value : { v: value }) as Record<string, unknown>);
          body = new URLSearchParams(entries.map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : (JSON.stringify(v) ?? '')])).toString();
        } else {
          const text = JSON.stringify(value) ?? 'null';
          body = rng.chance(0.4) ? mutateText(rng, text) : text;
        }
      }
      // Headers: the type (mostly the right one), keys, an idempotency key, an origin.
      const rightType = page ? 'application/x-www-form-urlencoded' : 'application/json';
      const type = body === undefined ? null : rng.chance(0.7) ? rightType : rng.pick(CONTENT_TYPES);
      if (type !== null) headers['content-type'] = type;
      if (auth !== null) headers.authorization = auth;
      if (rng.chance(0.2)) headers['idempotency-key'] = rng.pick(['k-1', 'k-2', '', ' ', 'x'.repeat(256), 'ñ', `k-${rng.int(5)}`]);
      if (rng.chance(0.1)) headers.origin = rng.pick(['https://acme.example', 'https://evil.example', 'null', '']);
      if (rng.chance(0.05)) headers['x-forwarded-for'] = rng.pick(['1.2.3.4', 'garbage', '::1, 10.0.0.1', '']);

      const before = isApi ? await fingerprint(t) : '';
      let res: Response;
      try {
        res = await t.app.request(path, { method, headers, ...(body !== undefined ? { body } : {}) }, { incoming: { socket: { remoteAddress: '198.51.100.7' } } });
      } catch (err) {
        failures.push(`#${i} threw ${(err as Error).message}: ${method} ${path.slice(0, 200)} headers=${JSON.stringify(headers).slice(0, 300)} body=${describeBody(body)}`);
        continue;
      }
      sent++;
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      const text = await res.text();
      const label = `#${i} ${res.status} ${method} ${path.slice(0, 200)} headers=${JSON.stringify(headers).slice(0, 300)} body=${describeBody(body)}`;
      if (res.status >= 500) failures.push(`${label} answered ${text.slice(0, 300)}`);
      if (isApi) {
        let parsed: unknown = undefined;
        try {
          parsed = JSON.parse(text);
        } catch {
          // not JSON: outside the envelope (a 204 has no body)
        }
        // An answer documented in another type than JSON (GET /metrics: text/plain) is not an envelope.
        const answeredType = res.headers.get('content-type') ?? '';
        const documentedOther = Object.keys(answers?.[String(res.status)]?.content ?? {}).some((t) => t !== 'application/json' && answeredType.startsWith(t));
        if (res.status !== 204 && !documentedOther && !isEnvelope(res.status, parsed)) failures.push(`${label} outside the envelope: ${text.slice(0, 300)}`);
        if (res.status >= 400 && (await fingerprint(t)) !== before) failures.push(`${label} was refused, yet wrote`);
      }
      // Move past per-minute limits and expire what a clock expires.
      t.clock.advance(61_000);
    }

    console.info(`fuzz: ${sent} requests in ${Date.now() - started} ms (FUZZ_SEED=${SEED}); answers by status: ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
    expect(sent, `FUZZ_SEED=${SEED}`).toBeGreaterThan(Math.min(COUNT, 500));
    expect(failures, `FUZZ_SEED=${SEED}: ${failures.length} failing request(s)`).toEqual([]);
  }, 150_000);
});
