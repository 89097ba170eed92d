import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppDeps, AppEnv } from '../../context.js';
import { ok } from '../../lib/envelope.js';
import { ApiError } from '../../lib/errors.js';
import { issuesToEntries } from '../../lib/validation.js';
import { createRouter, envelope, errorResponses, jsonBody, jsonResponse, refuseRepeatedQuery, SECURITY } from '../openapi.js';
import { partnerKey } from '../middleware/auth.js';
import { acceptEncodingOf } from '../middleware/compression.js';
import { respondInTransaction } from '../middleware/idempotency.js';
import type { ApiKeyKind } from '../../domain/partners/partners.queries.js';
import { BuyAccessLayer, loginTrustSigning, type Signer } from '../../flows/accesslayer/accesslayer.buy.js';
import { addFastPath } from '../node-listener.js';
import { buyFastPath } from './accesslayer.buy.fast.js';
import { ANSWER_VARY, buyAnswer, PUBLIC_ANSWER_CACHE, SIGNED_ANSWER_CACHE } from './accesslayer.buy.answer.js';
import { CachedKeyLookup } from '../../flows/accesslayer/accesslayer.buy.keys.js';
import { BULK_LIMITS, BulkBody, BulkQuery, BulkResponse, BuyComponentsResponse, BuyQuery } from '../../flows/accesslayer/accesslayer.buy.schemas.js';

const LOGIN_TRUST = 'loginTrust[user]';
const unsigned: Signer = (url) => url;

/** The rendered answer as the route sends it (buyAnswer), `Vary` appended (CORS may have said `Origin` already). */
function sendAnswer(c: Context<AppEnv>, bytes: Uint8Array<ArrayBuffer>): Response {
  const answer = buyAnswer(bytes, c.req.header('if-none-match'), acceptEncodingOf(c));
  c.header('Vary', ANSWER_VARY, { append: true });
  return answer.body === null ? c.body(null, 304, answer.headers) : c.body(answer.body, 200, answer.headers);
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
  // The cached unsigned answers, served before the app sees the request (node-listener.ts).
  addFastPath(app, buyFastPath(deps, buy, keys));
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
