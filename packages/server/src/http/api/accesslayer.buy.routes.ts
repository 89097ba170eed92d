import { createRoute, z } from '@hono/zod-openapi';
import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import type { AppDeps, AppEnv } from '../../context.js';
import { ok } from '../../lib/envelope.js';
import { ApiError } from '../../lib/errors.js';
import { issuesToEntries } from '../../lib/validation.js';
import { createRouter, envelope, errorResponses, jsonBody, jsonResponse, refuseRepeatedQuery, SECURITY } from '../openapi.js';
import { partnerKey } from '../middleware/auth.js';
import { negotiateEncoding, type Encoding } from '../../lib/compression.js';
import { acceptEncodingOf } from '../middleware/compression.js';
import { respondInTransaction } from '../middleware/idempotency.js';
import type { ApiKeyKind } from '../../domain/partners/partners.queries.js';
import { BuyAccessLayer, loginTrustSigning, type Signer } from '../../flows/accesslayer/accesslayer.buy.js';
import { compressedAnswer } from '../../flows/accesslayer/accesslayer.buy.cache.js';
import { CachedKeyLookup } from '../../flows/accesslayer/accesslayer.buy.keys.js';
import { BULK_LIMITS, BulkBody, BulkQuery, BulkResponse, BuyComponentsResponse, BuyQuery } from '../../flows/accesslayer/accesslayer.buy.schemas.js';

const LOGIN_TRUST = 'loginTrust[user]';
const unsigned: Signer = (url) => url;
const JSON_HEADERS = { 'Content-Type': 'application/json' };
const ENCODED_HEADERS: Record<Encoding, Record<string, string>> = {
  br: { ...JSON_HEADERS, 'Content-Encoding': 'br' },
  gzip: { ...JSON_HEADERS, 'Content-Encoding': 'gzip' },
};
/** Below this, an answer goes as it is (the compression middleware's threshold). */
const COMPRESS_FROM = 1024;
const CODINGS: readonly Encoding[] = ['br', 'gzip'];
/** The last `Accept-Encoding` seen and its coding: browsers send the same few strings, so parsing is rare. */
let lastAccept: { header: string | undefined; coding: Encoding | 'identity' | null } = { header: undefined, coding: 'identity' };

/**
 * How long a partner's CDN (or the browser) may hold an unsigned answer: a couple of seconds
 * fresh, then served stale for a few more while it asks again. In an on-sale that turns every
 * page view of a show within those seconds into one request here; the numbers it shows are at
 * most that old, and the live stream (`…/stream`) corrects them in the widgets. `Vary:
 * Authorization` because the key names the partner (a cache keyed by the URL alone must not
 * serve one partner's answer to another's page); a signed answer (Login Trust) carries one-time
 * tokens and is never stored (`private, no-store`).
 */
export const PUBLIC_ANSWER_CACHE = 'public, max-age=2, stale-while-revalidate=10';
const SIGNED_ANSWER_CACHE = 'private, no-store';

