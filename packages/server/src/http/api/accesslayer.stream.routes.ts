import { createRoute, z } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppDeps, AppEnv } from '../../context.js';
import { ok } from '../../lib/envelope.js';
import { hashSecret } from '../../lib/crypto.js';
import { ApiError } from '../../lib/errors.js';
import { issuesToEntries } from '../../lib/validation.js';
import { createRouter, envelope, ErrorEnvelopeSchema, errorResponses, refuseRepeatedQuery, SECURITY } from '../openapi.js';
import { partnerKey, presentedKey, takePartnerRate, type PartnerKeyOptions } from '../middleware/auth.js';
import { applyBrowserOrigin } from '../middleware/cors.js';
import { CachedKeyLookup } from '../../flows/accesslayer/accesslayer.buy.keys.js';
import { STOCK_HEARTBEAT_MS, STOCK_RETRY_MS, type ByeReason, type StockEvent, type StockListener, type StockStreams, type StockSubscription } from '../../flows/accesslayer/accesslayer.stream.js';
import { ShowStockSchema, StockStreamQuery } from '../../flows/accesslayer/accesslayer.stream.schemas.js';

/**
 * The live stock of the buy access layer as Server-Sent Events:
 * `GET /v1/wrapper/accesslayer/stream?type=buy&eventId&showId[&lang][&publicKey][&lastEventId]`.
 * The hub (flows/accesslayer/accesslayer.stream.ts) decides what to send and when; this file
 * checks the key and the query, and writes what the hub says as `text/event-stream`. The
 * protocol, as docs/api.md ("Buy access layer", Live stock) tells partners:
 *
 * - `retry: 3000` first, then `event: snapshot` (`id: <epoch>-<seq>`, `data:` the show's stock
 *   as JSON) unless `Last-Event-ID` (or `lastEventId`) names the stock still current, then
 *   `event: stock` with a greater id at every change, `: hb` every 15 s, and `event: bye`
 *   (`data: {"reason":"shutdown"|"gone"}`, no id) when the server ends the stream.
 * - Without `Accept: text/event-stream` (EventSource always sends it) the same stock answers
 *   once, as JSON in the envelope: a script can read it, and nothing waits on an answer that
 *   never ends.
 */

const PATH = '/v1/wrapper/accesslayer/stream';
/** The query parameter a browser's EventSource (which cannot send headers) puts the public key in. */
const KEY_PARAM = 'publicKey';
/**
 * What may wait unread in a stream's queue before it is dropped: a client that stopped reading
 * (a frozen tab behind a full TCP window) must not grow the server's memory. Dropped, it hears
 * nothing more and its body ends after what is queued (freed when its connection goes); a stock
 * event is about 1 kB, and an EventSource that reconnects gets a fresh snapshot.
 */
const MAX_QUEUED_BYTES = 256 * 1024;
const encoder = new TextEncoder();
const HEARTBEAT = encoder.encode(': hb\n\n');

/**
 * The stream's key check: the key in `Authorization` as on every access-layer call (public or
 * private, through `partnerKey`), or, for a browser's EventSource, the public key as
 * `?publicKey=`. A private or channels key there is refused (403) and logged without any of
 * its characters (a secret in a URL ends up in proxies' logs and browsers' histories: the
 * message says to rotate it); the request log never has the query. Both at once: 400.
 */
function streamKey(deps: AppDeps, keys: CachedKeyLookup): MiddlewareHandler<AppEnv> {
  const options: PartnerKeyOptions = keys.wrap(deps);
  const fromHeader = partnerKey(options, ['public', 'private'], 'streams');
  return async function streamKeyMiddleware(c, next) {
    const inUrl = c.req.query(KEY_PARAM);
    if (inUrl === undefined) return fromHeader(c, next);
    refuseRepeatedQuery(c, [KEY_PARAM]);
    if (presentedKey(c) !== null) {
      throw new ApiError(400, 'invalid_value', `Send the key once: in the Authorization header or as ${KEY_PARAM}, not both`, { path: KEY_PARAM, in: 'query' });
    }
    const found = options.partners.authenticate(inUrl);
    const auth = found instanceof Promise ? await found : found;
    if (!auth) throw new ApiError(401, 'unauthorized', 'The API key is not valid');
    if (auth.kind !== 'public') {
      deps.logger.warn({ requestId: c.get('requestId'), partnerId: auth.partner.id, kind: auth.kind }, `a ${auth.kind} key was sent in a URL (${KEY_PARAM}=): refused; the partner should rotate it`);
      throw new ApiError(403, 'forbidden_key_kind', `Only the public key may be sent in the URL (${KEY_PARAM}); this is a ${auth.kind} key, now in logs and browser histories: rotate it, and send secret keys in the Authorization header only`);
    }
    // What partnerKey does after its lookup: the partner's origins, its rate limit (of stream openings).
    applyBrowserOrigin(c, deps, auth);
    await takePartnerRate(deps, auth, 'streams');
    c.set('auth', auth);
    await next();
  };
}

