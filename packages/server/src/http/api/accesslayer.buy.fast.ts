import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from '@hono/zod-openapi';
import type { AppDeps } from '../../context.js';
import type { BuyAccessLayer } from '../../flows/accesslayer/accesslayer.buy.js';
import type { CachedKeyLookup } from '../../flows/accesslayer/accesslayer.buy.keys.js';
import { BuyQuery } from '../../flows/accesslayer/accesslayer.buy.schemas.js';
import type { Authenticated } from '../../domain/partners/partners.service.js';
import { keyOfAuthorization, takePartnerRate } from '../middleware/auth.js';
import { browserOriginVerdict, corsAnswerHeaders } from '../middleware/cors.js';
import { logRequest, nodeHeader, RequestIds } from '../middleware/request-context.js';
import type { FastPath } from '../node-listener.js';
import { ANSWER_VARY, buyAnswer } from './accesslayer.buy.answer.js';

/** The route's path and its template in the metrics. */
const PATH = '/v1/wrapper/accesslayer';
const PREFIX = PATH + '?';
/** The parameters a fast answer may carry (`loginTrust[user]` signs URLs: a transaction, never from memory). */
const PLAIN_PARAMS = new Set(['type', 'eventId', 'showId', 'lang']);
/** A value that means the same decoded or not (no `%`, no `+`): anything else is left to the route's parser. */
const PLAIN_VALUE = /^[A-Za-z0-9._~-]*$/;
/** Query strings kept parsed: an on-sale asks for a few shows many times; made-up ones cannot grow memory past this. */
const QUERY_MEMO_LIMIT = 1_000;

type Query = z.output<typeof BuyQuery>;

/** The fast path, with how many requests it answered itself since start (tests read it; the metrics count them with the route's). */
export interface BuyFastPath extends FastPath {
  answered: number;
}

/**
 * The query when it is one the fast path may answer (validated by the route's own schema,
 * {@link BuyQuery}), else null: a parameter the route would refuse, repeat or decode, and
 * `loginTrust[user]`, are the route's.
 */
function plainQuery(raw: string): Query | null {
  const record: Record<string, string> = {};
  for (const pair of raw.split('&')) {
    const eq = pair.indexOf('=');
    if (eq < 0) return null;
    const name = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    if (!PLAIN_PARAMS.has(name) || name in record || !PLAIN_VALUE.test(value)) return null;
    record[name] = value;
  }
  const parsed = BuyQuery.safeParse(record);
  return parsed.success ? parsed.data : null;
}

/**
 * The fast path of `GET /v1/wrapper/accesslayer` (see node-listener.ts): a cached, unsigned
 * answer served from memory with only what it needs, since an on-sale's page views ask for it
 * thousands of times a second (issue 34: at least 0.7 of a bare Hono handler serving the same
 * bytes). It answers when the request is a plain GET of the route (no body, a plain query, no
 * `loginTrust[user]`), its key is in the key cache and fresh, its origin is allowed, and the
 * show's answer is rendered in the snapshot cache; then it does what the app would have done:
 * request id, rate limit, CORS, `ETag`/`304`, cache headers, metrics and the log line, all from
 * the same functions as the route. Everything else (a miss, an error to answer, a refusal of
 * the rate limit) goes to the route, which answers it in full; a miss it saw starts the
 * snapshot's refresh, which the route's request joins.
 */
export function buyFastPath(deps: AppDeps, buy: BuyAccessLayer, keys: CachedKeyLookup): BuyFastPath {
  const ids = new RequestIds();
  const queries = new Map<string, Query | null>();

  function queryOf(raw: string): Query | null {
    let q = queries.get(raw);
    if (q === undefined) {
      q = plainQuery(raw);
      if (queries.size >= QUERY_MEMO_LIMIT) queries.delete(queries.keys().next().value!);
      queries.set(raw, q);
    }
    return q;
  }

  /** The answer's bytes from memory, or null (not cached, or an error the route must say). */
  function cachedBytes(auth: Authenticated, q: Query): Uint8Array<ArrayBuffer> | null {
    const version = keys.versionOf(auth);
    if (version === undefined) return null;
    try {
      const bytes = buy.showJson(auth.partner, { eventId: q.eventId, showId: q.showId }, q.lang ?? auth.partner.settings.defaultLang, version, true);
      if (bytes instanceof Promise) {
        // The refresh goes on; the route's request joins it (ShowSnapshots.entry) and says its outcome.
        bytes.catch(() => undefined);
        return null;
      }
      return bytes;
    } catch {
      return null;
    }
  }

  /** Writes the answer, as the route would with its middleware: request id, CORS for `corsOrigin`, metrics and the log line. */
  function respond(req: IncomingMessage, res: ServerResponse, bytes: Uint8Array<ArrayBuffer>, auth: Authenticated, corsOrigin: string | undefined, started: number): void {
    const headers = req.headers;
    const { id, refused } = ids.of(nodeHeader(headers, 'request-id'));
    const a = buyAnswer(bytes, nodeHeader(headers, 'if-none-match'), nodeHeader(headers, 'accept-encoding'));
    const cors = corsOrigin === undefined ? undefined : corsAnswerHeaders(corsOrigin);
    res.writeHead(a.status, { 'Request-Id': id, ...cors, Vary: cors ? 'Origin, ' + ANSWER_VARY : ANSWER_VARY, ...a.headers });
    fast.answered++;
    if (a.body === null) res.end();
    else res.end(a.body);
    deps.metrics.observeRequest('GET', PATH, a.status, (performance.now() - started) / 1000);
    logRequest(deps.logger, { requestId: id, method: 'GET', path: PATH, status: a.status, started, partnerId: auth.partner.id, traceparent: nodeHeader(headers, 'traceparent'), requestIdRefused: refused });
  }

  const fast = function buyAccessLayerFastPath(req: IncomingMessage, res: ServerResponse, next: () => void): void {
    const started = performance.now();
    const url = req.url;
    if (req.method !== 'GET' || url === undefined || !url.startsWith(PREFIX)) return next();
    const headers = req.headers;
    if (headers.host === undefined || headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0')) return next();
    const q = queryOf(url.slice(PREFIX.length));
    if (q === null) return next();
    const key = keyOfAuthorization(nodeHeader(headers, 'authorization'));
    const auth = key === null ? undefined : keys.cached(key);
    if (auth === undefined || auth.kind === 'channels') return next();
    const origin = nodeHeader(headers, 'origin');
    const verdict = browserOriginVerdict(origin, deps, auth);
    if (verdict === 'refused') return next();
    const bytes = cachedBytes(auth, q);
    if (bytes === null) return next();
    const limit = auth.partner.settings.rateLimitPerMinute ?? deps.config.rateLimitPerMinute;
    if (limit <= 0) return respond(req, res, bytes, auth, verdict === 'allowed' ? origin! : undefined, started);
    deps.metrics.inFlight++;
    // Refused: the route takes again (a refusal counts nothing) and answers the 429 with its Retry-After.
    takePartnerRate(deps, auth, 'api').then(
      () => {
        deps.metrics.inFlight--;
        try {
          respond(req, res, bytes, auth, verdict === 'allowed' ? origin! : undefined, started);
        } catch (err) {
          // Nothing here should throw: no unhandled rejection, the connection cut.
          deps.logger.error({ err: { message: (err as Error).message, stack: (err as Error).stack } }, 'the buy access layer fast path failed');
          res.destroy();
        }
      },
      () => {
        deps.metrics.inFlight--;
        next();
      },
    );
  } as BuyFastPath;
  fast.answered = 0;
  return fast;
}