/** A rendered answer's validator and its headers per coding, made once per bytes object (as its compressed forms are): a page view allocates none. */
interface Validated {
  etag: string;
  headers: Record<Encoding | 'identity', Record<string, string>>;
}
const validated = new WeakMap<Uint8Array, Validated>();
function validatedOf(bytes: Uint8Array): Validated {
  let v = validated.get(bytes);
  if (v === undefined) {
    // Weak: the same validator for every coding of the same JSON.
    const etag = `W/"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
    const more = { ETag: etag, 'Cache-Control': PUBLIC_ANSWER_CACHE };
    v = { etag, headers: { identity: { ...JSON_HEADERS, ...more }, br: { ...ENCODED_HEADERS.br, ...more }, gzip: { ...ENCODED_HEADERS.gzip, ...more } } };
    validated.set(bytes, v);
  }
  return v;
}

/**
 * Whether `If-None-Match` names `etag` (weak comparison, RFC 9110 §13.1.2: `W/` ignored on both
 * sides; `*` matches any current answer).
 */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const opaque = etag.startsWith('W/') ? etag.slice(2) : etag;
  for (const raw of header.split(',')) {
    const v = raw.trim();
    if (v === '*' || (v.startsWith('W/') ? v.slice(2) : v) === opaque) return true;
  }
  return false;
}

/**
 * A rendered answer in the coding the client prefers, the compressed one kept with the cached
 * answer (compressedAnswer): a page view compresses nothing. With nothing acceptable (not even
 * identity), identity: an answer is more use to a page than a 406. It carries its `ETag`; a
 * request whose `If-None-Match` names it gets `304` without a body (a poll of an unchanged show
 * costs a few bytes).
 */
function sendAnswer(c: Context<AppEnv>, bytes: Uint8Array<ArrayBuffer>): Response {
  const v = validatedOf(bytes);
  c.header('Vary', 'Accept-Encoding, Authorization', { append: true });
  if (noneMatch(c.req.header('if-none-match'), v.etag)) return c.body(null, 304, { ETag: v.etag, 'Cache-Control': PUBLIC_ANSWER_CACHE });
  let headers = v.headers.identity;
  let body = bytes;
  if (bytes.byteLength >= COMPRESS_FROM) {
    const header = acceptEncodingOf(c);
    if (lastAccept.header !== header) lastAccept = { header, coding: negotiateEncoding(header, CODINGS) };
    const coding = lastAccept.coding;
    if (coding !== 'identity' && coding !== null) {
      headers = v.headers[coding];
      body = compressedAnswer(bytes, coding);
    }
  }
  // Every answer varies on Accept-Encoding (so the compression middleware leaves it alone) and
  // on the key (appended above, as CORS may have said `Vary: Origin` already).
  // Said here, not left to the adapter: a HEAD answer (no body) carries its GET's length too.
  return c.body(body, 200, { ...headers, 'Content-Length': String(body.byteLength) });
}

/**
 * The query parsed by BuyQuery, with the same error entries as the routers' defaultHook: a
 * repeated parameter is refused too (`c.req.query()` reads first values only, cheaper than the
 * generic validator's every value; every value is read only when the query has `&`).
 */
function parseQuery(c: Context<AppEnv>): z.output<typeof BuyQuery> {
  const parsed = BuyQuery.safeParse(c.req.query());
  if (!parsed.success) throw ApiError.invalid(issuesToEntries(parsed.error.issues, 'query'));
  refuseRepeatedQuery(c, Object.keys(parsed.data));
  return parsed.data;
}

/** The public key is enough to look; signing URLs for a user (Login Trust) needs the private key. */
function keyKinds(c: Context<AppEnv>): readonly ApiKeyKind[] {
  return c.req.query(LOGIN_TRUST) === undefined ? ['public', 'private'] : ['private'];
}

/**
 * The smart access layer, buy mode: the components a partner renders on its event pages.
 * Mount with `app.route('/', buyAccessLayerRoutes(deps))`. One {@link BuyAccessLayer} (and
 * so one snapshot cache) per router.
 */
export function buyAccessLayerRoutes(deps: AppDeps, buy = new BuyAccessLayer(deps)) {
  const app = createRouter();
  deps.metrics.watchSnapshotCache(buy.snapshots);
  const keys = new CachedKeyLookup(deps, buy.snapshots.counter);
  const authenticate = partnerKey(keys.wrap(deps), keyKinds);
  const middleware = [authenticate];
  const security = [SECURITY.public, SECURITY.private];

  // The hottest endpoint (every partner event page): documented like every route, but validated
  // by hand with the same schema and the same error entries as the routers' defaultHook, which
  // saves the generic validator's overhead (about 15 µs a request, measured).
  const getRoute = createRoute({
    method: 'get',
    path: '/v1/wrapper/accesslayer',
    operationId: 'buyAccessLayer',
    tags: ['Access layer'],
    summary: 'Buy access layer: resale components for an event page',
    description:
      'Components in this order, those the partner has configured: buyBanner, buyModal, buyButton, categoriesList (one category per ticket option of the show, in its order, with tickets for sale and the floor price per ticket including the buyer fee), ' +
      'integratedMap (only for events with a seating chart whose offers carry an area). Do not render a component or category whose `visible` is false; show a call to action whose `enabled` is false as disabled ' +
      '(resale closed or nothing for sale). Ticket options the operator disabled are absent. Numbers are live: every listing change is reflected in the next answer. ' +
      'The public key is enough; with `loginTrust[user]` (private key only) every URL carries its own single-use oneTimeToken: never cache such an answer (it is sent `Cache-Control: private, no-store`). ' +
      `An unsigned answer carries an \`ETag\` (send it back as \`If-None-Match\`: an unchanged show answers \`304\` without a body) and \`Cache-Control: ${PUBLIC_ANSWER_CACHE}\` with \`Vary: Authorization\`, so a CDN in front of it may hold it a few seconds; its cache key must include the \`Authorization\` header (the key names the partner).`,
    security,
    request: {
      query: BuyQuery,
      headers: z.object({ 'if-none-match': z.string().optional().openapi({ description: 'The `ETag` of an answer held: `304` when it is still the current one.', example: 'W/"3q2-7Yc0HkYvVfQk2S3m8q1Xw2n4Lk5"' }) }),
    },
    responses: {
      200: jsonResponse(envelope(BuyComponentsResponse), 'The components'),
      304: { description: 'Not modified: `If-None-Match` names the current answer (no body; `ETag` and `Cache-Control` as on the 200).' },
      ...errorResponses(404),
    },
  });
  app.openAPIRegistry.registerPath(getRoute);
  app.get('/v1/wrapper/accesslayer', authenticate, (c): Response | Promise<Response> => {
    const q = parseQuery(c);
    const partner = c.get('auth').partner;
    const lang = q.lang ?? partner.settings.defaultLang;
    const ref = { eventId: q.eventId, showId: q.showId };
    const user = q[LOGIN_TRUST];
    if (user === undefined) {
      // The version the partner (and its settings) was read at, a few microseconds ago: the answer is
      // that moment's, and the rendered bytes may be kept with the snapshot. One change-counter read per request.
      const partnerVersion = keys.versionOf(c.get('auth'));
      const version = partnerVersion ?? buy.snapshots.counter.read();
      const bytes = buy.showJson(partner, ref, lang, version, partnerVersion !== undefined);
      return bytes instanceof Promise ? bytes.then((b) => sendAnswer(c, b)) : sendAnswer(c, bytes);
    }
    // Read before anything is written, so the tokens and user written below are forgiven (see accesslayer.buy.cache.ts).
    const version = buy.snapshots.counter.read();
    // Inside the transaction, so that no other request's writes are forgiven with these.
    c.header('Cache-Control', SIGNED_ANSWER_CACHE);
    return respondInTransaction(c, deps, 200, (tx) => buy.signing(() => loginTrustSigning(deps, tx, partner, user, (sign, userPk) => buy.show(partner, ref, lang, sign, version, tx, userPk))));
  });

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/wrapper/accesslayer/bulk',
      operationId: 'buyAccessLayerBulk',
      tags: ['Access layer'],
      summary: 'Buy access layer for many events and shows',
      description:
        `Send \`[{eventId, showIds}]\`, at most ${BULK_LIMITS.events} events and ${BULK_LIMITS.shows} shows in all. The answer has one entry \`{eventId, showId, components}\` per requested show, in request order, ` +
        'with only the buyBanner, buyModal and buyButton components; an unknown event or show (or another partner’s) answers an empty components list. ' +
        'With `loginTrust[user]` (private key only) every URL of every show carries its own single-use oneTimeToken.',
      security,
      middleware,
      request: { query: BulkQuery, body: jsonBody(BulkBody) },
      responses: { 200: jsonResponse(envelope(BulkResponse), 'Components per show'), ...errorResponses(413, 415) },
    }),
    async (c) => {
      const q = c.req.valid('query');
      const items = c.req.valid('json');
      const partner = c.get('auth').partner;
      const lang = q.lang ?? partner.settings.defaultLang;
      const user = q[LOGIN_TRUST];
      if (user === undefined) return c.json(ok(await buy.bulk(partner, items, lang, unsigned)), 200);
      const version = buy.snapshots.counter.read();
      c.header('Cache-Control', SIGNED_ANSWER_CACHE);
      return respondInTransaction(c, deps, 200, (tx) => buy.signing(() => loginTrustSigning(deps, tx, partner, user, (sign, userPk) => buy.bulk(partner, items, lang, sign, version, tx, userPk))));
    },
  );

  return app;
}