/** Whether the client asked for `text/event-stream` (and did not refuse it with `q=0`). */
function wantsEventStream(c: Context<AppEnv>): boolean {
  const accept = c.req.header('accept');
  if (!accept) return false;
  return accept.split(',').some((part) => {
    const [type, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    return type === 'text/event-stream' && !params.some((p) => /^q\s*=\s*0(?:\.0*)?$/.test(p));
  });
}

/** One frame of the stream (the ids and JSON we write hold no line break). */
function frame(event: StockEvent | 'bye', data: string, id?: string): string {
  return `event: ${event}\n${id === undefined ? '' : `id: ${id}\n`}data: ${data}\n\n`;
}

/**
 * The bytes of the last stock frame: the hub tells every stream of a show the same frame one
 * after another, so it is encoded once for all of them (an id names one stock of one show, and
 * its JSON never changes). The bytes are only read by the streams' queues, never written.
 */
let lastFrame: { event: StockEvent; id: string; bytes: Uint8Array } | null = null;
function stockFrame(event: StockEvent, id: string, json: string): Uint8Array {
  if (lastFrame?.id !== id || lastFrame.event !== event) lastFrame = { event, id, bytes: encoder.encode(frame(event, json, id)) };
  return lastFrame.bytes;
}

/**
 * A response body the hub writes into through a {@link StockListener}: `retry:` first, then
 * whatever the hub says; ended by the hub (`bye`), by the client going away (the adapter
 * cancels the body: the subscription ends), or dropped when the client stops reading.
 */
function eventStream() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let subscription: StockSubscription | null = null;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    subscription?.end();
    try {
      controller.close();
    } catch {
      // Cancelled by the client already.
    }
  };
  const body = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        c.enqueue(encoder.encode(`retry: ${STOCK_RETRY_MS}\n\n`));
      },
      cancel() {
        ended = true;
        subscription?.end();
      },
    },
    { highWaterMark: MAX_QUEUED_BYTES, size: (chunk) => chunk.byteLength },
  );
  const write = (bytes: Uint8Array) => {
    if (ended) return;
    controller.enqueue(bytes);
    if ((controller.desiredSize ?? 0) <= 0) end();
  };
  const listener: StockListener = {
    stock: (event, id, json) => write(stockFrame(event, id, json)),
    heartbeat: () => write(HEARTBEAT),
    bye: (reason: ByeReason) => {
      write(encoder.encode(frame('bye', JSON.stringify({ reason }))));
      end();
    },
  };
  return {
    body,
    listener,
    /** Hands over the hub's subscription (the client may have gone meanwhile: then it ends at once). */
    attach(s: StockSubscription) {
      subscription = s;
      if (ended) s.end();
    },
  };
}

/**
 * The live stock stream of the buy access layer. Mount with
 * `app.route('/', stockStreamRoutes(deps, streams))`, `streams` sharing the GET routes'
 * {@link BuyAccessLayer} (app.ts) so both read one snapshot cache.
 */
