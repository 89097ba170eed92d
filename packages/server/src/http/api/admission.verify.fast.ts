import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppDeps } from '../../context.js';
import { VerifyBody } from '../../domain/admission/admission.schemas.js';
import type { KeyHolder } from '../../domain/partners/partners.service.js';
import { scanTransactions } from '../../flows/admit-scan.js';
import { ok } from '../../lib/envelope.js';
import { keyOfAuthorization, takePartnerRate } from '../middleware/auth.js';
import { codedBody } from '../middleware/compression.js';
import { mayHoldControl } from '../middleware/control-chars.js';
import { logRequest, nodeHeader, RequestIds } from '../middleware/request-context.js';
import type { FastPath } from '../node-listener.js';
import { verifyAnswer } from './admission.answer.js';

/** The route's path, and its template in the metrics. */
const PATH = '/v1/tickets/admission/verify';
/**
 * The largest body it reads itself: a code of at most 2,000 characters and a show's two ids of
 * at most 200 each, in UTF-8 and escaped, fit; a bigger one is the route's (which refuses it).
 */
const MAX_BODY_BYTES = 16 * 1024;
const JSON_TYPE = 'application/json';

/** The fast path, with how many requests it answered itself since start (tests read it; the metrics count them with the route's). */
export interface VerifyFastPath extends FastPath {
  answered: number;
}

/**
 * The fast path of `POST /v1/tickets/admission/verify` (see node-listener.ts): a door's online
 * scan, which a show's gates send thousands of times a minute as it opens, answered without
 * Hono's Request, Response and middleware chain, which cost a scan as much as the scan itself
 * (measured: some 460 µs of the one thread a scan through the app, the target 200).
 *
 * It takes a request only when it is a plain one the route would answer 200: exactly the
 * route's path, `Content-Type: application/json`, a `Content-Length` (no chunked body) within
 * the service's limit and {@link MAX_BODY_BYTES}, no `Origin` (a browser's call: CORS is the
 * route's), no `Idempotency-Key` (its replay is the route's), and a key. It reads the body,
 * and leaves the request to the route (`next()`, the bytes read handed on as `rawBody`, which
 * @hono/node-server reads instead of the stream) whenever the route would say anything else:
 * a body that is not JSON, holds a control character or is not a valid {@link VerifyBody}; a
 * key that is unknown, expired or not a private key; the partner's rate limit refused (the
 * route takes again and answers 429: a refusal counts nothing); or an error in the scan
 * itself (a show named that the partner does not have: the scan wrote nothing, and the route
 * runs it again to answer the error in full).
 *
 * What the route's middleware would do, it does with the same functions: the request id, the
 * key looked up on every call (a revoked key is refused at once; only its holder is read,
 * PartnersService.keyHolder), the rate limit, the scan in the same group commit
 * (`scanTransactions`) and the same answer (`verifyAnswer`), compression, the metrics and the
 * log line. The key and the rate are taken in the scan's own transaction (a refusal throws,
 * so nothing is written): on SQLite a separate read would wait behind the group being written
 * and then cost its own BEGIN and ROLLBACK. Its test compares its answers with the app's.
 */
export function verifyFastPath(deps: AppDeps): VerifyFastPath {
  const ids = new RequestIds();
  const transact = scanTransactions(deps.db);
  const maxBody = Math.min(MAX_BODY_BYTES, deps.config.maxBodyBytes);

  /** The body's validated value, or null when the route must say what is wrong with it. */
  function bodyOf(bytes: Buffer) {
    const text = bytes.toString('utf8');
    if (mayHoldControl(text)) return null;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return null;
    }
    // A strict object of short strings: a body it accepts is also within the request's JSON limits.
    const parsed = VerifyBody.safeParse(value);
    return parsed.success ? parsed.data : null;
  }

  async function answer(req: IncomingMessage, res: ServerResponse, bytes: Buffer, key: string, started: number, handOver: () => void): Promise<void> {
    const body = bodyOf(bytes);
    if (body === null) return handOver();
    let scanned: { holder: KeyHolder; verdict: Awaited<ReturnType<typeof verifyAnswer>> };
    try {
      // The key, its rate and the scan in the scan's transaction (on SQLite, its savepoint in a
      // group): one trip through the connection's queue rather than a read and then a write.
      scanned = await transact(async (tx) => {
        const holder = await deps.partners.keyHolder(tx, key);
        if (holder === null || holder.kind !== 'private') throw new Error('the route answers 401 or 403');
        if ((holder.rateLimitPerMinute ?? deps.config.rateLimitPerMinute) > 0) await takePartnerRate(deps, holder, 'api');
        return { holder, verdict: await verifyAnswer(deps, tx, holder.partnerId, body) };
      });
    } catch {
      // Nothing was written (the savepoint, or its group, rolled back): the route runs it again
      // and answers the refusal or the error in full (a rate refusal counts nothing).
      return handOver();
    }
    const { holder, verdict } = scanned;
    const headers = req.headers;
    const { id, refused } = ids.of(nodeHeader(headers, 'request-id'));
    const json = Buffer.from(JSON.stringify(ok(verdict, 200)));
    const coded = await codedBody(json, nodeHeader(headers, 'accept-encoding'), null);
    res.writeHead(200, { 'Request-Id': id, 'Content-Type': JSON_TYPE, ...(coded?.headers ?? { 'Content-Length': String(json.byteLength) }) });
    res.end(coded?.body ?? json);
    fast.answered++;
    deps.metrics.observeRequest('POST', PATH, 200, (performance.now() - started) / 1000);
    logRequest(deps.logger, { requestId: id, method: 'POST', path: PATH, status: 200, started, partnerId: holder.partnerId, traceparent: nodeHeader(headers, 'traceparent'), requestIdRefused: refused });
  }

  const fast = function admissionVerifyFastPath(req: IncomingMessage, res: ServerResponse, next: () => void): void {
    if (req.method !== 'POST' || req.url !== PATH) return next();
    const headers = req.headers;
    const length = headers['content-length'];
    if (headers['transfer-encoding'] !== undefined || length === undefined || !/^\d{1,6}$/.test(length) || Number(length) > maxBody) return next();
    if (headers.origin !== undefined || headers['idempotency-key'] !== undefined) return next();
    const type = headers['content-type'];
    if (type === undefined || type.split(';', 1)[0]!.trim().toLowerCase() !== JSON_TYPE) return next();
    const key = keyOfAuthorization(nodeHeader(headers, 'authorization'));
    if (key === null) return next();

    const started = performance.now();
    deps.metrics.inFlight++;
    let settled = false;
    const done = () => {
      if (!settled) deps.metrics.inFlight--;
      settled = true;
    };
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('error', () => {
      done();
      res.destroy();
    });
    req.once('end', () => {
      const bytes = Buffer.concat(chunks);
      let handed = false;
      const handOver = () => {
        done();
        if (handed) return;
        handed = true;
        (req as IncomingMessage & { rawBody?: Buffer }).rawBody = bytes;
        next();
      };
      answer(req, res, bytes, key, started, handOver).then(done, (err: unknown) => {
        done();
        // Nothing above should throw once it answers; before, the route answers.
        if (res.headersSent) {
          deps.logger.error({ err: { message: (err as Error).message, stack: (err as Error).stack } }, 'the admission verify fast path failed');
          res.destroy();
        } else handOver();
      });
    });
  } as VerifyFastPath;
  fast.answered = 0;
  return fast;
}