export function stockStreamRoutes(deps: AppDeps, streams: StockStreams) {
  const app = createRouter();
  deps.metrics.watchStockStreams(streams);
  const keys = new CachedKeyLookup(deps, streams.buy.snapshots.counter);
  const authenticate = streamKey(deps, keys);

  const route = createRoute({
    method: 'get',
    path: PATH,
    operationId: 'buyAccessLayerStream',
    tags: ['Access layer'],
    summary: 'Live stock of a show (Server-Sent Events)',
    description:
      'The numbers of the buy access layer (`quantityForSale`, `floorPrice`, `reserved` per category and area, the show’s `enabled` and `totalCount`) as they change, so widgets update in place. ' +
      'With `Accept: text/event-stream` (a browser’s `EventSource` sends it): `retry: 3000` first, then `event: snapshot` with `id: <epoch>-<seq>` and `data:` the ShowStock JSON; then `event: stock` (same shape, a greater id) whenever the stock changes; ' +
      `a comment line \`: hb\` every ${STOCK_HEARTBEAT_MS / 1000} s; and \`event: bye\` with \`data: {"reason":"shutdown"}\` (the server is shutting down: reconnect, EventSource does after \`retry\`) or \`{"reason":"gone"}\` (the show or its partner no longer exists: a reconnection answers 404) or \`{"reason":"revoked"}\` (the key the stream was opened with was rotated away or revoked, seen within about a second: a reconnection with it answers 401) before the server ends a stream. ` +
      'Reconnecting with `Last-Event-ID` (EventSource sends it) or `lastEventId`: when the stock has not changed since that id, no snapshot is sent again; otherwise (an older stock, or an id of another server process or start) a `snapshot` comes first. ' +
      'Auth: the public (or private) key in `Authorization`, or, since EventSource cannot send headers, the public key as the query parameter `publicKey` (any other kind of key there: 403 `forbidden_key_kind`; both at once: 400). CORS as every public-key call: the partner’s `allowedOrigins`. ' +
      'Errors (unknown key 401, unknown event or show 404, bad query 400) answer in the JSON envelope before any stream starts; so does 503 with `Retry-After` when the server has its most streams open (`rate_limited`) or is shutting down (`not_ready`): EventSource does not retry a non-200 answer, so retry by hand after Retry-After (with `lastEventId`), reading GET /v1/wrapper/accesslayer meanwhile. ' +
      'Without `Accept: text/event-stream`, the current stock answers once as JSON.',
    security: [SECURITY.public, SECURITY.private, { publicKeyQuery: [] }],
    request: { query: StockStreamQuery },
    responses: {
      200: {
        description: 'The stream (text/event-stream), or the stock once (application/json) without `Accept: text/event-stream`',
        content: {
          'text/event-stream': {
            schema: z.string().openapi({
              description: 'Server-Sent Events: see the operation’s description. Each `data:` of `snapshot` and `stock` is a ShowStock as JSON, on one line.',
              example:
                'retry: 3000\n\nevent: snapshot\nid: 3f9a0c41d2e7-41\ndata: {"eventId":"tour-2026","showId":"show-1","enabled":true,"totalCount":6,"categories":[{"ticketOptionId":"opt-field","quantityForSale":6,"floorPrice":44,"currency":"EUR","enabled":true}],"areas":[{"area":"Field","quantityForSale":6,"floorPrice":44}]}\n\n' +
                ': hb\n\nevent: stock\nid: 3f9a0c41d2e7-42\ndata: {"eventId":"tour-2026","showId":"show-1","enabled":true,"totalCount":4,"categories":[{"ticketOptionId":"opt-field","quantityForSale":4,"floorPrice":44,"currency":"EUR","enabled":true,"reserved":{"tickets":2,"backAt":"2026-06-01T18:42:00.000Z","whose":"any"}}],"areas":[{"area":"Field","quantityForSale":4,"floorPrice":44}]}\n\n',
            }),
          },
          'application/json': { schema: envelope(ShowStockSchema) },
        },
      },
      ...errorResponses(404),
      503: {
        description: 'No stream now: this server has its most streams open (`rate_limited`, ACCESS_LAYER_MAX_STREAMS) or is shutting down (`not_ready`), or its database cannot be used (`database_unavailable`); retry after Retry-After',
        content: { 'application/json': { schema: ErrorEnvelopeSchema } },
      },
    },
  });
  app.openAPIRegistry.registerPath(route);
  // Validated by hand like the GET of the access layer (same schema, same entries as the routers' defaultHook).
  app.get(PATH, authenticate, async (c) => {
    const parsed = StockStreamQuery.safeParse(c.req.query());
    if (!parsed.success) throw ApiError.invalid(issuesToEntries(parsed.error.issues, 'query'));
    refuseRepeatedQuery(c, Object.keys(parsed.data));
    const q = parsed.data;
    const partner = c.get('auth').partner;
    const ref = { eventId: q.eventId, showId: q.showId };
    c.header('Cache-Control', 'no-store');
    c.header('Vary', 'Accept', { append: true });
    // HEAD included: Hono answers it with this handler and drops the body, which would leave a stream nobody reads.
    if (c.req.method !== 'GET' || !wantsEventStream(c)) return c.json(ok(await streams.current(partner, ref)), 200);
    const stream = eventStream();
    // Refusals (404, 503) throw here, before any byte of the stream: the usual JSON envelope.
    // The key is checked again while the stream is open (a rotation ends it): by its hash.
    const keyHash = hashSecret(c.req.query(KEY_PARAM) ?? presentedKey(c) ?? '');
    stream.attach(await streams.subscribe(partner, ref, c.req.header('last-event-id') ?? q.lastEventId, stream.listener, { keyHash }));
    // `X-Accel-Buffering: no`: nginx would otherwise hold events back. No compression (compression.ts leaves text/event-stream alone).
    return c.body(stream.body, 200, { 'Content-Type': 'text/event-stream', 'X-Accel-Buffering': 'no' });
  });
  return app;
}
